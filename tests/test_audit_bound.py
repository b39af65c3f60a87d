"""The energy audit's scale and bound, shared by every case (flexlib.result.audit_scale).

The scale is the energy a run is given (initial kinetic and elastic energy, the largest work of
gravity and of the drives), so that energy a run creates shows in the residual; a run whose
residual exceeds the bound ends with success = False and a warning naming the audit.
"""
from __future__ import annotations

import numpy as np
import pytest

import flexlib
from flexlib.cases import simulate as simulate_system
from flexlib.result import AUDIT_BOUND, audit_scale, audit_verdict


def test_the_scale_does_not_grow_with_created_kinetic_energy():
    # a body at rest, 1 J of elastic energy, that the run turns into 1e5 J of kinetic energy
    T = np.array([0.0, 10.0, 1e5])
    V_E = np.array([1.0, 0.5, 0.0])
    V_G = np.array([-3.0, -3.0, -3.0])          # no height change: gravity does no work
    assert audit_scale(T, V_E, V_G, np.zeros(3)) == pytest.approx(1.0, rel=1e-15)


def test_the_scale_counts_gravitys_and_the_drives_work_not_the_reference_level():
    # falling 0.1 m with m g = 8 N (V_G from +0.8 J to 0), then a drive that puts in 2 J
    T = np.array([0.0, 0.8, 2.8])
    V_G = np.array([0.8, 0.0, 0.0])
    W_tau = np.array([0.0, 0.0, 2.0])
    s = audit_scale(T, np.zeros(3), V_G, W_tau)
    assert s == pytest.approx(2.8, rel=1e-15)
    # the same run with the potential's zero 100 m lower: the same scale
    assert audit_scale(T, np.zeros(3), V_G + 800.0, W_tau) == pytest.approx(s, rel=1e-12)


def test_the_verdict_is_the_bound():
    assert audit_verdict(0.9 * AUDIT_BOUND, 1.0) is None
    w = audit_verdict(3.0 * AUDIT_BOUND, 1.0)
    assert "energy audit" in w and "3e-06" in w


def _loose(case):
    if case == "3.2":
        return flexlib.simulate("3.2", "hybrid_coulomb", 0.5, rtol=1e-3)
    return simulate_system("falling-beam", "continuous", 0.16, theta0=0.1, rtol=1e-3)


@pytest.mark.parametrize("case", ["falling-beam", "3.2"])
def test_a_run_whose_books_do_not_close_says_so(case):
    """A loose tolerance (rtol 1e-3) through impacts leaves the books open by more than the
    bound; the run reaches t_end but reports success = False with the audit's warning, and its
    JSON summary says the same."""
    res = _loose(case)
    energy = res.summary()["energy"]
    resid, scale = energy["audit_residual_max"], energy["audit_scale"]
    assert resid > AUDIT_BOUND * scale, f"residual {resid:.3g} J of scale {scale:.3g} J"
    assert res.t_end == pytest.approx(0.5 if case == "3.2" else 0.16, rel=1e-12)
    assert res.success is False and res.summary()["success"] is False
    assert any("energy audit" in w for w in res.warnings)
    assert "energy audit" in res.message


@pytest.mark.parametrize("case", ["falling-beam", "3.2"])
def test_a_default_run_closes_its_books(case):
    res = (flexlib.simulate("3.2", "hybrid_coulomb", 0.5) if case == "3.2" else
           simulate_system("falling-beam", "continuous", 0.16, theta0=0.1))
    energy = res.summary()["energy"]
    assert res.success, res.message
    assert energy["audit_residual_max"] <= AUDIT_BOUND * energy["audit_scale"]
