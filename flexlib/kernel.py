"""The right-hand side of every phase as one small function: the hot path of the simulator.

The same Python source is used twice: as plain Python/NumPy (with ``FLEXLIB_NO_NUMBA=1``) and,
when numba is installed, compiled with ``numba.njit(cache=True)``.  Tests check that both give
the same numbers.

The integrator calls :func:`phase_eval_into`, which writes dy/dt and the phase outputs into
arrays it is given and uses the work arrays of :func:`work_arrays` for its intermediates: it
allocates nothing.  That lets it be compiled without numba's reference counting (see
``NO_REFCOUNT`` at the end of this file); together the two changes took the right-hand side, as
the integrator calls it, from 1.2-1.4 us to ~0.5 us at N = 3 (benchmarks/README.md).  The work
arrays are reused from call to call; every value read is written first in the same call
(tests/test_kernel_workspace.py fills them with garbage to check this).  :func:`phase_eval`
and :func:`mass_forces` are the allocating forms of the same code for the rest of the library
and the tests.  The allocation-free code performs the same floating-point operations in the same
order as the earlier allocating one, so the two give bit-identical runs.

Physics (docs/model.md): M and Q (the paper's closed form, eqs (13)-(22) corrected, written with
the tensors T3, T4 of :mod:`flexlib.modes`), the tip contact kinematics (eqs (23)-(32),
(49)-(58)), the Baumgarte multiplier solves (eqs (36)-(38), (62), (75)) and LuGre (eq (68)).

Where the beam's formulas live (each once in the library, here): M and Q (:func:`mass_forces_into`,
with axial modes :func:`mass_forces_quad_into`); the tip point p_P = (L + Psi_L C - 1/2 B^T H_L B,
Phi_L B) and its rate (:func:`_tip_point`), which both the contact kinematics of the right-hand
side (:func:`_tip_into`) and the tip histories of a run use; the rotation W(theta) of the tip
(:func:`_rotate`); the potential energies V_E, V_A, V_G (:func:`potential_energies`); the kinetic
energy 1/2 q'^T M q' (:func:`phase_eval_into` with ``want_T``).  :func:`sample_kinematics`
evaluates the tip (inertial position, velocity, deflection) and the potential energies at every
sample of a run for :mod:`flexlib.history`.  The NumPy statements of these formulas in
tests/reference.py are test references only.

Axial extension (not the paper's model): when ``Psi_L`` (the axial shapes at the tip)
has Na > 0 entries, q = [theta, B (N), C (Na)] and M, Q come from the generic quadrature route
(:func:`mass_forces_quad`, loops over the Gauss nodes ``xk`` with weights ``wk``
= w rho S); with Na = 0 the arrays are empty and the tensor path above is used unchanged.

Arguments: the modal data of the beam travel as one :class:`KernelArrays` (a named tuple of 21
arrays, ``arrs``), which the compiled entry points (:func:`phase_eval_into`, :func:`phase_eval`,
:func:`phase_eval_samples`, :func:`mass_forces_any`, :func:`tip_kinematics`, :func:`tip_gap`,
:func:`potential_energies`, :func:`sample_kinematics`, :func:`work_arrays`) read by field
name; N = ``len(arrs.Phi_L)`` and Na = ``len(arrs.Psi_L)`` fix nd = 1 + N + Na and the state
length 2 nd + 5.  The helpers that state the formulas (:func:`mass_forces_into`,
:func:`mass_forces_quad_into`, :func:`_tip_point`, :func:`_tip_into`, ...) take the arrays they
use as explicit arguments.

Codes: mode FREE=0, CONTACT=1, STICK=2, SLIP=3; mult coupled=0, printed=1.  The ``model``
argument is the law code of the model's registry entry (:attr:`flexlib.models.ModelSpec.kernel_code`):
:data:`~flexlib.models.LAW_NO_CONTACT`, ``LAW_FRICTIONLESS``, ``LAW_COULOMB``, ``LAW_LUGRE``.  A
phase the code does not define (e.g. a SLIP phase without a friction law) returns NaN in dy and
``out``, so that the integrator stops on it; no code is silently read as another law.

The slots of ``par`` (the scalars) and of the output vector ``out`` ([N, F_t, zdot, mu, margin,
cond_S, gap, s, v_n, v_t]) are named in :mod:`flexlib.layout` (``P_*``, ``O_*``); numba reads
those module constants at compile time.  numba's cache of this module is keyed on this file
only, so a change to a module it compiles in (:mod:`flexlib.layout`, :mod:`flexlib.models`,
:func:`flexlib.friction.lugre_rates`) flushes the cache (:data:`SOURCE_STAMP`).
"""
from __future__ import annotations

import hashlib
import math
import os
import types
from typing import NamedTuple

import numpy as np

from .friction import lugre_rates, modified_coulomb
from .layout import (DISC_SLOTS, NOUT, NPAR, O_COND, O_F, O_GAP, O_MARGIN, O_MU, O_N, O_NRAW, O_S,
                     O_VN, O_VT, O_ZDOT, P_BETA, P_C_C, P_CHI, P_D_C, P_DIR, P_G0, P_J_OB, P_K_C,
                     P_L, P_MU_D, P_MU_S, P_N_C, P_NX, P_NY, P_RX0, P_S_STAR, P_SIGMA0, P_SIGMA1,
                     P_SIGMA2, P_TAU, P_TX, P_TY, P_V0, P_V1, P_V_IN, P_V_S, P_X1, P_Y1, Y_WD, Y_WF,
                     Y_WN, Y_WTAU, Y_Z)
from .models import (LAW_COULOMB, LAW_CUSTOM, LAW_FRICTIONLESS, LAW_LUGRE, LAW_NO_CONTACT,
                     LAW_PENALTY, LAW_PENALTY_LUGRE, LAW_PENALTY_MOD_COULOMB)
from .penalty import normal_force


