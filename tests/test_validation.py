"""Every public entry point validates its input: flexlib.simulate, paper_case, Case,
Case.with_ and BeamModel.  A bad value raises at once with a message that names the parameter and
its valid range (or lists the valid names); nothing is half-applied."""
import math

import numpy as np
import pytest

import flexlib as fl
from flexlib import BeamModel, BeamParams, Case, SlopeParams, paper_case, simulate
from flexlib.paper import BeamRun

SOME_PARAMS = ("L", "n_modes", "theta0", "X1", "alpha", "e", "mu_d", "mu_s", "sigma0", "sigma1",
               "rtol", "event_cap")


# ---------------------------------------------------------------------------- simulate
@pytest.mark.parametrize("name", ["bogus", "mu", "nmodes", "t_end_", "name"])
def test_simulate_unknown_override_lists_valid_names(name):
    with pytest.raises(ValueError) as ei:
        simulate("3.2", "frictionless", 0.01, **{name: 1})
    msg = str(ei.value)
    assert f"unknown parameter {name!r}" in msg and "valid parameters:" in msg
    for p in SOME_PARAMS:
        assert p in msg


@pytest.mark.parametrize("name, value, needle", [
    ("mu_d", "abc", "[0, 10]"), ("mu_d", -0.1, "[0, 10]"), ("n_modes", 13, "[0, 12]"),
    ("n_modes", 2.5, "[0, 12]"), ("sigma0", 0.0, "(0, 1e+09] 1/m"), ("alpha", math.nan, "[-1.5, 1.5] rad"),
    ("e", 2.0, "[0, 1]"), ("theta0", math.inf, "rad"), ("event_cap", 5, "[10, 1e+07]"),
    ("method", "Euler", "'DOP853'"), ("multiplier_mode", "x", "'coupled'"),
])
def test_simulate_bad_override_names_parameter_and_range(name, value, needle):
    with pytest.raises(ValueError) as ei:
        simulate("3.2", "frictionless", 0.01, **{name: value})
    msg = str(ei.value)
    assert repr(name) in msg and "valid range" in msg and needle in msg


def test_simulate_mu_s_below_mu_d():
    with pytest.raises(ValueError, match=r"'mu_s'.*mu_d = 0\.4"):
        simulate("3.2", "hybrid_coulomb", 0.01, mu_s=0.1)


def test_simulate_lugre_needs_positive_friction_levels():
    # g(v) falls from mu_s to mu_d and is divided by: mu_d > 0 (hence mu_s >= mu_d > 0)
    with pytest.raises(ValueError, match=r"'mu_d'.*LuGre"):
        simulate("3.2", "lugre", 0.01, mu_d=0.0, mu_s=0.0)
    simulate("3.2", "hybrid_coulomb", 0.01, mu_d=0.0, mu_s=0.0)       # fine without LuGre


@pytest.mark.parametrize("case", [123, None, "", "3.3", "case B"])
def test_simulate_unknown_case(case):
    with pytest.raises(ValueError, match=r"unknown case.*'3\.1'.*'3\.2'"):
        simulate(case, "frictionless", 0.01)


@pytest.mark.parametrize("model", [None, 3, "", "coulomb"])
def test_simulate_unknown_model(model):
    with pytest.raises(ValueError, match="unknown model.*frictionless, hybrid_coulomb, hybrid_lugre, lugre"):
        simulate("3.2", model, 0.01)


def test_simulate_multiplier_mode_argument_validated():
    with pytest.raises(ValueError, match="'multiplier_mode'.*'coupled'"):
        simulate("3.2", "frictionless", 0.01, multiplier_mode="printed")


def test_start_below_slope_names_the_point_and_the_penetration():
    # theta0 = 0.1 rad puts the rigid tip 0.05802 m below the slope of case 3.2:
    # n . (r_tip - O1) with r_tip = L (cos 0.1, sin 0.1), O1 = (0.5, 0), n = (-sin a, cos a)
    a = math.pi / 10
    gap = -math.sin(a) * (math.cos(0.1) - 0.5) + math.cos(a) * math.sin(0.1)
    with pytest.raises(ValueError, match=rf"point 'tip' starts {-gap:.4g} m inside obstacle 'slope'"):
        simulate("3.2", "frictionless", 0.1, theta0=0.1)


def test_run_validates_model_and_multiplier_mode():
    with pytest.raises(ValueError, match="unknown model"):
        BeamRun(paper_case(), "x", 0.1)
    with pytest.raises(ValueError, match="'multiplier_mode'"):
        BeamRun(paper_case(), "frictionless", 0.1, multiplier_mode="x")


def test_simulate_sample_times_validated():
    with pytest.raises(ValueError, match=r"'sample_times'.*\[0, t_end = 0.01\] s"):
        simulate("3.2", "frictionless", 0.01, sample_times=[5.0])
    with pytest.raises(ValueError, match="'sample_times'"):
        simulate("3.2", "frictionless", 0.01, sample_times=["a"])


def test_simulate_sample_times_are_sampled():
    """result.samples holds theta at the requested times, equal to the history's interpolation
    and, at t = 0, to the initial angle."""
    r = simulate("3.2", "frictionless", 0.05, sample_times=[0.0, 0.02, 0.05])
    assert r.samples["t"] == [0.0, 0.02, 0.05]
    assert r.samples["theta"][0] == pytest.approx(math.pi / 4, abs=1e-12)
    assert r.samples["theta"][1] == pytest.approx(float(r.sample([0.02], "theta")[0]), abs=1e-15)
    assert r.samples["theta"][2] < r.samples["theta"][1] < r.samples["theta"][0]   # falling


