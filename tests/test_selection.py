"""The contact-mode selection of the hybrid models (flexlib.contact.selection).

The states are taken from the model itself: a spy records the (t, y) of every selection the
simulator makes in real runs of case 3.2 (and one with an axial mode, where stick is possible).
Each state's candidates are then re-derived here independently -- M and Q from the NumPy statement
of the closed form (tests/reference.py), the tip kinematics from the NumPy statement in
tests/reference.py, and the force solves written out with numpy.linalg -- and
the consistency of every candidate and the choice must agree with the library's.
"""
import math

import numpy as np
import pytest

import flexlib as fl
from flexlib.contact import selection
from reference import mass_and_forces as reference_mass_and_forces
from reference import tip_contact
from flexlib.solver.simulate import FREE, SLIP, STICK, SimulationError, _RunLog, _Stop


# ---------------------------------------------------------------------- independent reference
def reference_candidates(sim, y):
    """{name: (consistent, N, F_t)} of every candidate at y, from numpy (a test reference)."""
    nd = sim.nd
    q, qd = y[:nd].copy(), y[nd:2 * nd].copy()
    M, Q = reference_mass_and_forces(sim.beam, q, qd)
    k = tip_contact(sim.beam, sim.slope, q, qd)
    sp, fr, lg = sim.case.slope, sim.case.coulomb, sim.case.lugre
    a = np.linalg.solve(M, Q)
    gn_star = k.gamma_n - 2 * sp.chi * k.v_n - sp.beta ** 2 * k.gap
    gt_star = k.gamma_t - 2 * sp.chi * k.v_t          # s* = s: the stick anchor is here
    out = {}
    # FREE: a_n = Psi_q a - gamma_n >= a_n* = -2 chi v_n - beta^2 Psi
    a_n = k.Psi_q @ a - k.gamma_n
    out["FREE"] = (a_n >= -2 * sp.chi * k.v_n - sp.beta ** 2 * k.gap, 0.0, 0.0)
    # STICK: the coupled 2x2 solve
    A = np.vstack([k.Psi_q, k.Gamma_q])
    S = A @ np.linalg.solve(M, A.T)
    N, F = np.linalg.solve(S, np.array([gn_star, gt_star]) - A @ a)
    out["STICK"] = (N > 0 and abs(F) <= sim.mu_lim * N, N, F)
    # SLIP: F_t = c N with c known; N from the normal constraint
    if sim.model == "hybrid_coulomb":
        slips = {"SLIP+": 1.0, "SLIP-": -1.0}
    else:
        slips = {"SLIP": 0.0}
    for name, dr in slips.items():
        if sim.model == "hybrid_coulomb":
            c = -dr * fr.mu_d
        else:
            z, v = y[sim.iz], k.v_t
            g = fr.mu_d + (fr.mu_s - fr.mu_d) * math.exp(-(v / lg.v_s) ** 2)
            zd = v - lg.sigma0 * abs(v) * z / g
            c = -(lg.sigma0 * z + lg.sigma1 * zd + lg.sigma2 * v)
        w = np.linalg.solve(M, k.Psi_q + c * k.Gamma_q)
        den = k.Psi_q @ w
        margin = den / (k.Psi_q @ np.linalg.solve(M, k.Psi_q))
        N = (gn_star - k.Psi_q @ a) / den
        qdd = a + w * N
        a_t = k.Gamma_q @ qdd - k.gamma_t
        ok = N > 0 and margin > sim.painleve_min
        if sim.model == "hybrid_coulomb":
            ok = ok and dr * a_t >= 0
        out[name] = (ok, N, c * N)
    return out


def capture_selections(monkeypatch, model, t_end, **overrides):
    """Run ``model`` on case 3.2 and return [(sim, t, y, selection)] of every mode selection."""
    seen = []
    real = selection.select_mode

    def spy(sim, t, y, k=None):
        sel = real(sim, t, y, k)
        seen.append((sim, t, y.copy(), sel))
        return sel
    monkeypatch.setattr(selection, "select_mode", spy)
    try:
        fl.simulate("3.2", model, t_end, **overrides)
    except SimulationError:
        pass
    monkeypatch.setattr(selection, "select_mode", real)
    return seen


def _states(model, t_end, **overrides):
    """capture_selections with a monkeypatch of its own (module-scoped fixtures cannot use the
    function-scoped one)."""
    with pytest.MonkeyPatch.context() as mp:
        return capture_selections(mp, model, t_end, **overrides)


