"""The contact-mode selection of the hybrid models on the system engine.

When the tip's tangential velocity is (nearly) zero -- a contact onset at rest, a slip stop -- the
engine chooses among FREE, STICK and SLIP (``SystemSimulator._choose`` with
:func:`flexlib.contact.lcp.select_modes`).  The states are taken from the model itself: a spy
records the (t, y) of every such selection the engine makes in real runs of case 3.2 (and one
with an axial mode, where stick is possible), with the record the run keeps of it
(``result.selections``).  Each state's candidates are then re-derived here independently -- M and
Q from the NumPy statement of the closed form (tests/reference.py), the tip kinematics from the
NumPy statement in tests/reference.py, and the force solves written out with numpy.linalg -- and
the consistency of every candidate, its forces and the choice must agree with the engine's.
"""
import math
from dataclasses import dataclass

import numpy as np
import pytest

import flexlib as fl
from flexlib.contact.lcp import InconsistentContacts
from flexlib.layout import FREE, SLIP, STICK
from flexlib.multibody import kernel as K
from flexlib.multibody.simulate import RunLog, SystemSimulator
from flexlib.paper import BeamRun, SimulationError
from flexlib.params import paper_case
from reference import mass_and_forces as reference_mass_and_forces
from reference import tip_contact


# ---------------------------------------------------------------------- independent reference
def mu_lim(case, model):
    """The friction ratio a sticking tip may reach: mu_d for hybrid Coulomb, mu_s for hybrid
    LuGre."""
    return case.coulomb.mu_d if model == "hybrid_coulomb" else case.coulomb.mu_s


def reference_candidates(rec, y):
    """{name: (consistent, N, F_t, margin)} of every candidate at y, from numpy (a test
    reference)."""
    nd, case, model = rec.run.nd, rec.run.case, rec.model
    q, qd = y[:nd].copy(), y[nd:2 * nd].copy()
    M, Q = reference_mass_and_forces(rec.run.beam, q, qd)
    k = tip_contact(rec.run.beam, rec.run.slope, q, qd)
    sp, fr, lg = case.slope, case.coulomb, case.lugre
    a = np.linalg.solve(M, Q)
    gn_star = k.gamma_n - 2 * sp.chi * k.v_n - sp.beta ** 2 * k.gap
    gt_star = k.gamma_t - 2 * sp.chi * k.v_t          # s* = s: the stick anchor is here
    out = {}
    # FREE: a_n = Psi_q a - gamma_n >= a_n* = -2 chi v_n - beta^2 Psi
    a_n = k.Psi_q @ a - k.gamma_n
    out["FREE"] = (a_n >= -2 * sp.chi * k.v_n - sp.beta ** 2 * k.gap, 0.0, 0.0, math.nan)
    # STICK: the coupled 2x2 solve
    A = np.vstack([k.Psi_q, k.Gamma_q])
    S = A @ np.linalg.solve(M, A.T)
    N, F = np.linalg.solve(S, np.array([gn_star, gt_star]) - A @ a)
    out["STICK"] = (N > 0 and abs(F) <= mu_lim(case, model) * N, N, F, math.nan)
    # SLIP: F_t = c N with c known; N from the normal constraint
    slips = {"SLIP+": 1.0, "SLIP-": -1.0} if model == "hybrid_coulomb" else {"SLIP": 0.0}
    for name, dr in slips.items():
        if model == "hybrid_coulomb":
            c = -dr * fr.mu_d
        else:
            z, v = y[2 * nd], k.v_t
            g = fr.mu_d + (fr.mu_s - fr.mu_d) * math.exp(-(v / lg.v_s) ** 2)
            zd = v - lg.sigma0 * abs(v) * z / g
            c = -(lg.sigma0 * z + lg.sigma1 * zd + lg.sigma2 * v)
        w = np.linalg.solve(M, k.Psi_q + c * k.Gamma_q)
        den = k.Psi_q @ w
        margin = den / (k.Psi_q @ np.linalg.solve(M, k.Psi_q))
        N = (gn_star - k.Psi_q @ a) / den
        qdd = a + w * N
        a_t = k.Gamma_q @ qdd - k.gamma_t
        ok = N > 0 and margin > K.PAINLEVE_MIN
        if model == "hybrid_coulomb":
            ok = ok and dr * a_t >= 0
        out[name] = (ok, N, c * N, margin)
    return out


