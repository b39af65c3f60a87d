"""Parameters: defaults of docs/model.md section 3, the paper's cases 3.1 and 3.2, validation messages."""
import math

import pytest

from flexlib.params import (BeamParams, Case, CoulombParams, LuGreParams, SlopeParams,
                            SolverSettings, paper_case)
from flexlib.bodies.beam import BeamModel


def flat(case):
    d = {}
    for g in ("beam", "slope", "coulomb", "lugre", "solver"):
        d.update(getattr(case, g).as_dict())
    return d


# docs/model.md section 3 (t_end, x_P are not parameter-object fields; n_gauss: see below)
DEFAULTS_2_2 = dict(L=1.0, S=3.14e-4, rho=2766.67, E=68.952e9, I=7.85e-9, g0=9.81, n_modes=3,
                    foreshortening=True, zeta=0.0, theta0=math.pi / 4, tau_d=0.0,
                    alpha=math.pi / 10, X1=0.5, e=0.0, chi=10.0, beta=1000.0, mu_d=0.4,
                    mu_s=0.5, sigma0=1.0e5, sigma1=1.0e2, sigma2=0.0, v_s=1e-3, Dv=1e-4,
                    rtol=1e-8, atol=1e-10, t_cluster=0.02, dt_rearm=1e-9)


def test_every_default_of_section_2_2():
    d = flat(Case())
    for k, v in DEFAULTS_2_2.items():
        assert k in d, k
        if isinstance(v, bool):
            assert d[k] is v, k
        else:
            assert d[k] == pytest.approx(v, rel=1e-15, abs=0), k
    # n_gauss: 40 Gauss points for the default N = 3, >= 60 for N = 8 (automatic: max(40, 8N))
    assert BeamParams().gauss_points == 40
    assert BeamParams(n_modes=8).gauss_points >= 60


def test_individual_group_defaults():
    assert SlopeParams().X1 == 0.5 and SlopeParams().alpha == pytest.approx(math.pi / 10)
    assert CoulombParams().mu_d == 0.4 and CoulombParams().mu_s == 0.5
    assert LuGreParams().sigma0 == 1e5 and LuGreParams().sigma2 == 0.0
    assert SolverSettings().rtol == 1e-8 and SolverSettings().atol == 1e-10
    assert BeamParams().theta0 == pytest.approx(math.pi / 4)


# ------------------------------------------------------------------ paper cases
COMMON = dict(chi=10.0, beta=1000.0, n_modes=3, theta0=math.pi / 4, alpha=math.pi / 10, e=0.0,
              L=1.0, rho=2766.67, E=68.952e9, S=3.14e-4, I=7.85e-9, g0=9.81)


@pytest.mark.parametrize("name", ["3.1", "A"])
def test_case_A(name):
    c = paper_case(name)
    d = flat(c)
    assert c.name == "3.1"
    assert d["X1"] == 0.3
    assert d["mu_d"] == 0.3
    assert d["mu_s"] >= d["mu_d"]           # not given for case A, must still be consistent
    for k, v in COMMON.items():
        assert d[k] == pytest.approx(v, rel=1e-15), k


@pytest.mark.parametrize("name", ["3.2", "B"])
def test_case_B(name):
    c = paper_case(name)
    d = flat(c)
    assert c.name == "3.2"
    expected = dict(X1=0.5, mu_d=0.4, mu_s=0.5, sigma0=1e5, sigma1=1e2, sigma2=0.0, v_s=1e-3,
                    Dv=1e-4, **COMMON)
    for k, v in expected.items():
        assert d[k] == pytest.approx(v, rel=1e-15), k


def test_paper_case_default_is_B_and_copies_are_independent():
    assert paper_case().name == "3.2"
    c1 = paper_case("B")
    c1.coulomb.mu_d = 0.45
    assert paper_case("B").coulomb.mu_d == 0.4


def test_with_returns_validated_copy():
    c = paper_case("B")
    c2 = c.with_(mu_d=0.3, n_modes=4, X1=0.3, rtol=1e-9)
    assert (c2.coulomb.mu_d, c2.beam.n_modes, c2.slope.X1, c2.solver.rtol) == (0.3, 4, 0.3, 1e-9)
    assert (c.coulomb.mu_d, c.beam.n_modes, c.slope.X1, c.solver.rtol) == (0.4, 3, 0.5, 1e-8)
    with pytest.raises(ValueError, match=r"n_modes.*13"):
        c.with_(n_modes=13)


def test_case_dict_roundtrip():
    c = paper_case("A").with_(n_modes=5)
    c2 = Case.from_dict(c.as_dict())
    assert c2 == c and c2.key() == c.key()


