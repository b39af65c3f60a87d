"""The compiled DOP853 phase integrator (flexlib.solver.integrator) against scipy's DOP853.

Both integrate the same right-hand side: the system engine's compiled one
(:mod:`flexlib.multibody.kernel`, through ``SystemSimulator.evaluate`` for scipy and
``integrator.specialize(kernel)`` for the compiled integrator), on the beam of case 3.2.

* free flight (model free, and a contact model in FREE mode) over 0.3 s: final state as
  solve_ivp(method="DOP853", rtol=1e-10, atol=1e-12);
* every step and its dense output reproduced by one step of scipy's DOP853 class from the same
  (t, y, h);
* events: CONTACT-ON of case 3.2 (located where solve_ivp locates it on the same right-hand side,
  and where the former single-beam right-hand side put it: 0.3329418709814074 s), the first
  contact phase up to SEPARATE, simultaneous events (bit mask), an event at the phase start;
* statuses and counters.
"""
import math

import numpy as np
import pytest
from scipy.integrate import DOP853, solve_ivp

from flexlib.layout import CONTACT, O_GAP, O_N, O_VN
from flexlib.multibody import kernel as K
from flexlib.paper import BeamRun, PhaseState
from flexlib.params import paper_case
from flexlib.solver import integrator

pytestmark = pytest.mark.skipif(not integrator.COMPILED,
                                reason="numba disabled (FLEXLIB_NO_NUMBA): the integrator would "
                                       "only be slow")

# CONTACT-ON of case 3.2, frictionless, located by solve_ivp on the former single-beam
# right-hand side (an independent statement of the same beam and slope)
T_CONTACT_SCIPY = 0.3329418709814074
MODELS = ("free", "frictionless")
# the event functions of the (only) contact point, in the kernel's numbering
EVENTS = {"CONTACT-ON": K.EV_GAP, "SEPARATE": K.EV_N, "STICK-DRIFT": K.EV_DRIFT,
          "ARM": K.EV_ARM}
integrate_phase = integrator.specialize(K)


@pytest.fixture(scope="module")
def case():
    return paper_case("3.2")


@pytest.fixture(scope="module")
def runs(case):
    return {m: BeamRun(case, m, 2.0) for m in MODELS}


def y_start(run):
    """The case's initial state: at rest at theta = pi/4."""
    y0 = run.engine.system.initial_state()
    assert y0[0] == pytest.approx(math.pi / 4) and not np.any(y0[1:])
    return y0


def disc_of(run, d=PhaseState()):
    return np.array([d.mode, d.dir, d.s_star, d.v_in], float)[:4 * run.nc]


def tolerances(run, y):
    """rtol and atol as the engine's phases use them (the bristle deflection's atol 1e-4 of the
    others)."""
    s = run.sol
    atol = np.full(len(y), s.atol)
    atol[2 * run.nd:2 * run.nd + run.nc] *= 1e-4
    return max(s.rtol, 1e-13), atol


def solve(run, t0, y0, t_end, d=PhaseState(), *, rtol, atol, max_step=np.inf, first_step=0.0,
          events=(), directions=None, offsets=None, max_steps=1_000_000, dense=True):
    """The compiled integrator on the engine's right-hand side in the phase ``d``; ``events``
    names (or kernel indices) of point 0's event functions, all falling (-1) unless
    ``directions`` (NEV) says otherwise."""
    active = np.zeros(K.NEV, dtype=np.bool_)
    for e in events:
        active[EVENTS.get(e, e)] = True
    direction = np.full(K.NEV, -1.0) if directions is None else np.asarray(directions, float)
    eoff = np.zeros(K.NEV) if offsets is None else np.asarray(offsets, float)
    atol = np.broadcast_to(np.asarray(atol, float), (len(y0),)).copy()
    res = integrate_phase(float(t0), np.asarray(y0, float), float(t_end), 0, 0, 0, disc_of(run, d),
                          run.engine.S, rtol, atol, float(max_step), float(first_step), active,
                          direction, np.zeros(4), eoff, int(max_steps), dense)
    return integrator.PhaseSolution(res)


def rhs(run, d=PhaseState()):
    """The engine's right-hand side as scipy calls it."""
    disc = disc_of(run, d)
    return lambda t, y: run.engine.evaluate(t, y, disc)[0]


def scipy_event(run, i, d=PhaseState(), offset=0.0, direction=-1.0):
    disc = disc_of(run, d)

    def g(t, y):
        return run.engine.evaluate(t, y, disc)[1][K.O_EV + i] - offset
    g.terminal, g.direction = True, direction
    return g


@pytest.fixture(scope="module")
def first_contact(runs):
    """FREE phase of case 3.2 (frictionless) with the engine's tolerances up to CONTACT-ON."""
    run = runs["frictionless"]
    y0 = y_start(run)
    rtol, atol = tolerances(run, y0)
    sol = solve(run, 0.0, y0, 2.0, rtol=rtol, atol=atol, max_step=run.sol.max_step_free,
                events=["CONTACT-ON"])
    return run, sol


