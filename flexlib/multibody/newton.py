"""A structured Newton matrix for the implicit integrator, factorized in O(N) without differences.

Radau IIA (:mod:`flexlib.solver.radau`) solves, at each simplified Newton iteration, linear
systems (lam I - J) d = r with J = df/dy, y = [q, q', z, works], lam = gamma / h real or
(alpha + i beta) / h complex.  Of J only the rows of q'' = M^-1 F(q, q') matter, and for a
system of elastic bodies with penalty contacts they are dominated by

    dq''/dq ~ -M^-1 K,   dq''/dq' ~ -M^-1 C,

K = K2 + sum_t u_t kq_t w_t^T and C = C_modal + sum_t u_t kv_t w_t^T: the bodies' elastic
stiffness and modal damping (banded for finite elements) and, for every penalty point in
contact, the slopes of its forces (normal: u = w = W_n, kq = -dN/d gap, kv = -dN/d v_n; a
modified Coulomb friction F_t = -mu(v_t) N adds u = W_t, w = W_n with kq = mu dN/d gap,
kv = mu dN/d v_n, and u = w = W_t with kv = mu'(v_t) N).  The terms left out (the state
dependence of M, the velocity-quadratic and gravity forces, the rows' own dependence on q) are
slow against 1/h: the Newton iteration converges with them left out at a rate of 1e-5 to 1e-3
per iteration (benchmarks/bench_newton.py), as with the difference Jacobian.

With these rows, (lam I - J) d = r reduces (d_v = lam d_x - r_x) to

    A(lam) d_x = M (r_v + lam r_x) + C r_x,      A(lam) = lam^2 M + lam C + K,

and with p = r_v + lam r_x, d_x = p / lam^2 + e, A(lam) e = -(C r_v) / lam - K p / lam^2: no
product with M is needed.  A(lam) = lam^2 M' + U Kc W^T with M' = M + (lam C_modal + K2) / lam^2,
whose elastic block is banded like M's (:mod:`flexlib.multibody.structured`: the same augmented
band with (lam C + K2) / lam^2 added to its band, the same frame columns and Schur complement,
in complex arithmetic for the complex lam), and the contacts' few terms by the
Sherman-Morrison-Woodbury formula: A^-1 = A0^-1 - Y (I + Kc W^T Y)^-1 Kc W^T A0^-1, Y = A0^-1 U.
The bristle states z (none move without LuGre friction) and the works get d = r / lam (their
rows of J are taken as zero: the works feed back into nothing).

:func:`newton_usable` says where this holds: a system solved through its structure whose
contacts are all penalty contacts, frictionless or with modified Coulomb friction, and whose
hinges are not driven; elsewhere the integrator keeps its difference Jacobian.  Every function
here is compiled and allocates nothing but :func:`newton_arrays`.
"""
from __future__ import annotations

import numpy as np

from .. import _jit
from .._jit import compiled, hot, inlined
from ..contact.friction import modified_coulomb
from ..contact.penalty import normal_force_slopes
from ..solver.linalg import lu_factor, lu_solve
from .assembly import B_DRIVE, J_N, J_NF, body_terms_into
from .kernel import (C_C, C_D, C_K, C_MU_D, C_N, C_V0, C_V1, D_MODE, D_VIN, FREE, MOD_COULOMB,
                     NO_FRICTION, NOC, O_C0, OC_GAP, OC_N, OC_VN, OC_VT, PENALTY)
from .structured import body_aug_into, factor_body, schur_into, schur_solve_into

__all__ = ["newton_arrays", "newton_usable", "newton_store", "newton_factor", "newton_solve"]

TERMS_PER_CONTACT = 3       # the normal force, and the friction's slopes in the gap and in v_t


