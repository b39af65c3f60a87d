"""Basic behaviour of flexlib.simulate and the result object: names, argument validation,
determinism and the .npz round trip."""
import math

import numpy as np
import pytest

from flexlib.params import BeamParams, Case, SlopeParams, paper_case
from flexlib.result import HISTORY_KEYS, load_result
from flexlib.models import MODELS, canonical_model
from flexlib.paper import BeamRun, SimulationError, simulate

T_SHORT = 0.34          # just past the first contact of case B (rigid rod: 0.33293 s)


# =========================================================================== names
@pytest.mark.parametrize("given, canonical", [("hybrid-coulomb", "hybrid_coulomb"),
                                              ("hybrid-lugre", "hybrid_lugre"),
                                              ("Hybrid-LuGre", "hybrid_lugre"),
                                              ("frictionless", "frictionless"),
                                              (" lugre ", "lugre")])
def test_model_ids_accept_hyphens(given, canonical):
    assert canonical_model(given) == canonical
    assert BeamRun(paper_case("3.2"), given, 0.1).model == canonical


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
    assert gap < 0          # the premise, from docs/model.md section 6.1 (rigid beam, B = 0)
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


def _assert_identical(a, b, where="result"):
    """Bit-for-bit equality of nested dicts/lists/arrays/floats (NaN equals NaN)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for k in a:
            _assert_identical(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_identical(x, y, f"{where}[{i}]")
    elif isinstance(a, (np.ndarray, float, np.floating)):
        np.testing.assert_array_equal(a, b, err_msg=where)
    else:
        assert a == b, where


def _assert_same_run(r1, r2):
    assert set(HISTORY_KEYS) <= set(r1.h)
    _assert_identical(r1.h, r2.h, "h")                    # every history, not only HISTORY_KEYS
    for name in ("jumps", "events", "stick_tests", "episodes", "impacts", "warnings"):
        _assert_identical(getattr(r1, name), getattr(r2, name), name)
    assert (r1.success, r1.message) == (r2.success, r2.message)
    s1 = {k: v for k, v in r1.stats.items() if k != "wall_time_s"}
    s2 = {k: v for k, v in r2.stats.items() if k != "wall_time_s"}
    assert s1 == s2


def test_determinism(short_run):
    r2 = simulate("3.2", "frictionless", t_end=T_SHORT)
    assert len(short_run.jumps) >= 1
    _assert_same_run(short_run, r2)


@pytest.mark.parametrize("model", ["hybrid_coulomb", "hybrid_lugre", "lugre"])
def test_determinism_friction_models(model):
    """Two runs of the same case are identical, through the first impact's stick tests and slip
    phases (t = 0.36 s; case B's first impact starts at 0.3329 s)."""
    r1 = simulate("3.2", model, t_end=0.36)
    r2 = simulate("3.2", model, t_end=0.36)
    assert len(r1.jumps) >= 1 and len(r1.events) >= 2
    _assert_same_run(r1, r2)


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


@pytest.mark.parametrize("enabled", [True, False])
def test_run_restores_the_garbage_collector_and_leaves_no_cycles(enabled):
    """A run pauses the cyclic garbage collector (a speed measure): the user's
    setting must come back, also when the run stops with an error, and the run must create no
    reference cycles, which only that collector could free."""
    import gc
    simulate("3.2", "hybrid_coulomb", 0.9)      # first use: imports, compiled-code loading
    gc.collect()
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        r = simulate("3.2", "hybrid_coulomb", 0.9)
        assert gc.isenabled() is enabled
        assert len(r.jumps) > 3
        del r
        assert gc.collect() == 0
        with pytest.raises(SimulationError):      # (its traceback does make cycles)
            simulate("3.2", "hybrid_coulomb", 1.2, event_cap=10)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


# =========================================================================== progress hook
def test_progress_is_called_before_every_phase_with_t_and_t_end():
    calls = []
    r = simulate("3.2", "frictionless", t_end=T_SHORT, progress=lambda t, t_end: calls.append((t, t_end)))
    ts = [t for t, _ in calls]
    assert calls[0] == (0.0, T_SHORT)                       # the first phase starts at t = 0
    assert all(te == T_SHORT for _, te in calls)
    assert ts == sorted(ts) and ts[-1] < T_SHORT
    assert len(calls) >= 2                                  # flight, then at least the contact
    assert any(t >= r.first_contact["t"] for t in ts)      # a phase starts at the impact


def test_a_simulation_error_pickles_with_its_partial_result():
    """A stopped run raised in a worker process (a process pool, Dask) comes back whole: the
    message, where and why it stopped, and the partial result with its interpolant."""
    import pickle
    with pytest.raises(SimulationError) as info:
        simulate("3.2", "hybrid_coulomb", 1.2, event_cap=10)
    err = info.value
    back = pickle.loads(pickle.dumps(err))
    assert isinstance(back, SimulationError) and str(back) == str(err)
    assert (back.t, back.state, back.model, back.cause) == (err.t, err.state, err.model, err.cause)
    assert back.result.t_end == err.result.t_end
    assert back.result.sample([0.3], "theta")[0] == err.result.sample([0.3], "theta")[0]
