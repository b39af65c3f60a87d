"""The allocation-free right-hand side (a speed measure): ``kernel.phase_eval_into`` and its work arrays.

The integrator hands the kernel the same work arrays (``kernel.work_arrays``) on every stage and
step, so a result must not depend on what a previous call left in them.  These tests fill every
work and output array with garbage (NaN or large random numbers) before each call and require
results identical to a call on fresh arrays, in every phase, model and multiplier mode, with and
without axial modes.  They also require the kinetic energy returned with ``want_T`` to be
q'^T M q' / 2 with the M of :func:`flexlib.bodies.beam.mass_forces`, and the offset event values to be the
plain ones minus the offsets, bit for bit, and the in-place solve to agree with NumPy.
"""
import numpy as np
import pytest

from flexlib.bodies import beam
from flexlib.solver import integrator, kernel, layout, linalg
from flexlib.params import paper_case
from flexlib.solver.simulate import Simulator, _Disc

MODELS = {"frictionless": (0, 1), "hybrid_coulomb": (0, 1, 2, 3), "hybrid_lugre": (0, 1, 2, 3),
          "lugre": (0, 1), "continuous_coulomb": (0, 1), "continuous_lugre": (0, 1)}


def _state(rng, sim):
    """A random state near the paper's contact configuration (theta ~ 0.16 rad)."""
    nd = sim.nd
    y = np.zeros(2 * nd + 5)
    y[0] = rng.uniform(0.14, 0.18)
    y[1:nd] = rng.uniform(-0.01, 0.01, nd - 1)
    y[nd] = rng.uniform(-5.0, 1.0)
    y[nd + 1:2 * nd] = rng.uniform(-0.5, 0.5, nd - 1)
    y[2 * nd] = rng.uniform(-5e-6, 5e-6)          # LuGre z
    return y


def _dirty(arrays, rng, how):
    for a in arrays:
        a[...] = np.nan if how == "nan" else rng.uniform(-1e6, 1e6, a.shape)


@pytest.mark.parametrize("axial", [0, 2])
@pytest.mark.parametrize("mult", [0, 1])
@pytest.mark.parametrize("model", sorted(MODELS))
def test_reused_work_arrays_give_the_fresh_result(model, mult, axial):
    case = paper_case("3.2").with_(axial_modes=axial, e=0.5)
    sim = Simulator(case, model, 1.0)
    arrs = integrator._kernel_arrays(sim._arrs)
    rng = np.random.default_rng(17 + 3 * mult + axial)
    ws = kernel.work_arrays(arrs)
    for mode in MODELS[model]:
        for k in range(4):
            y = _state(rng, sim)
            par = sim._par(_Disc(mode, dir=(-1.0) ** k, s_star=rng.uniform(-0.01, 0.01),
                                 v_in=rng.uniform(0.01, 4.0)))
            dy_ref, out_ref = kernel.phase_eval(0.0, y, mode, sim._model_code, mult, par, arrs)
            dy = np.empty_like(y)
            out = np.empty(kernel.NOUT)
            _dirty((*ws, dy, out), rng, "nan" if k % 2 else "random")
            y_before = y.copy()
            T = kernel.phase_eval_into(0.0, y, mode, sim._model_code, mult, par, arrs, *ws, dy,
                                       out, True)
            assert np.array_equal(y, y_before), "phase_eval_into changed its input state"
            np.testing.assert_array_equal(dy, dy_ref)
            np.testing.assert_array_equal(out, out_ref)
            nd = sim.nd
            M, _ = beam.mass_forces_any(y[:nd].copy(), y[nd:2 * nd].copy(), par, arrs)
            qd = y[nd:2 * nd]
            assert T == pytest.approx(0.5 * qd @ M @ qd, rel=1e-14)
            assert np.isfinite(dy).all() and np.isfinite(out[[0, 1, 6, 7, 8, 9]]).all()


def test_samples_match_one_evaluation_at_a_time():
    """phase_eval_samples (one call for a whole history) = phase_eval per sample, and its T =
    q'^T M q' / 2 computed with the same summation order as the kernel."""
    sim = Simulator(paper_case("3.2"), "hybrid_coulomb", 1.0)
    arrs = integrator._kernel_arrays(sim._arrs)
    rng = np.random.default_rng(5)
    Y = np.array([_state(rng, sim) for _ in range(40)])
    modes = np.array([0, 1, 2, 3] * 10, dtype=np.int64)
    dirs = rng.choice([-1.0, 1.0], 40)
    sst = rng.uniform(-0.01, 0.01, 40)
    ts = np.linspace(0.0, 0.01, 40)
    discs = np.column_stack((dirs, sst, np.zeros(40)))
    outs, T = kernel.phase_eval_samples(ts, Y, modes, discs, sim._model_code, 0, sim._par0, arrs)
    nd = sim.nd
    for k in range(40):
        par = sim._par0.copy()
        par[list(layout.DISC_SLOTS)] = discs[k]
        _, out = kernel.phase_eval(ts[k], Y[k], modes[k], sim._model_code, 0, par, arrs)
        np.testing.assert_array_equal(outs[k], out)
        M, _ = beam.mass_forces(Y[k, :nd].copy(), Y[k, nd:2 * nd].copy(), par, arrs.M2,
                                  arrs.M2mD, arrs.S_y, arrs.K2, arrs.T3r, arrs.T3tr, arrs.T4r,
                                  arrs.T4pr, arrs.Hbar, arrs.Sbar, arrs.C)
        qd = Y[k, nd:2 * nd]
        assert T[k] == pytest.approx(0.5 * qd @ M @ qd, rel=1e-14)


def test_offset_event_values_are_the_plain_ones_minus_the_offsets():
    rng = np.random.default_rng(3)
    for _ in range(20):
        out = rng.normal(size=kernel.NOUT)
        epar = np.array([0.4, 1e-4, 1e-6, rng.choice([-1.0, 1.0])])
        eoff = rng.normal(size=kernel.NEV)
        ev = np.empty(kernel.NEV)
        kernel.event_values_into(out, epar, eoff, ev)
        np.testing.assert_array_equal(ev, kernel.event_values(out, epar) - eoff)


def test_in_place_solve_equals_numpy():
    rng = np.random.default_rng(11)
    for n in (2, 4, 7):
        A = rng.normal(size=(n, n)) + n * np.eye(n)
        X = rng.normal(size=(n, 3))
        M, Xw = A.copy(), X.copy()
        linalg.solve_into(M, Xw, 3)
        np.testing.assert_allclose(Xw, np.linalg.solve(A, X), rtol=1e-12, atol=1e-14)
        # only the first m columns are solved; the others are left alone
        M, Xw = A.copy(), X.copy()
        linalg.solve_into(M, Xw, 1)
        np.testing.assert_allclose(Xw[:, 0], np.linalg.solve(A, X[:, 0]), rtol=1e-12)
        np.testing.assert_array_equal(Xw[:, 1:], X[:, 1:])
