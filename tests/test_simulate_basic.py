"""Basic behaviour of flexlib.simulate and the result object: names, argument validation,
determinism and the .npz round trip."""
import math

import numpy as np
import pytest

from flexlib.params import BeamParams, Case, SlopeParams, paper_case
from flexlib.result import HISTORY_KEYS, load_result
from flexlib.simulate import MODELS, Simulator, canonical_model, simulate

T_SHORT = 0.34          # just past the first contact of case B (rigid rod: 0.33293 s)


# =========================================================================== names
@pytest.mark.parametrize("given, canonical", [("hybrid-coulomb", "hybrid_coulomb"),
                                              ("hybrid-lugre", "hybrid_lugre"),
                                              ("Hybrid-LuGre", "hybrid_lugre"),
                                              ("frictionless", "frictionless"),
                                              (" lugre ", "lugre")])
def test_model_ids_accept_hyphens(given, canonical):
    assert canonical_model(given) == canonical
    assert Simulator(paper_case("3.2"), given, 0.1).model == canonical


def test_simulate_with_hyphenated_model():
    r = simulate("3.2", "hybrid-coulomb", t_end=0.05)
    assert r.model == "hybrid_coulomb"
    assert r.success


@pytest.mark.parametrize("bad", ["coulomb", "hybrid", "frictonless", ""])
def test_unknown_model_lists_valid_names(bad):
    with pytest.raises(ValueError) as ei:
        simulate("3.2", bad, t_end=0.01)
    msg = str(ei.value)
    assert repr(bad) in msg or bad in msg
    for m in ("frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre"):
        assert m in msg


@pytest.mark.parametrize("bad", ["3.3", "C", "case B"])
def test_unknown_case_lists_valid_names(bad):
    with pytest.raises(ValueError) as ei:
        simulate(bad, "frictionless", t_end=0.01)
    msg = str(ei.value)
    assert "3.1" in msg and "3.2" in msg


# =========================================================================== t_end
@pytest.mark.parametrize("t_end", [0.0, -1.0, -1e-12, float("nan"), float("inf"), "abc", None])
def test_bad_t_end_rejected(t_end):
    with pytest.raises(ValueError, match="t_end"):
        simulate("3.2", "frictionless", t_end=t_end)


def test_t_end_respected():
    r = simulate("3.2", "frictionless", t_end=0.05)
    assert r.t[0] == 0.0
    assert r.t[-1] == pytest.approx(0.05, abs=1e-15)
    assert np.all(np.diff(r.t) >= 0)


# =========================================================================== initial state
@pytest.mark.parametrize("kw", [dict(theta0=0.0),                    # gap = sin(alpha)(X1 - 1) < 0
                                dict(theta0=0.1),                    # below theta_c = 0.15903
                                dict(X1=-2.0)])                       # slope origin left of the hinge
def test_start_below_slope_rejected(kw):
    case = paper_case("3.2").with_(**kw)
    sl = case.slope
    gap = math.sin(case.beam.theta0 - sl.alpha) * case.beam.L + sl.X1 * math.sin(sl.alpha)
    assert gap < 0          # the premise, from MODEL.md 5.1 (rigid beam, B = 0)
    with pytest.raises(ValueError, match="slope"):
        simulate(case, "frictionless", t_end=0.1)


def test_start_above_slope_accepted():
    r = simulate("3.2", "frictionless", t_end=0.01, theta0=0.2)     # theta_c = 0.15903 < 0.2
    assert r.success
    assert r.gap[0] > 0


# =========================================================================== determinism
@pytest.fixture(scope="module")
def short_run():
    return simulate("3.2", "frictionless", t_end=T_SHORT)


def test_determinism(short_run):
    r2 = simulate("3.2", "frictionless", t_end=T_SHORT)
    assert len(short_run.jumps) >= 1
    for k in HISTORY_KEYS:
        np.testing.assert_array_equal(getattr(short_run, k), getattr(r2, k), err_msg=k)
    assert short_run.jumps == r2.jumps
    assert [e["t"] for e in short_run.events] == [e["t"] for e in r2.events]


# =========================================================================== save / load
def test_save_load_roundtrip(short_run, tmp_path):
    path = tmp_path / "run.npz"
    short_run.save(path)
    r = load_result(path)
    assert r.model == short_run.model
    assert r.case == short_run.case
    assert r.success == short_run.success
    for k in short_run.h:
        np.testing.assert_array_equal(r.h[k], short_run.h[k], err_msg=k)
    assert len(r.impacts) == len(short_run.impacts) >= 1
    for a, b in zip(r.impacts, short_run.impacts):
        for key in ("t_start", "t_end", "duration", "episodes", "impulse", "peak_normal_force",
                    "energy_before", "energy_after", "jump_loss", "v_n_minus", "v_t_plus"):
            assert a[key] == pytest.approx(b[key], rel=1e-15, abs=0), key
    assert len(r.jumps) == len(short_run.jumps)
    for a, b in zip(r.jumps, short_run.jumps):
        for key in ("t", "impulse", "dE", "dT_direct", "v_n_minus", "v_t_minus", "v_t_plus"):
            assert a[key] == pytest.approx(b[key], rel=1e-15, abs=0), key
    assert r.audit_residual_max == short_run.audit_residual_max
    assert r.first_contact["t"] == short_run.first_contact["t"]
    assert r.E0 == short_run.E0
