"""Issue 6: measured gains of proposed optimisations, tried WITHOUT editing flexlib (the changes are
applied by monkeypatching for the duration of a measurement, then undone).

X1 compiled event actions: ``Simulator._contact_on`` (the velocity jump) with the compiled mass
   matrix (``Simulator.mass_matrix``, kernel) instead of ``BeamModel.mass_matrix`` (NumPy
   einsum/matmul), a numba ``tip_contact`` and a numba impulse solve instead of
   ``np.linalg.cholesky`` + 2 ``np.linalg.solve`` (about 35 us each: numpy's errstate context);
   also the FREE-phase start ``tip_contact`` (for the gap floor) goes through the numba version.
X2 integrator options per phase (``flexlib.integrator.solve_phase`` keywords, already
   supported): ``dense=False`` in FREE phases (the 3 extra stages of the 7th-order interpolant are
   then computed only on steps that locate an event) and ``first_step`` = the last step size of
   the previous phase (skips select_initial_step's 2 RHS and the rejected first steps).
   NOTE: with dense=False the 0.5 ms flight grid of build_result is interpolated by the cubic
   Hermite part; the impacts are compared below, the flight histories change slightly.
X3 build_result's interior-gap check: ``np.einsum("ki,jil,kl->kj", B, H, B)`` vs a BLAS matmul
   ``(B (x) B) @ H.reshape(S, N*N).T``.
X4 ``phase_eval_many`` computes M twice per sample (phase_eval and mass_forces for T):
   cost of phase_eval alone per sample vs phase_eval_many per sample.

Each run is checked against the unpatched run: impact start times and peak normal forces.

Usage: python3 benchmarks/experiments.py [--repeat 3] [--models hybrid_coulomb,frictionless,lugre]
Writes benchmarks/results/experiments.json.

These experiments patch the code as it was before the issue-6 changes (commit bc2477b): X1, X2b
(with the flight grid dropped) and X3 are now part of flexlib, and ``flexlib.simulate`` no
longer imports the NumPy ``tip_contact``/``impulse_jump`` that X1 replaces.  On the current
code the script stops with a message; check out bc2477b to rerun it.  Its results
(``results/experiments*.json``) are kept as the record of the measured proposals.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np

from _common import machine, machine_line, run_model, sim_module, warm_up, write_json
from flexlib import contact, integrator, kernel

sim_mod = sim_module()
FREE = sim_mod.FREE
if not hasattr(sim_mod, "tip_contact"):
    raise SystemExit("experiments.py patches the pre-issue-6 code (commit bc2477b); its changes "
                     "are now in flexlib (see the module docstring)")


# ------------------------------------------------------------------ X1
@numba.njit(cache=False)
def _tip_core(q, qd, L, H_L, Phi_L, nvec, tvec, origin):
    n = Phi_L.shape[0]
    th = q[0]
    thd = qd[0]
    HLB = np.zeros(n)
    for i in range(n):
        for j in range(n):
            HLB[i] += H_L[i, j] * q[1 + j]
    BHB = 0.0
    py = 0.0
    pdx = 0.0
    pdy = 0.0
    BdHBd = 0.0
    for i in range(n):
        BHB += q[1 + i] * HLB[i]
        py += Phi_L[i] * q[1 + i]
        pdx -= HLB[i] * qd[1 + i]
        pdy += Phi_L[i] * qd[1 + i]
        for j in range(n):
            BdHBd += qd[1 + i] * H_L[i, j] * qd[1 + j]
    px = L - 0.5 * BHB
    c = np.cos(th)
    s_ = np.sin(th)
    nf0 = c * nvec[0] + s_ * nvec[1]
    nf1 = -s_ * nvec[0] + c * nvec[1]
    tf0 = c * tvec[0] + s_ * tvec[1]
    tf1 = -s_ * tvec[0] + c * tvec[1]
    rx = c * px - s_ * py
    ry = s_ * px + c * py
    dx = rx - origin[0]
    dy = ry - origin[1]
    nd = q.shape[0]
    Pq = np.zeros(nd)
    Gq = np.zeros(nd)
    Pq[0] = -nf0 * py + nf1 * px
    Gq[0] = -tf0 * py + tf1 * px
    for i in range(n):
        Pq[1 + i] = -nf0 * HLB[i] + nf1 * Phi_L[i]
        Gq[1 + i] = -tf0 * HLB[i] + tf1 * Phi_L[i]
    vn = 0.0
    vt = 0.0
    for i in range(nd):
        vn += Pq[i] * qd[i]
        vt += Gq[i] * qd[i]
    ax = -thd * thd * px - 2.0 * thd * pdy - BdHBd
    ay = -thd * thd * py + 2.0 * thd * pdx
    return (nvec[0] * dx + nvec[1] * dy, tvec[0] * dx + tvec[1] * dy, vn, vt, Pq, Gq,
            -(nf0 * ax + nf1 * ay), -(tf0 * ax + tf1 * ay))


def fast_tip_contact(beam, slope, q, qd):
    mi = beam.mi
    if getattr(beam, "na", 0):
        return _orig_tip_contact(beam, slope, q, qd)
    g, s, vn, vt, Pq, Gq, gn, gt = _tip_core(np.ascontiguousarray(q, dtype=float),
                                             np.ascontiguousarray(qd, dtype=float), float(mi.L),
                                             mi.H_L, mi.Phi_L, slope.n, slope.t, slope.origin)
    return contact.TipContact(gap=g, s=s, v_n=vn, v_t=vt, Psi_q=Pq, Gamma_q=Gq, gamma_n=gn, gamma_t=gt)


@numba.njit(cache=False)
def _jump_core(M, D, v_n, e):
    X = kernel._solve(M, D)
    n = D.shape[0]
    mD = np.empty(n)
    w = 0.0
    for i in range(n):
        mD[i] = X[i, 0]
        w += D[i] * mD[i]
    imp = -(1.0 + e) * v_n / w
    dT = -0.5 * (1.0 - e * e) * v_n * v_n / w
    for i in range(n):
        mD[i] *= imp
    return mD, imp, dT


def fast_impulse_jump(M, D_n, v_n_minus, e):
    return _jump_core(np.ascontiguousarray(M), np.ascontiguousarray(D_n), float(v_n_minus), float(e))


def fast_contact_on(self, t, y, d, log):
    """Simulator._contact_on with the compiled mass matrix (identical otherwise)."""
    nd = self.nd
    q, qd = y[:nd], y[nd:2 * nd]
    M = self.mass_matrix(y)
    k = sim_mod.tip_contact(self.beam, self.slope, q, qd)
    e = self.case.slope.e
    dqd, impulse, dT = sim_mod.impulse_jump(M, k.Psi_q, k.v_n, e)
    T_before = 0.5 * qd @ M @ qd
    y = y.copy()
    y[nd:2 * nd] = qd + dqd
    qd2 = y[nd:2 * nd]
    T_after = 0.5 * qd2 @ M @ qd2
    k2 = sim_mod.tip_contact(self.beam, self.slope, q, qd2)
    log.jump(t, y, dict(t=t, v_n_minus=k.v_n, v_t_minus=k.v_t, v_n_plus=k2.v_n, v_t_plus=k2.v_t,
                        impulse=impulse, dE=dT, dT_direct=T_after - T_before, gap=k.gap))
    y[self.iz] = 0.0
    nd2 = self._onset(t, y, k2, log)
    return t, y, nd2


_orig_tip_contact = sim_mod.tip_contact


class Patch:
    def __init__(self, *items):
        self.items = items          # (object, attribute, new value)
        self.saved = []

    def __enter__(self):
        for obj, name, val in self.items:
            self.saved.append((obj, name, getattr(obj, name)))
            setattr(obj, name, val)
        return self

    def __exit__(self, *exc):
        for obj, name, val in reversed(self.saved):
            setattr(obj, name, val)


def x1_patch():
    return Patch((sim_mod, "tip_contact", fast_tip_contact),
                 (sim_mod, "impulse_jump", fast_impulse_jump),
                 (sim_mod.Simulator, "_contact_on", fast_contact_on))


# ------------------------------------------------------------------ X2
def x2_patch(dense_free=False, reuse_step=True):
    orig = integrator.solve_phase
    last = [None]

    def solve_phase(t0, y0, t_end, mode, *a, **kw):
        if mode == FREE and not dense_free:
            kw["dense"] = False
        if reuse_step and last[0] is not None and kw.get("first_step") is None:
            kw["first_step"] = min(last[0], kw.get("max_step", np.inf))
        sol = orig(t0, y0, t_end, mode, *a, **kw)
        if sol.n_steps:
            h = sol.hs[-1]          # the last full step (also when an event truncated it)
            last[0] = abs(float(h)) if h != 0 else None
        return sol
    return Patch((integrator, "solve_phase", solve_phase))


# ------------------------------------------------------------------ checks and timing
def impacts_key(r):
    res = r["result"]
    return [(im["t_start"], im["peak_normal_force"]) for im in res.impacts]


def compare(ref, new):
    a, b = impacts_key(ref), impacts_key(new)
    n = min(len(a), len(b))
    if n == 0:
        return dict(n_ref=len(a), n_new=len(b), max_dt=None, max_rel_peak=None)
    dt = max(abs(a[k][0] - b[k][0]) for k in range(n))
    dp = max(abs(a[k][1] - b[k][1]) / abs(a[k][1]) for k in range(n))
    return dict(n_ref=len(a), n_new=len(b), max_dt=dt, max_rel_peak=dp,
                t_reached_ref=ref["t_reached"], t_reached_new=new["t_reached"])


def _one(model, t_end, patch):
    if patch is None:
        return run_model(model, t_end)
    with patch():
        return run_model(model, t_end)


def combined(*patches):
    """A patch factory applying several patch factories at once."""
    class _C:
        def __enter__(self):
            self.ps = [p() for p in patches]
            for p in self.ps:
                p.__enter__()
            return self

        def __exit__(self, *exc):
            for p in reversed(self.ps):
                p.__exit__(*exc)
    return _C


def interior_current(B, c, s, st, slope):
    """build_result's whole-beam gap block as it is (einsum + 10 (samples x stations) temporaries)."""
    xs_, phi_, H_ = st[:3]
    ppx = xs_[None, :] - 0.5 * np.einsum("ki,jil,kl->kj", B, H_, B)
    ppy = B @ phi_.T
    gaps_all = ((c[:, None] * ppx - s[:, None] * ppy - slope.origin[0]) * slope.n[0]
                + (s[:, None] * ppx + c[:, None] * ppy - slope.origin[1]) * slope.n[1])
    return gaps_all.min(axis=1)


