"""The examples run: examples/custom_friction.py registers a friction law from outside the
package and runs it through flexlib.simulate."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from flexlib import models

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def example():
    spec = importlib.util.spec_from_file_location("custom_friction", ROOT / "examples" / "custom_friction.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    yield mod
    models.REGISTRY.pop(mod.SPEC.id, None)      # leave the registry as the other tests expect


def test_custom_friction_law_runs_through_simulate(example, capsys):
    res = example.main(t_end=0.36)
    assert res.model == "hybrid_stribeck" and res.impacts
    assert "hybrid Stribeck" in capsys.readouterr().out
    assert res.audit_residual_max <= 1e-6 * res.E0
    im = res.impacts[0]
    assert im["peak_friction_force"] > 0.0
    # in slip the law's coefficient is what the kernel used: mu = dir g(v) + sigma2 v
    c = res.case.coulomb
    slip = (res.mode == 3) & np.isfinite(res.v_t)
    assert slip.any()
    v = res.v_t[slip]
    g = c.mu_d + (c.mu_s - c.mu_d) * np.exp(-(v / res.case.lugre.v_s) ** 2)
    mu = res.mu_lugre[slip]
    np.testing.assert_allclose(np.abs(mu - 0.02 * v), g, rtol=1e-12)


def test_triple_pendulum_is_a_system_of_its_own():
    """examples/triple_pendulum.py builds three hinged flexible links and a contact point from the
    public parts and runs them: the links hang together (each hinge is the tip of the link
    above), the lowest tip strikes the ground, and the energy books close."""
    spec = importlib.util.spec_from_file_location("triple_pendulum",
                                                  ROOT / "examples" / "triple_pendulum.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    res = mod.main(t_end=0.6)
    assert [b.name for b in res.system.bodies] == ["L1", "L2", "L3"]
    assert res.impacts and res.impacts[0]["contact"] == "tip"
    # the tip falls from rest at Y = 0 to the ground at Y = -1.2 m: it reaches it after 0.3 s
    # (free fall would take sqrt(2.4 / 9.81) = 0.49 s for a point; a pendulum's tip is faster)
    assert 0.3 < res.impacts[0]["t_start"] < 0.6
    audit = res.audit()
    assert audit["max_residual"] <= 1e-6 * audit["scale"]
    # each hinge stays on the tip of its parent (the deformed tip)
    Y = res.sample([0.2, 0.5])
    for parent, child, x in (("L1", "L2", 0.6), ("L2", "L3", 0.5)):
        tip = res.points(parent, [x], Y)[:, 0]
        R, _ = res.frame_origins(Y)
        assert abs(tip - R[:, res.system.index(child)]).max() < 1e-12