@compiled
def _factor_arrays(S, nt, z):
    """The arrays of one factorization, real (``z`` = 0.0) or complex (``z`` = 0j): the bodies'
    augmented bands, pivots and flags, a band vector, V, D^-1 V, the small system with its
    pivots and right-hand sides, a column, Y = A0^-1 U, the Woodbury matrix, its pivots and
    vector, two state-sized vectors (all of size 1 for a system not solved through its
    structure, which never uses them), and the contact terms' kq used with this lam."""
    nb = S.bint.shape[0]
    if S.structured:
        nq = S.nq
        na = S.sna.max()
        w = 3 * S.skl.max() + 1
        ns = S.fq.shape[0] + 6 * nb
        m = max(nt, 1)
    else:
        nq, na, w, ns, m = 1, 1, 1, 1, 1
    return (np.zeros((nb, na, w)) + z, np.zeros((nb, na), dtype=np.int64), np.ones(7 * nb),
            np.zeros(na) + z, np.zeros((nq, 6 * nb)) + z, np.zeros((nq, 6 * nb)) + z,
            np.zeros((ns, ns)) + z, np.zeros(ns, dtype=np.int64), np.zeros((ns, m)) + z,
            np.zeros((nq, m)) + z, np.zeros((nq, m)) + z, np.zeros((m, m)) + z,
            np.zeros(m, dtype=np.int64), np.zeros(m) + z, np.zeros(nq) + z, np.zeros(nq) + z,
            np.zeros(m))


@compiled
def newton_arrays(S):
    """(store, real factorization, complex factorization) for the system arrays ``S``: the
    store holds the unfactorized augmented bands of M, the velocity transformation's rows, the
    bodies' frame blocks, the contact terms (U, W rows, kq, kv), their count and, per term, the
    contact state at which its kq may be re-taken (:func:`_onset_kq`)."""
    nb = S.bint.shape[0]
    nt = TERMS_PER_CONTACT * S.cint.shape[0]
    if S.structured:
        nq = S.nq
        db = S.bint[:, J_NF].max() + 3
        na = S.sna.max()
        w = 3 * S.skl.max() + 1
        m = max(nt, 1)
    else:
        nq, db, na, w, m = 1, 1, 1, 1, 1
    store = (np.zeros((nb, na, w)), np.zeros((nb, 2, nq)), np.zeros((nb, db, db)),
             np.zeros((m, nq)), np.zeros((m, nq)), np.zeros(m), np.zeros(m),
             np.zeros(1, dtype=np.int64), np.zeros((m, 5)))
    return store, _factor_arrays(S, nt, 0.0), _factor_arrays(S, nt, 0j)


@hot
def newton_usable(par, S):
    """Whether the phase with the discrete state ``par`` can use the structured Newton matrix:
    M solved through its structure, every contact a penalty contact without friction or with
    modified Coulomb friction, no driven hinge, and the bodies' C and K2 within the band of
    their augmented systems."""
    if not S.structured:
        return False
    for c in range(S.cint.shape[0]):
        if S.cint[c, 2] != PENALTY:
            return False
        kind = S.cint[c, 3]
        if kind != NO_FRICTION and kind != MOD_COULOMB:
            return False
    for b in range(S.bint.shape[0]):
        if S.bflt[b, B_DRIVE] != 0.0:
            return False
        n = S.snel[b]
        kbw = S.skbw[b]
        arrs = S.bodies[b]
        for i in range(n):
            for j in range(max(0, i - kbw), min(n, i + kbw + 1)):
                if (arrs.C[i, j] != 0.0 or arrs.K2[i, j] != 0.0) and \
                        abs(S.spos[b, j] - S.spos[b, i]) > S.skl[b]:
                    return False
    return True


@inlined
def _add_term(st, t, u, w, kq, kv, nq, gap, v_n, mult, c, v_in):
    """Term t: u kq w^T (and kv); with ``mult`` != 0 its kq is ``mult`` times the normal-force
    slope -dN/d gap of penalty point ``c`` at (gap, v_n; v_in its approach speed), which
    :func:`_onset_kq` may take at the penetration the step reaches."""
    U, Wl, KQ, KV = st[3], st[4], st[5], st[6]
    for i in range(nq):
        U[t, i] = u[i]
        Wl[t, i] = w[i]
    KQ[t] = kq
    KV[t] = kv
    st[8][t, 0] = gap
    st[8][t, 1] = v_n
    st[8][t, 2] = mult
    st[8][t, 3] = c
    st[8][t, 4] = v_in
    return t + 1