def interior_fast(B, c, s, st, slope):
    """The same numbers: (B (x) B) @ H as one BLAS matmul and the rotation folded into two
    per-sample coefficients, gap = a_k ppx + b_k ppy - n.r_O1."""
    xs_, phi_, H_ = st[:3]
    K, n = B.shape
    S = H_.shape[0]
    BB = (B[:, :, None] * B[:, None, :]).reshape(K, n * n)
    ppx = BB @ (-0.5 * H_.reshape(S, n * n).T)
    ppx += xs_[None, :]
    ppy = B @ phi_.T
    nx, ny = slope.n
    a = nx * c + ny * s
    b = ny * c - nx * s
    ppx *= a[:, None]
    ppx += b[:, None] * ppy
    return ppx.min(axis=1) - (nx * slope.origin[0] + ny * slope.origin[1])


@numba.njit(cache=False)
def _interior_nb(B, c, s, xs, phi, H, nx, ny, off):
    """min over stations of the gap, one sample at a time: no (samples x stations) temporaries."""
    K, n = B.shape
    S = xs.shape[0]
    out = np.empty(K)
    for k in range(K):
        a = nx * c[k] + ny * s[k]
        b = ny * c[k] - nx * s[k]
        g_min = np.inf
        for j in range(S):
            quad = 0.0
            py = 0.0
            for i in range(n):
                bi = B[k, i]
                py += phi[j, i] * bi
                acc = 0.0
                for l in range(n):
                    acc += H[j, i, l] * B[k, l]
                quad += bi * acc
            g = a * (xs[j] - 0.5 * quad) + b * py
            if g < g_min:
                g_min = g
        out[k] = g_min - off
    return out


