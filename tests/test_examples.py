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