@inlined
def _onset_kq(st, t, lam, S):
    """Term t's kq in the Newton matrix with lam = gamma / h: its slope at the penetration the
    step reaches, delta + delta' / |lam|, where that is steeper than the slope at the step's
    start.  A Hertz contact (N = K delta^n, n > 1) has no stiffness at its onset, and a Newton
    matrix without any diverges as soon as the step penetrates (the step was then halved to a
    few nanoseconds, where the round-off of a fine mesh's elastic forces stalls the iteration);
    the collocation equations, and so the solution, are unchanged.  The slope is the normal
    law's own (:func:`flexlib.contact.penalty.normal_force_slopes`) at the gap gap + v_n / |lam|."""
    kq = st[5][t]
    p = st[8][t]
    if p[2] != 0.0 and p[1] < 0.0:
        cf = S.cflt[int(p[3])]
        g2, _ = normal_force_slopes(p[0] + p[1] / abs(lam), p[1], cf[C_K], cf[C_N], cf[C_D],
                                    cf[C_C], p[4])
        k2 = -p[2] * g2
        if abs(k2) > abs(kq):
            kq = k2
    return kq


@hot
def newton_store(y, par, S, ws, out, st):
    """Keep in ``st`` what the Newton matrices of the state ``y`` need, right after an
    evaluation of the right-hand side at ``y`` (its work arrays ``ws`` and outputs ``out``):
    the bodies' unfactorized augmented bands of M, the frame rows and blocks, and every
    contact term."""
    nq = S.nq
    q = y[:nq]
    qd = y[nq:2 * nq]
    Cs, Mb, Wb = ws[2], ws[9], ws[11]
    for b in range(S.bint.shape[0]):
        for k in range(2):
            for j in range(nq):
                st[1][b, k, j] = Cs[b, k, j]
        # the body's generators again (the evaluation left only the last body's in ws[11])
        ith, nf, db, nj = body_terms_into(b, q, qd, S, ws, False)
        arrs = S.bodies[b]
        for k in range(db):
            for j in range(db):
                st[2][b, k, j] = Mb[b, k, j]
        n = S.bint[b, J_N]
        if n > 0:
            body_aug_into(n, arrs.M2, S.smbw[b], arrs.edof, arrs.estart, qd[ith + 1:ith + 1 + n],
                          Wb, st[0][b], S.spos[b], S.sypos[b], S.skl[b], S.sna[b])
    WN, WT = ws[13], ws[14]
    t = 0
    for c in range(S.cint.shape[0]):
        if int(par[4 * c + D_MODE]) == FREE:
            continue
        o = O_C0 + NOC * c
        cf = S.cflt[c]
        gap, v_n, v_in = out[o + OC_GAP], out[o + OC_VN], par[4 * c + D_VIN]
        ng, nv = normal_force_slopes(gap, v_n, cf[C_K], cf[C_N], cf[C_D], cf[C_C], v_in)
        if ng == 0.0 and nv == 0.0 and not v_n < 0.0:
            continue
        t = _add_term(st, t, WN[c], WN[c], -ng, -nv, nq, gap, v_n, 1.0, c, v_in)
        if S.cint[c, 3] == MOD_COULOMB:
            vt = out[o + OC_VT]
            mu = modified_coulomb(vt, cf[C_MU_D], cf[C_V0], cf[C_V1])
            dv = 1e-9 + 1e-6 * abs(vt)
            dmu = (modified_coulomb(vt + dv, cf[C_MU_D], cf[C_V0], cf[C_V1])
                   - modified_coulomb(vt - dv, cf[C_MU_D], cf[C_V0], cf[C_V1])) / (2.0 * dv)
            t = _add_term(st, t, WT[c], WN[c], mu * ng, mu * nv, nq, gap, v_n, -mu, c, v_in)
            t = _add_term(st, t, WT[c], WT[c], 0.0, dmu * out[o + OC_N], nq, 0.0, 0.0, 0.0, c,
                          v_in)
    st[7][0] = t


