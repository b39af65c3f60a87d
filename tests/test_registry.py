"""The model registry (flexlib.models): one list of models and the combinations it refuses."""
import pytest

import flexlib
from flexlib import models


def test_model_lists_are_views_of_the_registry():
    assert flexlib.MODELS == tuple(models.REGISTRY) == models.MODELS
    assert models.CONTACT_MODELS == ("frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre")
    assert set(models.FRICTION_MODELS) == {"hybrid_coulomb", "hybrid_lugre", "lugre"}
    assert models.CONTINUOUS_MODELS == ("continuous", "continuous_coulomb", "continuous_lugre")
    assert set(models.MODELS) == {"free", *models.CONTACT_MODELS, *models.CONTINUOUS_MODELS}
    assert models.canonical_model("Hybrid-LuGre") == "hybrid_lugre"
    with pytest.raises(ValueError, match="valid models: free, frictionless"):
        models.get("stribeck")


def test_styles_match_the_plots():
    from flexlib.viz.plots import STYLES
    for m, spec in models.REGISTRY.items():
        assert spec.style() == STYLES[m]
    from flexlib.viz.widgets import _LABELS
    assert {m: s.label for m, s in models.REGISTRY.items()} == _LABELS


def test_registry_entries_describe_the_models():
    hc, hl, ul = (models.get(m) for m in ("hybrid_coulomb", "hybrid_lugre", "lugre"))
    assert hc.can_stick and hl.can_stick and not ul.can_stick
    assert hc.friction.uses_direction and not hl.friction.uses_direction
    assert hl.friction.has_bristles and ul.friction.has_bristles and not hc.friction.has_bristles
    assert (hc.friction.stick_limit, hl.friction.stick_limit) == ("mu_d", "mu_s")
    cc, cl = models.get("continuous_coulomb"), models.get("continuous_lugre")
    assert cc.is_penalty and cl.is_penalty and not hl.is_penalty
    assert not (cc.can_stick or cl.can_stick or cc.watches_painleve or cl.watches_painleve)
    assert cl.friction is models.LUGRE and cc.friction is models.MODIFIED_COULOMB


def test_bad_combinations_are_refused():
    with pytest.raises(ValueError, match="needs a contact law"):
        models.register(models.ModelSpec("x1", models.NO_CONTACT, models.COULOMB, False, "", "k",
                                         "-", 1.0, ""))
    with pytest.raises(ValueError, match="stick/slip switching"):
        models.register(models.ModelSpec("x2", models.TIP_ON_SLOPE, models.NO_FRICTION, True, "",
                                         "k", "-", 1.0, ""))
    odd = models.FrictionLaw("odd", False, (0.0,), "mu_d")
    with pytest.raises(ValueError, match="'odd' is not built in.*brings no custom law"):
        models.register(models.ModelSpec("x3", models.TIP_ON_SLOPE, odd, False, "", "k", "-", 1.0, ""))
    with pytest.raises(ValueError, match="no stick state for hard Coulomb"):   # penalty + Coulomb
        models.register(models.ModelSpec("x4", models.PENALTY, models.COULOMB, False, "", "k", "-",
                                         1.0, ""))
    with pytest.raises(ValueError, match="a penalty contact's law"):   # constraint + modified
        models.register(models.ModelSpec("x6", models.TIP_ON_SLOPE, models.MODIFIED_COULOMB, False,
                                         "", "k", "-", 1.0, ""))
    bad = models.FrictionLaw("bad", False, (0.0,), "mu_d", custom=object())
    with pytest.raises(ValueError, match="valid is a flexlib.multibody.laws.FrictionLaw"):
        models.register(models.ModelSpec("x7", models.TIP_ON_SLOPE, bad, False, "", "k", "-", 1.0,
                                         ""))
    with pytest.raises(ValueError, match="stick/slip switching"):
        models.register(models.ModelSpec("x5", models.PENALTY, models.LUGRE, True, "", "k", "-",
                                         1.0, ""))
    with pytest.raises(ValueError, match="already registered"):
        models.register(models.get("lugre"))
    assert not {"x1", "x2", "x3", "x4", "x5", "x6", "x7"} & set(models.REGISTRY)