# ---------------------------------------------------------------------- the engine's selections
@dataclass
class Rec:
    """One mode selection of the engine: the run (BeamRun of the same case and model, for the
    beam and slope), the engine, (t, y, disc) it started from, its candidates of the tip, the
    run's record of it (None if it failed) and the error it raised."""
    run: BeamRun
    model: str
    engine: SystemSimulator
    t: float
    y: np.ndarray
    disc: np.ndarray
    cands: list
    record: dict | None
    error: Exception | None = None


def _spy(monkeypatch, run):
    """Record a Rec of every selection among FREE, STICK and SLIP (a contact onset at rest or a
    slip stop) that the engine makes from now on, failed ones included (``run``: a BeamRun of
    the same case and model, for the reference)."""
    seen = []
    real = SystemSimulator._choose

    def spy(engine, t, y, disc, log, cands):
        y0, d0, n = y.copy(), disc.copy(), len(log.selections)
        picks = list(cands.get(0, []))
        selecting = any(mode == STICK for mode, _, _ in picks)
        rec = Rec(run, run.model, engine, t, y0, d0, picks, None)
        if selecting:
            seen.append(rec)
        try:
            d = real(engine, t, y, disc, log, cands)
        except Exception as exc:
            rec.error = exc
            raise
        if selecting:
            assert len(log.selections) == n + 1
            rec.record = log.selections[n]
        return d
    monkeypatch.setattr(SystemSimulator, "_choose", spy)
    return seen


def capture_selections(monkeypatch, model, t_end, **overrides):
    """Run ``model`` on case 3.2 and return a Rec of every selection among FREE, STICK and SLIP."""
    case = paper_case("3.2").with_(**overrides) if overrides else paper_case("3.2")
    seen = _spy(monkeypatch, BeamRun(case, model, t_end))
    try:
        fl.simulate(case, model, t_end)
    except SimulationError:
        pass
    monkeypatch.undo()
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


def cand_name(rec, mode, sgn):
    if mode == SLIP and rec.model == "hybrid_coulomb":
        return "SLIP+" if sgn > 0 else "SLIP-"
    return K.MODE_NAMES[mode]


def library_candidate(rec, mode, sgn, y=None):
    """The engine's solve of one candidate at (t, y) (the stick anchor at the present s): the tip's
    outputs (gap, v_n, v_t, s, N, F_t, a_n, a_t, margin, ...)."""
    eng, y = rec.engine, rec.y if y is None else y
    s_now = eng.contact_values(eng.evaluate(rec.t, y, rec.disc)[1], 0)["s"]
    d = rec.disc.copy()
    d[0], d[1], d[2] = mode, sgn, s_now if mode == STICK else d[2]
    return eng.contact_values(eng.evaluate(rec.t, y, d)[1], 0)


def library_candidates(rec, y=None):
    return {cand_name(rec, m, s): library_candidate(rec, m, s, y) for m, s, _ in rec.cands}


def free_test(rec, v):
    """a_n - a_n*: positive when the contact opens by itself."""
    sp = rec.run.case.slope
    return v["a_n"] - (-2.0 * sp.chi * v["v_n"] - sp.beta ** 2 * v["gap"])


def consistent_names(rec):
    return rec.record["consistent"] if rec.record is not None else []


def check_against_reference(rec, y=None, consistent=None):
    """The candidates, their consistency and their forces as the numpy reference has them."""
    y = rec.y if y is None else y
    ref = reference_candidates(rec, y)
    got = library_candidates(rec, y)
    ok = consistent_names(rec) if consistent is None else consistent
    assert set(got) == set(ref)
    for name, (cons, N, F, _) in ref.items():
        assert (name in ok) == cons, (name, got[name], ref[name])
        if name != "FREE":
            assert got[name]["N"] == pytest.approx(N, rel=1e-6, abs=1e-6)
            assert got[name]["F_t"] == pytest.approx(F, rel=1e-6, abs=1e-6)
    return ref, got


