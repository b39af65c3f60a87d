"""The mass matrix solved through its structure (``flexlib.multibody.structured``).

* The banded LU with partial pivoting agrees with NumPy on random banded matrices whose small
  diagonal forces row interchanges, to the condition number times the round-off.
* The augmented band system of a body and the bordered solve of the system give the same
  accelerations, outputs and kinetic energy as the dense LDL^T, on the free falling beam, the
  double pendulum (a child body whose frame origin rides on its parent's elastic coordinates) and
  the hinged beam on the slope with a constraint contact in CONTACT and in STICK (several
  right-hand sides), at random states: to round-off amplified by M's condition number.
* A whole run of the tilted falling beam lands the same way with either solve.
* The structure is used only where it is faster (finite-element bodies from
  ``STRUCTURED_MIN_NQ`` coordinates on), and a NaN state gives NaN, as the dense solve does.
"""
import numpy as np
import pytest

from flexlib.cases import build, simulate
from flexlib.multibody import kernel as K
from flexlib.multibody import structured as st
from flexlib.solver import linalg

EPS = np.finfo(float).eps


@pytest.mark.parametrize("n,kl", [(1, 1), (6, 1), (40, 3), (131, 7)])
def test_band_lu_agrees_with_numpy(n, kl):
    rng = np.random.default_rng(n)
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(max(0, i - kl), min(n, i + kl + 1)):
            A[i, j] = rng.normal()
    A[np.arange(n), np.arange(n)] *= 1e-3          # small pivots: rows must be interchanged
    AB = np.zeros((n, 3 * kl + 1))
    for i in range(n):
        for j in range(max(0, i - kl), min(n, i + kl + 1)):
            AB[i, j - i + kl] = A[i, j]
    piv = np.zeros(n, dtype=np.int64)
    assert linalg.band_lu_factor(AB, n, kl, piv)
    if n > 1:
        assert (piv != np.arange(n)).any()
    b = rng.normal(size=n)
    x = b.copy()
    linalg.band_lu_solve(AB, n, kl, piv, x)
    ref = np.linalg.solve(A, b)
    assert np.linalg.norm(x - ref) <= 10 * n * np.linalg.cond(A) * EPS * np.linalg.norm(ref)


def test_band_lu_reports_a_zero_pivot():
    AB = np.zeros((3, 4))
    assert not linalg.band_lu_factor(AB, 3, 1, np.zeros(3, dtype=np.int64))


def _pair(case, elements, monkeypatch):
    """(system, arrays solved dense, arrays solved by the structure) of a case."""
    system, _ = build(case, basis="fe", elements=elements)
    monkeypatch.setattr(st, "STRUCTURED_MIN_NQ", 10 ** 9)
    dense = system.arrays()
    monkeypatch.setattr(st, "STRUCTURED_MIN_NQ", 1)
    structured = system.arrays()
    assert structured.structured and not dense.structured
    return system, dense, structured


@pytest.mark.parametrize("case,elements,mode", [
    ("falling-beam", 16, 0), ("double-pendulum", 8, 0),
    ("beam-on-slope", 16, K.CONTACT), ("beam-on-slope", 16, K.STICK)])
def test_structured_solve_equals_the_dense_one(case, elements, mode, monkeypatch):
    system, S0, S1 = _pair(case, elements, monkeypatch)
    nq = S0.nq
    rng = np.random.default_rng(elements + mode)
    for _ in range(3):
        y = system.initial_state()
        y[:nq] += 0.01 * rng.normal(size=nq)
        y[nq:2 * nq] += 0.1 * rng.normal(size=nq)
        par = np.zeros(4 * len(system.contacts))
        par[K.D_MODE] = mode
        d0, o0 = K.phase_eval(0.0, y, par, S0)
        d1, o1 = K.phase_eval(0.0, y, par, S1)
        # M's condition number is 1e6-1e7 here: both solves carry its round-off
        a0, a1 = d0[nq:2 * nq], d1[nq:2 * nq]
        assert np.abs(a1 - a0).max() <= 1e-9 * np.abs(a0).max()
        assert np.abs(o1 - o0).max() <= 1e-9 * np.abs(o0).max()
        assert o1[K.O_T] == pytest.approx(o0[K.O_T], rel=1e-12)
        if mode:
            assert o0[K.O_C0 + K.OC_N] != 0.0      # the constraint was solved (a multiplier)


def test_a_nan_state_gives_nan(monkeypatch):
    system, _, S1 = _pair("falling-beam", 16, monkeypatch)
    y = system.initial_state()
    y[5] = np.nan
    dy, _ = K.phase_eval(0.0, y, np.zeros(4 * len(system.contacts)), S1)
    assert np.isnan(dy[S1.nq:2 * S1.nq]).all()


def test_a_run_lands_the_same_way(monkeypatch):
    kw = dict(basis="fe", elements=16, theta0=0.1, rtol=1e-3, method="Radau")
    out = []
    for threshold in (10 ** 9, 1):
        monkeypatch.setattr(st, "STRUCTURED_MIN_NQ", threshold)
        res = simulate("falling-beam", "continuous", 0.16, **kw)
        mm = res.mean_motion(res.sample([0.16]))
        out.append((np.array(mm["beam.v_cm"][0]), float(mm["beam.omega_mean"][0]),
                    sum(i["normal_impulse"] for i in res.impacts)))
    (v0, w0, p0), (v1, w1, p1) = out
    # two solves that differ by round-off move the penalty contacts' step sequence a little
    print("differences: v_cm", np.linalg.norm(v1 - v0) / np.linalg.norm(v0), "omega",
          abs(w1 / w0 - 1), "impulse", abs(p1 / p0 - 1))
    assert np.linalg.norm(v1 - v0) <= 1e-5 * np.linalg.norm(v0)
    assert w1 == pytest.approx(w0, rel=1e-5)
    assert p1 == pytest.approx(p0, rel=1e-5)


def test_where_the_structure_is_used():
    for elements, expect in ((16, False), (32, True)):
        system, _ = build("falling-beam", basis="fe", elements=elements)
        assert system.arrays().structured is expect
    system, _ = build("falling-beam", n_modes=3)           # a modal basis: dense
    assert not system.arrays().structured
    system, _ = build("double-pendulum", basis="fe", elements=16)    # 16 per link: nq 66
    assert system.arrays().structured
