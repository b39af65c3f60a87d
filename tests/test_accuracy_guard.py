"""No accuracy is traded for speed, and flexlib still runs on plain NumPy without its compiled kernel.

* The system engine's compiled right-hand side (:mod:`flexlib.multibody.kernel`, read through
  :meth:`flexlib.paper.BeamRun.evaluate`) and the same code run as plain Python
  (``FLEXLIB_NO_NUMBA=1``, a subprocess that checks that nothing is compiled) give the same
  right-hand side and phase outputs (N, F_t, z', mu, margin, gap, s, v_n, v_t) to 1e-9 relative,
  at fixed states in every phase of every model, with 3 and with 5 modes.
* The pure-Python path and the compiled path give the same first impact (start to 1e-5 s, peak
  N to 1e-3) for the frictionless and unified LuGre models (slow: the pure path takes ~10 s).
* For every model of case 3.2, the start times of the first three impacts agree to 1e-5 s and
  their peak normal forces to 1e-3 relative with a run made with tolerances 100x tighter
  (rtol 1e-10, atol 1e-12), computed here (slow).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from flexlib import _jit
from flexlib.layout import CONTACT, FREE, SLIP, STICK
from flexlib.models import CONTACT_MODELS
from flexlib.multibody import kernel
from flexlib.paper import BeamRun, PhaseState, SimulationError, simulate
from flexlib.params import paper_case

ROOT = Path(__file__).resolve().parents[1]
REL = 1e-9
TOL_T = 1e-5          # s
TOL_PEAK = 1e-3       # relative

# (model, phase) pairs that the runs use
PHASES = [("free", FREE), ("frictionless", FREE), ("frictionless", CONTACT),
          ("hybrid_coulomb", SLIP), ("hybrid_coulomb", STICK), ("hybrid_lugre", SLIP),
          ("hybrid_lugre", STICK), ("lugre", CONTACT)]


def rhs_samples(n_modes):
    """[(model, mode, dy, out)] at fixed, reproducible states of case 3.2 (no randomness from
    the code under test: the states come from a seeded generator)."""
    case = paper_case("3.2").with_(n_modes=n_modes)
    rng = np.random.default_rng(20261203)
    rows = []
    for model, mode in PHASES:
        sim = BeamRun(case, model, 1.0)
        nd, lay = sim.nd, sim.layout
        for _ in range(3):
            y = np.zeros(lay.size)
            y[0] = 0.2 + 0.1 * rng.standard_normal()
            y[1:nd] = 1e-3 * rng.standard_normal(nd - 1)
            y[nd] = -4.0 + rng.standard_normal()
            y[nd + 1:2 * nd] = 0.3 * rng.standard_normal(nd - 1)
            z = 1e-6 * rng.standard_normal()          # drawn for every model: the same states
            if lay.z is not None:
                y[lay.z] = z
            d = PhaseState(mode, dir=-1.0 if mode == SLIP else 0.0,
                           s_star=0.95 if mode == STICK else 0.0)
            dy, out = sim.evaluate(0.33, y, d)
            rows.append((model, int(mode), np.asarray(dy).tolist(), np.asarray(out).tolist()))
    return rows


def _in_subprocess(code):
    env = dict(os.environ, FLEXLIB_NO_NUMBA="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests"),
                                           os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def _close(a, b, rel):
    a, b = np.asarray(a, float), np.asarray(b, float)
    both_nan = np.isnan(a) & np.isnan(b)
    scale = np.maximum(np.abs(b), 1.0)
    return bool(np.all(both_nan | (np.abs(a - b) <= rel * scale))), float(
        np.nanmax(np.where(both_nan, 0.0, np.abs(a - b) / scale)))


# run in the subprocess before the samples: nothing of the physics is compiled there
UNCOMPILED = ("from flexlib import _jit; from flexlib.multibody import kernel; "
              "from flexlib.solver import integrator; "
              "assert not _jit.COMPILED and not integrator.COMPILED and not _jit.DISPATCHERS; "
              "assert not hasattr(kernel.phase_eval_into, 'py_func'); ")


def test_the_compiled_side_is_compiled():
    """The comparison below is between two different executions: here the right-hand side is a
    numba dispatcher (when numba is on)."""
    if not _jit.COMPILED:
        pytest.skip("numba is off (FLEXLIB_NO_NUMBA or no numba)")
    assert hasattr(kernel.phase_eval_into, "py_func")
    assert kernel.phase_eval_into in _jit.DISPATCHERS


@pytest.mark.skipif(not _jit.COMPILED, reason="needs the compiled kernel to compare against")
@pytest.mark.parametrize("n_modes", [3, 5])
def test_pure_python_kernel_gives_the_same_rhs(n_modes):
    pure = _in_subprocess(
        f"import json; {UNCOMPILED}"
        f"from test_accuracy_guard import rhs_samples; print(json.dumps(rhs_samples({n_modes})))")
    fast = rhs_samples(n_modes)
    assert len(pure) == len(fast) == 3 * len(PHASES)
    for (m, mode, dy_p, out_p), (_, _, dy_f, out_f) in zip(pure, fast):
        ok, worst = _close(dy_f, dy_p, REL)
        assert ok, f"{m} mode {mode}: dy differs by {worst:.3g} (relative)"
        ok, worst = _close(out_f, out_p, REL)
        assert ok, f"{m} mode {mode}: phase outputs differ by {worst:.3g} (relative)"


def _impacts(model, t_end, **kw):
    try:
        r = simulate("3.2", model, t_end, **kw)
    except SimulationError as err:          # compare what the partial run has
        r = err.result
    return [(im["t_start"], im["peak_normal_force"]) for im in r.impacts]


def _compare(fast, ref, n, what):
    assert len(ref) >= n and len(fast) >= n, f"{what}: {len(fast)} vs {len(ref)} impacts"
    for k in range(n):
        (ta, pa), (tb, pb) = fast[k], ref[k]
        assert abs(ta - tb) <= TOL_T, f"{what}, impact {k + 1}: start {ta:.9f} vs {tb:.9f} s"
        assert abs(pa - pb) <= TOL_PEAK * abs(pb), f"{what}, impact {k + 1}: peak N {pa:.6g} vs {pb:.6g} N"


@pytest.mark.slow
@pytest.mark.skipif(not _jit.COMPILED, reason="needs the compiled kernel to compare against")
@pytest.mark.parametrize("model", ["frictionless", "lugre"])
def test_pure_python_path_gives_the_same_first_impact(model):
    t_end = 0.35        # the first impact of case 3.2 lasts 0.3329-0.3435 s
    pure = _in_subprocess(
        f"import json; {UNCOMPILED}from test_accuracy_guard import _impacts; "
        f"print(json.dumps(_impacts({model!r}, {t_end})))")
    _compare(_impacts(model, t_end), pure, 1, f"{model}, compiled vs pure Python")


@pytest.mark.slow
@pytest.mark.parametrize("model", CONTACT_MODELS)
def test_first_three_impacts_against_100x_tighter_tolerances(model):
    """Default tolerances (rtol 1e-8, atol 1e-10) against rtol 1e-10, atol 1e-12 over 0-1.1 s
    (the third impact of case 3.2 starts at ~1.02 s)."""
    fast = _impacts(model, 1.1)
    ref = _impacts(model, 1.1, rtol=1e-10, atol=1e-12)
    _compare(fast, ref, 3, f"{model}, default vs 100x tighter tolerances")