def find(states, predicate):
    for rec in states:
        if predicate(rec):
            return rec
    pytest.fail("no recorded selection of this kind")


def names(rec):
    return consistent_names(rec)


# ---------------------------------------------------------------------- the cases
def test_only_free(coulomb_states):
    rec = find(coulomb_states, lambda r: names(r) == ["FREE"])
    check_against_reference(rec)
    assert rec.record["chosen"] == "FREE"


def test_only_stick(axial_states):
    """With one axial mode the tangential constraint is independent of the hinge: stick is
    a consistent, unique state in the first impact."""
    rec = find(axial_states, lambda r: names(r) == ["STICK"])
    check_against_reference(rec)
    assert rec.record["chosen"] == "STICK"
    v = library_candidate(rec, STICK, 0.0)
    assert abs(v["F_t"]) <= mu_lim(rec.run.case, rec.model) * v["N"]


@pytest.mark.parametrize("name, direction", [("SLIP+", 1.0), ("SLIP-", -1.0)])
def test_only_slip_in_one_direction(coulomb_states, name, direction):
    rec = find(coulomb_states, lambda r: names(r) == [name])
    check_against_reference(rec)
    assert rec.record["chosen"] == name
    # the sliding it assumes is what the motion does
    assert direction * library_candidate(rec, SLIP, direction)["a_t"] >= 0.0


def test_failed_stick_trial_does_not_open_the_contact(coulomb_states):
    """The old rule sent the tip into flight when the stick trial gave N <= 0.  Here the stick
    trial gives N <= 0, FREE is inconsistent (the slope is still being pushed): SLIP is chosen."""
    rec = find(coulomb_states, lambda r: library_candidate(r, STICK, 0.0)["N"] <= 0.0
               and "FREE" not in names(r))
    check_against_reference(rec)
    assert rec.record["chosen"] in ("SLIP+", "SLIP-")
    assert free_test(rec, library_candidate(rec, FREE, 0.0)) < 0.0


def test_hybrid_lugre_has_one_slip_candidate(lugre_states):
    rec = lugre_states[0]
    assert [cand_name(rec, m, s) for m, s, _ in rec.cands] == ["FREE", "STICK", "SLIP"]
    for rec in lugre_states[:5]:
        check_against_reference(rec)


def test_every_selection_of_case_32_is_unique_and_matches_the_reference(coulomb_states, lugre_states):
    """What case 3.2 shows: one consistent candidate at every selection, never stick, and the
    consistent Coulomb slip direction is -sgn(F_t) of the stick trial."""
    assert len(coulomb_states) > 10 and len(lugre_states) > 10
    for rec in coulomb_states + lugre_states:
        assert rec.error is None and rec.record["n_consistent"] == 1, rec.record
        assert rec.record["chosen"] != "STICK"
        if rec.record["chosen"] in ("SLIP+", "SLIP-"):
            assert rec.record["slip_dir_agrees"] is True
            F_stick = reference_candidates(rec, rec.y)["STICK"][2]
            assert rec.record["chosen"] == ("SLIP+" if F_stick < 0 else "SLIP-")
    for rec in coulomb_states[::7]:
        check_against_reference(rec)


def test_painleve_state_has_no_consistent_candidate(lugre_states):
    """A hybrid LuGre state with a large bristle deflection z: mu = sigma0 z ~ 10 makes the
    slip solve's margin 1 + c S12/S11 negative (the tip Jacobians are nearly parallel,
    Gamma_q ~ 0.16 Psi_q), the contact is being pushed (FREE inconsistent) and stick needs
    |F_t|/N >> mu_s: no candidate is consistent, and the engine's selection says so."""
    rec = find(lugre_states, lambda r: "FREE" not in names(r))
    y = rec.y.copy()
    y[2 * rec.run.nd] = 1e-4                       # mu = sigma0 z = 10
    ref, got = check_against_reference(rec, y, consistent=[])
    assert ref["SLIP"][3] < 0.0 and got["SLIP"]["margin"] < 0.0
    assert got["SLIP"]["margin"] == pytest.approx(ref["SLIP"][3], rel=1e-6)
    # the engine's selection finds no consistent mode at the tip (the run would stop here)
    with pytest.raises(InconsistentContacts) as err:
        rec.engine._choose(rec.t, y.copy(), rec.disc.copy(), RunLog(), {0: list(rec.cands)})
    assert err.value.failed == (0,)


