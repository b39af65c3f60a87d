"""Restitution e > 0 and the rule that ends a bouncing sequence (the Zeno rule).

With e > 0 every re-contact rebounds; with this beam the tip is still being pushed towards the
slope, and the rebounds become ever shorter until their flight times vanish (an accumulation
point).  Once the normal approach speed at a contact falls below ``v_zeno`` the jump is applied
with e = 0, so the contact persists and the contact state is chosen as after any impact.
"""
import numpy as np
import pytest

import flexlib as fl

MODELS = ("frictionless", "lugre", "hybrid_coulomb", "hybrid_lugre")


@pytest.fixture(scope="module")
def bouncing_runs():
    return {m: fl.simulate("3.2", m, 2.0, e=0.5) for m in MODELS}


@pytest.mark.parametrize("model", MODELS)
def test_e_half_reaches_t_end_and_energy_never_rises(bouncing_runs, model):
    res = bouncing_runs[model]
    assert res.success and res.t[-1] == pytest.approx(2.0)
    E0 = res.E0
    E = res.h["E"]
    # the energy never rises (beyond the integration error and the small positive friction
    # work of a slip phase whose stop event is not armed yet, |v_t| < Dv)
    assert np.max(E - np.minimum.accumulate(E)) <= 1e-6 * E0
    assert E[-1] < 0.5 * E0
    assert res.audit_residual_max <= 1e-6 * E0
    assert all(j["dE"] <= 0.0 for j in res.jumps)


@pytest.mark.parametrize("model", MODELS)
def test_zeno_rule_is_counted_and_applies_e_zero(bouncing_runs, model):
    res = bouncing_runs[model]
    vz = res.case.slope.v_zeno
    zeno = [j for j in res.jumps if j["zeno"]]
    assert res.stats["n_zeno_jumps"] == len(zeno) > 0
    assert sum(im["zeno_jumps"] for im in res.impacts) == len(zeno)
    assert res.summary()["stats"]["n_zeno_jumps"] == len(zeno)
    for j in res.jumps:
        # the rule applies exactly below v_zeno: those jumps take e = 0, the others e = 0.5
        assert j["zeno"] == (abs(j["v_n_minus"]) < vz)
        if j["zeno"]:
            assert j["e"] == 0.0 and abs(j["v_n_plus"]) <= 1e-9 * abs(j["v_n_minus"]) + 1e-15
        else:
            assert j["e"] == 0.5
            assert j["v_n_plus"] == pytest.approx(-0.5 * j["v_n_minus"], rel=1e-9)


def test_without_the_rule_the_rebounds_accumulate():
    """v_zeno = 0 switches the rule off: the rebounds of the first impact accumulate and the run
    stops at the event cap, with a cause that points at v_zeno."""
    with pytest.raises(fl.SimulationError) as err:
        fl.simulate("3.2", "frictionless", 0.4, e=0.5, v_zeno=0.0, event_cap=500)
    assert "v_zeno" in err.value.cause
    jumps = err.value.result.jumps
    assert len(jumps) >= 500            # every event of the cluster is a rebound (the cap: 500)
    # the approach speeds stop decreasing: the tip is still pushed into the slope
    assert abs(jumps[-1]["v_n_minus"]) > 1e-5


def test_e_zero_never_uses_the_rule():
    res = fl.simulate("3.2", "frictionless", 0.8)
    assert res.stats["n_zeno_jumps"] == 0
    assert all(j["e"] == 0.0 and not j["zeno"] for j in res.jumps)


@pytest.mark.parametrize("bad", [-1e-3, 11.0, float("nan")])
def test_v_zeno_is_validated(bad):
    with pytest.raises(ValueError, match="v_zeno"):
        fl.simulate("3.2", "frictionless", 0.5, v_zeno=bad)
