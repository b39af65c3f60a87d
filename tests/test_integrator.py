"""The compiled DOP853 phase integrator (flexlib.solver.integrator) against scipy's DOP853.

* free flight (model free, and a contact model in FREE mode) over 0.3 s: final state as
  solve_ivp(method="DOP853", rtol=1e-10, atol=1e-12);
* every step and its dense output reproduced by one step of scipy's DOP853 class from the same
  (t, y, h);
* events: CONTACT-ON of case 3.2 (the scipy path finds it at 0.3329418709814074 s), the first
  contact phase up to SEPARATE, simultaneous events (bit mask), an event at the phase start;
* statuses and counters.
"""
import math

import numpy as np
import pytest
from scipy.integrate import DOP853, solve_ivp

from flexlib.solver import integrator, kernel
from flexlib.params import paper_case
from flexlib.solver.simulate import CONTACT, Simulator, _Disc, _RunLog

pytestmark = pytest.mark.skipif(not integrator.COMPILED,
                                reason="numba disabled (FLEXLIB_NO_NUMBA): the simulator keeps "
                                       "solve_ivp and the integrator would only be slow")

T_CONTACT_SCIPY = 0.3329418709814074      # CONTACT-ON of case 3.2, frictionless, scipy path
MODEL_CODE = {"free": 0, "frictionless": 1}


@pytest.fixture(scope="module")
def case():
    return paper_case("3.2")


@pytest.fixture(scope="module")
def sims(case):
    return {m: Simulator(case, m, 2.0) for m in MODEL_CODE}


def y_start(sim):
    y0 = np.zeros(2 * sim.nd + 5)
    y0[0] = math.pi / 4
    return y0


def solve(sim, t0, y0, t_end, d=None, **kw):
    d = d or _Disc()
    return integrator.solve_phase(t0, y0, t_end, d.mode, sim._model_code, sim._mult_code,
                                  sim._par(d), sim._arrs, **kw)


@pytest.fixture(scope="module")
def first_contact(sims):
    """FREE phase of case 3.2 (frictionless) with the simulator's tolerances up to CONTACT-ON."""
    sim = sims["frictionless"]
    sol = solve(sim, 0.0, y_start(sim), 2.0, rtol=sim.sol.rtol, atol=sim.atol,
                max_step=sim.sol.max_step_free, events=["CONTACT-ON"])
    return sim, sol


# =========================================================================== free flight
@pytest.mark.parametrize("model", ["free", "frictionless"])
def test_free_flight_matches_scipy(sims, model):
    sim = sims[model]
    y0 = y_start(sim)
    sol = solve(sim, 0.0, y0, 0.3, rtol=1e-10, atol=1e-12)
    ref = solve_ivp(sim.rhs_for(_Disc()), (0.0, 0.3), y0, method="DOP853", rtol=1e-10,
                    atol=1e-12)
    assert sol.status == 0 and sol.success and ref.status == 0
    assert sol.t[0] == 0.0 and sol.t[-1] == 0.3
    assert sol.y.shape == (len(y0), len(sol.t))
    np.testing.assert_allclose(sol.y[:, -1], ref.y[:, -1], rtol=1e-8, atol=1e-10)
    # the same step-size control: the step counts agree closely (round-off in the error
    # estimate moves individual steps by ~1e-6 relative)
    assert abs(sol.n_steps - (len(ref.t) - 1)) <= max(3, 0.01 * sol.n_steps)
    assert sol.nfev == 1 + 1 + 15 * sol.n_steps + 12 * sol.n_rejected


