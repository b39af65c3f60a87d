"""A friction law from outside the package at a system's contact points
(examples/custom_friction_system.py): both contact methods, its own parameters, the same runs as
the built-in laws it re-implements, compiled once and loaded from numba's disk cache by another
process, and clear errors for bad input."""
import dataclasses
import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from flexlib import _jit
from flexlib.multibody.laws import FrictionLaw
from flexlib.multibody.system import ContactLaws

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "custom_friction_system.py"


@pytest.fixture(scope="module")
def ex():
    spec = importlib.util.spec_from_file_location("custom_friction_system", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod            # as an import does: numba's cache reloads it by name
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop(spec.name, None)


def _same_run(a, b):
    """The two runs took the same steps, events and impacts, and their histories agree to
    round-off."""
    assert [len(p.sol.t) for p in a.phases] == [len(p.sol.t) for p in b.phases]
    assert [e[:3] for e in a.log.events] == [e[:3] for e in b.log.events]
    assert len(a.log.jumps) == len(b.log.jumps)
    ha, hb = a.steps(), b.steps()
    for key in ("t", "E", "W_F", "W_N", "P1.N", "P1.F_t", "P2.F_t", "P1.mode", "P2.mode"):
        np.testing.assert_allclose(hb[key], ha[key], rtol=1e-12, atol=1e-12, err_msg=key)


def test_coulomb_from_outside_is_the_built_in_hybrid_coulomb(ex):
    """mu = dir mu_d in slip, sticking up to mu_d: the run of hybrid_coulomb, stick and slip."""
    ref = ex.run("hybrid_coulomb")
    own = ex.run("hybrid_coulomb", ex.COULOMB, {"mu_d": 0.3})
    assert own.system.contacts[0].laws.custom is ex.COULOMB
    modes = set(np.unique(ref.steps()["P1.mode"]).astype(int))
    assert {2, 3} <= modes, modes                 # the run sticks and slips
    assert sum(ref.audit()["W_F"]) < -1e-3        # and friction works
    _same_run(ref, own)


def test_modified_coulomb_from_outside_is_the_built_in_continuous_coulomb(ex):
    ref = ex.run("continuous_coulomb")
    own = ex.run("continuous_coulomb", ex.MODIFIED_COULOMB,
                 dict(mu_d=0.3, v0=ref.system.contacts[0].laws.v0,
                      v1=ref.system.contacts[0].laws.v1))
    assert own.system.contacts[0].laws.method == "penalty"
    assert sum(ref.audit()["W_F"]) < -1e-3
    _same_run(ref, own)


def test_lugre_from_outside_is_the_built_in_unified_lugre(ex):
    """A law with an internal state: LuGre written again from outside, under the constraint
    method, gives the built-in unified LuGre run on the paper's beam and slope (every contact
    starts with the bristles at rest, z = 0).  (On the tilted falling beam LuGre stops at its
    first landing: the end lands sliding at 0.13 m/s, where z = 0 gives the friction ratio
    sigma1 v_t ~ 13, past the Painleve point.)"""
    ref = ex.run("lugre", t_end=0.75, case="beam-on-slope")
    lg = ref.system.contacts[0].laws
    values = dict(mu_d=lg.mu_d, mu_s=lg.mu_s, v_s=lg.v_s, sigma0=lg.sigma0, sigma1=lg.sigma1,
                  sigma2=lg.sigma2)
    own = ex.run("lugre", ex.LUGRE, values, t_end=0.75, case="beam-on-slope")
    assert own.system.contacts[0].laws.custom is ex.LUGRE
    assert len(ref.log.jumps) >= 2 and sum(ref.audit()["W_F"]) < -1e-3
    # the same events and impacts; the law's compiled code is not the built-in one, so the bits
    # differ and the step sizes drift apart in the stiff bristle transients
    assert [e[1:3] for e in ref.log.events] == [e[1:3] for e in own.log.events]
    assert [j.points for j in ref.log.jumps] == [j.points for j in own.log.jumps]
    np.testing.assert_allclose([j.t for j in own.log.jumps], [j.t for j in ref.log.jumps],
                               rtol=0, atol=1e-9)
    ts = np.linspace(0.0, ref.t_end, 601)
    ha, hb = ref.history(ts), own.history(ts)
    for key in ("beam.theta", "E", "W_F", "tip.N", "tip.F_t"):
        scale = max(np.abs(ha[key]).max(), 1e-300)
        assert np.abs(hb[key] - ha[key]).max() <= 1e-8 * scale, key


@pytest.mark.parametrize("model", ["hybrid_coulomb", "continuous_coulomb"])
def test_a_new_law_runs_with_both_methods_and_its_books_close(ex, model):
    """The Stribeck-viscous law: the friction the run applied is the law's, with its own
    parameters, and the energy audit closes."""
    res = ex.run(model, ex.STRIBECK, ex.STRIBECK_VALUES)
    a = res.audit()
    assert a["max_residual"] <= 1e-6 * a["scale"]
    assert sum(a["W_F"]) < -1e-3
    h = res.steps()
    p = ex.STRIBECK_VALUES
    g = lambda v: p["mu_d"] + (p["mu_s"] - p["mu_d"]) * np.exp(-(v / p["v_s"]) ** 2)  # noqa: E731
    checked = 0
    for c in ("P1", "P2"):
        v, N, F, mode = h[f"{c}.v_t"], h[f"{c}.N"], h[f"{c}.F_t"], h[f"{c}.mode"]
        if model == "hybrid_coulomb":
            on = (mode == 3) & (N > 1e-6)                         # slip phases
            sgn = np.sign(v)
            ok = np.abs(v) > 1e-6                                 # the direction is the motion's
        else:
            on = N > 1e-6
            sgn = np.tanh(v / p["v_reg"])
            ok = on
        sel = on & ok
        mu = sgn[sel] * g(v[sel]) + p["sigma2"] * v[sel]
        np.testing.assert_allclose(-F[sel] / N[sel], mu, rtol=1e-9, atol=1e-12)
        checked += sel.sum()
    assert checked > 10


def test_a_law_from_outside_has_its_own_curve_style_and_name(ex):
    """Figures draw a run with a law from outside in a colour no built-in model uses, labelled by
    the law's name (not as a free flight)."""
    from flexlib import models
    from flexlib.viz import multibody_plots as mbp
    res = ex.run("hybrid_coulomb", ex.STRIBECK, ex.STRIBECK_VALUES, t_end=0.05)
    assert mbp.model_of(res) == "custom"
    st = mbp.curve_style("", res)
    assert st["label"] == ex.STRIBECK.name
    assert mbp.curve_style("mine", res)["label"] == "mine"
    taken = {s.style()["color"] for s in models.REGISTRY.values()}
    assert st["color"] not in taken
    assert mbp.model_of(ex.run("hybrid_coulomb", t_end=0.05)) == "hybrid_coulomb"


_PROBE = r"""
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("custom_friction_system", sys.argv[1])
ex = sys.modules[spec.name] = importlib.util.module_from_spec(spec); spec.loader.exec_module(ex)
from flexlib.solver import integrator
from flexlib.multibody import kernel as K
t0 = time.perf_counter()
law = ex.STRIBECK.compiled()
t_law = time.perf_counter() - t0
own = ex.run("hybrid_coulomb", ex.COULOMB, {"mu_d": 0.3}, t_end=0.2)
ref = ex.run("hybrid_coulomb", t_end=0.2)
ig = integrator.specialize(K)
print(json.dumps(dict(
    t_law=t_law, law_hits=sum(law.dispatcher.stats.cache_hits.values()),
    law_misses=sum(law.dispatcher.stats.cache_misses.values()),
    law_cache=law.dispatcher.stats.cache_path,
    integrator_hits=sum(ig.stats.cache_hits.values()),
    integrator_misses=sum(ig.stats.cache_misses.values()),
    same=bool((own.steps()["E"] == ref.steps()["E"]).all()
              and len(own.steps()["E"]) == len(ref.steps()["E"])))))
"""


@pytest.mark.skipif(not _jit.COMPILED, reason="the disk cache is numba's")
def test_a_second_process_loads_the_law_and_the_system_code_from_the_disk_cache():
    """Two fresh processes run a law from outside: the second loads the law's compiled code and
    the system's integrator from numba's cache (no compilation), the law's cache lives beside its
    own file, and in that process the law and the built-in Coulomb law still give the same run
    (the shared compiled code is not specialised to, nor overwritten by, either)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    runs = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", _PROBE, str(EXAMPLE)], env=env, text=True,
                             capture_output=True, timeout=900, check=True).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
    second = runs[1]
    assert second["law_misses"] == 0 and second["law_hits"] >= 1, runs
    assert second["integrator_misses"] == 0 and second["integrator_hits"] >= 1, runs
    assert second["same"] and runs[0]["same"], runs
    assert Path(second["law_cache"]).resolve() == (EXAMPLE.parent / "__pycache__").resolve()
    assert not list((ROOT / "flexlib").rglob("__pycache__/*stribeck_viscous*"))


def test_bad_input_names_the_parameter_its_value_and_the_valid_range(ex):
    base = ContactLaws(method="penalty", K=1e9)
    with pytest.raises(ValueError, match=r"'v_reg' of friction law 'stribeck_viscous' is missing: "
                                         r"valid range is \[1e-09, inf\]"):
        dataclasses.replace(base, friction=ex.STRIBECK,
                            friction_params=dict(mu_d=0.3, mu_s=0.4, v_s=0.05, sigma2=0.0))
    with pytest.raises(ValueError, match=r"'v_s' = -1 of friction law 'stribeck_viscous' is "
                                         r"invalid: valid range is \[1e-09, inf\]"):
        dataclasses.replace(base, friction=ex.STRIBECK,
                            friction_params=dict(ex.STRIBECK_VALUES, v_s=-1))
    with pytest.raises(ValueError, match=r"'mu_d' = nan .* valid range is \[0, 10\]"):
        dataclasses.replace(base, friction=ex.COULOMB, friction_params=(math.nan,))
    with pytest.raises(ValueError, match=r"'mu' is not a parameter of friction law 'coulomb_again'"):
        dataclasses.replace(base, friction=ex.COULOMB, friction_params={"mu": 0.3})
    with pytest.raises(ValueError, match=r"'can_stick' = True is invalid with friction law "
                                         r"'modified_coulomb_again'"):
        dataclasses.replace(base, friction=ex.MODIFIED_COULOMB, can_stick=True,
                            friction_params=(0.3, 1e-4, 1e-3))
    with pytest.raises(ValueError, match=r"'friction' = 'stribeck' is invalid"):
        dataclasses.replace(base, friction="stribeck")
    with pytest.raises(ValueError, match=r"'stick_limit' = 'mu_s' of friction law 'c' is invalid"):
        FrictionLaw("c", ex.coulomb, ("mu_d",), stick_limit="mu_s")
    with pytest.raises(TypeError, match=r"friction law 'two' takes \['v', 'p'\]: valid is a "
                                        r"function of 4 arguments \(v_t, z, dirn, p\)"):
        FrictionLaw("two", lambda v, p: (0.0, p[0]))


@pytest.mark.skipif(not _jit.COMPILED, reason="compile errors are numba's")
def test_a_law_that_does_not_compile_to_the_signature_is_an_error_naming_the_law():
    def one_value(v, z, dirn, p):
        return p[0] * v

    law = FrictionLaw("one_value", one_value, ("mu_d",))
    with pytest.raises(TypeError, match=r"friction law 'one_value'"):
        law.compiled()