def interior_numba(B, c, s, st, slope):
    xs_, phi_, H_ = st[:3]
    nx, ny = slope.n
    return _interior_nb(B, np.ascontiguousarray(c), np.ascontiguousarray(s), np.ascontiguousarray(xs_),
                        np.ascontiguousarray(phi_), np.ascontiguousarray(H_), float(nx), float(ny),
                        float(nx * slope.origin[0] + ny * slope.origin[1]))


def x3_interior(B, c, s, st, slope, repeat=5):
    """CPU seconds (median of ``repeat``) of the current and the fast block, and max |difference|."""
    interior_numba(B[:2], c[:2], s[:2], st, slope)          # compile
    tc, tf, tn = [], [], []
    for _ in range(repeat):
        t0 = time.process_time()
        g1 = interior_current(B, c, s, st, slope)
        t1 = time.process_time()
        g2 = interior_fast(B, c, s, st, slope)
        t2 = time.process_time()
        g3 = interior_numba(B, c, s, st, slope)
        t3 = time.process_time()
        tc.append(t1 - t0)
        tf.append(t2 - t1)
        tn.append(t3 - t2)
    err = max(float(np.max(np.abs(g1 - g2))), float(np.max(np.abs(g1 - g3))))
    return statistics.median(tc), statistics.median(tf), statistics.median(tn), err