class KernelArrays(NamedTuple):
    """The modal data of a beam model in the layout of this kernel (built by
    :meth:`flexlib.beam.BeamModel.kernel_arrays`): C-contiguous float64 arrays, N bending modes,
    Na axial modes, K quadrature nodes.  The compiled entry points take it as one argument and
    read its fields by name (numba compiles ``arrs.Psi_L`` to a constant index)."""
    M2: np.ndarray      # (N, N) int rho S Phi Phi^T
    M2mD: np.ndarray    # (N, N) M2 - D, D = int rho S x H
    S_y: np.ndarray     # (N,) int rho S x Phi
    K2: np.ndarray      # (N, N) int EI Phi'' Phi''^T
    T3r: np.ndarray     # (N*N, N) T3 flattened, T3r[i*N+j, k] = T3[i, j, k]
    T3tr: np.ndarray    # (N*N, N) T3 with its last two axes swapped, flattened
    T4r: np.ndarray     # (N*N, N*N) T4[i, j, k, l] at [i*N+j, k*N+l]
    T4pr: np.ndarray    # (N*N, N*N) T4 with axes 1, 2 swapped, flattened: T4' of mass_forces_into
    Hbar: np.ndarray    # (N, N) int rho S H
    Sbar: np.ndarray    # (N,) int rho S Phi
    C: np.ndarray       # (N, N) modal damping
    Phi_L: np.ndarray   # (N,) bending shapes at the tip
    H_L: np.ndarray     # (N, N) coupling shape at the tip
    # the generic quadrature route (used only with axial modes, Na > 0)
    xk: np.ndarray      # (K,) nodes [m]
    wk: np.ndarray      # (K,) weights x rho S
    Phik: np.ndarray    # (K, N) bending shapes at the nodes
    Hk: np.ndarray      # (K, N*N) coupling shapes at the nodes, row-major
    Psik: np.ndarray    # (K, Na) axial shapes at the nodes
    KA: np.ndarray      # (Na, Na) axial stiffness
    Psi_L: np.ndarray   # (Na,) axial shapes at the tip (empty without axial modes)
    Psibar: np.ndarray  # (Na,) int rho S Psi (gravity of the axial modes; empty without them)


def mass_forces_into(q, qd, par, M2, M2mD, S_y, K2, T3r, T3tr, T4r, T4pr, Hbar, Sbar, C,
                     W, M, Q):
    """M(q) and Q(q, q') (no contact forces): eqs (13)-(17) corrected, tensor form (loops).

    The results are written into ``M`` and ``Q``, and
    the rows 0..6 of the work array ``W`` (>= 7 x N^2) hold the contracted tensors, so that the
    integrator's right-hand side allocates nothing."""
    n = M.shape[0] - 1
    th = q[0]
    thd = qd[0]
    J_ob, Rx0, g0, tau = par[P_J_OB], par[P_RX0], par[P_G0], par[P_TAU]
    nn = n * n
    # W[0] = T4 : BB, W[1] = P = T4' : BB, W[2] = T4 : BdBd   (n x n, row-major)
    for r in range(nn):
        a1 = 0.0
        a2 = 0.0
        a3 = 0.0
        for k in range(n):
            bk = q[1 + k]
            dk = qd[1 + k]
            for l in range(n):
                c1 = T4r[r, k * n + l]
                a1 += c1 * bk * q[1 + l]
                a2 += T4pr[r, k * n + l] * bk * q[1 + l]
                a3 += c1 * dk * qd[1 + l]
        W[0, r] = a1
        W[1, r] = a2
        W[2, r] = a3
    # W[3][i*n+j] = T3r[i*n+j] . B ; W[4][j*n+i] = T3tr[j*n+i] . B ; W[5], W[6]: the same with Bd
    for r in range(nn):
        a1 = 0.0
        a2 = 0.0
        a3 = 0.0
        a4 = 0.0
        for k in range(n):
            a1 += T3r[r, k] * q[1 + k]
            a2 += T3tr[r, k] * q[1 + k]
            a3 += T3r[r, k] * qd[1 + k]
            a4 += T3tr[r, k] * qd[1 + k]
        W[3, r] = a1
        W[4, r] = a2
        W[5, r] = a3
        W[6, r] = a4
    s = math.sin(th)
    c = math.cos(th)
    BMB = 0.0
    v4B = 0.0
    BdMB = 0.0
    v4Bd = 0.0
    BdT3BBd = 0.0
    BHB = 0.0
    Ry = 0.0
    for i in range(n):
        bi = q[1 + i]
        di = qd[1 + i]
        m2b = 0.0
        v4i = 0.0
        t3bb = 0.0
        bt3 = 0.0
        hb = 0.0
        k2b = 0.0
        t4ddb = 0.0
        bbdt3 = 0.0
        t3db = 0.0
        cbd = 0.0
        t3bbd_i = 0.0
        for j in range(n):
            bj = q[1 + j]
            dj = qd[1 + j]
            m2b += M2mD[i, j] * bj
            v4i += W[0, i * n + j] * bj
            t3bb += W[3, i * n + j] * bj
            bt3 += bj * W[4, j * n + i]
            hb += Hbar[i, j] * bj
            k2b += K2[i, j] * bj
            t4ddb += W[2, i * n + j] * bj
            bbdt3 += bj * W[6, j * n + i]
            t3db += W[5, i * n + j] * bj
            cbd += C[i, j] * dj
            t3bbd_i += W[3, i * n + j] * dj
            M[i + 1, j + 1] = M2[i, j] + W[1, i * n + j]
        m21 = S_y[i] + t3bb - 0.5 * bt3
        M[i + 1, 0] = m21
        M[0, i + 1] = m21
        BMB += bi * m2b
        v4B += v4i * bi
        BdMB += di * m2b
        v4Bd += v4i * di
        BdT3BBd += di * t3bbd_i
        BHB += bi * hb
        Ry += Sbar[i] * bi
        Q[i + 1] = (thd * thd * m2b - k2b + 0.5 * thd * thd * v4i - t4ddb
                    + 2.0 * thd * (bbdt3 - t3db) + g0 * (s * hb - c * Sbar[i]) - cbd)
    M[0, 0] = J_ob + BMB + 0.25 * v4B
    Rx = Rx0 - 0.5 * BHB
    Q[0] = tau - 2.0 * thd * BdMB - thd * v4Bd - BdT3BBd + g0 * (s * Ry - c * Rx)


def mass_forces(q, qd, par, M2, M2mD, S_y, K2, T3r, T3tr, T4r, T4pr, Hbar, Sbar, C):
    """M(q) and Q(q, q') (no contact forces): eqs (13)-(17) corrected, tensor form."""
    n = q.shape[0] - 1
    nd = n + 1
    M = np.empty((nd, nd))
    Q = np.empty(nd)
    mass_forces_into(q, qd, par, M2, M2mD, S_y, K2, T3r, T3tr, T4r, T4pr, Hbar, Sbar, C,
                     np.empty((7, max(n * n, 1))), M, Q)
    return M, Q


