"""Histories read from the integrator's interpolant: a sample at t is the state of a run ended
at t, the impacts' peaks are the maxima of the interpolant, and a run builds no sample grid
until its histories are asked for.

The references are independent of the sampling code: a second run that stops at the sample
time (its last state is an integrator step, not an interpolation), and brute-force evaluation
of the interpolant on a fine grid.
"""
import numpy as np
import pytest

import flexlib as fl
from flexlib import models

T_END = 0.45          # s: flight, the first impact (0.3329-0.3435 s for the constraint models), flight
CONTINUOUS = dict(e=0.5, contact_law="flores")


def _kw(model):
    return CONTINUOUS if model in models.CONTINUOUS_MODELS else {}


@pytest.fixture(scope="module")
def runs():
    return {m: fl.simulate("3.2", m, T_END, **_kw(m)) for m in models.MODELS}


@pytest.mark.parametrize("model", models.MODELS)
def test_a_sample_equals_the_state_of_a_run_ended_there(runs, model):
    """theta, theta', the tip deflection and E sampled at t agree with the last state of a run
    ended at t, to the integrator's tolerance (rtol 1e-8 of each quantity's range over the run;
    the two runs take different last steps).  The linear interpolation between step points
    that the samples used before was off by up to 3 % of theta' here."""
    res = runs[model]
    # flight before the first impact, inside the first contact episode, flight at the end
    times = [0.2, T_END - 0.01]
    if res.episodes:
        e = res.episodes[0]
        times.insert(1, 0.5 * (e["t_start"] + e["t_end"]))
    for i, t in enumerate(times):
        ended = fl.simulate("3.2", model, t, **_kw(model))
        if res.episodes and i == 1:
            assert ended.h["mode"][-1] > 0, f"{model}: expected a contact phase at t = {t} s"
        for key in ("theta", "theta_dot", "tip_deflection", "tip_Y", "E"):
            got = float(res.sample([t], key)[0])
            want = float(ended.h[key][-1])
            scale = max(np.ptp(res.h[key]), 1e-6 * np.max(np.abs(res.h[key])))
            assert abs(got - want) <= 1e-7 * scale, (model, t, key, got, want)


@pytest.mark.parametrize("model", ["frictionless", "hybrid_coulomb"])
def test_a_sample_at_a_velocity_jump_is_the_state_after_it(runs, model):
    res = runs[model]
    j = res.jumps[0]
    k = np.nonzero(res.h["t"] == j["t"])[0]
    assert len(k) == 2, "a velocity jump is two samples at the same time"
    before, after = res.h["theta_dot"][k]
    assert abs(after - before) > 1e-3
    assert res.sample([j["t"]], "theta_dot")[0] == after
    # and just before it, the pre-jump branch
    assert res.sample([j["t"] - 1e-9], "theta_dot")[0] == pytest.approx(before, abs=1e-5)


@pytest.mark.parametrize("model", ["hybrid_coulomb", "continuous_coulomb"])
def test_impact_peaks_are_the_maxima_of_the_interpolant(runs, model):
    """The first impact's peak N and |F_t|: never below any sample of the histories, and equal
    to a brute-force maximum of the interpolant on a 5 ns grid around the peak to 1e-9."""
    res = runs[model]
    im = res.impacts[0]
    win = res.window(im["t_start"], im["t_end"])
    for key, name in (("N", "peak_normal_force"), ("F_t", "peak_friction_force")):
        hist = np.max(np.abs(res.h[key][win]))
        assert im[name] >= hist
        tk = res.h["t"][win][np.argmax(np.abs(res.h[key][win]))]
        fine = np.linspace(max(tk - 2e-5, im["t_start"] + 1e-12), min(tk + 2e-5, im["t_end"]), 8001)
        brute = np.max(np.abs(res.sample(fine, key)))
        assert im[name] == pytest.approx(brute, rel=1e-9), key