@numba.njit(cache=False)
def _pe_only(ts, Y, mode, model, mult, par, arrs):
    acc = 0.0
    for k in range(ts.shape[0]):
        y = Y[k].copy()
        dy, o = kernel.phase_eval(ts[k], y, mode, model, mult, par, *arrs)
        acc += o[0]
    return acc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--models", default="hybrid_coulomb,frictionless,lugre")
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--micro-model", default="lugre", help="history used by X3 and X4")
    ap.add_argument("--only-micro", action="store_true", help="only X3 and X4 (no whole runs)")
    a = ap.parse_args()
    mach = machine()
    print(machine_line(mach))
    print(f"warm-up {warm_up():.2f} s")
    with x1_patch():        # compile the numba helpers outside the timings
        run_model("hybrid_coulomb", 0.34)
    out = dict(machine=mach, repeat=a.repeat, t_end=a.t_end, runs={})
    variants = (("baseline", None),
                ("X1 compiled event actions", x1_patch),
                ("X2b FREE dense=False", lambda: x2_patch(False, False)),
                ("X1 + X2b", combined(x1_patch, lambda: x2_patch(False, False))),
                ("X2a first_step reuse (changes results)", lambda: x2_patch(True, True)))
    print(f"\nprocess CPU time of simulate('3.2', model, {a.t_end:g}): median and min of {a.repeat} "
          f"interleaved rounds (every variant once per round); impacts compared with the baseline")
    for m in ([] if a.only_micro else [x.strip() for x in a.models.split(",") if x.strip()]):
        times = {name: [] for name, _ in variants}
        last = {}
        for _ in range(a.repeat):
            for name, patch in variants:
                r = _one(m, a.t_end, patch)
                times[name].append(r["cpu_s"])
                last[name] = r
        rows = {}
        base_med = statistics.median(times["baseline"])
        base_min = min(times["baseline"])
        for name, _ in variants:
            r = last[name]
            med_, min_ = statistics.median(times[name]), min(times[name])
            cmp_ = compare(last["baseline"], r)
            rows[name] = dict(cpu_median_s=med_, cpu_min_s=min_, cpu_all_s=times[name],
                              gain_median_pct=100 * (base_med - med_) / base_med,
                              gain_min_pct=100 * (base_min - min_) / base_min,
                              n_rhs=r["n_rhs"], n_steps=r["n_steps"], n_events=r["n_events"],
                              rhs_change_pct=100 * (r["n_rhs"] - last["baseline"]["n_rhs"]) /
                              last["baseline"]["n_rhs"], check=cmp_)
            print(f"  {m:15} {name:38} median {med_:6.3f} s ({rows[name]['gain_median_pct']:+5.1f} %)  "
                  f"min {min_:6.3f} s ({rows[name]['gain_min_pct']:+5.1f} %)  RHS {r['n_rhs']:8d} "
                  f"({rows[name]['rhs_change_pct']:+5.1f} %) events {r['n_events']:6d}  impacts "
                  f"{cmp_['n_new']}/{cmp_['n_ref']}"
                  + (f" max|dt| {cmp_['max_dt']:.1e} s, peak N rel {cmp_['max_rel_peak']:.1e}"
                     if cmp_['max_dt'] is not None else ""), flush=True)
        out["runs"][m] = rows
    # X3 / X4 on a history of --micro-model (lugre: the most samples of the complete runs)
    mm = a.micro_model
    r = run_model(mm, a.t_end)["result"]
    sim = sim_mod.Simulator(r.case, mm, a.t_end)
    st = sim.beam.station_data(np.linspace(0.0, sim.beam.mi.L, r.case.solver.interior_points + 1)[:-1])
    B = np.ascontiguousarray(r.h["B"])
    th = r.h["theta"]
    e_s, m_s, n_s, err = x3_interior(B, np.cos(th), np.sin(th), st, sim.slope)
    out["x3_interior_gap"] = dict(model=mm, samples=len(B), current_s=e_s, numpy_matmul_s=m_s,
                                  numba_loop_s=n_s, max_abs_diff=err)
    print(f"\nX3 whole-beam gap block of build_result, {mm}, {len(B)} samples x {st[2].shape[0]} stations "
          f"(CPU, median of 5): current {e_s * 1e3:.1f} ms, NumPy matmul form {m_s * 1e3:.1f} ms, "
          f"numba loop {n_s * 1e3:.1f} ms (max |diff| {err:.1e} m)")
    nd = sim.nd
    Y = np.ascontiguousarray(np.column_stack([r.h["theta"], r.h["B"], r.h["theta_dot"], r.h["B_dot"],
                                              r.h["z"], r.h["W_N"], r.h["W_f"], r.h["W_d"], r.h["W_tau"]]))
    ts = np.ascontiguousarray(r.h["t"])
    d = sim_mod._Disc(sim_mod.CONTACT)
    par = sim._par(d)
    arrs = integrator._kernel_arrays(sim._arrs)
    if Y.shape[1] == 2 * nd + 5:
        _pe_only(ts[:10], Y[:10], d.mode, sim._model_code, sim._mult_code, par, arrs)
        kernel.phase_eval_many(ts[:10], Y[:10], d.mode, sim._model_code, sim._mult_code, par, *arrs)
        tm, tp = [], []
        for _ in range(5):
            t0 = time.process_time()
            kernel.phase_eval_many(ts, Y, d.mode, sim._model_code, sim._mult_code, par, *arrs)
            t1 = time.process_time()
            _pe_only(ts, Y, d.mode, sim._model_code, sim._mult_code, par, arrs)
            t2 = time.process_time()
            tm.append(t1 - t0)
            tp.append(t2 - t1)
        out["x4_phase_eval_many"] = dict(samples=len(ts), many_s=statistics.median(tm),
                                         phase_eval_only_s=statistics.median(tp))
        print(f"X4 {mm}, {len(ts)} samples: phase_eval_many {1e6 * statistics.median(tm) / len(ts):.2f} us/sample, "
              f"phase_eval alone {1e6 * statistics.median(tp) / len(ts):.2f} us/sample")
    print(f"\nwritten {write_json('experiments_micro' if a.only_micro else 'experiments', out)}")


if __name__ == "__main__":
    main()