def mass_forces_quad_into(q, qd, par, n, K2, C, xk, wk, Phik, Hk, Psik, KA, W, M, Q):
    """M(q) and Q(q, q') by the generic quadrature route, with axial modes.

    J~_k = [I~ p_k | P_k], P_k = [[-(H_k B)^T, Psi_k], [Phi_k, 0]];  M = sum w rho S J~^T J~;
    Q = -sum w rho S J~^T a~ + sum w rho S J~^T W^T g - [0; K2 B + C B'; K_A C] + [tau; 0; 0].
    ``Hk`` is (K, N*N) row-major; ``wk`` includes rho S.  M and Q are written into ``M`` and
    ``Q``; the rows 11-13 of ``W`` (>= nd wide) are work space."""
    nd = M.shape[0]
    na = nd - 1 - n
    th = q[0]
    thd = qd[0]
    g0, tau = par[P_G0], par[P_TAU]
    s = math.sin(th)
    c = math.cos(th)
    gx = -g0 * s                      # W^T (0, -g0)
    gy = -g0 * c
    for a in range(nd):
        Q[a] = 0.0
        for b in range(nd):
            M[a, b] = 0.0
    jx = W[11]
    jy = W[12]
    HB = W[13]
    for k in range(xk.shape[0]):
        w = wk[k]
        BHB = 0.0
        BHBd = 0.0
        BdHBd = 0.0
        py = 0.0
        pdy = 0.0
        for i in range(n):
            hb = 0.0
            hbd = 0.0
            for j in range(n):
                h = Hk[k, i * n + j]
                hb += h * q[1 + j]
                hbd += h * qd[1 + j]
            HB[i] = hb
            BHB += q[1 + i] * hb
            BHBd += hb * qd[1 + i]
            BdHBd += qd[1 + i] * hbd
            py += Phik[k, i] * q[1 + i]
            pdy += Phik[k, i] * qd[1 + i]
        px = xk[k] - 0.5 * BHB
        pdx = -BHBd
        for j in range(na):
            px += Psik[k, j] * q[1 + n + j]
            pdx += Psik[k, j] * qd[1 + n + j]
        ax = -thd * thd * px - 2.0 * thd * pdy - BdHBd
        ay = -thd * thd * py + 2.0 * thd * pdx
        jx[0] = -py
        jy[0] = px
        for i in range(n):
            jx[1 + i] = -HB[i]
            jy[1 + i] = Phik[k, i]
        for j in range(na):
            jx[1 + n + j] = Psik[k, j]
            jy[1 + n + j] = 0.0
        fx = w * (gx - ax)
        fy = w * (gy - ay)
        for a in range(nd):
            wxa = w * jx[a]
            wya = w * jy[a]
            Q[a] += jx[a] * fx + jy[a] * fy
            for b in range(a, nd):
                M[a, b] += wxa * jx[b] + wya * jy[b]
    for a in range(nd):
        for b in range(a + 1, nd):
            M[b, a] = M[a, b]
    Q[0] += tau
    for i in range(n):
        acc = 0.0
        for j in range(n):
            acc += K2[i, j] * q[1 + j] + C[i, j] * qd[1 + j]
        Q[1 + i] -= acc
    for i in range(na):
        acc = 0.0
        for j in range(na):
            acc += KA[i, j] * q[1 + n + j]
        Q[1 + n + i] -= acc


def mass_forces_quad(q, qd, par, n, K2, C, xk, wk, Phik, Hk, Psik, KA):
    """As :func:`mass_forces_quad_into`, returning new arrays (M, Q)."""
    nd = q.shape[0]
    M = np.empty((nd, nd))
    Q = np.empty(nd)
    mass_forces_quad_into(q, qd, par, n, K2, C, xk, wk, Phik, Hk, Psik, KA,
                          np.empty((14, max(n, nd))), M, Q)
    return M, Q


def mass_forces_any(q, qd, par, arrs):
    """M, Q from the modal data ``arrs`` (a :class:`KernelArrays`): the tensor path without axial
    modes, else quadrature."""
    if arrs.Psi_L.shape[0] > 0:
        return mass_forces_quad(q, qd, par, arrs.Phi_L.shape[0], arrs.K2, arrs.C, arrs.xk,
                                arrs.wk, arrs.Phik, arrs.Hk, arrs.Psik, arrs.KA)
    return mass_forces(q, qd, par, arrs.M2, arrs.M2mD, arrs.S_y, arrs.K2, arrs.T3r, arrs.T3tr,
                       arrs.T4r, arrs.T4pr, arrs.Hbar, arrs.Sbar, arrs.C)


def _solve_into(M, X, m):
    """Gaussian elimination with partial pivoting, in place: ``M`` (n x n) is destroyed and the
    first ``m`` columns of ``X`` (n x >= m) are overwritten with M^-1 X."""
    n = M.shape[0]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(M[i, k]) > abs(M[p, k]):
                p = i
        if p != k:
            for j in range(n):
                M[k, j], M[p, j] = M[p, j], M[k, j]
            for j in range(m):
                X[k, j], X[p, j] = X[p, j], X[k, j]
        for i in range(k + 1, n):
            f = M[i, k] / M[k, k]
            for j in range(k, n):
                M[i, j] -= f * M[k, j]
            for j in range(m):
                X[i, j] -= f * X[k, j]
    for k in range(n - 1, -1, -1):
        for j in range(m):
            v = X[k, j]
            for i in range(k + 1, n):
                v -= M[k, i] * X[i, j]
            X[k, j] = v / M[k, k]


def _solve(A, b):
    """Gaussian elimination with partial pivoting; b 1-D or 2-D (A and b are not changed)."""
    n = A.shape[0]
    M = A.copy()
    if b.ndim == 1:
        X = b.copy().reshape(n, 1)
    else:
        X = b.copy()
    _solve_into(M, X, X.shape[1])
    return X


def _slope_in_beam_frame(th, nx, ny, tx, ty):
    """cos th, sin th and the slope normal n and tangent t in the beam frame:
    (c, s, n_fx, n_fy, t_fx, t_fy) with n_f = W^T n, t_f = W^T t (W the rotation by th)."""
    c = math.cos(th)
    s_ = math.sin(th)
    return c, s_, c * nx + s_ * ny, -s_ * nx + c * ny, c * tx + s_ * ty, -s_ * tx + c * ty


