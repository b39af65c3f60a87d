"""From a finished run to its :class:`~flexlib.result.SimulationResult`: the simulator's side.

:func:`build_result` samples every phase the integrator produced (step points plus a uniform
grid of the dense output), re-evaluates the phase outputs (N, F_t, margin, gap, ...) at every
sample with the same compiled right-hand side the integrator ran, takes the tip kinematics and
the energies from the body's compiled code (:func:`flexlib.beam.sample_kinematics`, which uses the
simulator's tip point :func:`flexlib.beam.tip_point` and
:func:`flexlib.beam.potential_energies`: the formulas exist once, there; nothing here restates
them), derives the energy audit, and cuts the run into contact episodes (one per velocity
jump) and impacts (clusters of episodes).  :mod:`flexlib.result` only holds and exports the numbers.

Histories are sampled at the integrator's step points plus ``dense_dt`` (10 us by default) in
contact phases, so that peak values are maxima of the dense output (not of step points).  In
flight the compiled integrator's step points alone are the samples (it computes no 7th-order
interpolant there; the steps, ~0.15 ms at N = 3, are finer than a grid would be); scipy's
flight segments add a 0.5 ms grid.  At a velocity jump the history holds two samples at the same
time (before and after).

Energy audit (docs/model.md section 13):
r(t) = E(t) - [E(0) + sum of jump losses up to t + W_N + W_f - W_d + W_tau].
"""
from __future__ import annotations

import math
import time

import numpy as np

from . import __version__, _jit, integrator, kernel, penalty
from .beam import material_points_into, sample_kinematics
from .layout import (FREE, NOUT, O_COND, O_F, O_GAP, O_MARGIN, O_MU, O_N, O_NRAW, O_S, O_VN, O_VT,
                     SLIP, STICK)
from .result import SELECTION_KEYS, SimulationResult, selection_counts

_dense_point = integrator._dense_point      # scipy's DOP853 interpolant (compiled with numba)

__all__ = ["build_result"]

_FREE_DT = 5e-4


def build_result(sim, log, *, success, message, wall0, sample_times=None) -> SimulationResult:
    """Sample every segment, compute the derived histories, episodes, impacts and the audit.

    ``sim`` is the :class:`~flexlib.simulate.Simulator` and ``log`` its run log."""
    sol_set = sim.sol
    segs = [(sol, d, n_jumps) for (sol, d, _hit, n_jumps) in log.segments if len(sol.t)]
    n_steps = sum(len(sol.t) - 1 for (sol, _d, _nj) in segs)
    seg_info = [(sol.t[0], sol.t[-1], d, sol) for (sol, d, _nj) in segs]
    # The compiled path integrates flight without the 7th-order interpolant (Simulator.run), so
    # its flight is sampled at the step points only (dt = inf: no grid); the step points are
    # exact states, and flight steps (~0.15 ms at N = 3) are finer than the 0.5 ms grid anyway.
    free_dt = np.inf if sim._fast else _FREE_DT
    dts = np.array([sol_set.dense_dt if d.mode != FREE else free_dt for (_s, d, _nj) in segs])
    t, Y, seg = _sample_history([sol for (sol, _d, _nj) in segs], dts)
    # per-sample phase data: the phase of the segment the sample belongs to
    seg_mode = np.array([d.mode for (_s, d, _nj) in segs], dtype=np.int64)
    seg_jumps = np.array([nj for (_s, _d, nj) in segs], dtype=np.int64)
    O, Tk = _phase_outputs(sim, t, Y, segs, seg, seg_mode)
    if sim.hub is not None:
        hub = np.array([sim.hub(tk) for tk in t])
        Y[:, 0], Y[:, sim.nd] = hub[:, 0], hub[:, 1]
    h = _state_histories(sim, t, Y, np.array(seg_mode[seg], dtype=np.int8))
    c, s = _tip_and_energy_histories(sim, h, Y, Tk)
    _contact_histories(h, O)
    _penetration_histories(sim, h)
    dEs = np.array([0.0] + [j["dE"] for j in log.jumps])
    h["jump_sum"] = np.cumsum(dEs)[np.array(seg_jumps[seg], dtype=int)]
    E0 = h["E"][0]
    h["audit"] = h["E"] - (E0 + h["jump_sum"] + h["W_N"] + h["W_f"] - h["W_d"] + h["W_tau"])
    warnings = list(log.warnings) + _interior_check(sim, h, Y, c, s)
    # jumps: add the state just before each jump (the first sample at its time).  The run's
    # jump dicts are completed in place: the log is private to this run and ends here.
    jumps = log.jumps
    if jumps:
        k = np.minimum(np.searchsorted(t, [j["t"] for j in jumps], side="left"), len(t) - 1)
        for jj, th_k, tip_k, E_k in zip(jumps, h["theta"][k].tolist(),
                                        h["tip_deflection"][k].tolist(), h["E"][k].tolist()):
            jj["theta"], jj["tip_deflection"], jj["E_before"] = th_k, tip_k, E_k
    episodes = _episodes(h, jumps, seg_info, log)
    impacts = _clusters(episodes, sol_set.t_cluster)
    wall = time.perf_counter() - wall0
    stats = dict(wall_time_s=wall, n_rhs=sim.n_rhs, n_steps=n_steps, n_events=len(log.events),
                 n_segments=len(log.segments), n_jumps=len(jumps), n_stick_tests=len(log.stick_tests),
                 rtol=sol_set.rtol, atol=sol_set.atol, method=sol_set.method,
                 multiplier_mode=sim.mult, n_modes=sim.case.beam.n_modes,
                 axial_modes=sim.case.beam.axial_modes, selections=selection_counts(log.selections),
                 n_zeno_jumps=sum(1 for j in jumps if j.get("zeno")))
    return SimulationResult(case=sim.case, model=sim.model, h=h, jumps=jumps,
                            events=log.events, stick_tests=log.stick_tests, episodes=episodes,
                            impacts=impacts, warnings=warnings, success=success, message=message,
                            stats=stats, version=__version__, selections=log.selections)


