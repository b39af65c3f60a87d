"""The compiled integrator (``method="DOP853"``, default) and scipy's solve_ivp
(``method="DOP853-scipy"``, same kernel) give the same impacts (not a timed test).

Case 3.2, t = 0..1 s, every contact model (both methods; the continuous ones with e = 0.5): the start times of the first three impacts (fewer if
the run has fewer: frictionless has two before 1 s) agree to 1e-5 s and their peak normal forces
to 1e-3 relative.  The two integrators implement the same DOP853 algorithm, but round-off in the
error-norm summation moves the step sequences apart slowly, so agreement is to within the
tolerances, not bit for bit (see flexlib/solver/integrator.py).

The compiled integrator also screens the stage states of every step for event functions that
change sign and come back within the step (flexlib/solver/integrator.py); solve_ivp cannot.  Where the
two paths then disagree on an impact (hybrid_coulomb's third impact: 0.8265610 s compiled,
0.8265321 s scipy), the compiled value must be the converged one: it must agree with a compiled
run at 100x tighter tolerances to the same 1e-5 s / 1e-3, and the scipy value must not.
"""
import pytest

from flexlib.models import CONTINUOUS_MODELS
from flexlib.models import CONTACT_MODELS
from flexlib.paper import SimulationError, simulate

T_END = 1.0
N_IMPACTS = 3
TOL_T = 1e-5        # s
TOL_PEAK = 1e-3     # relative


def _run(model, method, **kw):
    if model in CONTINUOUS_MODELS:
        kw.setdefault("e", 0.5)         # the penalty models' default law (flores) needs e > 0
    try:
        return simulate("3.2", model, T_END, method=method, **kw)
    except SimulationError as err:        # compare the partial runs (none is expected before 1 s)
        return err.result


# The scipy runs take 2-6 s each (about 17 s for the four models on an idle 2-core machine).
@pytest.mark.slow
@pytest.mark.parametrize("model", CONTACT_MODELS + CONTINUOUS_MODELS)
def test_compiled_and_scipy_paths_give_the_same_impacts(model):
    fast = _run(model, "DOP853")
    ref = _run(model, "DOP853-scipy")
    assert fast.impacts and ref.impacts, "no impact before t = 1 s"
    n = min(N_IMPACTS, len(ref.impacts))
    assert len(fast.impacts) >= n, (
        f"compiled path has {len(fast.impacts)} impacts, scipy path {len(ref.impacts)}")
    tight = None
    for k in range(n):
        a, b = fast.impacts[k], ref.impacts[k]
        if _agree(a, b):
            continue
        # the paths disagree: the compiled value must be the converged one
        if tight is None:
            tight = _run(model, "DOP853", rtol=1e-10, atol=1e-12)
        c = tight.impacts[k]
        assert _agree(a, c) and not _agree(b, c), (
            f"impact {k + 1}: start {a['t_start']:.9f} s, peak N {a['peak_normal_force']:.6g} N "
            f"(compiled) vs {b['t_start']:.9f} s, {b['peak_normal_force']:.6g} N (scipy); "
            f"100x tighter compiled run: {c['t_start']:.9f} s, {c['peak_normal_force']:.6g} N")
    assert fast.success == ref.success


def _agree(a, b):
    return (abs(a["t_start"] - b["t_start"]) <= TOL_T
            and abs(a["peak_normal_force"] - b["peak_normal_force"]) <= TOL_PEAK * abs(b["peak_normal_force"]))
