"""The system's mass matrix solved through its structure, in O(N) for finite-element bodies.

A body meshed with finite elements has a mass matrix whose elastic block is not banded: the
foreshortening couples every element with every other one of its chain (the axial displacement
at x integrates the slope over [0, x]).  :func:`flexlib.bodies.beam.mass_forces_elem_into`
writes that block as

    S_b = Band + sum_e (G_e r_e^T + r_e G_e^T),      G_e = sum_{a <= e} g_a,

with g_e, r_e supported on element e's coordinates and Band within one element (M2 and each
element's local terms).  With U = [g | r] (one column per element each) and S the upper
triangular matrix of ones of each chain, S_b = Band + U W U^T, W = [[0, S], [S^T, 0]], whose
inverse [[0, S^-T], [S^-1, 0]] is bidiagonal (S^-1 = I minus the superdiagonal).  So S_b x = b
is the banded system

    [Band   g       r     ] [x  ]   [b]
    [g^T    0      -S^-T  ] [y_g] = [0]       (y_g = S r^T x: suffix sums of r_e^T x,
    [r^T   -S^-1    0     ] [y_r]   [0]        y_r = S^T g^T x: prefix sums of g_e^T x)

ordered element by element (its y_g, its new coordinates, its y_r): half-bandwidth 6 for
Hermite elements, factorized by banded LU with partial pivoting
(:func:`flexlib.solver.linalg.band_lu_factor`) in O(N).

The system's M = sum_b C_b^T M_b C_b (the velocity transformation,
:mod:`flexlib.multibody.assembly`) is then D + V K V^T: D the bodies' S_b on their elastic
coordinates (zero on the frame coordinates theta and a free body's R), and for each body the six
columns V_b = [Y_b^T | P_b^T M_b,Bf] with Y_b = C_b's rows of (R, theta) and M_b,Bf the frame
columns of the elastic rows, K_b = [[M_b,ff, I], [I, 0]] (K_b^-1 = [[0, I], [I, -M_b,ff]]).  With
u = K V^T x the system M x = r splits into x_E = D^-1 (r_E - V_E u) and the small dense system

    [0      V_F                     ] [x_F]   [r_F            ]
    [V_F^T  -(K^-1 + V_E^T D^-1 V_E)] [u  ] = [-V_E^T D^-1 r_E]

of size (frame coordinates) + 6 (bodies), solved by Gaussian elimination with partial pivoting
(block elimination with a Schur complement; the banded LU is LAPACK's ``gbtrf``, Golub and Van
Loan, *Matrix Computations*, 4th ed., sec. 4.3).  Both solves agree with the dense LDL^T to
round-off (tests/test_structured.py).  Every function here is compiled and allocates nothing.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _jit
from .._jit import hot
from ..solver.linalg import band_lu_factor, band_lu_solve, lu_solve, solve_into

# The smallest number of coordinates whose mass matrix is solved by its structure (when every
# elastic body runs by the element route).  One evaluation of the right-hand side, dense LDL^T
# against structured (benchmarks/bench_eval.py --structured-elements, 2-core machine): the
# falling beam with 16 / 32 / 64 elements (nq 35 / 67 / 131) 15.8 / 50.5 / 221 us against
# 20.4 / 39.4 / 82.8 us, the double pendulum with 8 / 16 / 32 / 64 elements per link (nq 34 / 66
# / 130 / 258) 14.2 / 44.1 / 199 / 1121 us against 22.3 / 42.5 / 84.4 / 172 us: the structure
# wins from about 60 coordinates on.
STRUCTURED_MIN_NQ = 60


def aug_layout(edof: np.ndarray, estart: np.ndarray, M2: np.ndarray):
    """The banded ordering of a body's augmented system: (position of each elastic coordinate
    (n,), positions of each element's y_g, y_r (E, 2), size, half-bandwidth, M2's half-bandwidth
    in the coordinates' own order), from the elements' coordinates ``edof`` (E, 4; -1: none),
    chain starts ``estart`` and the constant mass matrix ``M2`` (n, n), whose entries must
    couple coordinates of one element."""
    n = M2.shape[0]
    E = edof.shape[0]
    pos = -np.ones(n, dtype=np.int64)
    ypos = np.zeros((max(E, 1), 2), dtype=np.int64)
    k = 0
    for e in range(E):          # y_g, the element's new coordinates, y_r: half-bandwidth 6
        ypos[e, 0] = k
        k += 1
        for d in edof[e]:
            if d >= 0 and pos[d] < 0:
                pos[d] = k
                k += 1
        ypos[e, 1] = k
        k += 1
    if (pos < 0).any():
        raise ValueError("an elastic coordinate lives on no element")
    kl = 1
    for e in range(E):
        ds = [pos[d] for d in edof[e] if d >= 0]
        pts = ds + [ypos[e, 0], ypos[e, 1]]
        if e > 0 and not estart[e]:
            pts.append(ypos[e - 1, 1])
        kl = max(kl, max(pts) - min(pts))
    i, j = np.nonzero(M2)
    if len(i) and np.abs(pos[i] - pos[j]).max() > kl:
        raise ValueError("M2 couples coordinates of different elements")
    mbw = int(np.abs(i - j).max()) if len(i) else 0
    return pos, ypos, k, kl, mbw


@hot
def body_aug_into(n, M2, mbw, edof, estart, Bd, W, AB, pos, ypos, kl, na):
    """Body's augmented band matrix (module docstring) into ``AB`` (rows :func:`band_lu_factor`
    reads) from M2 (half-bandwidth ``mbw``) and the generators the element route left in ``W``;
    returns Bd^T S_b Bd (the elastic velocities' part of twice the kinetic energy), computed
    before the matrix is factorized."""
    w = AB.shape[1]
    for i in range(na):
        for j in range(w):
            AB[i, j] = 0.0
    quad = 0.0
    for i in range(n):
        pi = pos[i]
        acc = 0.0
        for j in range(max(0, i - mbw), min(n, i + mbw + 1)):
            v = M2[i, j]
            if v != 0.0:
                AB[pi, pos[j] - pi + kl] += v
                acc += v * Bd[j]
        quad += Bd[i] * acc
    pre = 0.0
    for e in range(edof.shape[0]):
        if estart[e]:
            pre = 0.0
        yg = ypos[e, 0]
        yr = ypos[e, 1]
        gb = 0.0
        rb = 0.0
        for a in range(4):
            da = edof[e, a]
            if da < 0:
                continue
            pa = pos[da]
            ga = W[1, 4 * e + a]
            ra = W[0, 4 * e + a]
            AB[pa, yg - pa + kl] += ga
            AB[yg, pa - yg + kl] += ga
            AB[pa, yr - pa + kl] += ra
            AB[yr, pa - yr + kl] += ra
            gb += ga * Bd[da]
            rb += ra * Bd[da]
            acc = 0.0
            for c in range(4):
                dc = edof[e, c]
                if dc >= 0:
                    v = W[14, 16 * e + 4 * a + c]
                    AB[pa, pos[dc] - pa + kl] += v
                    acc += v * Bd[dc]
            quad += Bd[da] * acc
        pre += gb
        quad += 2.0 * rb * pre
        AB[yg, yr - yg + kl] = -1.0
        AB[yr, yg - yr + kl] = -1.0
        if e > 0 and not estart[e]:
            yp = ypos[e - 1, 1]
            AB[yg, yp - yg + kl] = 1.0
            AB[yp, yg - yp + kl] = 1.0
    return quad


@hot
def factor_body(AB, na, kl, piv):
    """The banded LU factorization of a body's augmented matrix (False: a zero or NaN pivot)."""
    return band_lu_factor(AB, na, kl, piv)


@hot
def _d_solve_col(src, sc, dst, dc, nb, ith, nel, pos, na, kl, AB, piv, va):
    """dst[E, dc] = D^-1 src[E, sc] on the elastic rows E of every body (one column; ``src`` and
    ``dst`` may be the same array and column)."""
    for b in range(nb):
        n = nel[b]
        if n == 0:
            continue
        o = ith[b] + 1
        nz = False
        for k in range(na[b]):
            va[k] = 0.0
        for i in range(n):
            v = src[o + i, sc]
            va[pos[b, i]] = v
            if v != 0.0:
                nz = True
        if nz:
            band_lu_solve(AB[b], na[b], kl[b], piv[b], va)
        for i in range(n):
            dst[o + i, dc] = va[pos[b, i]] if nz else 0.0


@hot
def schur_into(nq, nb, ith, nel, pos, na, kl, fq, Cs, Mb, AB, piv, fok, va, V, Zc, Sm):
    """The frame columns V (nq x 6 nb) of the system, Zc = D^-1 V_E and the small system's
    matrix ``Sm`` (module docstring) from the bodies' factorized augmented matrices ``AB``,
    ``piv``; ``fok[nb + c]`` is set to whether column c of V has elastic entries.  ``ith[b]``:
    index of body b's theta in q (its ``nel[b]`` elastic coordinates follow), ``fq``: the frame
    coordinates' indices, ``Cs``, ``Mb``: the velocity transformation and the bodies' M_b (frame
    rows and columns).  ``AB``, ``Zc``, ``Sm`` may be complex (a Newton matrix,
    :mod:`flexlib.multibody.newton`)."""
    nv = 6 * nb
    nF = fq.shape[0]
    ns = nF + nv
    for i in range(nq):
        for c in range(nv):
            V[i, c] = 0.0
    for b in range(nb):
        for k in range(2):
            for j in range(nq):
                V[j, 6 * b + k] = Cs[b, k, j]
        V[ith[b], 6 * b + 2] = 1.0                 # C_b's theta row selects theta
        for k in range(3):
            for i in range(nel[b]):
                V[ith[b] + 1 + i, 6 * b + 3 + k] = Mb[b, 3 + i, k]
    for c in range(nv):
        _d_solve_col(V, c, Zc, c, nb, ith, nel, pos, na, kl, AB, piv, va)
        # whether column c is zero on the elastic rows (a free or hinged body's frame rows)
        nz = 0.0
        for b in range(nb):
            for i in range(ith[b] + 1, ith[b] + 1 + nel[b]):
                if V[i, c] != 0.0:
                    nz = 1.0
        fok[nb + c] = nz
    for i in range(ns):
        for j in range(ns):
            Sm[i, j] = 0.0
    for f in range(nF):
        for c in range(nv):
            v = V[fq[f], c]
            Sm[f, nF + c] = v
            Sm[nF + c, f] = v
    for c in range(nv):
        for d in range(nv):
            s = 0.0
            if fok[nb + c] != 0.0 and fok[nb + d] != 0.0:
                for b in range(nb):
                    for i in range(ith[b] + 1, ith[b] + 1 + nel[b]):
                        s += V[i, c] * Zc[i, d]
            Sm[nF + c, nF + d] = -s
    for b in range(nb):
        o = nF + 6 * b
        for k in range(3):
            Sm[o + k, o + 3 + k] -= 1.0
            Sm[o + 3 + k, o + k] -= 1.0
            for l in range(3):
                Sm[o + 3 + k, o + 3 + l] += Mb[b, k, l]


@hot
def schur_solve_into(nq, nb, ith, nel, pos, na, kl, fq, AB, piv, fok, va, V, Zc, Sm, spiv, Xs,
                     X, m):
    """The first ``m`` columns of ``X`` := M^-1 X with :func:`schur_into` done: the small
    system solved by elimination (``Sm`` destroyed) or, with ``spiv[0] >= 0``, by the LU
    factors of :func:`flexlib.solver.linalg.lu_factor` in ``Sm``, ``spiv``."""
    nv = 6 * nb
    nF = fq.shape[0]
    for j in range(m):
        _d_solve_col(X, j, X, j, nb, ith, nel, pos, na, kl, AB, piv, va)
        for f in range(nF):
            Xs[f, j] = X[fq[f], j]
        for c in range(nv):
            s = 0.0
            if fok[nb + c] != 0.0:
                for b in range(nb):
                    for i in range(ith[b] + 1, ith[b] + 1 + nel[b]):
                        s += V[i, c] * X[i, j]
            Xs[nF + c, j] = -s
    if spiv[0] >= 0:
        for j in range(m):
            lu_solve(Sm, spiv, Xs[:, j])
    else:
        solve_into(Sm, Xs, m)
    for j in range(m):
        for f in range(nF):
            X[fq[f], j] = Xs[f, j]
        for b in range(nb):
            for i in range(ith[b] + 1, ith[b] + 1 + nel[b]):
                v = X[i, j]
                for c in range(nv):
                    if fok[nb + c] != 0.0:
                        v -= Zc[i, c] * Xs[nF + c, j]
                X[i, j] = v


@hot
def structured_solve_into(nq, nb, ith, nel, pos, na, kl, fq, Cs, Mb, AB, piv, fok, va, V, Zc,
                          Sm, Xs, X, m):
    """The first ``m`` columns of ``X`` (nq x >= m) := M^-1 X by the structure (module
    docstring), with the bodies' augmented matrices already factorized (``fok[b]`` 0: a failed
    factorization, which gives NaN as the dense solve does); the arguments are those of
    :func:`schur_into` and :func:`schur_solve_into`."""
    for b in range(nb):
        if fok[b] == 0.0:
            for i in range(nq):
                for j in range(m):
                    X[i, j] = math.nan
            return
    schur_into(nq, nb, ith, nel, pos, na, kl, fq, Cs, Mb, AB, piv, fok, va, V, Zc, Sm)
    schur_solve_into(nq, nb, ith, nel, pos, na, kl, fq, AB, piv, fok, va, V, Zc, Sm, _NO_PIV, Xs,
                     X, m)


_NO_PIV = -np.ones(1, dtype=np.int64)      # schur_solve_into: the small system not factorized


@hot
def structured_kinetic(nb, ith, nel, qd, Rd, Mb, tq):
    """T = q'^T M q' / 2 = sum_b v_b'^T M_b v_b' / 2 from the frame rows and columns of M_b and
    each body's elastic part ``tq[b]`` (:func:`body_aug_into`); v_b' = (R', theta', B')."""
    T = 0.0
    for b in range(nb):
        nd = 3 + nel[b]
        acc = tq[b]
        for k in range(3):
            vk = Rd[b, k] if k < 2 else qd[ith[b]]
            for l in range(nd):
                if l < 2:
                    vl = Rd[b, l]
                else:
                    vl = qd[ith[b] + l - 2]
                if l < 3:
                    acc += vk * Mb[b, k, l] * vl
                else:
                    acc += 2.0 * vk * Mb[b, k, l] * vl
        T += 0.5 * acc
    return T


_jit.flush_module(__name__)