# =========================================================================== free flight
@pytest.mark.parametrize("model", MODELS)
def test_free_flight_matches_scipy(runs, model):
    run = runs[model]
    y0 = y_start(run)
    sol = solve(run, 0.0, y0, 0.3, rtol=1e-10, atol=1e-12)
    ref = solve_ivp(rhs(run), (0.0, 0.3), y0, method="DOP853", rtol=1e-10, atol=1e-12)
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
    run, sol = first_contact
    fun = rhs(run)
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
    run, sol = first_contact
    rtol, atol = tolerances(run, sol.y[:, 0])
    ref = solve_ivp(rhs(run), (0.0, sol.t[-1]), sol.y[:, 0], method="DOP853", rtol=rtol,
                    atol=atol, max_step=run.sol.max_step_free, dense_output=True)
    tq = np.linspace(0.0, sol.t[-1], 1001)
    mine, theirs = sol(tq), ref.sol(tq)
    assert mine.shape == theirs.shape == (sol.y.shape[0], len(tq))
    scale = np.abs(theirs).max(axis=1, keepdims=True) + 1e-10
    assert np.max(np.abs(mine - theirs) / scale) < 1e-6
    # at the step points the interpolant gives the step values (scipy's segment choice)
    np.testing.assert_allclose(sol(sol.t[:-1]), sol.y[:, :-1], rtol=1e-14, atol=1e-18)
    assert sol(sol.t[5]).shape == (sol.y.shape[0],)


def test_dense_false_changes_only_the_interpolant(first_contact):
    run, sol = first_contact
    rtol, atol = tolerances(run, sol.y[:, 0])
    lean = solve(run, 0.0, sol.y[:, 0], 2.0, rtol=rtol, atol=atol,
                 max_step=run.sol.max_step_free, events=["CONTACT-ON"], dense=False)
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
    run, sol = first_contact
    assert sol.status == 1 and sol.success
    assert sol.events == [K.EV_GAP] and sol.event_mask == 1 << K.EV_GAP
    rtol, atol = tolerances(run, sol.y[:, 0])
    ref = solve_ivp(rhs(run), (0.0, 2.0), sol.y[:, 0], method="DOP853", rtol=rtol, atol=atol,
                    max_step=run.sol.max_step_free, events=scipy_event(run, K.EV_GAP))
    assert sol.t_event == pytest.approx(ref.t_events[0][0], abs=1e-9)
    assert sol.t_event == pytest.approx(T_CONTACT_SCIPY, abs=1e-9)
    assert sol.t[-1] == sol.t_event
    np.testing.assert_array_equal(sol.y[:, -1], sol.y_event)
    _, out = run.evaluate(sol.t_event, sol.y_event)
    assert abs(out[O_GAP]) < 1e-12                   # gap = 0
    assert out[O_VN] < 0.0                           # approaching the slope
    # the interpolant of the truncated step still covers it
    np.testing.assert_allclose(sol(sol.t_event), sol.y_event, rtol=0, atol=0)


def test_event_offset_matches_gap_floor(runs):
    """An offset on the gap event watches gap = floor (the engine's re-contact floor)."""
    run = runs["frictionless"]
    y0 = y_start(run)
    floor = -1e-12
    rtol, atol = tolerances(run, y0)
    kw = dict(rtol=rtol, atol=atol, max_step=run.sol.max_step_free)
    offsets = np.zeros(K.NEV)
    offsets[K.EV_GAP] = floor
    sol = solve(run, 0.0, y0, 0.5, events=["CONTACT-ON"], offsets=offsets, **kw)
    ref = solve_ivp(rhs(run), (0.0, 0.5), y0, method="DOP853",
                    events=scipy_event(run, K.EV_GAP, offset=floor), **kw)
    assert sol.t_event == pytest.approx(ref.t_events[0][0], abs=1e-12)
    _, out = run.evaluate(sol.t_event, sol.y_event)
    assert out[O_GAP] == pytest.approx(floor, abs=1e-15)


@pytest.fixture(scope="module")
def contact_start(case):
    """The start (t, y) of the first CONTACT phase of the engine's own frictionless run (after
    its Newton jump at CONTACT-ON)."""
    run = BeamRun(case, "frictionless", 0.36)
    res = run.engine.run()
    starts = [(p.sol.t[0], p.sol.y[:, 0].copy()) for p in res.phases if int(p.disc[0]) == CONTACT]
    assert starts, "the engine's run has no contact phase before 0.36 s"
    return run, starts[0]


def test_contact_phase_matches_scipy(contact_start):
    run, (t, y) = contact_start
    assert t == pytest.approx(T_CONTACT_SCIPY, abs=1e-9)
    d = PhaseState(CONTACT)
    rtol, atol = tolerances(run, y)
    kw = dict(rtol=rtol, atol=atol, max_step=run.sol.max_step_contact)
    mine = solve(run, t, y, t + 0.05, d, events=["SEPARATE"], **kw)
    ref = solve_ivp(rhs(run, d), (t, t + 0.05), y, method="DOP853",
                    events=scipy_event(run, K.EV_N, d), dense_output=True, **kw)
    assert mine.status == ref.status == 1
    assert mine.events == [K.EV_N]
    assert mine.t_event == pytest.approx(ref.t_events[0][0], abs=1e-12)
    np.testing.assert_allclose(mine.y_event, ref.y_events[0][0], rtol=1e-9, atol=1e-12)
    tq = np.linspace(t, mine.t_event, 301)
    np.testing.assert_allclose(mine(tq), ref.sol(tq), rtol=1e-8, atol=1e-11)
    _, out = run.evaluate(mine.t_event, mine.y_event, d)
    assert abs(out[O_N]) < 1e-6                      # N = 0 at separation


