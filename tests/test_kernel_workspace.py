"""The allocation-free right-hand side (a speed measure): the system kernel's ``phase_eval_into``.

The integrator hands the kernel (:mod:`flexlib.multibody.kernel`) the same work arrays
(``kernel.work_arrays``) on every stage and step, so a result must not depend on what a previous
call left in them.  These tests fill every work and output array with garbage (NaN or large
random numbers) before each call and require results identical to a call on fresh arrays
(``kernel.phase_eval``), in every phase of every paper model, with and without axial modes.  They
also require the kinetic energy returned with ``want_T`` to be q'^T M q' / 2 with the engine's M
(``SystemSimulator.rows``), the samples of a whole history (``phase_eval_samples``) to be the
single evaluations bit for bit, the offset event values to be the plain ones minus the offsets,
bit for bit, and the in-place solve to agree with NumPy.
"""
import numpy as np
import pytest

from flexlib.multibody import kernel as K
from flexlib.paper import BeamRun
from flexlib.params import paper_case
from flexlib.solver import linalg

# the contact modes each model's phases run in
MODELS = {"frictionless": (0, 1), "hybrid_coulomb": (0, 1, 2, 3), "hybrid_lugre": (0, 1, 2, 3),
          "lugre": (0, 1), "continuous_coulomb": (0, 1), "continuous_lugre": (0, 1)}


def _state(rng, run):
    """A random state near the paper's contact configuration (theta ~ 0.16 rad)."""
    nd = run.nd
    y = np.zeros(run.layout.size)
    y[0] = rng.uniform(0.14, 0.18)
    y[1:nd] = rng.uniform(-0.01, 0.01, nd - 1)
    y[nd] = rng.uniform(-5.0, 1.0)
    y[nd + 1:2 * nd] = rng.uniform(-0.5, 0.5, nd - 1)
    y[run.layout.z] = rng.uniform(-5e-6, 5e-6)          # LuGre z
    return y


def _disc(rng, mode, k):
    """A discrete state [mode, slip direction, stick anchor s*, approach speed v_in]."""
    return np.array([mode, (-1.0) ** k, rng.uniform(-0.01, 0.01), rng.uniform(0.01, 4.0)])


def _used(nc):
    """The output slots of a system with ``nc`` contact points: the system values, the points'
    outputs and their event functions (the slots of the NC_MAX - nc absent points are never
    written, and nothing reads them: their events are never active)."""
    return np.r_[0:K.O_C0 + K.NOC * nc, K.O_EV:K.O_EV + K.NEK * nc]


def _dirty(arrays, rng, how):
    for a in arrays:
        if a.dtype.kind == "f":
            a[...] = np.nan if how == "nan" else rng.uniform(-1e6, 1e6, a.shape)
        else:            # index work arrays: stale indices, in range as a previous call leaves them
            a[...] = rng.integers(0, max(a.size, 1), a.shape)


@pytest.mark.parametrize("axial", [0, 2])
@pytest.mark.parametrize("model", sorted(MODELS))
def test_reused_work_arrays_give_the_fresh_result(model, axial):
    case = paper_case("3.2").with_(axial_modes=axial, e=0.5)
    run = BeamRun(case, model, 1.0)
    S = run.engine.S
    rng = np.random.default_rng(17 + axial)
    ws, Mw, Xw = K.work_arrays(S)
    for mode in MODELS[model]:
        for k in range(4):
            y = _state(rng, run)
            par = _disc(rng, mode, k)
            dy_ref, out_ref = K.phase_eval(0.0, y, par, S)       # fresh work arrays
            dy = np.empty_like(y)
            out = np.empty(K.NOUT)
            _dirty((*ws, Mw, Xw, dy, out), rng, "nan" if k % 2 else "random")
            y_before, par_before = y.copy(), par.copy()
            T = K.phase_eval_into(0.0, y, 0, 0, 0, par, S, ws, Mw, Xw, dy, out, True)
            assert np.array_equal(y, y_before), "phase_eval_into changed its input state"
            assert np.array_equal(par, par_before), "phase_eval_into changed its discrete state"
            np.testing.assert_array_equal(dy, dy_ref)
            np.testing.assert_array_equal(out[_used(run.nc)], out_ref[_used(run.nc)])
            M = run.engine.rows(y)[0]
            qd = y[run.nd:2 * run.nd]
            assert T == out[K.O_T]
            assert T == pytest.approx(0.5 * qd @ M @ qd, rel=1e-14)
            o = K.O_C0
            assert np.isfinite(dy).all()
            assert np.isfinite(out[[o + K.OC_N, o + K.OC_FT, o + K.OC_GAP, o + K.OC_S,
                                    o + K.OC_VN, o + K.OC_VT]]).all()