# ------------------------------------------------------------------ validation
@pytest.mark.parametrize("cls,name,value,pattern", [
    (BeamParams, "L", -1.0, r"'L'.*-1(\.0)?\b.*valid range"),
    (BeamParams, "L", 0.0, r"'L'.*\b0(\.0)?\b.*valid range"),
    (BeamParams, "E", float("nan"), r"'E'.*nan.*valid range"),
    (BeamParams, "rho", float("inf"), r"'rho'.*inf.*valid range"),
    (BeamParams, "S", -float("inf"), r"'S'.*-inf.*valid range"),
    (BeamParams, "n_modes", -1, r"'n_modes'.*-1\b.*valid range.*\b0\b.*\b12\b"),
    (BeamParams, "n_modes", 13, r"'n_modes'.*\b13\b.*valid range.*\b0\b.*\b12\b"),
    (BeamParams, "n_modes", 2.5, r"'n_modes'.*2\.5.*valid range.*\b0\b.*\b12\b"),
    (BeamParams, "foreshortening", "yes", r"'foreshortening'.*yes.*True or False"),
    (LuGreParams, "sigma0", 0.0, r"'sigma0'.*\b0(\.0)?\b.*valid range"),
    (LuGreParams, "sigma0", -5.0, r"'sigma0'.*-5.*valid range"),
    (LuGreParams, "v_s", 0.0, r"'v_s'.*valid range"),
    (CoulombParams, "mu_d", -0.1, r"'mu_d'.*-0\.1.*valid range"),
    (CoulombParams, "Dv", float("nan"), r"'Dv'.*nan.*valid range"),
    (SlopeParams, "e", 1.5, r"'e'.*1\.5.*valid range"),
    (SolverSettings, "method", "Euler", r"'method'.*Euler.*DOP853.*RK45.*Radau.*BDF.*LSODA"),
    (SolverSettings, "rtol", float("nan"), r"'rtol'.*nan.*valid range"),
])
def test_bad_value_at_construction_and_assignment(cls, name, value, pattern):
    with pytest.raises(ValueError, match=pattern):
        cls(**{name: value})
    obj = cls()
    old = getattr(obj, name)
    with pytest.raises(ValueError, match=pattern):
        setattr(obj, name, value)
    assert getattr(obj, name) == old            # a rejected value is not stored


def test_n_modes_integer_valued_float_is_normalised():
    b = BeamParams(n_modes=4.0)
    assert b.n_modes == 4 and isinstance(b.n_modes, int)
    with pytest.raises(ValueError, match="n_modes"):
        BeamParams(n_modes=True)


def test_mu_s_below_mu_d_at_construction():
    with pytest.raises(ValueError, match=r"mu_s.*0\.3.*mu_d"):
        CoulombParams(mu_d=0.4, mu_s=0.3)
    with pytest.raises(ValueError, match=r"mu_s.*mu_d"):
        paper_case("B").with_(mu_d=0.6)
    CoulombParams(mu_d=0.4, mu_s=0.4)                  # equal is allowed


def test_mu_s_below_mu_d_by_assignment():
    c = CoulombParams()
    with pytest.raises(ValueError, match=r"mu_s.*0\.3.*mu_d"):
        c.mu_s = 0.3
    c2 = CoulombParams()
    with pytest.raises(ValueError, match=r"mu_s.*mu_d.*0\.6"):
        c2.mu_d = 0.6


def test_rejected_cross_field_assignment_leaves_object_valid():
    """After a rejected assignment the object must keep its previous, valid values.

    The per-field checks do this; the cross-field rules (mu_s >= mu_d, n_gauss large enough
    for n_modes) must do it too, otherwise a caller that catches the ValueError (a notebook
    widget, a parameter sweep) keeps running with an inconsistent parameter set.
    """
    c = CoulombParams()
    with pytest.raises(ValueError):
        c.mu_s = 0.3
    assert (c.mu_d, c.mu_s) == (0.4, 0.5)
    with pytest.raises(ValueError):
        c.mu_d = 0.6
    assert (c.mu_d, c.mu_s) == (0.4, 0.5)
    b = BeamParams(n_gauss=20)
    with pytest.raises(ValueError, match="n_gauss"):
        b.n_modes = 8
    assert b.n_modes == 3


def test_n_gauss_too_small_for_n_modes():
    with pytest.raises(ValueError, match=r"'n_gauss'.*20.*n_modes.*8"):
        BeamParams(n_modes=8, n_gauss=20)


def test_unknown_case_name_lists_valid_ones():
    with pytest.raises(ValueError, match=r"'C'.*3\.1.*'A'.*3\.2.*'B'"):
        paper_case("C")


def test_with_unknown_parameter_names_valid_params():
    with pytest.raises(ValueError, match=r"'unknown'.*valid parameters.*\bL\b.*mu_d.*n_modes.*sigma0"):
        paper_case("B").with_(unknown=1)


def test_axial_modes_supported_by_beam_model():
    # axial_modes 1..4 are the extension of docs/model.md section 16 (tests/test_axial.py); 5 is invalid
    assert BeamModel(BeamParams(axial_modes=1)).ndof == BeamParams().n_modes + 2
    with pytest.raises(ValueError, match="axial_modes"):
        BeamParams(axial_modes=5)


def test_every_parameter_has_a_range_and_a_description():
    """One table per parameter: the command line's help and the widgets read both."""
    from dataclasses import fields
    from flexlib.params import DESCRIPTIONS, RANGES
    names = {f.name for c in (BeamParams, SlopeParams, CoulombParams, LuGreParams, SolverSettings)
             for f in fields(c)}
    assert set(RANGES) == names
    assert set(DESCRIPTIONS) == names
    for name, text in DESCRIPTIONS.items():
        assert text.strip() and "\n" not in text, name