def _with_Dv(case, Dv):
    """A frictionless run whose contact point's Dv (the stick/slip speed threshold read by the
    STICK-DRIFT and ARM event functions) is ``Dv`` m/s (set in the engine's own arrays)."""
    run = BeamRun(case, "frictionless", 2.0)
    run.engine.S.cflt[0, K.C_DV] = Dv
    return run


def test_simultaneous_events_reported_together(case, runs):
    """STICK-DRIFT (Dv - |v_t|, falling) and ARM (|v_t| - Dv, rising) cross together."""
    y0 = y_start(runs["frictionless"])
    probe = solve(runs["frictionless"], 0.0, y0, 0.1, rtol=1e-8, atol=1e-10)
    _, out = runs["frictionless"].engine.evaluate(0.1, probe.y[:, -1], np.zeros(4))
    Dv = abs(out[K.O_C0 + K.OC_VT])
    assert Dv > 0.0
    run = _with_Dv(case, Dv)
    dirs = np.full(K.NEV, -1.0)
    dirs[K.EV_ARM] = 1.0
    sol = solve(run, 0.0, y0, 0.3, rtol=1e-8, atol=1e-10, events=["STICK-DRIFT", "ARM"],
                directions=dirs)
    assert sol.status == 1
    assert sol.event_mask == (1 << K.EV_DRIFT) | (1 << K.EV_ARM)
    assert sol.events == [K.EV_DRIFT, K.EV_ARM]
    assert sol.t_event == pytest.approx(0.1, abs=1e-8)


def test_event_at_phase_start(case):
    """g = 0 at t0 and crossing: solve_ivp's root is t0 and its step is dropped."""
    run = _with_Dv(case, 0.0)
    y0 = y_start(run)                                # at rest: v_t = 0, so ARM = |v_t| - 0
    dirs = np.full(K.NEV, -1.0)
    dirs[K.EV_ARM] = 1.0
    sol = solve(run, 0.25, y0, 0.3, rtol=1e-8, atol=1e-10, events=["ARM"], directions=dirs)
    assert sol.status == 1 and sol.events == [K.EV_ARM]
    assert sol.t_event == 0.25
    assert list(sol.t) == [0.25] and sol.n_steps == 0
    np.testing.assert_array_equal(sol.y_event, y0)


def test_direction_is_respected(runs):
    """CONTACT-ON watched with direction +1 never fires on the approach."""
    run = runs["frictionless"]
    dirs = np.full(K.NEV, -1.0)
    dirs[K.EV_GAP] = 1.0
    sol = solve(run, 0.0, y_start(run), 0.34, rtol=1e-8, atol=1e-10, events=["CONTACT-ON"],
                directions=dirs)
    assert sol.status == 0 and sol.events == [] and sol.t_event is None
    # the same phase watched falling does stop at the contact
    down = solve(run, 0.0, y_start(run), 0.34, rtol=1e-8, atol=1e-10, events=["CONTACT-ON"])
    assert down.status == 1 and down.t_event < 0.34


# =========================================================================== statuses
def test_statuses_and_empty_interval(runs):
    run = runs["free"]
    y0 = y_start(run)
    sol = solve(run, 0.0, y0, 0.3, rtol=1e-8, atol=1e-10, max_steps=5)
    assert sol.status == -1 and not sol.success and sol.n_steps == 5
    assert "maximum number of steps" in sol.message
    empty = solve(run, 0.2, y0, 0.2, rtol=1e-8, atol=1e-10)
    assert empty.status == 0 and list(empty.t) == [0.2] and empty.y.shape == (len(y0), 1)
    np.testing.assert_array_equal(empty(np.array([0.2, 0.3])), np.column_stack([y0, y0]))
    short = solve(run, 0.2, y0, 0.2 + 1e-9, rtol=1e-8, atol=1e-10)
    assert short.status == 0 and short.t[-1] == 0.2 + 1e-9
    bounded = solve(run, 0.0, y0, 0.05, rtol=1e-8, atol=1e-10, max_step=1e-3)
    assert np.max(np.diff(bounded.t)) <= 1e-3 * (1 + 1e-12)
    assert bounded.n_steps >= 50


def test_coefficients_are_scipys():
    coef = pytest.importorskip("scipy.integrate._ivp.dop853_coefficients")
    for mine, theirs in ((integrator._A, coef.A), (integrator._B, coef.B), (integrator._C, coef.C),
                         (integrator._E3, coef.E3), (integrator._E5, coef.E5),
                         (integrator._D, coef.D)):
        np.testing.assert_array_equal(mine, theirs)