@hot
def newton_factor(st, fs, lam, S):
    """Factorize A(lam) (module docstring) into ``fs`` from the store ``st``; False if a band
    or the small systems are singular."""
    AB, piv, fok, va, V, Zc, Sm, spiv, Xs, X, Y, Wm, wpiv = (fs[0], fs[1], fs[2], fs[3], fs[4],
                                                             fs[5], fs[6], fs[7], fs[8], fs[9],
                                                             fs[10], fs[11], fs[12])
    nq = S.nq
    nb = S.bint.shape[0]
    il2 = 1.0 / (lam * lam)
    for b in range(nb):
        n = S.snel[b]
        na = S.sna[b]
        kl = S.skl[b]
        for i in range(na):
            for j in range(AB.shape[2]):
                AB[b, i, j] = st[0][b, i, j]
        arrs = S.bodies[b]
        kbw = S.skbw[b]
        for i in range(n):
            pi = S.spos[b, i]
            for j in range(max(0, i - kbw), min(n, i + kbw + 1)):
                v = lam * arrs.C[i, j] + arrs.K2[i, j]
                if v != 0.0:
                    AB[b, pi, S.spos[b, j] - pi + kl] += v * il2
        ok = n == 0 or factor_body(AB[b], na, kl, piv[b])
        fok[b] = 1.0 if ok else 0.0
        if not ok:
            return False
    schur_into(nq, nb, S.sith, S.snel, S.spos, S.sna, S.skl, S.fq, st[1], st[2], AB, piv, fok,
               va, V, Zc, Sm)
    if not lu_factor(Sm, spiv):
        return False
    nt = st[7][0]
    if nt == 0:
        return True
    U, Wl, KV = st[3], st[4], st[6]
    KQ = fs[16]
    for t in range(nt):
        KQ[t] = _onset_kq(st, t, lam, S)
        for i in range(nq):
            Y[i, t] = U[t, i]
    schur_solve_into(nq, nb, S.sith, S.snel, S.spos, S.sna, S.skl, S.fq, AB, piv, fok, va, V, Zc,
                     Sm, spiv, Xs, Y, nt)
    for t in range(nt):
        for i in range(nq):
            Y[i, t] *= il2
    for s in range(nt):
        k = KQ[s] + lam * KV[s]
        for t in range(nt):
            acc = 0.0 * lam
            for i in range(nq):
                acc += Wl[s, i] * Y[i, t]
            Wm[s, t] = k * acc + (1.0 if s == t else 0.0)
    return lu_factor(Wm[:nt, :nt], wpiv[:nt])


@hot
def newton_solve(st, fs, S, lam, r, d, nz):
    """d = (lam I - J)^-1 r with J's rows of the structured matrix (module docstring), by the
    factorization :func:`newton_factor` left in ``fs``; ``r``, ``d``: [q, q', then the nz
    bristle states and the works], real or complex as ``lam``."""
    AB, piv, fok, va, V, Zc, Sm, spiv, Xs, X, Y, Wm, wpiv, sg, p, x, KQ = fs
    nq = S.nq
    nb = S.bint.shape[0]
    il = 1.0 / lam
    il2 = il * il
    for i in range(nq):
        p[i] = r[nq + i] + lam * r[i]
        X[i, 0] = 0.0
    for b in range(nb):                       # -(C r_v) / lam - K2 p / lam^2 on the elastic rows
        n = S.snel[b]
        o = S.sith[b] + 1
        arrs = S.bodies[b]
        kbw = S.skbw[b]
        for i in range(n):
            acc = 0.0 * lam
            for j in range(max(0, i - kbw), min(n, i + kbw + 1)):
                acc -= arrs.C[i, j] * r[nq + o + j] * il + arrs.K2[i, j] * p[o + j] * il2
            X[o + i, 0] = acc
    nt = st[7][0]
    U, Wl, KV = st[3], st[4], st[6]
    for t in range(nt):
        a = 0.0 * lam
        bq = 0.0 * lam
        for i in range(nq):
            a += Wl[t, i] * r[nq + i]
            bq += Wl[t, i] * p[i]
        c = -KV[t] * a * il - KQ[t] * bq * il2
        for i in range(nq):
            X[i, 0] += U[t, i] * c
    schur_solve_into(nq, nb, S.sith, S.snel, S.spos, S.sna, S.skl, S.fq, AB, piv, fok, va, V, Zc,
                     Sm, spiv, Xs, X, 1)
    for i in range(nq):
        x[i] = X[i, 0] * il2
    if nt > 0:
        for s in range(nt):
            acc = 0.0 * lam
            for i in range(nq):
                acc += Wl[s, i] * x[i]
            sg[s] = (KQ[s] + lam * KV[s]) * acc
        lu_solve(Wm[:nt, :nt], wpiv[:nt], sg[:nt])
        for i in range(nq):
            acc = x[i]
            for t in range(nt):
                acc -= Y[i, t] * sg[t]
            x[i] = acc
    for i in range(nq):
        dx = p[i] * il2 + x[i]
        d[i] = dx
        d[nq + i] = lam * dx - r[i]
    for k in range(2 * nq, r.shape[0]):
        d[k] = r[k] * il


_jit.flush_module(__name__)
