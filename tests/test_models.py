"""Case 3.2 over 0-2 s for every contact model: invariants, stick statistics, convergence.

A run that stops with a clean SimulationError (event cap, Painleve singularity) is a finding
(docs/model.md sections 8.4 and 14): the invariants are then asserted on its partial result, and the stop
itself must be clean (message with time, state and cause).
"""
import numpy as np
import pytest

import flexlib as fl
from flexlib.paper import SimulationError

MODELS = ("frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre")
_cache = {}


def run(model, **kw):
    key = (model, tuple(sorted(kw.items())))
    if key not in _cache:
        try:
            _cache[key] = fl.simulate("3.2", model, 2.0, **kw)
        except SimulationError as err:
            assert err.result is not None and not err.result.success
            assert f"t = {err.t:.6f} s" in str(err) and err.state in str(err) and "likely cause" in str(err)
            _cache[key] = err.result
    return _cache[key]


@pytest.mark.parametrize("model", MODELS)
def test_energy_audit(model):
    r = run(model)
    assert r.audit_residual_max / r.E0 <= 1e-6


@pytest.mark.parametrize("model", MODELS)
def test_normal_force_compressive(model):
    r = run(model)
    c = r.mode > 0
    assert c.any()
    assert r.N[c].min() >= -1e-6 * r.N[c].max()


@pytest.mark.parametrize("model", MODELS)
def test_gap_closed_in_contact(model):
    r = run(model)
    c = r.mode > 0
    assert np.abs(r.gap[c]).max() <= 1e-6


@pytest.mark.parametrize("model", MODELS)
def test_energy_never_rises(model):
    """E(t) never exceeds its running minimum by more than the audit tolerance plus the work
    that the contact forces did since (LuGre friction and Baumgarte drift may briefly add energy)."""
    r = run(model)
    lost = r.E - np.minimum.accumulate(r.E)
    gain = (r.W_f + r.W_N) - np.minimum.accumulate(r.W_f + r.W_N)
    assert np.all(lost <= 1e-6 * r.E0 + gain)
    assert r.E.max() <= r.E0 * (1 + 1e-6)


def test_coulomb_bound_hybrid_coulomb():
    r = run("hybrid_coulomb")
    c = r.mode > 0
    mu_d = r.case.coulomb.mu_d
    assert np.all(np.abs(r.F_t[c]) <= mu_d * r.N[c] * (1 + 1e-9) + 1e-9)


def test_slip_friction_opposes_sliding_hybrid_coulomb():
    """In Coulomb slip the friction power is never positive (beyond round-off)."""
    r = run("hybrid_coulomb")
    slip = (r.mode == 3) & (np.abs(r.v_t) > 10 * r.case.coulomb.Dv)
    assert np.all(r.F_t[slip] * r.v_t[slip] <= 1e-9)


@pytest.mark.parametrize("model", ("hybrid_coulomb", "hybrid_lugre"))
def test_stick_statistics_reported(model):
    r = run(model)
    assert r.impacts
    for im in r.impacts:
        for key in ("n_stick_tests", "n_stick_drift", "stick_intervals", "slip_intervals", "max_stick_ratio"):
            assert key in im
    # every stick test is logged with the friction ratio it demanded
    assert sum(im["n_stick_tests"] for im in r.impacts) <= len(r.stick_tests)


def test_lugre_z_reset_in_flight():
    for m in ("hybrid_lugre", "lugre"):
        r = run(m)
        assert np.all(r.z[r.mode == 0] == 0.0)


def test_unified_lugre_has_no_stick_slip_states():
    r = run("lugre")
    assert set(np.unique(r.mode)) <= {0, 1}
    assert all(e["kind"] not in ("STICK->SLIP", "SLIP-STOP", "STICK-DRIFT") for e in r.events)


def test_first_impact_start_shared():
    """Every model reaches the slope at the same instant (friction acts only after contact)."""
    t = [run(m).impacts[0]["t_start"] for m in MODELS]
    assert max(t) - min(t) < 1e-9


# Claims that hold in our reproduction and keep their verdict with tolerances 10x tighter and
# with N = 4 modes (figures/claims.md, robustness column), asserted with the claims table's
# thresholds.  C1 and C17 also hold at the defaults but flip in a variant ("not robust": the
# LuGre pair's late bounces part with N = 4 modes; with N = 4 modes two impacts have no common
# contact instant); the rest do not hold or are not checkable (C4 does not hold: read from the
# interpolant, Coulomb's theta' after impact 1 is 0.07 % from LuGre's, below the 1 % that "differs
# slightly" needs).
HOLDING_CLAIMS = ("C2", "C10", "C11", "C12", "C13", "C18", "C19", "C23", "C24")