def test_steps_and_dense_output_match_scipy_step_by_step(first_contact):
    """Each step (t_i, y_i, h_i) taken again by scipy's DOP853: the same y_{i+1} and the same
    7th-order interpolant inside the step."""
    sim, sol = first_contact
    fun = sim.rhs_for(_Disc())
    n = sol.n_steps
    for i in sorted({0, 1, 2, n // 3, n // 2, n - 3, n - 2}):
        t0, t1, h = sol.t[i], sol.t[i + 1], sol.hs[i]
        y0 = sol.y[:, i]
        ref = DOP853(fun, t0, y0, sol.t[-1] + 1.0, first_step=h, max_step=h, rtol=1e-3,
                     atol=1e-3)
        ref.step()
        assert ref.t == t0 + h
        if i < n - 1:
            assert t1 == ref.t
            np.testing.assert_allclose(sol.y[:, i + 1], ref.y, rtol=1e-13, atol=1e-18)
        dense = ref.dense_output()
        tq = t0 + h * np.linspace(0.0, 1.0, 9)[1:-1]
        tq = tq[tq < t1]
        np.testing.assert_allclose(sol(tq), dense(tq), rtol=1e-12, atol=1e-18)


def test_dense_output_against_scipy_solution(first_contact):
    sim, sol = first_contact
    ref = solve_ivp(sim.rhs_for(_Disc()), (0.0, sol.t[-1]), sol.y[:, 0], method="DOP853",
                    rtol=sim.sol.rtol, atol=sim.atol, max_step=sim.sol.max_step_free,
                    dense_output=True)
    tq = np.linspace(0.0, sol.t[-1], 1001)
    mine, theirs = sol(tq), ref.sol(tq)
    assert mine.shape == theirs.shape == (sol.y.shape[0], len(tq))
    scale = np.abs(theirs).max(axis=1, keepdims=True) + 1e-10
    assert np.max(np.abs(mine - theirs) / scale) < 1e-6
    # at the step points the interpolant gives the step values (scipy's segment choice)
    np.testing.assert_allclose(sol(sol.t[:-1]), sol.y[:, :-1], rtol=1e-14, atol=1e-18)
    assert sol(sol.t[5]).shape == (sol.y.shape[0],)


def test_dense_false_changes_only_the_interpolant(first_contact):
    sim, sol = first_contact
    lean = solve(sim, 0.0, sol.y[:, 0], 2.0, rtol=sim.sol.rtol, atol=sim.atol,
                 max_step=sim.sol.max_step_free, events=["CONTACT-ON"], dense=False)
    np.testing.assert_array_equal(lean.t, sol.t)
    np.testing.assert_array_equal(lean.y, sol.y)
    assert lean.nfev == sol.nfev - 3 * (sol.n_steps - 1)
    # between the step points the lean interpolant is only the cubic Hermite one (here ~1e-3 of
    # the small modal coordinates; the 7th-order one is needed for sampled histories)
    tq = np.linspace(0.0, sol.t[-1], 501)
    a, b = lean(tq), sol(tq)
    assert np.max(np.abs(a - b) / (np.abs(b).max(axis=1, keepdims=True) + 1e-10)) < 5e-3
    np.testing.assert_array_equal(lean(lean.t[:-1]), lean.y[:, :-1])
    np.testing.assert_array_equal(lean.y_event, sol.y_event)     # the event step is full


# =========================================================================== events
def test_contact_on_event_time(first_contact):
    sim, sol = first_contact
    assert sol.status == 1 and sol.success
    assert sol.event_names == ["CONTACT-ON"] and sol.event_mask == 1
    assert sol.t_event == pytest.approx(T_CONTACT_SCIPY, abs=1e-9)
    assert sol.t[-1] == sol.t_event
    np.testing.assert_array_equal(sol.y[:, -1], sol.y_event)
    np.testing.assert_array_equal(sol.t_events[0], [sol.t_event])
    assert all(len(sol.t_events[i]) == 0 for i in range(1, kernel.NEV))
    _, out = sim.evaluate(sol.t_event, sol.y_event, _Disc())
    assert abs(out[6]) < 1e-12                       # gap = 0
    assert out[8] < 0.0                              # approaching the slope
    # the interpolant of the truncated step still covers it
    np.testing.assert_allclose(sol(sol.t_event), sol.y_event, rtol=0, atol=0)


def test_event_offset_matches_gap_floor(sims):
    """offsets[0] = floor watches gap = floor, like Simulator.events_for(d, True, floor)."""
    sim = sims["frictionless"]
    y0 = y_start(sim)
    floor = -1e-12
    kw = dict(rtol=sim.sol.rtol, atol=sim.atol, max_step=sim.sol.max_step_free)
    sol = solve(sim, 0.0, y0, 0.5, events=["CONTACT-ON"], offsets=[floor] + [0.0] * 6, **kw)
    ref = solve_ivp(sim.rhs_for(_Disc()), (0.0, 0.5), y0, method="DOP853",
                    events=sim.events_for(_Disc(), True, floor), **kw)
    assert sol.t_event == pytest.approx(ref.t_events[0][0], abs=1e-12)
    _, out = sim.evaluate(sol.t_event, sol.y_event, _Disc())
    assert out[6] == pytest.approx(floor, abs=1e-15)


def test_contact_phase_matches_scipy(first_contact):
    sim, sol = first_contact
    t, y, d = sim._contact_on(sol.t_event, sol.y_event, _Disc(), _RunLog(sim))
    assert d.mode == CONTACT
    kw = dict(rtol=sim.sol.rtol, atol=sim.atol, max_step=sim.sol.max_step_contact)
    mine = solve(sim, t, y, t + 0.05, d, events=["SEPARATE"], **kw)
    ref = solve_ivp(sim.rhs_for(d), (t, t + 0.05), y, method="DOP853",
                    events=sim.events_for(d, True), dense_output=True, **kw)
    assert mine.status == ref.status == 1
    assert mine.event_names == ["SEPARATE"]
    assert mine.t_event == pytest.approx(ref.t_events[0][0], abs=1e-12)
    np.testing.assert_allclose(mine.y_event, ref.y_events[0][0], rtol=1e-9, atol=1e-12)
    tq = np.linspace(t, mine.t_event, 301)
    np.testing.assert_allclose(mine(tq), ref.sol(tq), rtol=1e-8, atol=1e-11)
    _, out = sim.evaluate(mine.t_event, mine.y_event, d)
    assert abs(out[0]) < 1e-6                        # N = 0 at separation


def test_simultaneous_events_reported_together(sims):
    """STICK-DRIFT (Dv - |v_t|, falling) and ARM (|v_t| - Dv, rising) cross together."""
    sim = sims["frictionless"]
    y0 = y_start(sim)
    probe = solve(sim, 0.0, y0, 0.1, rtol=1e-8, atol=1e-10)
    _, out = sim.evaluate(0.1, probe.y[:, -1], _Disc())
    Dv = abs(out[9])
    sol = solve(sim, 0.0, y0, 0.3, rtol=1e-8, atol=1e-10, events=[3, 6],
                epar=[0.0, Dv, 0.0, 1.0])
    assert sol.status == 1
    assert sol.event_mask == (1 << 3) | (1 << 6)
    assert sol.event_names == ["STICK-DRIFT", "ARM"]
    assert sol.t_event == pytest.approx(0.1, abs=1e-8)


def test_event_at_phase_start(sims):
    """g = 0 at t0 and crossing: solve_ivp's root is t0 and its step is dropped."""
    sim = sims["frictionless"]
    y0 = y_start(sim)                                # at rest: v_t = 0, so ARM = |v_t| - 0
    sol = solve(sim, 0.25, y0, 0.3, rtol=1e-8, atol=1e-10, events=["ARM"],
                epar=[0.0, 0.0, 0.0, 1.0])
    assert sol.status == 1 and sol.event_names == ["ARM"]
    assert sol.t_event == 0.25
    assert list(sol.t) == [0.25] and sol.n_steps == 0
    np.testing.assert_array_equal(sol.y_event, y0)


def test_direction_is_respected(sims):
    """CONTACT-ON watched with direction +1 never fires on the approach."""
    sim = sims["frictionless"]
    dirs = list(kernel.EVENT_DIRECTIONS)
    dirs[0] = 1.0
    sol = solve(sim, 0.0, y_start(sim), 0.34, rtol=1e-8, atol=1e-10, events=[0],
                directions=dirs)
    assert sol.status == 0 and sol.events == [] and sol.t_event is None


# =========================================================================== statuses
def test_statuses_and_empty_interval(sims):
    sim = sims["free"]
    y0 = y_start(sim)
    sol = solve(sim, 0.0, y0, 0.3, rtol=1e-8, atol=1e-10, max_steps=5)
    assert sol.status == -1 and not sol.success and sol.n_steps == 5
    assert "maximum number of steps" in sol.message
    empty = solve(sim, 0.2, y0, 0.2, rtol=1e-8, atol=1e-10)
    assert empty.status == 0 and list(empty.t) == [0.2] and empty.y.shape == (len(y0), 1)
    np.testing.assert_array_equal(empty(np.array([0.2, 0.3])), np.column_stack([y0, y0]))
    short = solve(sim, 0.2, y0, 0.2 + 1e-9, rtol=1e-8, atol=1e-10)
    assert short.status == 0 and short.t[-1] == 0.2 + 1e-9
    bounded = solve(sim, 0.0, y0, 0.05, rtol=1e-8, atol=1e-10, max_step=1e-3)
    assert np.max(np.diff(bounded.t)) <= 1e-3 * (1 + 1e-12)
    assert bounded.n_steps >= 50


def test_coefficients_are_scipys():
    coef = pytest.importorskip("scipy.integrate._ivp.dop853_coefficients")
    for mine, theirs in ((integrator._A, coef.A), (integrator._B, coef.B), (integrator._C, coef.C),
                         (integrator._E3, coef.E3), (integrator._E5, coef.E5),
                         (integrator._D, coef.D)):
        np.testing.assert_array_equal(mine, theirs)