def _tip_rows_into(nfx, nfy, tfx, tfy, px, py, HLB, Phi_L, Psi_L, Pq, Gq):
    """The tip Jacobian rows Psi_q = n . dr/dq and Gamma_q = t . dr/dq (eqs (32), (58)) from the
    slope normal/tangent in the beam frame (nfx, nfy), (tfx, tfy), the tip position (px, py),
    H_L B, the modal tip values Phi_L and the axial tip values Psi_L; written into Pq, Gq."""
    n = Phi_L.shape[0]
    na = Psi_L.shape[0]
    Pq[0] = -nfx * py + nfy * px
    Gq[0] = -tfx * py + tfy * px
    for i in range(n):
        Pq[i + 1] = -nfx * HLB[i] + nfy * Phi_L[i]
        Gq[i + 1] = -tfx * HLB[i] + tfy * Phi_L[i]
    for j in range(na):
        Pq[1 + n + j] = nfx * Psi_L[j]
        Gq[1 + n + j] = tfx * Psi_L[j]


def _dot_at(a, y, off):
    """sum_i a[i] y[off + i] (a dot product with a slice of y, without the slice)."""
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * y[off + i]
    return acc


def _mv_at(A, y, off, n, dst):
    """dst[:m] = A[:, :n] y[off:off+n] (m = A.shape[0])."""
    for i in range(A.shape[0]):
        acc = 0.0
        for j in range(n):
            acc += A[i, j] * y[off + j]
        dst[i] = acc


def _quad_at(A, y, off, n):
    """x^T A x with x = y[off:off+n] (summed row by row: sum_i x_i (sum_j A_ij x_j))."""
    acc = 0.0
    for i in range(n):
        r = 0.0
        for j in range(n):
            r += A[i, j] * y[off + j]
        acc += y[off + i] * r
    return acc


def _quad_flat(A, y, off, n):
    """x^T A x with x = y[off:off+n], summed term by term in row-major order, (x_i A_ij) x_j:
    the order of ``np.einsum("i,ij,j->", x, A, x)`` (the energies' quadratic forms keep the
    bits they had when the histories computed them with einsum)."""
    acc = 0.0
    for i in range(n):
        for j in range(n):
            acc += y[off + i] * A[i, j] * y[off + j]
    return acc


def _rotate(c, s, x, y):
    """W(theta) (x, y) = (c x - s y, s x + c y), eq (6): floating-frame components to inertial
    ones, from c = cos theta, s = sin theta."""
    return c * x - s * y, s * x + c * y


def _tip_point(q, qd, L, Phi_L, H_L, Psi_L, HLB, rates):
    """The tip P in the floating frame (eqs (23)-(25)): the one statement of the formula.

    Returns (px, py, pdx, pdy) with p_P = (L + Psi_L C - 1/2 B^T H_L B, Phi_L B) [m] and, if
    ``rates``, p_P' = (-B^T H_L B' + Psi_L C', Phi_L B') [m/s] (NaN otherwise); writes H_L B
    into ``HLB``.  ``Psi_L`` is empty without axial modes."""
    n = Phi_L.shape[0]
    na = Psi_L.shape[0]
    _mv_at(H_L, q, 1, n, HLB)
    px = L - 0.5 * _dot_at(HLB[:n], q, 1)
    if na > 0:
        px += _dot_at(Psi_L, q, 1 + n)
    py = _dot_at(Phi_L, q, 1)
    pdx = np.nan
    pdy = np.nan
    if rates:
        pdx = -_dot_at(HLB[:n], qd, 1)
        if na > 0:
            pdx += _dot_at(Psi_L, qd, 1 + n)
        pdy = _dot_at(Phi_L, qd, 1)
    return px, py, pdx, pdy


def _tip_into(q, qd, par, Phi_L, H_L, Psi_L, HLB, Pq, Gq, accel):
    """Tip contact kinematics at (q, q') : returns (gap, s, v_n, v_t, gamma_n,
    gamma_t) and writes H_L B into ``HLB`` and the Jacobian rows Psi_q, Gamma_q into ``Pq``,
    ``Gq``.  gamma_n = -n . a_vp and gamma_t = -t . a_vp (eqs (32), (58)) are computed only if
    ``accel`` (they are NaN otherwise: a flight phase does not need them).  The tip point and
    its rate are those of :func:`_tip_point`."""
    n = Phi_L.shape[0]
    L = par[P_L]
    nx, ny, tx, ty = par[P_NX], par[P_NY], par[P_TX], par[P_TY]
    th = q[0]
    thd = qd[0]
    px, py, pdx, pdy = _tip_point(q, qd, L, Phi_L, H_L, Psi_L, HLB, accel)
    c, s_, nfx, nfy, tfx, tfy = _slope_in_beam_frame(th, nx, ny, tx, ty)
    rx, ry = _rotate(c, s_, px, py)
    dx = rx - par[P_X1]
    dyy = ry - par[P_Y1]
    _tip_rows_into(nfx, nfy, tfx, tfy, px, py, HLB, Phi_L, Psi_L, Pq, Gq)
    gam_n = np.nan
    gam_t = np.nan
    if accel:
        ax = -thd * thd * px - 2.0 * thd * pdy - _quad_at(H_L, qd, 1, n)
        ay = -thd * thd * py + 2.0 * thd * pdx
        gam_n = -(nfx * ax + nfy * ay)
        gam_t = -(tfx * ax + tfy * ay)
    return (nx * dx + ny * dyy, tx * dx + ty * dyy, _dot_at(Pq, qd, 0), _dot_at(Gq, qd, 0),
            gam_n, gam_t)


def material_points_into(B, C, c, s, xs, phi, H, Psi, P):
    """Inertial positions of the beam's material points at stations ``xs`` [m], written into
    ``P`` (len(xs), 2): the one statement of r(x) = W(theta) (x + Psi(x) C - 1/2 B^T H(x) B,
    Phi(x) B) (eqs (3)-(5)), for modal coordinates B, axial C and c, s = cos, sin theta;
    ``phi``, ``H``, ``Psi`` are the shapes at the stations (:meth:`BeamModel.station_data`)."""
    n = B.shape[0]
    na = C.shape[0]
    for j in range(xs.shape[0]):
        bhb = 0.0
        py = 0.0
        for i in range(n):
            acc = 0.0
            for l in range(n):
                acc += H[j, i, l] * B[l]
            bhb += B[i] * acc
            py += B[i] * phi[j, i]
        px = xs[j] - 0.5 * bhb
        for a in range(na):
            px += C[a] * Psi[j, a]
        P[j, 0] = c * px - s * py
        P[j, 1] = s * px + c * py