def _phase_outputs(sim, t, Y, segs, seg, seg_mode):
    """The kernel outputs ``O`` (m, NOUT) and the kinetic energy at every sample, each sample
    evaluated in the phase of its segment (the same compiled code the integrator ran)."""
    if sim.hub is None:
        # the discrete state of each segment, in the slot order of layout.DISC_SLOTS
        seg_disc = np.array([(d.dir, d.s_star, d.v_in) for (_s, d, _nj) in segs], dtype=float)
        return sim._kern.phase_eval_samples(t, Y, seg_mode[seg], seg_disc[seg],
                                            sim._model_code, sim._mult_code, sim._par0,
                                            sim._arrs)
    nd = sim.nd
    O = np.full((len(t), NOUT), np.nan)
    O[:, O_N] = 0.0
    O[:, O_F] = 0.0
    Tk = np.empty(len(t))
    for j in range(len(t)):
        q = Y[j, :nd].copy(); qd = Y[j, nd:2 * nd].copy()
        q[0], qd[0], _ = sim.hub(t[j])
        Tk[j] = 0.5 * qd @ sim.beam.mass_matrix(q) @ qd
    return O, Tk


def _state_histories(sim, t, Y, mode) -> dict:
    """The histories read from the state vector: q, q', z and the work accumulators."""
    lay = sim.layout
    h = dict(t=t, mode=mode, theta=Y[:, lay.theta].copy(), theta_dot=Y[:, lay.theta_dot].copy(),
             B=Y[:, lay.B].copy(), B_dot=Y[:, lay.B_dot].copy(), z=Y[:, lay.z].copy())
    if sim.beam.na:
        h["C"], h["C_dot"] = Y[:, lay.C].copy(), Y[:, lay.C_dot].copy()
    h["W_N"], h["W_f"], h["W_d"], h["W_tau"] = (Y[:, k].copy() for k in
                                                (lay.W_N, lay.W_f, lay.W_d, lay.W_tau))
    return h


def _tip_and_energy_histories(sim, h, Y, Tk):
    """Tip position, velocity and deflection, T, V_E (V_A), V_G and E into ``h``; returns
    (cos theta, sin theta) of the samples.  The tip kinematics and the potential energies are
    those of the compiled kernel (:func:`flexlib.beam.sample_kinematics`, one call for all
    samples); T is the kernel's too (:func:`_phase_outputs`)."""
    bm = sim.beam
    th = Y[:, sim.layout.theta]
    kin = sample_kinematics(np.ascontiguousarray(Y), sim._par0, sim._arrs)
    for i, key in enumerate(("tip_X", "tip_Y", "tip_Xdot", "tip_Ydot", "tip_deflection")):
        h[key] = kin[i].copy()
    h["T"] = np.array(Tk)
    h["V_E"] = kin[5].copy()
    if bm.na:
        h["V_A"] = kin[6].copy()
        h["V_E"] = h["V_E"] + h["V_A"]
    h["V_G"] = kin[7].copy()
    h["E"] = h["T"] + h["V_E"] + h["V_G"]
    return np.cos(th), np.sin(th)