@pytest.mark.parametrize("model, t_end, overrides", [
    ("hybrid_coulomb", 0.4, dict(axial_modes=1)),
])
def test_a_chosen_stick_holds_the_tip(monkeypatch, model, t_end, overrides):
    """A STICK that the selection chooses is a stick: the tip's normal and tangential
    accelerations are their Baumgarte targets (a_n* = -2 chi v_n - beta^2 Psi,
    a_t* = -2 chi v_t with the anchor s* = s)."""
    states = capture_selections(monkeypatch, model, t_end, **overrides)
    sticks = [r for r in states if r.record is not None and r.record["chosen"] == "STICK"]
    assert sticks
    for rec in sticks:
        v = library_candidate(rec, STICK, 0.0)
        sp = rec.run.case.slope
        assert v["a_n"] == pytest.approx(-2 * sp.chi * v["v_n"] - sp.beta ** 2 * v["gap"], abs=1e-9)
        assert v["a_t"] == pytest.approx(-2 * sp.chi * v["v_t"], abs=1e-9), rec.t


def test_a_stick_whose_rows_are_numerically_dependent_is_not_chosen():
    """Hybrid LuGre over 0-3 s meets stick trials whose own normal and tangential rows are
    numerically dependent (cond S > 1e10, at 1.667 s): the solve's rank test would drop the
    tangential row and report F_t = 0, a stick that does not hold the tip.  Such a trial has no
    determined ratio (NaN), is not chosen, and no stick interval starts there."""
    res = fl.simulate("3.2", "hybrid_lugre", 3.0)
    bad = [s for s in res.stick_tests if s["cond"] > 1e10]
    assert bad, "the run no longer meets an ill-conditioned stick trial: pick another"
    assert all(np.isnan(s["ratio"]) for s in bad)
    starts = [iv[0] for im in res.impacts for iv in im["stick_intervals"]]
    assert not any(abs(t0 - s["t"]) < 1e-12 for s in bad for t0 in starts)
    assert any("cond S" in w for w in res.warnings)


def _large_friction_stop(monkeypatch):
    case = paper_case("3.2").with_(mu_d=5.0, mu_s=5.0)
    seen = _spy(monkeypatch, BeamRun(case, "hybrid_coulomb", 1.25))
    with pytest.raises(SimulationError) as err:
        fl.simulate(case, "hybrid_coulomb", 1.25)
    monkeypatch.undo()
    return seen, err.value


def test_large_friction_run_stops_cleanly_with_painleve_inconsistency(monkeypatch):
    """Hybrid Coulomb with mu = 5 reaches a slip stop where no mode is consistent (both slip
    directions contradict the motion or lose the normal force, stick needs |F_t|/N > mu and the
    contact does not open, as the numpy reference confirms): a clean stop naming the
    inconsistency and the point, with the partial result, not a silent wrong branch."""
    seen, e = _large_friction_stop(monkeypatch)
    assert "Painleve" in str(e) and "'tip'" in str(e)
    assert str(e).startswith(f"hybrid_coulomb: {e.cause}") and e.model == "hybrid_coulomb"
    assert e.result is not None and e.result.t[-1] == pytest.approx(e.t)
    assert e.result.audit_residual_max <= 1e-6 * e.result.E0
    last = seen[-1]
    assert isinstance(last.error, InconsistentContacts) and last.t == pytest.approx(e.t)
    check_against_reference(last, consistent=[])


def test_large_friction_stop_is_counted_as_a_selection_without_consistent_mode(monkeypatch):
    _, e = _large_friction_stop(monkeypatch)
    assert e.result.stats["selections"]["selections_none"] == 1


def test_large_friction_stop_names_the_inconsistency_in_its_cause(monkeypatch):
    _, e = _large_friction_stop(monkeypatch)
    assert "Painleve" in e.cause


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


@pytest.mark.parametrize("case, model, t_end", [
    ("3.2", "hybrid_coulomb", "3"),
    ("3.2", "hybrid_lugre", "3"),
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