def potential_energies(q, par, arrs):
    """(V_E, V_A, V_G) at q [J]: the one statement of the potential energies.

    V_E = 1/2 B^T K2 B (eq (9)); V_A = 1/2 C^T K_A C (axial modes, 0 without); V_G = -g^T W R
    = g0 (sin theta R_x + cos theta Sbar B) with R_x = Rx0 - 1/2 B^T Hbar B + Psibar C (eqs
    (9)-(10)), referred to the hinge level.  ``par`` gives Rx0 and g0, ``arrs`` (a
    :class:`KernelArrays`) K2, KA, Hbar, Sbar, Psibar."""
    n = arrs.Phi_L.shape[0]
    na = arrs.Psi_L.shape[0]
    V_E = 0.5 * _quad_flat(arrs.K2, q, 1, n)
    V_A = 0.0
    Rx = par[P_RX0] - 0.5 * _quad_flat(arrs.Hbar, q, 1, n)
    if na > 0:
        V_A = 0.5 * _quad_flat(arrs.KA, q, 1 + n, na)
        Rx = Rx + _dot_at(arrs.Psibar, q, 1 + n)
    V_G = par[P_G0] * (math.sin(q[0]) * Rx + math.cos(q[0]) * _dot_at(arrs.Sbar, q, 1))
    return V_E, V_A, V_G


def sample_kinematics(Y, par, arrs):
    """The tip and potential-energy histories of a run, one row of the states ``Y`` (m, >= 2 nd)
    at a time: an array (8, m) with the rows tip X, tip Y [m], tip X', Y' [m/s] (inertial),
    the tip deflection u_y(L) = Phi_L B [m] (the floating py), V_E, V_A, V_G [J].

    The tip point is :func:`_tip_point` (the simulator's), rotated by W(theta) (:func:`_rotate`);
    its inertial velocity is W (p_P' + theta' I~ p_P); the energies are
    :func:`potential_energies`."""
    n = arrs.Phi_L.shape[0]
    nd = 1 + n + arrs.Psi_L.shape[0]
    m = Y.shape[0]
    out = np.empty((8, m))
    HLB = np.empty(max(n, 1))
    L = par[P_L]
    for k in range(m):
        q = Y[k, :nd]
        qd = Y[k, nd:2 * nd]
        px, py, pdx, pdy = _tip_point(q, qd, L, arrs.Phi_L, arrs.H_L, arrs.Psi_L, HLB, True)
        c = math.cos(q[0])
        s = math.sin(q[0])
        thd = qd[0]
        out[0, k], out[1, k] = _rotate(c, s, px, py)
        out[2, k], out[3, k] = _rotate(c, s, pdx - thd * py, pdy + thd * px)
        out[4, k] = py
        out[5, k], out[6, k], out[7, k] = potential_energies(q, par, arrs)
    return out


def work_arrays(arrs):
    """The work arrays ``(W, Mw, Xw)`` of :func:`phase_eval_into` for the model of the modal data
    ``arrs`` (a :class:`KernelArrays`: nd = 1 + N + Na from its tip values Phi_L, Psi_L)."""
    n = arrs.Phi_L.shape[0]
    nd = 1 + n + arrs.Psi_L.shape[0]
    return np.empty((14, max(n * n, nd))), np.empty((nd, nd)), np.empty((nd, 3))