@pytest.fixture(scope="module")
def coulomb_states():
    return _states("hybrid_coulomb", 1.2)


@pytest.fixture(scope="module")
def lugre_states():
    return _states("hybrid_lugre", 1.2)


@pytest.fixture(scope="module")
def axial_states():
    return _states("hybrid_coulomb", 0.4, axial_modes=1)


def check_against_reference(sim, y, sel):
    ref = reference_candidates(sim, y)
    got = {c.name: c for c in sel.candidates}
    assert set(got) == set(ref)
    for name, (ok, N, F) in ref.items():
        assert got[name].consistent == ok, (name, got[name].describe(), ref[name])
        if name != "FREE":
            assert got[name].N == pytest.approx(N, rel=1e-6, abs=1e-6)
            assert got[name].F_t == pytest.approx(F, rel=1e-6, abs=1e-6)


def find(states, predicate):
    for sim, t, y, sel in states:
        if predicate(sel):
            return sim, t, y, sel
    pytest.fail("no recorded selection of this kind")


def names(sel):
    return [c.name for c in sel.consistent]


# ---------------------------------------------------------------------- the cases
def test_only_free(coulomb_states):
    sim, t, y, sel = find(coulomb_states, lambda s: names(s) == ["FREE"])
    check_against_reference(sim, y, sel)
    assert sel.chosen.name == "FREE" and sel.chosen.mode == FREE


def test_only_stick(axial_states):
    """With one axial mode the tangential constraint is independent of the hinge: stick is
    a consistent, unique state in the first impact."""
    sim, t, y, sel = find(axial_states, lambda s: names(s) == ["STICK"])
    check_against_reference(sim, y, sel)
    assert sel.chosen.mode == STICK
    assert abs(sel.chosen.F_t) <= sim.mu_lim * sel.chosen.N


@pytest.mark.parametrize("name, direction", [("SLIP+", 1.0), ("SLIP-", -1.0)])
def test_only_slip_in_one_direction(coulomb_states, name, direction):
    sim, t, y, sel = find(coulomb_states, lambda s: names(s) == [name])
    check_against_reference(sim, y, sel)
    assert sel.chosen.mode == SLIP and sel.chosen.dir == direction
    # the sliding it assumes is what the motion does
    assert direction * sel.chosen.a_t >= 0.0


def test_failed_stick_trial_does_not_open_the_contact(coulomb_states):
    """The old rule sent the tip into flight when the stick trial gave N <= 0.  Here the stick
    trial gives N <= 0, FREE is inconsistent (the slope is still being pushed): SLIP is chosen."""
    sim, t, y, sel = find(coulomb_states, lambda s: s.candidates[1].N <= 0.0
                          and not s.candidates[0].consistent)
    check_against_reference(sim, y, sel)
    assert sel.chosen is not None and sel.chosen.mode == SLIP
    assert sel.candidates[0].test < 0.0


def test_hybrid_lugre_has_one_slip_candidate(lugre_states):
    sim, t, y, sel = lugre_states[0]
    assert [c.name for c in sel.candidates] == ["FREE", "STICK", "SLIP"]
    for sim, t, y, sel in lugre_states[:5]:
        check_against_reference(sim, y, sel)


def test_every_selection_of_case_32_is_unique_and_matches_the_reference(coulomb_states, lugre_states):
    """What case 3.2 shows: one consistent candidate at every selection, never stick, and the
    consistent Coulomb slip direction is -sgn(F_t) of the stick trial."""
    assert len(coulomb_states) > 10 and len(lugre_states) > 10
    for sim, t, y, sel in coulomb_states + lugre_states:
        assert sel.n_consistent == 1, sel.describe()
        assert sel.chosen.name != "STICK"
        if sel.chosen.name.startswith("SLIP+") or sel.chosen.name.startswith("SLIP-"):
            assert sel.chosen.dir == sel.dir_stick
    for sim, t, y, sel in coulomb_states[::7]:
        check_against_reference(sim, y, sel)