def _contact_histories(h, O):
    """Contact forces, friction ratios, tip gap and slope velocities from the kernel outputs
    ``O`` into ``h`` (s, v_t, mu_eff are NaN in flight; s_all, v_t_all are not)."""
    N = np.array(O[:, O_N]); F = np.array(O[:, O_F])
    contact = h["mode"] > 0
    h["N"] = np.where(contact, N, 0.0)
    h["F_t"] = np.where(contact, F, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        h["mu_eff"] = np.where(contact & (N != 0), -F / N, np.nan)
    h["mu_lugre"] = np.array(O[:, O_MU])
    s_all, vt_all = np.array(O[:, O_S]), np.array(O[:, O_VT])
    h["gap"] = np.array(O[:, O_GAP])
    h["v_n"] = np.array(O[:, O_VN])
    h["s"] = np.where(contact, s_all, np.nan)
    h["v_t"] = np.where(contact, vt_all, np.nan)
    h["s_all"], h["v_t_all"] = s_all, vt_all
    h["margin"] = np.array(O[:, O_MARGIN])
    h["cond_S"] = np.array(O[:, O_COND])
    h["_N_raw"] = np.array(O[:, O_NRAW])


def _penetration_histories(sim, h):
    """Penetration, the energy stored in it and the normal force's dissipated work into ``h``.

    ``penetration`` = max(0, -gap) in contact [m] (for the constraint method the Baumgarte
    drift, ~0); ``E_pen`` = K delta^(n+1) / (n + 1) of a penalty contact (0 otherwise);
    ``W_N_dissipated`` = -W_N - E_pen, the energy the normal force has taken out of the beam and
    not stored (the damping of a penalty law; for the constraint method the Baumgarte work);
    ``N_clipped`` = max(0, -N_raw), the pull a penalty law would exert and the clip removes."""
    contact = h["mode"] > 0
    h["penetration"] = np.where(contact, np.maximum(-h["gap"], 0.0), 0.0)
    if sim.spec.is_penalty:
        sp = sim.case.slope
        h["E_pen"] = np.where(contact, penalty.stored_energy(h["gap"], sp.contact_stiffness,
                                                             sp.contact_exponent), 0.0)
        h["N_clipped"] = np.where(contact, np.maximum(-np.nan_to_num(h.pop("_N_raw")), 0.0), 0.0)
    else:
        h.pop("_N_raw")
        h["E_pen"] = np.zeros(len(h["t"]))
        h["N_clipped"] = np.zeros(len(h["t"]))
    h["W_N_dissipated"] = -h["W_N"] - h["E_pen"]


def _interior_check(sim, h, Y, c, s) -> list:
    """The whole beam against the slope (interior contact is out of scope): the history
    ``min_interior_gap`` and a warning if a beam point went below the slope."""
    t, bm, lay = h["t"], sim.beam, sim.layout
    if not sim.spec.has_contact:
        h["min_interior_gap"] = np.full(len(t), np.nan)
        return []
    xs = np.linspace(0.0, bm.mi.L, sim.sol.interior_points + 1)[:-1]
    st = bm.station_data(xs)
    igap = _min_interior_gap(Y[:, lay.B], Y[:, lay.C], c, s, st, sim.slope)
    h["min_interior_gap"] = igap
    bad = np.nonzero(igap < 0.0)[0]
    if not len(bad):
        return []
    k = bad[0]
    gaps = sim.slope.gap_of_points(bm.positions(Y[k, lay.q], st))
    kk = int(np.argmin(gaps))
    return [f"interior contact: at t = {t[k]:.6f} s the beam point x = {xs[kk]:.4f} m is "
            f"{-gaps[kk]:.3g} m below the slope (only tip contact is modelled); "
            f"{len(bad)} samples affected"]


# ---------------------------------------------------------------------- sampling the phases
def _sample_history(sols, dts):
    """Sample times t (m,), states Y (m, ny) and the segment index of every sample of a run.

    Each phase (segment) is sampled at the integrator's step points (with their exact states)
    plus the uniform grid ``np.arange(t0, t1, dt)`` of its dense output (``dts[i]`` per segment).
    The compiled integrator's segments are all sampled by one compiled call
    (:func:`_merge_samples`): the hybrid models have ~2.4e4 phases, and the per-phase NumPy
    calls (arange, unique, the dense output, searchsorted) cost ~30 us each.  scipy's segments
    (``method="DOP853-scipy"``, ``FLEXLIB_NO_NUMBA=1``, prescribed hub motion) go through their
    ``OdeSolution``, one segment at a time."""
    if kernel.COMPILED and all(isinstance(sol, integrator.PhaseSolution) for sol in sols):
        lens = np.array([len(sol.t) for sol in sols], dtype=np.int64)
        off = np.zeros(len(sols) + 1, dtype=np.int64)
        np.cumsum(lens, out=off[1:])
        T_all = np.concatenate([sol.t for sol in sols])
        Y_all = np.ascontiguousarray(np.concatenate([sol.y.T for sol in sols]))
        H_all = np.concatenate([sol.hs for sol in sols])
        F_all = np.ascontiguousarray(np.concatenate([sol.F for sol in sols]))
        # an upper bound of the number of samples: every step point plus every grid point
        span = T_all[off[1:] - 1] - T_all[off[:-1]]
        cap = int(off[-1] + np.sum(np.ceil(span / dts)) + len(sols))
        return _merge_samples(T_all, off, H_all, Y_all, F_all, dts, cap)
    ts, ys, seg = [], [], []
    for i, (sol, dt) in enumerate(zip(sols, dts)):
        tt = sol.t
        t0, t1 = tt[0], tt[-1]
        if t1 > t0 and sol.sol is not None:
            grid = np.arange(t0, t1, dt)
            tt = np.unique(np.concatenate((sol.t, grid)))
            yy = sol.sol(tt)
            # keep the integrator's own values at its step points (exact event states)
            yy[:, np.searchsorted(tt, sol.t)] = sol.y
        else:
            yy = sol.y
        ts.append(tt)
        ys.append(yy.T)
        seg.append(np.full(len(tt), i, dtype=np.int64))
    return (np.ascontiguousarray(np.concatenate(ts)), np.ascontiguousarray(np.concatenate(ys)),
            np.concatenate(seg))


def _merge_samples(T_all, off, H_all, Y_all, F_all, dts, cap):
    """The samples of all compiled-integrator segments (see :func:`_sample_history`).

    Segment i holds the step points T_all[off[i]:off[i+1]] (states Y_all) and, for its
    intervals, the step sizes H_all and dense coefficients F_all from index off[i] - i on.  The
    grid is built exactly like ``np.arange(t0, t1, dt)`` (length ceil((t1 - t0) / dt), values
    t0, t0 + dt, then t0 + k ((t0 + dt) - t0)) and merged with the step points like
    ``np.unique``, so that the samples are those of the per-segment NumPy statements."""
    ny = Y_all.shape[1]
    t_out = np.empty(cap)
    Y_out = np.empty((cap, ny))
    seg_out = np.empty(cap, dtype=np.int64)
    m = 0
    for s in range(off.shape[0] - 1):
        a = off[s]
        n = off[s + 1] - a
        h0 = a - s                    # the first interval of segment s in H_all / F_all
        t0 = T_all[a]
        t1 = T_all[a + n - 1]
        ng = 0
        g1 = t0
        delta = 0.0
        if t1 > t0:
            ng = int(math.ceil((t1 - t0) / dts[s]))
            g1 = t0 + dts[s]
            delta = g1 - t0
        i = 0
        j = 0
        while i < n or j < ng:
            gj = t0 if j == 0 else (g1 if j == 1 else t0 + j * delta)
            if j < ng and (i >= n or gj < T_all[a + i]):
                # a grid point between step points: scipy's Dop853DenseOutput on the interval
                # that holds it (searchsorted(ts, gj) - 1, clipped)
                iv = min(max(i - 1, 0), n - 2)
                x = (gj - T_all[a + iv]) / H_all[h0 + iv]
                _dense_point(F_all[h0 + iv], Y_all[a + iv], x, Y_out[m])
                t_out[m] = gj
                j += 1
            else:
                if j < ng and gj == T_all[a + i]:
                    j += 1            # a grid point on a step point is that step point
                while i + 1 < n and T_all[a + i + 1] == T_all[a + i]:
                    i += 1
                t_out[m] = T_all[a + i]
                for k in range(ny):
                    Y_out[m, k] = Y_all[a + i, k]
                i += 1
            seg_out[m] = s
            m += 1
    return t_out[:m].copy(), Y_out[:m].copy(), seg_out[:m].copy()


# ---------------------------------------------------------------------- whole-beam check
def _min_interior_gap(B, Ca, c, s, st, slope):
    """min over the stations ``st`` (:meth:`BeamModel.station_data`) of the gap of the beam
    point above the slope [m], at every sample (B (m, N), axial Ca (m, Na), c, s = cos, sin
    theta): a compiled loop over the samples (:func:`_interior_gap_loop`) around the body's
    :func:`~flexlib.beam.material_points_into`, with no (samples x stations) temporaries."""
    xs, phi, H = st[:3]
    Psi = st[3] if len(st) > 3 else np.zeros((len(xs), 0))
    n, o = slope.n, slope.origin
    c_ = np.ascontiguousarray
    return _interior_gap_loop(c_(B), c_(Ca), c_(c), c_(s), c_(xs, dtype=float),
                              c_(phi, dtype=float), c_(H, dtype=float), c_(Psi, dtype=float),
                              float(n[0]), float(n[1]), float(o[0]), float(o[1]))


def _interior_gap_loop(B, Ca, c, s, xs, phi, H, Psi, nx, ny, ox, oy):
    """The loop of :func:`_min_interior_gap`: the material points of each sample, then the
    smallest of their gaps n . (r - O1)."""
    m = B.shape[0]
    out = np.empty(m)
    P = np.empty((xs.shape[0], 2))
    for k in range(m):
        material_points_into(B[k], Ca[k], c[k], s[k], xs, phi, H, Psi, P)
        best = np.inf
        for j in range(xs.shape[0]):
            g = (P[j, 0] - ox) * nx + (P[j, 1] - oy) * ny
            if g < best:
                best = g
        out[k] = best
    return out


if kernel.COMPILED:
    import numba as _nb
    _merge_samples = _nb.njit(cache=True)(_merge_samples)
    _interior_gap_loop = _nb.njit(cache=True)(_interior_gap_loop)
    # numba keys these caches on this file; the loop compiles in beam.material_points_into
    _jit.flush_stale_cache([_merge_samples, _interior_gap_loop], "history.kernel-sha256",
                             _jit.SOURCE_STAMP)


def _intervals(seg_info, starts, t0, t1):
    """Merged STICK / SLIP intervals inside [t0, t1] from the phase segments (sorted by start)."""
    out = []
    i0 = max(int(np.searchsorted(starts, t0, side="left")) - 1, 0)
    i1 = int(np.searchsorted(starts, t1, side="right"))
    for (a, b, d, _sol) in seg_info[i0:i1]:
        if b < t0 or a > t1 or d.mode not in (STICK, SLIP) or b <= a:
            continue
        kind = "stick" if d.mode == STICK else "slip"
        if out and out[-1]["kind"] == kind and abs(out[-1]["t1"] - a) < 1e-15 and \
                (kind == "stick" or out[-1]["dir"] == d.dir):
            out[-1]["t1"] = b
        else:
            out.append(dict(kind=kind, t0=a, t1=b, dir=d.dir))
    return out


def _episodes(h, jumps, seg_info, log):
    """One contact episode per velocity jump: from the jump to the next flight (or the next jump).

    Vectorised over the episodes (the hybrid models have ~10^4 of them): the index searches
    are one ``searchsorted`` each, and the peaks, minima and maxima over each episode's samples
    are ``ufunc.reduceat`` over the (start, end + 1) index pairs.  Only the episodes that hold
    stick tests or STICK/SLIP phases (a few) are completed one by one."""
    if not jumps:
        return []
    t = h["t"]
    starts = np.array([a for (a, b, d, _s) in seg_info])
    free_starts = np.array([a for (a, b, d, _s) in seg_info if d.mode == FREE])
    test_t = np.array([s["t"] for s in log.stick_tests])
    drift_t = np.array([e["t"] for e in log.events if e["kind"] == "STICK-DRIFT"])
    t_s = np.array([j["t"] for j in jumps])
    nxt = np.append(t_s[1:], np.inf)
    t_e = np.minimum(np.append(free_starts, t[-1])[np.searchsorted(free_starts, t_s, "left")], nxt)
    k_before = np.searchsorted(t, t_s, "left")
    k_after = np.maximum(np.searchsorted(t, t_e, "right") - 1, k_before)
    pairs = np.empty(2 * len(jumps), dtype=np.int64)
    pairs[0::2], pairs[1::2] = k_before, k_after + 1

    def over(ufunc, x):
        """ufunc reduced over each episode's samples x[k_before:k_after + 1]."""
        return ufunc.reduceat(np.append(x, x[:1]), pairs)[0::2]

    margin, cond = h["margin"], h["cond_S"]
    fin_m = over(np.add, np.isfinite(margin).astype(np.int64)) > 0
    min_margin = np.where(fin_m, over(np.fmin, margin), np.nan)
    fin_c = np.isfinite(cond)
    max_cond = over(np.fmax, np.where(fin_c, cond, -np.inf))
    max_cond = np.where(over(np.add, fin_c.astype(np.int64)) > 0, max_cond, np.nan)
    test_a = np.searchsorted(test_t, t_s, "left")
    test_b = np.searchsorted(test_t, t_e, "right")
    sel_t = np.array([s["t"] for s in log.selections])
    sel_a = np.searchsorted(sel_t, t_s, "left")
    sel_b = np.searchsorted(sel_t, t_e, "right")
    n_drift = np.searchsorted(drift_t, t_e, "right") - np.searchsorted(drift_t, t_s, "left")
    # episodes whose segment range holds a STICK or SLIP phase need their intervals
    is_ss = np.array([d.mode in (STICK, SLIP) for (_a, _b, d, _s) in seg_info], dtype=np.int64)
    n_ss = np.concatenate(([0], np.cumsum(is_ss)))
    i0 = np.maximum(np.searchsorted(starts, t_s, "left") - 1, 0)
    i1 = np.searchsorted(starts, t_e, "right")
    has_ss = (n_ss[i1] - n_ss[i0]) > 0
    W_f, W_N, W_d, E = h["W_f"], h["W_N"], h["W_d"], h["E"]
    # the clipped pull of a penalty law, integrated over time (trapezoidal rule on the samples)
    clip_cum = _cumulative_integral(t, h["N_clipped"])
    N_cum = _cumulative_integral(t, h["N"])
    Wnd = h["W_N_dissipated"]
    cols = dict(
        t_start=t_s, t_end=t_e, duration=t_e - t_s,
        peak_normal_force=over(np.maximum, h["N"]),
        peak_friction_force=over(np.maximum, np.abs(h["F_t"])),
        energy_before=E[k_before], energy_after=E[k_after],
        friction_work=W_f[k_after] - W_f[k_before], normal_work=W_N[k_after] - W_N[k_before],
        damping_work=W_d[k_after] - W_d[k_before], min_painleve_margin=min_margin,
        max_cond_S=max_cond, max_penetration=over(np.maximum, h["penetration"]),
        clipped_impulse=clip_cum[k_after] - clip_cum[k_before],
        force_impulse=N_cum[k_after] - N_cum[k_before],
        normal_dissipation=Wnd[k_after] - Wnd[k_before])
    cols = {k: v.tolist() for k, v in cols.items()}
    eps = []
    for i, j in enumerate(jumps):
        ts, te = cols["t_start"][i], cols["t_end"][i]
        ints = _intervals(seg_info, starts, ts, te) if has_ss[i] else []
        tests = log.stick_tests[test_a[i]:test_b[i]]
        max_cond_i = cols["max_cond_S"][i]
        if tests:
            # the first largest finite sample stands for all of them: max() over the tests and
            # every finite sample in order returns the same value (a per-sample Python loop
            # here cost 0.2-0.4 s of a hybrid run with long sampled contacts)
            seg = cond[k_before[i]:k_after[i] + 1]
            fin = seg[np.isfinite(seg)]
            conds = [s["cond"] for s in tests] + ([fin[int(np.argmax(fin))]] if fin.size else [])
            max_cond_i = max(conds)
        eps.append(dict(
            t_start=ts, t_end=te, duration=cols["duration"][i], v_n_minus=j["v_n_minus"],
            v_t_minus=j["v_t_minus"], v_t_plus=j["v_t_plus"], impulse=j["impulse"],
            jump_loss=j["dE"], peak_normal_force=cols["peak_normal_force"][i],
            peak_friction_force=cols["peak_friction_force"][i],
            energy_before=cols["energy_before"][i], energy_after=cols["energy_after"][i],
            friction_work=cols["friction_work"][i], normal_work=cols["normal_work"][i],
            damping_work=cols["damping_work"][i], max_penetration=cols["max_penetration"][i],
            clipped_impulse=cols["clipped_impulse"][i],
            normal_impulse=j["impulse"] + cols["force_impulse"][i],
            normal_dissipation=cols["normal_dissipation"][i],
            stick_intervals=[(iv["t0"], iv["t1"]) for iv in ints if iv["kind"] == "stick"],
            slip_intervals=[(iv["t0"], iv["t1"], iv["dir"]) for iv in ints if iv["kind"] == "slip"],
            n_stick_tests=len(tests), n_stick_drift=int(n_drift[i]),
            max_stick_ratio=max([s["ratio"] for s in tests], default=float("nan")),
            min_painleve_margin=cols["min_painleve_margin"][i], max_cond_S=max_cond_i,
            micro=te <= ts, zeno_jumps=int(bool(j.get("zeno"))),
            **selection_counts(log.selections[sel_a[i]:sel_b[i]])))
    return eps


def _cumulative_integral(t, x):
    """The running trapezoidal integral of the samples x(t) (0 at the first sample; a repeated
    time, as at a velocity jump, adds nothing)."""
    return np.concatenate(([0.0], np.cumsum(0.5 * (x[1:] + x[:-1]) * np.diff(t))))


def _clusters(episodes, t_cluster):
    groups = []
    for e in episodes:
        if groups and e["t_start"] - groups[-1][-1]["t_end"] < t_cluster:
            groups[-1].append(e)
        else:
            groups.append([e])
    out = []
    for g in groups:
        first, last = g[0], g[-1]
        before, after = first["energy_before"], last["energy_after"]
        out.append(dict(
            t_start=first["t_start"], t_end=last["t_end"], duration=last["t_end"] - first["t_start"],
            episodes=len(g), episode_list=g,
            v_n_minus=first["v_n_minus"], v_t_minus=first["v_t_minus"], v_t_plus=first["v_t_plus"],
            impulse=sum(e["impulse"] for e in g),
            peak_normal_force=max(e["peak_normal_force"] for e in g),
            peak_friction_force=max(e["peak_friction_force"] for e in g),
            energy_before=before, energy_after=after, energy_lost=before - after,
            jump_loss=sum(e["jump_loss"] for e in g),
            friction_work=sum(e["friction_work"] for e in g),
            normal_work=sum(e["normal_work"] for e in g),
            normal_dissipation=sum(e["normal_dissipation"] for e in g),
            max_penetration=max(e["max_penetration"] for e in g),
            clipped_impulse=sum(e["clipped_impulse"] for e in g),
            normal_impulse=sum(e["normal_impulse"] for e in g),
            stick_intervals=[iv for e in g for iv in e["stick_intervals"]],
            slip_intervals=[iv for e in g for iv in e["slip_intervals"]],
            n_stick_tests=sum(e["n_stick_tests"] for e in g),
            n_stick_drift=sum(e["n_stick_drift"] for e in g),
            zeno_jumps=sum(e["zeno_jumps"] for e in g),
            **{k: sum(e[k] for e in g) for k in SELECTION_KEYS},
            max_stick_ratio=float(np.nanmax([e["max_stick_ratio"] for e in g]))
            if any(np.isfinite(e["max_stick_ratio"]) for e in g) else float("nan"),
            min_painleve_margin=float(np.nanmin([e["min_painleve_margin"] for e in g]))
            if any(np.isfinite(e["min_painleve_margin"]) for e in g) else float("nan"),
            max_cond_S=float(np.nanmax([e["max_cond_S"] for e in g]))
            if any(np.isfinite(e["max_cond_S"]) for e in g) else float("nan")))
    return out