def phase_eval_into(t, y, mode, model, mult, par, arrs, W, Mw, Xw, dy, out, want_T):
    """dy/dt of the phase ``mode`` and the algebraic outputs at (t, y), written into ``dy`` and
    ``out``; returns the kinetic energy T = q'^T M q' / 2 if ``want_T``, else 0.

    The integrator's right-hand side: it allocates nothing.  ``W``, ``Mw``, ``Xw`` come from
    :func:`work_arrays`: W rows 0-6 hold the contracted tensors of :func:`mass_forces_into`, row 7
    H_L B, rows 8, 9 the tip rows Psi_q, Gamma_q, row 10 Q, rows 11-13 the work space of
    :func:`mass_forces_quad_into` (axial modes); Mw = M (destroyed by the solve), Xw = [Q | Psi_q |
    Gamma_q] and then M^-1 of it.  There are no shape checks on this hot path (numba does not
    bounds-check): the work arrays must come from ``work_arrays(arrs)``, ``y`` and ``dy`` must have
    the model's length 2 nd + 5 and ``out`` NOUT entries."""
    n = arrs.Phi_L.shape[0]
    na = arrs.Psi_L.shape[0]
    nd = 1 + n + na
    iz = 2 * nd
    for k in range(NOUT):
        out[k] = np.nan
    Qw = W[10]
    if na > 0:
        mass_forces_quad_into(y[:nd], y[nd:2 * nd], par, n, arrs.K2, arrs.C, arrs.xk, arrs.wk,
                              arrs.Phik, arrs.Hk, arrs.Psik, arrs.KA, W, Mw, Qw)
    else:
        mass_forces_into(y[:nd], y[nd:2 * nd], par, arrs.M2, arrs.M2mD, arrs.S_y, arrs.K2,
                         arrs.T3r, arrs.T3tr, arrs.T4r, arrs.T4pr, arrs.Hbar, arrs.Sbar, arrs.C,
                         W, Mw, Qw)
    T = 0.0
    if want_T:
        T = 0.5 * _quad_at(Mw, y, nd, nd)
    for k in range(y.shape[0]):
        dy[k] = 0.0
    dy[iz + Y_WD] = _quad_at(arrs.C, y, nd + 1, n)
    dy[iz + Y_WTAU] = par[P_TAU] * y[nd]
    for i in range(nd):
        dy[i] = y[nd + i]
        Xw[i, 0] = Qw[i]
    if model == LAW_NO_CONTACT:
        _solve_into(Mw, Xw, 1)
        for i in range(nd):
            dy[nd + i] = Xw[i, 0]
        out[O_N] = 0.0
        out[O_F] = 0.0
        return T
    # ---- tip contact kinematics (eqs (23)-(32), (49)-(58)); gamma_n, gamma_t only in contact
    Pq = W[8, :nd]
    Gq = W[9, :nd]
    gap, sc, v_n, v_t, gam_n, gam_t = _tip_into(y[:nd], y[nd:2 * nd], par, arrs.Phi_L, arrs.H_L,
                                                arrs.Psi_L, W[7], Pq, Gq,
                                                mode != 0 and model < LAW_PENALTY)
    for i in range(nd):
        Xw[i, 1] = Pq[i]
        Xw[i, 2] = Gq[i]
    out[O_GAP] = gap
    out[O_S] = sc
    out[O_VN] = v_n
    out[O_VT] = v_t
    if mode == 0:
        _solve_into(Mw, Xw, 1)
        for i in range(nd):
            dy[nd + i] = Xw[i, 0]
        out[O_N] = 0.0
        out[O_F] = 0.0
        return T
    if model >= LAW_PENALTY:
        _penalty_contact(y, mode, model, par, gap, v_n, v_t, Pq, Gq, Xw, Mw, nd, iz, dy, out)
        return T
    chi, beta = par[P_CHI], par[P_BETA]
    gn = gam_n - 2.0 * chi * v_n - beta * beta * gap
    _solve_into(Mw, Xw, 3)          # columns: a = M^-1 Q, mP = M^-1 Psi_q, mG = M^-1 Gamma_q
    s11 = 0.0
    pa = 0.0
    for i in range(nd):
        s11 += Pq[i] * Xw[i, 1]
        pa += Pq[i] * Xw[i, 0]
    r1 = gn - pa
    N = 0.0
    F = 0.0
    if mode == 1 and model == LAW_FRICTIONLESS:
        N = r1 / s11
    elif mode == 2 and (model == LAW_COULOMB or model == LAW_LUGRE or model == LAW_CUSTOM):
        N, F = _stick_solve(gam_t, v_t, sc, chi, beta, par[P_S_STAR], r1, s11, Pq, Gq, Xw, nd,
                            mult, out)
    elif model == LAW_COULOMB or model == LAW_LUGRE or model == LAW_CUSTOM:
        # slip (and the unified law's CONTACT): F_t = c N with c = -dir mu_d (Coulomb, eq (69)),
        # c = -mu of the LuGre bristle state (eq (68)) or c = -mu of a registered law
        if model == LAW_COULOMB:
            cf = -par[P_DIR] * par[P_MU_D]
            out[O_MU] = -cf
        elif model == LAW_CUSTOM:
            zd, mu = custom_friction(v_t, y[iz + Y_Z], par)
            out[O_ZDOT] = zd
            out[O_MU] = mu
            dy[iz + Y_Z] = zd
            cf = -mu
        else:
            zd, mu = lugre_rates(v_t, y[iz + Y_Z], par[P_MU_D], par[P_MU_S], par[P_SIGMA0],
                                 par[P_SIGMA1], par[P_SIGMA2], par[P_V_S])
            out[O_ZDOT] = zd
            out[O_MU] = mu
            dy[iz + Y_Z] = zd
            cf = -mu
        s12 = 0.0
        for i in range(nd):
            s12 += Pq[i] * Xw[i, 2]
        if mult == 1:
            N = r1 / s11
            out[O_MARGIN] = 1.0 + cf * s12 / s11
        else:
            den = s11 + cf * s12
            out[O_MARGIN] = den / s11
            N = r1 / den
        F = cf * N
    else:
        # a contact phase this law does not define (or an unknown law code): flag, never guess
        for i in range(y.shape[0]):
            dy[i] = np.nan
        return T
    for i in range(nd):
        dy[nd + i] = Xw[i, 0] + Xw[i, 1] * N + Xw[i, 2] * F
    dy[iz + Y_WN] = N * v_n
    dy[iz + Y_WF] = F * v_t
    out[O_N] = N
    out[O_F] = F
    return T


def _penalty_contact(y, mode, model, par, gap, v_n, v_t, Pq, Gq, Xw, Mw, nd, iz, dy, out):
    """The contact phase of the continuous contact force method: the penalty normal force of
    :func:`flexlib.penalty.normal_force` and the friction law with that N enter as the
    generalised force Psi_q N + Gamma_q F_t; no constraint, no multiplier.  ``Xw[:, 0]`` holds
    Q on entry; writes dy (q'', z', the work rates) and ``out``."""
    if mode != 1 or model > LAW_PENALTY_LUGRE:
        for i in range(y.shape[0]):      # a phase this law does not define: flag, never guess
            dy[i] = np.nan
        return
    N, raw = normal_force(gap, v_n, par[P_K_C], par[P_N_C], par[P_D_C], par[P_C_C], par[P_V_IN])
    mu = 0.0
    if model == LAW_PENALTY_MOD_COULOMB:
        mu = modified_coulomb(v_t, par[P_MU_D], par[P_V0], par[P_V1])
    elif model == LAW_PENALTY_LUGRE:
        zd, mu = lugre_rates(v_t, y[iz + Y_Z], par[P_MU_D], par[P_MU_S], par[P_SIGMA0],
                             par[P_SIGMA1], par[P_SIGMA2], par[P_V_S])
        out[O_ZDOT] = zd
        dy[iz + Y_Z] = zd
    F = -mu * N
    for i in range(nd):
        Xw[i, 0] += Pq[i] * N + Gq[i] * F
    _solve_into(Mw, Xw, 1)
    for i in range(nd):
        dy[nd + i] = Xw[i, 0]
    dy[iz + Y_WN] = N * v_n
    dy[iz + Y_WF] = F * v_t
    out[O_N] = N
    out[O_F] = F
    out[O_MU] = mu
    out[O_NRAW] = raw


def custom_friction(v, z, par):
    """The friction law of a registered model whose :class:`~flexlib.models.FrictionLaw` brings
    its own compiled function: (z', mu) at tangential velocity v [m/s], internal state z and
    parameters ``par``, with F_t = -mu N.  This placeholder gives NaN (the phase is flagged);
    :func:`specialize` compiles the right-hand side with the law's function in its place."""
    return np.nan, np.nan