@pytest.mark.parametrize("bad", [True, False, "x", None, -1.0, 0.0, math.inf, 1e4])
def test_simulate_t_end_validated(bad):
    with pytest.raises(ValueError, match=r"'t_end'.*\(0, 1000\] s"):
        simulate("3.2", "frictionless", bad)


# ---------------------------------------------------------------------------- paper_case
@pytest.mark.parametrize("name", ["X", "C", "", None, "3.3", 3.3])
def test_paper_case_unknown(name):
    with pytest.raises(ValueError) as ei:
        paper_case(name)
    msg = str(ei.value)
    assert f"unknown case {name!r}" in msg
    for valid in ("'3.1'", "'A'", "'3.2'", "'B'"):
        assert valid in msg


@pytest.mark.parametrize("name, canonical", [("A", "3.1"), ("a", "3.1"), (" 3.1 ", "3.1"), (3.2, "3.2"),
                                             ("b", "3.2")])
def test_paper_case_aliases(name, canonical):
    assert paper_case(name).name == canonical


# ---------------------------------------------------------------------------- Case
def test_case_with_unknown_name_lists_valid_ones():
    with pytest.raises(ValueError) as ei:
        paper_case().with_(name="x")            # the case name is not a parameter
    msg = str(ei.value)
    assert "unknown parameter 'name'" in msg
    for p in SOME_PARAMS:
        assert p in msg


@pytest.mark.parametrize("kw", [dict(n_modes=13), dict(mu_d="abc"), dict(mu_s=0.1), dict(e=-0.1),
                                dict(n_modes=8, n_gauss=20), dict(mu_d=0.2, bogus=1)])
def test_case_with_rejects_and_leaves_original_unchanged(kw):
    case = paper_case("3.2")
    before = case.as_dict()
    with pytest.raises(ValueError):
        case.with_(**kw)
    assert case.as_dict() == before


def test_case_with_returns_new_validated_copy():
    case = paper_case("3.2")
    new = case.with_(mu_d=0.3, n_modes=4, X1=0.6)
    assert (new.coulomb.mu_d, new.beam.n_modes, new.slope.X1) == (0.3, 4, 0.6)
    assert (case.coulomb.mu_d, case.beam.n_modes, case.slope.X1) == (0.4, 3, 0.5)


@pytest.mark.parametrize("kw, group", [(dict(beam="x"), "beam"), (dict(beam=SlopeParams()), "beam"),
                                       (dict(solver={}), "solver"), (dict(lugre=None), "lugre")])
def test_case_groups_must_have_the_right_type(kw, group):
    with pytest.raises(TypeError, match=f"Case.{group} must be a"):
        Case(**kw)


# ---------------------------------------------------------------------------- BeamModel
@pytest.mark.parametrize("kw, needle", [(dict(L=-1.0), "'L'"), (dict(n_modes=13), "'n_modes'"),
                                        (dict(E=math.nan), "'E'"), (dict(rho=0.0), "'rho'"),
                                        (dict(n_modes=8, n_gauss=20), "'n_gauss'")])
def test_beam_model_bad_params(kw, needle):
    with pytest.raises(ValueError, match="valid range") as ei:
        BeamModel(BeamParams(**kw))
    assert needle in str(ei.value)


def test_beam_params_assignment_validated():
    b = BeamParams()
    with pytest.raises(ValueError, match=r"'L' = -1.*valid range is \(0, 100\] m"):
        b.L = -1
    assert b.L == 1.0
    BeamModel(b)                                  # still usable


def test_beam_model_default_params():
    assert BeamModel().n == 3 and BeamModel(None).ndof == 4


@pytest.mark.parametrize("bad", ["x", {"L": 1.0}, "case"])
def test_beam_model_rejects_non_beam_params(bad):
    if bad == "case":
        bad = paper_case()
    with pytest.raises(TypeError, match="BeamParams"):
        BeamModel(bad)


def test_public_names_exported():
    for name in ("simulate", "SimulationError", "paper_case", "Case", "BeamModel", "BeamParams",
                 "canonical_model", "load_result", "MODELS"):
        assert hasattr(fl, name)


# ---------------------------------------------------------------------------- clean stops
def test_a_singular_stick_trial_is_reported_and_not_taken():
    """n_modes = 1: the tip's normal and tangential rows are dependent where the stick trial is
    made (cond S ~ 1e17 at zero modal velocity); the solve's rank test drops one, the dropped row
    does not hold, so the trial is no stick (its ratio NaN), a warning names it, and the run goes on
    to its end instead of branching on round-off multipliers."""
    r = simulate("3.2", "hybrid_lugre", 0.6, n_modes=1)
    assert r.success
    bad = [s for s in r.stick_tests if s["cond"] > 1e10]
    assert bad and all(np.isnan(s["ratio"]) for s in bad)
    assert any("not a stick" in w and "'tip'" in w for w in r.warnings)
    assert sum(len(im["stick_intervals"]) for im in r.impacts) == 0


def test_lugre_without_dynamic_friction_is_refused():
    """LuGre with mu_d = 0: g(v) -> 0 at speed and the bristle rate sigma0 |v| / g explodes; the
    run is refused before it starts, naming mu_d and its range."""
    with pytest.raises(ValueError, match=r"'mu_d' = 0.0 is invalid for LuGre models.*\(0, 10\]"):
        simulate("3.2", "lugre", 0.4, mu_d=0.0)