@pytest.fixture(scope="module")
def claims():
    from flexlib.studies.claims import evaluate_claims
    return {c["id"]: c for c in evaluate_claims({m: run(m) for m in MODELS[1:]})}


@pytest.mark.parametrize("cid", HOLDING_CLAIMS)
def test_claims_that_hold(claims, cid):
    assert claims[cid]["verdict"] == "holds", claims[cid]


def test_claims_table_complete(claims):
    assert sorted(claims, key=lambda c: int(c[1:])) == [f"C{k}" for k in range(1, 26)]
    assert claims["C25"]["verdict"] == "not checkable"
    assert all(c["verdict"] in ("holds", "does not hold", "not checkable") for c in claims.values())


def test_stick_never_reached_in_paper_model():
    """docs/model.md section 14: with the inextensible beam the stick test demands |F_t|/N far above mu.
    Recorded as a finding: no stick interval in either hybrid model, and every stick test that
    found compression demanded a ratio above the model's limit (a trial whose own two rows are
    numerically dependent, cond S > 1e10, determines no friction force: its ratio is NaN and it
    is not a stick)."""
    for m in ("hybrid_coulomb", "hybrid_lugre"):
        r = run(m)
        assert sum(len(im["stick_intervals"]) for im in r.impacts) == 0
        ratios = [s["ratio"] for s in r.stick_tests if s["N"] > 0 and np.isfinite(s["ratio"])]
        assert ratios and min(ratios) > s_limit(r)


def s_limit(r):
    return r.case.coulomb.mu_s if r.model == "hybrid_lugre" else r.case.coulomb.mu_d


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_tolerance_convergence(model):
    """Tightening rtol and atol 10x moves the first three impacts' starts < 1e-5 s, peak N < 1e-3."""
    a = run(model)
    case = fl.paper_case("3.2")
    b = run(model, rtol=case.solver.rtol / 10, atol=case.solver.atol / 10)
    k = min(3, len(a.impacts), len(b.impacts))
    assert k >= 1
    for i in range(k):
        assert abs(a.impacts[i]["t_start"] - b.impacts[i]["t_start"]) < 1e-5
        assert abs(a.impacts[i]["peak_normal_force"] / b.impacts[i]["peak_normal_force"] - 1) < 1e-3
    # the audit residual shrinks with the tolerances
    assert b.audit_residual_max <= a.audit_residual_max * 1.5


@pytest.mark.slow
def test_mode_study_table():
    """N = 2..6: first-impact start times agree (contact starts before modes matter) and the table exists."""
    from flexlib.studies.figures import mode_study
    t = mode_study(modes=(2, 3, 4, 5, 6), models=("hybrid_coulomb",), t_end=0.5, n_impacts=1)
    starts = [t["hybrid_coulomb"][str(n)]["impacts"][0]["t_start"] for n in (2, 3, 4, 5, 6)]
    assert max(starts) - min(starts) < 1e-4
    peaks = [t["hybrid_coulomb"][str(n)]["impacts"][0]["peak_N"] for n in (2, 3, 4, 5, 6)]
    assert all(p > 0 for p in peaks)


@pytest.mark.slow
def test_holding_claims_are_robust(claims):
    """The verdicts asserted above survive tolerances 10x tighter and N = 4 modes."""
    from flexlib.studies.claims import ROBUSTNESS_VARIANTS, add_robustness, evaluate_claims
    from flexlib.studies.figures import PAPER_MODELS, run_models
    base = [dict(c) for c in claims.values()]
    add_robustness(base, {name: evaluate_claims(run_models("3.2", PAPER_MODELS, **ov)[0])
                          for name, ov in ROBUSTNESS_VARIANTS.items()})
    rob = {c["id"]: c["robust"] for c in base}
    for cid in HOLDING_CLAIMS:
        if cid == "C18":
            continue
        assert rob[cid] == "robust", (cid, rob[cid])
    # C18 (the LuGre pair's friction coefficient) holds with 3 modes (0.013 %) but not with 4, where
    # it sits just above its 1 % threshold (1.03 % with the numerical pins of flexlib/_numerics.py,
    # 1.32 % without them on an AVX-512 machine, and once below 1 % on another CPU without them:
    # the verdict with 4 modes is only reproducible with the pins; docs/findings.md I.8)
    assert rob["C18"] == "not robust (N = 4 modes: does not hold)"