def _stick_solve(gam_t, v_t, sc, chi, beta, s_star, r1, s11, Pq, Gq, Xw, nd, mult, out):
    """The STICK multipliers (N, F_t) of the normal and tangential constraints (eqs (62), (75)),
    from the solved columns ``Xw`` = M^-1 [Q | Psi_q | Gamma_q]; writes cond(S) and the friction
    ratio -F/N into ``out``."""
    gt = gam_t - 2.0 * chi * v_t - beta * beta * (sc - s_star)
    s12 = 0.0
    s21 = 0.0
    s22 = 0.0
    ga = 0.0
    for i in range(nd):
        s12 += Pq[i] * Xw[i, 2]
        s21 += Gq[i] * Xw[i, 1]
        s22 += Gq[i] * Xw[i, 2]
        ga += Gq[i] * Xw[i, 0]
    r2 = gt - ga
    if mult == 1:
        N = r1 / s11
        F = r2 / s22
    else:
        det = s11 * s22 - s12 * s21
        N = (r1 * s22 - s12 * r2) / det
        F = (s11 * r2 - s21 * r1) / det
    # 2x2 condition number (2-norm): smax^2 / |det| (smin = |det| / smax), which avoids
    # the cancellation of smin^2 = (fro2 - disc) / 2 (that form returned inf from cond ~1e8)
    fro2 = s11 * s11 + s12 * s12 + s21 * s21 + s22 * s22
    dt2 = abs(s11 * s22 - s12 * s21)
    disc = math.sqrt(max(fro2 * fro2 - 4.0 * dt2 * dt2, 0.0))
    smax2 = 0.5 * (fro2 + disc)
    out[O_COND] = smax2 / dt2 if dt2 > 0.0 else np.inf
    if N != 0.0:
        out[O_MU] = -F / N
    return N, F


def phase_eval(t, y, mode, model, mult, par, arrs):
    """dy/dt of the phase ``mode`` and the algebraic outputs ``out`` at (t, y): (dy, out)."""
    W, Mw, Xw = work_arrays(arrs)
    dy = np.empty(y.shape[0])
    out = np.empty(NOUT)
    phase_eval_into(t, y, mode, model, mult, par, arrs, W, Mw, Xw, dy, out, False)
    return dy, out


def _samples_into(ts, Y, modes, discs, model, mult, p, arrs, y, dy, W, Mw, Xw, outs, T):
    """The loop of :func:`phase_eval_samples` (allocation-free; ``p`` is a copy of par)."""
    for k in range(ts.shape[0]):
        for j in range(discs.shape[1]):
            p[DISC_SLOTS[j]] = discs[k, j]
        for j in range(y.shape[0]):
            y[j] = Y[k, j]
        T[k] = phase_eval_into(ts[k], y, modes[k], model, mult, p, arrs, W, Mw, Xw, dy, outs[k],
                               True)


def phase_eval_samples(ts, Y, modes, discs, model, mult, par, arrs):
    """``out`` and the kinetic energy at every row of ``Y``, the samples of a whole run.

    Each sample k carries its own phase: mode ``modes[k]`` and the discrete state ``discs[k]``
    (slip direction, stick anchor, approach speed: the slots :data:`flexlib.layout.DISC_SLOTS`).  One call for the whole history instead of
    one per phase: the hybrid models have ~2.4e4 phases, and a call from Python costs ~10 us
    before it does any work."""
    m = ts.shape[0]
    outs = np.empty((m, NOUT))
    T = np.empty(m)
    y = np.empty(Y.shape[1])
    W, Mw, Xw = work_arrays(arrs)
    _samples_into(ts, Y, modes, discs, model, mult, par.copy(), arrs, y, np.empty(Y.shape[1]), W,
                  Mw, Xw, outs, T)
    return outs, T


# Event functions of the state machine.  Index, name, direction of the zero crossing that counts.
# GAP-OPEN ends a penalty contact (the gap opens, Psi = 0 increasing); SEPARATE a constraint one.
EVENT_NAMES = ("CONTACT-ON", "SEPARATE", "STICK->SLIP", "STICK-DRIFT", "PAINLEVE", "SLIP-STOP", "ARM",
               "GAP-OPEN")
EVENT_DIRECTIONS = (-1.0, -1.0, -1.0, -1.0, -1.0, 0.0, 1.0, -1.0)   # SLIP-STOP: see event_directions
NEV = 8


def event_values_into(out, epar, eoff, ev):
    """Values of the 8 event functions from the phase outputs ``out``, minus the offsets
    ``eoff``, written into ``ev``.

    ``epar`` = [mu_lim, Dv, painleve_min, slip_dir]: CONTACT-ON = gap; SEPARATE = N;
    STICK->SLIP = mu_lim N - |F_t|; STICK-DRIFT = Dv - |v_t|; PAINLEVE = margin - painleve_min;
    SLIP-STOP = slip_dir * v_t (slip_dir = 1 for LuGre, dir for Coulomb); ARM = |v_t| - Dv;
    GAP-OPEN = -gap."""
    ev[0] = out[O_GAP] - eoff[0]
    ev[1] = out[O_N] - eoff[1]
    ev[2] = (epar[0] * out[O_N] - abs(out[O_F])) - eoff[2]
    ev[3] = (epar[1] - abs(out[O_VT])) - eoff[3]
    ev[4] = (out[O_MARGIN] - epar[2]) - eoff[4]
    ev[5] = epar[3] * out[O_VT] - eoff[5]
    ev[6] = (abs(out[O_VT]) - epar[1]) - eoff[6]
    ev[7] = -out[O_GAP] - eoff[7]


def event_values(out, epar):
    """Values of the 8 event functions from the phase outputs ``out`` (see
    :func:`event_values_into`)."""
    ev = np.empty(NEV)
    event_values_into(out, epar, np.zeros(NEV), ev)
    return ev


# Event actions (tip kinematics, velocity jump).  The simulator calls these from Python once or twice per event;
# :func:`flexlib.contact.tip_contact` and :func:`flexlib.contact.impulse_jump` are the readable
# NumPy statements of the same formulas (tests compare them).  In the micro-impact chatter of
# the hybrid models (~10^4 jumps per run) the NumPy versions cost ~30 us per tip evaluation and
# ~35 us per Cholesky solve (numpy's errstate), against ~1-2 us here.
def tip_kinematics(q, qd, par, arrs):
    """Tip contact kinematics at (q, q'): (gap, s, v_n, v_t, Psi_q, Gamma_q, gamma_n, gamma_t).

    gap = Psi [m], s [m], v_n = Psi', v_t = s' [m/s], the Jacobian rows Psi_q, Gamma_q (nd,) and
    gamma_n = -n . a_vp, gamma_t = -t . a_vp [m/s^2] (eqs (32), (58)); ``par`` and ``arrs`` as
    phase_eval (only the tip values Phi_L, H_L, Psi_L are read).
    The same code as the right-hand side's (:func:`_tip_into`), so the FREE-phase gap floor and
    the integrator's CONTACT-ON event see the same gap to the last bit."""
    nd = q.shape[0]
    Pq = np.empty(nd)
    Gq = np.empty(nd)
    g, s, v_n, v_t, gam_n, gam_t = _tip_into(q, qd, par, arrs.Phi_L, arrs.H_L, arrs.Psi_L,
                                             np.empty(arrs.Phi_L.shape[0]), Pq, Gq, True)
    return g, s, v_n, v_t, Pq, Gq, gam_n, gam_t