def test_samples_match_one_evaluation_at_a_time():
    """phase_eval_samples (one call for a whole history) = phase_eval_into per sample, bit for
    bit: outputs, kinetic energy and the frame origins R, R' it leaves in ws[0], ws[1]; and its T =
    q'^T M q' / 2."""
    run = BeamRun(paper_case("3.2"), "hybrid_coulomb", 1.0)
    S = run.engine.S
    rng = np.random.default_rng(5)
    Y = np.array([_state(rng, run) for _ in range(40)])
    D = np.array([_disc(rng, mode, k) for k, mode in enumerate([0, 1, 2, 3] * 10)])
    ts = np.linspace(0.0, 0.01, 40)
    outs, R, Rd = K.phase_eval_samples(ts, Y, D, S)
    assert outs.shape == (40, K.NOUT) and R.shape == Rd.shape == (40, 1, 2)
    ws, Mw, Xw = K.work_arrays(S)
    dy, out = np.empty(Y.shape[1]), np.empty(K.NOUT)
    for k in range(40):
        K.phase_eval_into(ts[k], Y[k].copy(), 0, 0, 0, D[k].copy(), S, ws, Mw, Xw, dy, out, True)
        np.testing.assert_array_equal(outs[k, _used(run.nc)], out[_used(run.nc)])
        np.testing.assert_array_equal(R[k], ws[0])
        np.testing.assert_array_equal(Rd[k], ws[1])
        M = run.engine.rows(Y[k])[0]
        qd = Y[k, run.nd:2 * run.nd]
        assert outs[k, K.O_T] == pytest.approx(0.5 * qd @ M @ qd, rel=1e-14)


def test_phase_eval_into_allocates_nothing():
    """numba's runtime counts no allocation over repeated calls on the same work arrays, in every
    mode of hybrid Coulomb with an axial mode (the integrator calls it 12-15 times per step);
    the allocating wrapper ``phase_eval`` is counted, so the counter does see allocations."""
    from flexlib.solver import integrator
    if not integrator.COMPILED:
        pytest.skip("numba disabled (FLEXLIB_NO_NUMBA): nothing is compiled")
    nrt = pytest.importorskip("numba.core.runtime._nrt_python")
    from numba.core.runtime import rtsys
    if not hasattr(nrt, "memsys_enable_stats"):
        pytest.skip("this numba cannot switch its allocation statistics on at run time")
    run = BeamRun(paper_case("3.2").with_(axial_modes=1), "hybrid_coulomb", 1.0)
    S = run.engine.S
    rng = np.random.default_rng(23)
    ws, Mw, Xw = K.work_arrays(S)
    y = _state(rng, run)
    dy, out = np.empty_like(y), np.empty(K.NOUT)
    was = nrt.memsys_stats_enabled()
    nrt.memsys_enable_stats()
    try:
        for mode in MODELS["hybrid_coulomb"]:
            par = _disc(rng, mode, mode)
            K.phase_eval_into(0.0, y, 0, 0, 0, par, S, ws, Mw, Xw, dy, out, True)   # compiled
            before = rtsys.get_allocation_stats()
            for _ in range(100):
                K.phase_eval_into(0.0, y, 0, 0, 0, par, S, ws, Mw, Xw, dy, out, True)
            after = rtsys.get_allocation_stats()
            assert after.alloc == before.alloc, (mode, after.alloc - before.alloc)
            K.phase_eval(0.0, y, par, S)
            assert rtsys.get_allocation_stats().alloc > after.alloc
    finally:
        if not was:
            nrt.memsys_disable_stats()


def test_offset_event_values_are_the_plain_ones_minus_the_offsets():
    rng = np.random.default_rng(3)
    for _ in range(20):
        out = rng.normal(size=K.NOUT)
        epar = np.array([0.4, 1e-4, 1e-6, rng.choice([-1.0, 1.0])])
        eoff = rng.normal(size=K.NEV)
        ev = np.empty(K.NEV)
        K.event_values_into(out, epar, eoff, ev)
        np.testing.assert_array_equal(ev, out[K.O_EV:K.O_EV + K.NEV] - eoff)


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