@pytest.mark.parametrize("model", ["hybrid_coulomb", "continuous_coulomb"])
def test_normal_impulse_is_the_integral_of_the_interpolant(runs, model):
    """The first impact's normal impulse (jumps + integral of N, Simpson's rule on every step)
    against the trapezoidal rule on a 0.03 us grid of the interpolant.  Measured: 4e-8 (hybrid
    Coulomb) and 1.5e-5 (continuous Coulomb, whose stiff penalty force varies more within a
    step; two Simpson panels per step would give 9e-7) relative."""
    res = runs[model]
    im = res.impacts[0]
    t = np.linspace(im["t_start"], im["t_end"], 400_001)[1:-1]
    integral = np.trapezoid(res.sample(t, "N"), t)
    rel = 1e-6 if model == "hybrid_coulomb" else 3e-5
    assert im["normal_impulse"] - im["impulse"] == pytest.approx(integral, rel=rel)


def test_a_run_builds_its_histories_only_when_they_are_used():
    """Impacts, energies and the JSON summary come without the full histories (the 10 us grid
    in contact phases); the first access to ``h`` builds them."""
    res = fl.simulate("3.2", "hybrid_coulomb", T_END)
    summary = res.summary(sample_times=[0.1, 0.3])
    assert "h" not in vars(res)
    assert summary["impacts"] and summary["energy"]["audit_residual_max"] < 1e-6 * res.E0
    assert res.samples is None or "h" not in vars(res)
    n = len(res.h["t"])
    assert "h" in vars(res) and n > 1000
    # the summary's audit (over the step points) is the history's audit at those points
    assert res.audit_residual_max <= np.max(np.abs(res.h["audit"])) * (1 + 1e-12)


def test_the_interior_contact_warning_reports_the_deepest_penetration():
    """A shallow slope (alpha = 0.06 rad): the beam's middle goes below the slope after the first
    impact.  The warning quotes the deepest point over the run (the interpolant's minimum of the
    stations' gaps), not the first crossing: at least as deep as any sample of the history, and
    within 1 % of the history's deepest sample, with its time and material point."""
    import re
    r = fl.simulate("3.2", "hybrid_coulomb", 0.5, alpha=0.06)
    warn = [w for w in r.warnings if w.startswith("interior contact")]
    assert len(warn) == 1
    m = re.search(r"up to ([0-9.e+-]+) mm below the slope, deepest at t = ([0-9.]+) s at the beam "
                  r"point x = ([0-9.]+) m", warn[0])
    depth, t_deep, x_deep = (float(g) for g in m.groups())
    depth *= 1e-3
    g = r.h["min_interior_gap"]
    k = int(np.nanargmin(g))
    assert -g[k] * (1 - 1e-3) <= depth <= -g[k] * 1.01
    assert abs(t_deep - r.h["t"][k]) < 1e-4
    assert 0.0 < x_deep < r.case.beam.L
    # the first crossing, which the warning used to quote, is far shallower
    first = int(np.argmax(g < 0.0))
    assert -g[first] < 0.1 * depth


def test_flight_steps_get_the_interpolant_the_integrator_would_have_stored(runs):
    """Flight is integrated without the 7th-order interpolant (3 RHS per step saved); a sample
    in a flight step takes that step again with it.  The coefficients equal those of the same
    phase integrated with the interpolant on every step (same steps: the same bits but for the
    last bits of t + h)."""
    from flexlib.multibody import kernel as K
    res = runs["frictionless"]
    tr = res.trajectory
    T, Y, H, F0 = (a[:tr.off[1]] for a in (tr.T_all, tr.Y_all, tr.H_all, tr.F_all))
    assert tr.mode[0] == 0 and len(T) > 10   # the first flight, 0 .. first contact
    eng = tr.sim.engine
    # the same phase, every step with its interpolant, up to the first contact (no event)
    s = eng.solver
    none = np.zeros(K.NEV, dtype=np.bool_)
    dense = eng._integrate(T[0], Y[0].copy(), T[-2], 0, 0, 0, np.zeros(4), eng.S,
                           s.rtol, eng._atol(len(Y[0])), s.max_step_free, 0.0, none,
                           np.zeros(K.NEV), np.zeros(4), np.zeros(K.NEV), 10 ** 6, True)
    t_d, F_d = dense[2], dense[5]
    k = len(T) // 3
    assert np.array_equal(t_d[:k + 2], T[:k + 2])           # the same steps
    assert not tr.full[k] and not np.any(F0[k][3:])   # not computed during the run
    F = tr.sim.dense_step(T[k], Y[k], H[k], tr.discs[0])
    assert np.allclose(F, F_d[k], rtol=1e-12, atol=1e-15 * np.max(np.abs(F_d[k])))
    assert np.max(np.abs(F[3:])) > 0.0
    # and a sample there is what the completed interpolant gives
    tq = T[k] + 0.37 * H[k]
    y_full = res.trajectory.states_at([tq])[1][0]
    from flexlib.solver.integrator import dense_eval
    y_ref = dense_eval(t_d, dense[3], dense[4], F_d, np.array([tq]))[:, 0]
    assert np.allclose(y_full, y_ref, rtol=1e-12, atol=1e-15)