def tip_gap(q, qd, par, arrs):
    """The gap of :func:`tip_kinematics` alone [m] (the same code, so the same bits)."""
    nd = q.shape[0]
    return _tip_into(q, qd, par, arrs.Phi_L, arrs.H_L, arrs.Psi_L, np.empty(arrs.Phi_L.shape[0]),
                     np.empty(nd), np.empty(nd), False)[0]


def velocity_jump(M, D_n, v_n_minus, e):
    """Frictionless impulse-momentum jump, eqs (39)-(48): (dq', I, dT), as
    :func:`flexlib.contact.impulse_jump` but with the elimination of :func:`_solve`."""
    nd = D_n.shape[0]
    X = _solve(M, D_n)
    w = 0.0
    for i in range(nd):
        w += D_n[i] * X[i, 0]
    impulse = -(1.0 + e) * v_n_minus / w
    dT = -0.5 * (1.0 - e * e) * v_n_minus * v_n_minus / w
    dqd = np.empty(nd)
    for i in range(nd):
        dqd[i] = X[i, 0] * impulse
    return dqd, impulse, dT


def _source_stamp() -> str:
    """SHA-256 of this file and of the modules compiled into it (their constants and functions
    are frozen into numba's cached machine code)."""
    h = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("kernel.py", "friction.py", "layout.py", "models.py", "penalty.py", "_jit.py"):
        try:
            with open(os.path.join(here, name), "rb") as fh:
                h.update(fh.read())
        except OSError:      # pragma: no cover - a zipped install: numba does not cache there
            h.update(name.encode())
    return h.hexdigest()


SOURCE_STAMP = _source_stamp()
def flush_stale_cache(dispatchers, stamp_file: str, stamp: str):
    """Flush the numba caches of ``dispatchers`` when ``stamp`` (a hash of the sources compiled
    into them) differs from the one stored in ``stamp_file`` beside their cache, then store it.

    numba keys a cached function on its own file only, so a change in another module it calls
    (https://github.com/numba/numba/issues/1833) would otherwise leave a stale compiled version."""
    try:
        path = os.path.join(dispatchers[0]._cache.cache_path, stamp_file)
        old = None
        if os.path.exists(path):
            with open(path) as fh:
                old = fh.read().strip()
        if old != stamp:
            for disp in dispatchers:
                disp._cache.flush()
            with open(path, "w") as fh:
                fh.write(stamp)
    except Exception:   # pragma: no cover - read-only install: numba then won't cache
        pass


COMPILED = False
NO_REFCOUNT = {}        # numba options of the allocation-free hot functions (set below)

if not os.environ.get("FLEXLIB_NO_NUMBA"):   # FLEXLIB_NO_NUMBA=1 selects the pure-NumPy path
    try:
        import numba as _nb
    except ImportError:      # pragma: no cover - numba is a declared dependency
        _nb = None
    if _nb is not None:
        # Functions call the module globals, which numba resolves to the compiled versions at
        # compile time.  The right-hand side (phase_eval_into and what it calls) allocates
        # nothing, so it is compiled without numba's reference counting (``_nrt=False``): every
        # array argument of a compiled call otherwise costs an atomic incref/decref pair, which
        # was a third of the right-hand side's cost (0.28 of 0.89 us at N = 3).
        import numba.core.options as _nbo
        NO_REFCOUNT = dict(_nrt=False) if hasattr(_nbo.DefaultOptions, "_nrt") else {}
        for _name in ("_dot_at", "_mv_at", "_quad_at", "_solve_into", "_tip_rows_into",
                      "_slope_in_beam_frame", "mass_forces_into", "mass_forces_quad_into",
                      "phase_eval_into", "_stick_solve", "_penalty_contact", "custom_friction", "event_values_into", "_samples_into", "_tip_into",
                      "_quad_flat", "_rotate", "_tip_point", "material_points_into"):
            globals()[_name] = _nb.njit(cache=True, **NO_REFCOUNT)(globals()[_name])
        for _name in ("_solve", "work_arrays", "mass_forces",
                      "mass_forces_quad", "mass_forces_any", "phase_eval", "event_values",
                      "phase_eval_samples", "tip_kinematics", "tip_gap", "velocity_jump",
                      "potential_energies", "sample_kinematics"):
            globals()[_name] = _nb.njit(cache=True)(globals()[_name])
        COMPILED = True
        _JITTED = [n for n, f in list(globals().items()) if hasattr(f, "_cache")
                   and getattr(getattr(f, "py_func", None), "__module__", "") == __name__]

        flush_stale_cache([globals()[n] for n in _JITTED], "kernel.deps-sha256", SOURCE_STAMP)


# ---------------------------------------------------------------- friction laws from outside
_SPECIALIZED = {}


def specialize(friction_function):
    """The right-hand side compiled with ``friction_function`` in the place of
    :func:`custom_friction`: a namespace with ``phase_eval_into``, ``phase_eval`` and
    ``phase_eval_samples`` (the same code, another friction law; built once per function and
    not cached on disk).  ``friction_function(v, z, par) -> (zdot, mu)`` must be compiled with
    numba (when numba is on) and allocate nothing."""
    if friction_function in _SPECIALIZED:
        return _SPECIALIZED[friction_function]
    g = dict(globals())
    g["custom_friction"] = friction_function
    made = {}
    for name in ("phase_eval_into", "phase_eval", "_samples_into", "phase_eval_samples"):
        f = globals()[name]
        py = getattr(f, "py_func", f)
        new = types.FunctionType(py.__code__, g, name, py.__defaults__, py.__closure__)
        if COMPILED:
            opts = NO_REFCOUNT if name in ("phase_eval_into", "_samples_into") else {}
            new = _nb.njit(**opts)(new)
        g[name] = made[name] = new
    ns = types.SimpleNamespace(**made)
    _SPECIALIZED[friction_function] = ns
    return ns