def test_painleve_state_has_no_consistent_candidate(lugre_states):
    """A hybrid LuGre state with a large bristle deflection z: mu = sigma0 z ~ 10 makes the
    slip solve's margin 1 + c S12/S11 negative (the tip Jacobians are nearly parallel,
    Gamma_q ~ 0.16 Psi_q), the contact is being pushed (FREE inconsistent) and stick needs
    |F_t|/N >> mu_s: no candidate is consistent."""
    sim, t, y, sel = find(lugre_states, lambda s: not s.candidates[0].consistent)
    y = y.copy()
    y[sim.iz] = 1e-4                       # mu = sigma0 z = 10
    sel2 = selection.select_mode(sim, t, y)
    check_against_reference(sim, y, sel2)
    assert sel2.n_consistent == 0 and sel2.chosen is None
    slip = sel2.candidates[2]
    assert slip.margin < 0.0
    # the simulator stops with the inconsistency named, the state and the candidates given
    log = _RunLog(sim)
    with pytest.raises(_Stop) as err:
        sim._select(t, y, log, "SLIP-STOP")
    assert "Painlevé inconsistency" in err.value.cause
    assert "STICK inconsistent" in err.value.message and "SLIP inconsistent" in err.value.message


def test_large_friction_run_stops_cleanly_with_painleve_inconsistency():
    """Hybrid Coulomb with mu = 5 reaches a state where both slip directions contradict the
    motion, stick needs |F_t|/N ~ 6 and the contact does not open: a clean stop with the
    partial result, not a silent wrong branch."""
    with pytest.raises(SimulationError) as err:
        fl.simulate("3.2", "hybrid_coulomb", 1.25, mu_d=5.0, mu_s=5.0)
    e = err.value
    assert "Painlevé inconsistency" in e.cause
    assert e.result is not None and e.result.t[-1] == pytest.approx(e.t)
    assert e.result.stats["selections"]["selections_none"] == 1
    assert e.result.audit_residual_max <= 1e-6 * e.result.E0


def test_selection_counters_in_result_and_summary():
    res = fl.simulate("3.2", "hybrid_coulomb", 1.2)
    tot = res.stats["selections"]
    assert tot["n_selections"] == len(res.selections) > 0
    assert tot["selections_unique"] + tot["selections_several"] + tot["selections_none"] == tot["n_selections"]
    per_impact = sum(im["n_selections"] for im in res.impacts)
    assert per_impact == tot["n_selections"]
    assert tot["slip_dir_agree"] + tot["slip_dir_disagree"] == sum(
        1 for s in res.selections if s["chosen"] in ("SLIP+", "SLIP-"))
    summ = res.summary()
    assert summ["selections"] == tot
    assert all("n_selections" in im and "zeno_jumps" in im for im in summ["impacts"])


def test_no_micro_impact_chain_through_1_5_s():
    """Regression of the old rule's failure: hybrid Coulomb stopped at t = 1.1036 s after
    10^4 micro-impacts ~0.1 us apart.  Through 1.5 s with the default event cap: no impact
    cluster has more than a few dozen episodes, and none is a chain of micro-impacts."""
    res = fl.simulate("3.2", "hybrid_coulomb", 1.5)
    assert res.success and res.t[-1] == pytest.approx(1.5)
    assert len(res.events) < 300
    for im in res.impacts:
        micro = [e for e in im["episode_list"] if e["micro"]]
        assert len(micro) <= 5, (im["t_start"], len(micro))
    # no two jumps within a microsecond
    tj = np.array([j["t"] for j in res.jumps])
    assert np.min(np.diff(tj)) > 1e-6


@pytest.mark.parametrize("case, model, t_end", [("3.2", "hybrid_coulomb", "3"), ("3.2", "hybrid_lugre", "3"),
                                                ("3.1", "hybrid_coulomb", "2")])
def test_command_line_hybrid_runs_reach_t_end(tmp_path, capsys, case, model, t_end):
    """The paper's cases run to the end from the command line, with fewer than 1000 events and
    the energy audit closed to 1e-6 E0."""
    import json
    from flexlib.cli import main
    out = tmp_path / "out.json"
    code = main(["simulate", "--case", case, "--model", model, "--t-end", t_end, "--json", str(out),
                 "--quiet"])
    assert code == 0
    d = json.loads(out.read_text())
    assert d["success"] and d["message"] == "reached t_end"
    assert d["stats"]["n_events"] < 1000
    assert d["energy"]["audit_residual_max"] <= 1e-6 * d["energy"]["initial"]
    assert d["selections"]["n_selections"] == d["selections"]["selections_unique"] > 0