def test_the_smallest_painleve_margin_is_the_minimum_of_the_interpolant(runs):
    """Hybrid Coulomb's first impact slips: its smallest Painleve margin is never above any sample
    of the history and equals the smaller of a 5 ns brute-force minimum of the interpolant and the
    step points' values (here the minimum is at the separation, an episode's last state) to 1e-9."""
    res = runs["hybrid_coulomb"]
    im = res.impacts[0]
    win = res.window(im["t_start"], im["t_end"]) & np.isfinite(res.h["margin"])
    assert win.any()
    assert im["min_painleve_margin"] <= np.min(res.h["margin"][win])
    tk = res.h["t"][win][np.argmin(res.h["margin"][win])]
    fine = np.linspace(tk - 2e-5, tk + 2e-5, 8001)
    fine = fine[(fine > im["t_start"]) & (fine < im["t_end"])]
    m = res.sample(fine, "margin")
    ref = min(np.nanmin(m), np.min(res.h["margin"][win]))
    assert im["min_painleve_margin"] == pytest.approx(ref, rel=1e-9)


def test_a_pickled_or_copied_result_keeps_its_interpolant(runs):
    """A result crosses processes (pickle) and copies with its trajectory: samples are the same
    bits after the round trip, the histories are rebuilt on demand, and a result read from a
    file interpolates its stored samples linearly (documented), 2-D histories and the mode
    included."""
    import copy
    import pickle
    res = runs["hybrid_coulomb"]
    t = np.array([0.2, 0.3360, 0.4499])
    back = pickle.loads(pickle.dumps(res))
    assert back.trajectory is not None and "h" not in vars(back)
    for key in ("theta_dot", "tip_deflection", "N", "E"):
        assert np.array_equal(back.sample(t, key), res.sample(t, key)), key
    assert np.array_equal(copy.deepcopy(res).sample(t, "B"), res.sample(t, "B"))
    # (NaN fields: compared as JSON, where they are null)
    assert back.summary()["impacts"] == res.summary()["impacts"] and back.E0 == res.E0


def test_a_loaded_result_samples_2d_histories_and_the_mode(runs, tmp_path):
    from flexlib.result import load_result
    res = runs["hybrid_coulomb"]
    res.save(tmp_path / "r.npz")
    r = load_result(tmp_path / "r.npz")
    t = np.array([0.2, 0.3360, 0.4499])
    B = r.sample(t, "B")
    assert B.shape == (3, res.h["B"].shape[1])
    assert set(np.unique(r.sample(np.linspace(0.3, 0.35, 200), "mode"))) <= {0, 1, 2, 3}
    # linear between stored samples: close to the interpolant where samples are dense (contact)
    assert abs(r.sample([0.3360], "N")[0] - res.sample([0.3360], "N")[0]) < 1e-2 * res.impacts[0]["peak_normal_force"]


def test_a_grid_in_flight_uses_the_full_interpolant(runs):
    """A user grid with points inside flight steps gets the 7th-order interpolant there too
    (the steps are completed first), so it equals the samples at the same times."""
    res = runs["frictionless"]
    tr = res.trajectory
    dts = np.where(tr.mode == 0, 1e-4, np.inf)
    t, Y, seg = tr.grid(dts)
    inside = (t > 0.05) & (t < 0.3)
    assert np.allclose(Y[inside], tr.states_at(t[inside])[1], rtol=0, atol=1e-13)
