"""The rotating flexible beam in a floating frame: its equations, compiled, and its modal data.

q = [theta, B_1..B_N] (the paper's model), or q = [theta, B_1..B_N, C_1..C_Na] with the axial
extension (``axial_modes = Na >= 1``, not the paper's model; docs/model.md section 16).  The
model is described in docs/model.md, sections 4-5.  This module is the body of the simulation:
everything the right-hand side (:mod:`flexlib.multibody.kernel`) and the contact (:mod:`flexlib.contact.slope`)
need to know about the beam is asked of the functions below, each the one statement of its
formula, compiled by numba (:mod:`flexlib._jit`) and run as the simulator runs it.

The body's functions (what a second body would provide):

* :class:`KernelArrays`: the modal data, built once per model by :meth:`BeamModel.kernel_arrays`
  (the modal integrals of :mod:`flexlib.bodies.modes`);
* M(q) and Q(q, q') without contact forces (:func:`mass_forces_arrs_into`): the paper's closed
  form, eqs (13)-(22) with the printed typos corrected (docs/model.md section 15), written with
  the precomputed tensors T3 = int rho S H_ij Phi_k and T4 = int rho S H_ij H_kl
  (:func:`mass_forces_into`), and with axial modes or many modes the generic quadrature route
  (docs/model.md 5.3; :func:`mass_forces_quad_into`); for the finite-element bases the same
  sums regrouped by the elements' local support (:func:`mass_forces_elem_into`; which basis
  takes which route and why: :func:`mass_forces_arrs_into`); the modal damping's power
  (:func:`damping_power`);
* the tip point p_P = (L + Psi_L C - 1/2 B^T H_L B, Phi_L B) and its rate (:func:`tip_point`),
  its Jacobian projected on two directions of the floating frame (:func:`tip_rows_into`) and its
  velocity-product acceleration (:func:`tip_accel_vp`), from which :func:`flexlib.contact.slope.tip_into`
  forms the gap, the slip and their rates; the rotation W(theta) (:func:`rotate`);
* the potential energies V_E, V_A, V_G (:func:`potential_energies`); the kinetic energy
  T = 1/2 q'^T M q' is evaluated by the right-hand side (:func:`flexlib.multibody.kernel.phase_eval_into`);
* the tip and energy histories of a run (:func:`sample_kinematics`) and the material points of
  the whole beam (:func:`material_points_into`, for the interior-contact check);
* the body's frame-free motion, its centre of mass, the centre's velocity and the mean angular
  velocity, by quadrature over its material points (:func:`mean_motion`).

:class:`BeamModel` holds the modal integrals, hands them to the compiled code and gives a
readable API over it (:meth:`~BeamModel.mass_matrix`, :meth:`~BeamModel.generalized_forces`,
:meth:`~BeamModel.positions`, the natural frequencies).  The NumPy statements of these formulas
(M, Q by both routes, the tip position, Jacobian and velocity product, the energies) are test
references in tests/reference.py, not library code.

Sign and frame conventions: W(theta) maps floating components to inertial ones (r = W p;
the paper's text after eq (7) states the opposite direction, its formula is this one); gravity is
(0, -g0); V_G is referred to the hinge level Y = 0.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .. import _jit
from .._jit import compiled, hot, inlined
from ..solver.linalg import dot_at, mv_at, quad_at, quad_flat
from .bases import basis_of
from .modes import ModalIntegrals, axial_of, modal_integrals
from ..params import BeamParams

__all__ = ["BeamModel", "KernelArrays", "rotation", "mean_motion"]

# The beam's parameter vector ``par``, one row of a system's body table: J_ob [kg m^2], Rx0 [kg m]
# (the first moments of the undeformed beam about its frame origin), g0 [m/s^2], the drive
# torque tau_d [N m] and the length L [m].  The slots are module-level integers: numba reads them
# as compile-time constants.
BODY_PAR_NAMES = ("J_ob", "Rx0", "g0", "tau_d", "L")
P_J_OB, P_RX0, P_G0, P_TAU, P_L = range(len(BODY_PAR_NAMES))
NPAR_BODY = len(BODY_PAR_NAMES)


class KernelArrays(NamedTuple):
    """The modal data of a beam model in the layout of the compiled code (built by
    :meth:`BeamModel.kernel_arrays`): C-contiguous float64 arrays, N bending modes,
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
    # the generic quadrature route (used with axial modes, Na > 0, and for bases too large for
    # the tensor route, whose T3r, T3tr, T4r, T4pr are then empty, as for the element route's)
    xk: np.ndarray      # (K,) nodes [m]
    wk: np.ndarray      # (K,) weights x rho S
    Phik: np.ndarray    # (K, N) bending shapes at the nodes
    Hk: np.ndarray      # (K, N*N) coupling shapes at the nodes, row-major (0 rows: element route)
    Psik: np.ndarray    # (K, Na) axial shapes at the nodes
    KA: np.ndarray      # (Na, Na) axial stiffness
    Psi_L: np.ndarray   # (Na,) axial shapes at the tip (empty without axial modes)
    Psibar: np.ndarray  # (Na,) int rho S Psi (gravity of the axial modes; empty without them)
    # the element route (bases whose functions have local support, without axial modes; E = 0
    # rows otherwise): flexlib.bodies.modes.ElementIntegrals
    edof: np.ndarray    # (E, 4) int64 coordinates living on each element (-1: none)
    estart: np.ndarray  # (E,) int64 1 where a chain of elements starts (at a clamp)
    etail: np.ndarray   # (E,) mass of the chain beyond the element [kg]
    eA: np.ndarray      # (E, 4, 4) complete element integrals of Phi'^T Phi'
    ew: np.ndarray      # (E, G) Gauss weights x rho S [kg]
    ex: np.ndarray      # (E, G) Gauss nodes [m]
    eN: np.ndarray      # (E, G, 4) Phi at the nodes
    eP: np.ndarray      # (E, G, 4, 4) partial element integrals at the nodes
    eK: np.ndarray      # (E, 4, 2) the end slopes' columns of the element stiffness [N m]
    eh: np.ndarray      # (E,) element lengths [m]


@hot
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


@compiled
def mass_forces(q, qd, par, M2, M2mD, S_y, K2, T3r, T3tr, T4r, T4pr, Hbar, Sbar, C):
    """M(q) and Q(q, q') (no contact forces): eqs (13)-(17) corrected, tensor form."""
    n = q.shape[0] - 1
    nd = n + 1
    M = np.empty((nd, nd))
    Q = np.empty(nd)
    mass_forces_into(q, qd, par, M2, M2mD, S_y, K2, T3r, T3tr, T4r, T4pr, Hbar, Sbar, C,
                     np.empty((7, max(n * n, 1))), M, Q)
    return M, Q


@hot
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


@compiled
def mass_forces_quad(q, qd, par, n, K2, C, xk, wk, Phik, Hk, Psik, KA):
    """As :func:`mass_forces_quad_into`, returning new arrays (M, Q)."""
    nd = q.shape[0]
    M = np.empty((nd, nd))
    Q = np.empty(nd)
    mass_forces_quad_into(q, qd, par, n, K2, C, xk, wk, Phik, Hk, Psik, KA,
                          np.empty((14, max(n, nd))), M, Q)
    return M, Q


@inlined
def _at(v, off, d):
    """v[off + d], or 0 for d = -1 (a clamped function)."""
    return v[off + d] if d >= 0 else 0.0


@inlined
def _node_point(q, qd, e, k, edof, eN, eP, ex, c, cd, L):
    """Node k of element e of the element route in the floating frame, eqs (23)-(25) with
    H(x) B = c_e + P(x) B_e: returns (p_x, p_y, p'_x, p'_y, B'^T P B') with
    p = (x - (c + B_e^T P B_e) / 2, N B_e) and p' = (-(c' + B'_e^T P B_e), N B'_e), where ``c``,
    ``cd`` are the chain's carries B^T c, B'^T c of the earlier elements (0 on its first);
    writes the local 4-vectors P B_e, P B'_e into L[0], L[1].  ``q``, ``qd``: the body's
    [theta, B] and rates."""
    bl = 0.0      # B^T (P B)
    dl = 0.0      # B'^T (P B)
    dld = 0.0     # B'^T (P B')
    py = 0.0
    pdy = 0.0
    for a in range(4):
        l = 0.0
        ld = 0.0
        for b in range(4):
            l += eP[e, k, a, b] * _at(q, 1, edof[e, b])
            ld += eP[e, k, a, b] * _at(qd, 1, edof[e, b])
        L[0, a] = l
        L[1, a] = ld
        ba = _at(q, 1, edof[e, a])
        da = _at(qd, 1, edof[e, a])
        bl += ba * l
        dl += da * l
        dld += da * ld
        py += eN[e, k, a] * ba
        pdy += eN[e, k, a] * da
    return ex[e, k] - 0.5 * (c + bl), py, -(cd + dl), pdy, dld


@hot
def _element_sweep(q, qd, thd, gx, gy, e, edof, eA, ew, ex, eN, eP, pre, W, M, Q):
    """One element of :func:`mass_forces_elem_into`: its nodes' terms of M_theta,theta, Q_theta,
    the local parts of M_theta,B, Q_B and of the foreshortening block, and g = A B, g' = A B'.

    ``pre`` = (B^T c, B'^T c, B'^T H B' of the earlier elements of the chain) with c = sum of
    their A B; returns (M_theta,theta part, Q_theta part, sum w p_y, sum f_x).  Writes g, g' into
    W[1], W[2] at 4 e, the local 4-vectors H-partial B and B' into W[4], W[5], the local parts of
    M_theta,B, Q_B, sum w (P B) into W[6], W[7], W[8] and sum w (P B)(P B)^T into W[9:13, :4]."""
    for a in range(4):
        ga = 0.0
        gda = 0.0
        for b in range(4):
            ga += eA[e, a, b] * _at(q, 1, edof[e, b])
            gda += eA[e, a, b] * _at(qd, 1, edof[e, b])
        W[1, 4 * e + a] = ga
        W[2, 4 * e + a] = gda
        W[6, a] = 0.0
        W[7, a] = 0.0
        W[8, a] = 0.0
        for b in range(4):
            W[9 + a, b] = 0.0
    m00 = 0.0
    q0 = 0.0
    ye = 0.0
    fe = 0.0
    for k in range(ew.shape[1]):
        w = ew[e, k]
        px, py, pdx, pdy, dld = _node_point(q, qd, e, k, edof, eN, eP, ex, pre[0], pre[1],
                                            W[4:6])
        ax = -thd * thd * px - 2.0 * thd * pdy - (pre[2] + dld)
        ay = -thd * thd * py + 2.0 * thd * pdx
        fx = w * (gx - ax)
        fy = w * (gy - ay)
        m00 += w * (py * py + px * px)
        q0 += -py * fx + px * fy
        ye += w * py
        fe += fx
        for a in range(4):
            la = W[4, a]
            W[6, a] += w * (py * la + px * eN[e, k, a])
            W[7, a] += -fx * la + fy * eN[e, k, a]
            W[8, a] += w * la
            for b in range(4):
                W[9 + a, b] += w * la * W[4, b]
    return m00, q0, ye, fe


@inlined
def elastic_force_elem(q, e, edof, eK, eh, Q):
    """Subtract element e's elastic force K_e q_e from Q, formed from its end slopes relative to
    its chord, phi = theta - (w_far - w_near) / h: K_e[:, theta_near] phi_near + K_e[:, theta_far]
    phi_far (a rigid motion of the element costs nothing; :func:`flexlib.bodies.modes.
    element_integrals`).  The same force as K2 B, but its round-off is that of the slopes'
    differences, not of terms 12 EI w / h^3 that cancel (at 256 elements per metre about 1e-8 N
    against 3e-12 N: tests/test_fe_eval.py)."""
    h = eh[e]
    wn = _at(q, 1, edof[e, 0])
    wf = _at(q, 1, edof[e, 2])
    psi = (wf - wn) / h
    pn = _at(q, 1, edof[e, 1]) - psi
    pf = _at(q, 1, edof[e, 3]) - psi
    for a in range(4):
        da = edof[e, a]
        if da >= 0:
            Q[1 + da] -= eK[e, a, 0] * pn + eK[e, a, 1] * pf


@hot
def mass_forces_elem_into(q, qd, par, n, M2, C, edof, estart, etail, eA, ew, ex, eN, eP, eK, eh,
                          W, M, Q, dense, kbw):
    """M(q) and Q(q, q') by the element route: the quadrature route's sums
    (:func:`mass_forces_quad_into`) regrouped for functions of local support, O(K + N^2).

    On element e of a chain (from the clamp outwards), H(x) B = c_e + P(x) B_e at its nodes,
    with the carry c_e = sum of g_a = A_a B_a over the chain's earlier elements (A the complete
    element integrals of Phi'^T Phi', P(x) the partial ones: 4 x 4 each).  Then

    * B^T H B, B'^T H B, B'^T H B' at a node are prefix sums over the chain plus local terms;
    * sum_k w_k (H_k B)(H_k B)^T = sum_e [c_e r_e^T + r_e c_e^T + T_e g_e g_e^T + L_e], with
      T_e the mass beyond e, r_e = T_e g_e + sum_k w_k P_k B_e and L_e = sum_k w_k (P_k B_e)(P_k B_e)^T
      (from sum_e m_e c_e c_e^T = sum_{a,b} g_a g_b^T T_max(a,b): the carry's outer products
      weighted by the tail mass);
    * the carry's parts of M_theta,B = sum w p_y H B and Q_B = -sum f_x H B are sum_a g_a
      times the suffix sums of w p_y and f_x over the chain's later elements.

    ``W`` (>= 15 x max(N^2, 16 E, 4)) is work space: W[0, :N] the carry, W[1], W[2] (4 E) g and
    g', W[3] (2 E) the elements' sums of w p_y and f_x, rows 4-12 the local 4-vectors.

    With ``dense`` False the block M_BB is not written (nor is its O(N^2) part computed): it is
    left as its generators for a structured solve (:mod:`flexlib.multibody.structured`),
    M_BB = M2 + sum_e [local_e] + sum_e (G_e r_e^T + r_e G_e^T) with G_e = sum of g_a over the
    chain's elements up to and including e: W[0] (4 E) holds r_e, W[1] g_e and W[14] (16 E) the
    4 x 4 local blocks T_e g_e g_e^T + L_e - g_e r_e^T - r_e g_e^T (the carry's outer products
    rewritten with the inclusive sum).  M_theta,theta, M_theta,B and Q are written as with
    ``dense``.  The elastic force -K2 B is taken element by element (:func:`elastic_force_elem`);
    ``kbw``: the half-bandwidth of C (its product takes only the band: the terms outside it are
    exact zeros, so the sums are the same bits)."""
    th = q[0]
    thd = qd[0]
    g0, tau = par[P_G0], par[P_TAU]
    s = math.sin(th)
    c = math.cos(th)
    gx = -g0 * s
    gy = -g0 * c
    E = edof.shape[0]
    for a in range(n):
        W[0, a] = 0.0
        M[0, 1 + a] = 0.0
        Q[1 + a] = 0.0
        if dense:
            for b in range(n):
                M[1 + a, 1 + b] = M2[a, b]
    pre = W[13, :3]
    m00 = 0.0
    q0 = 0.0
    for e in range(E):
        if estart[e]:
            pre[0] = 0.0
            pre[1] = 0.0
            pre[2] = 0.0
            if dense:
                for a in range(n):
                    W[0, a] = 0.0
        dm, dq, ye, fe = _element_sweep(q, qd, thd, gx, gy, e, edof, eA, ew, ex, eN, eP, pre,
                                        W, M, Q)
        m00 += dm
        q0 += dq
        W[3, e] = ye
        W[3, E + e] = fe
        tail = etail[e]
        for a in range(4):
            da = edof[e, a]
            if da < 0:
                continue
            ga = W[1, 4 * e + a]
            pre[0] += q[1 + da] * ga
            pre[1] += qd[1 + da] * ga
            pre[2] += qd[1 + da] * W[2, 4 * e + a]
            M[0, 1 + da] += W[6, a]
            Q[1 + da] += W[7, a]
            r = tail * ga + W[8, a]
            if not dense:
                W[0, 4 * e + a] = r
                continue
            for i in range(n):
                ci = W[0, i] * r
                M[1 + i, 1 + da] += ci
                M[1 + da, 1 + i] += ci
            for b in range(4):
                db = edof[e, b]
                if db >= 0:
                    M[1 + da, 1 + db] += tail * ga * W[1, 4 * e + b] + W[9 + a, b]
        if dense:
            for a in range(4):
                if edof[e, a] >= 0:
                    W[0, edof[e, a]] += W[1, 4 * e + a]
        else:
            for a in range(4):
                ga = W[1, 4 * e + a]
                ra = W[0, 4 * e + a] if edof[e, a] >= 0 else 0.0
                for b in range(4):
                    gb = W[1, 4 * e + b]
                    rb = W[0, 4 * e + b] if edof[e, b] >= 0 else 0.0
                    W[14, 16 * e + 4 * a + b] = (tail * ga * gb + W[9 + a, b]) - ga * rb - ra * gb
    ty = 0.0
    tf = 0.0
    for e in range(E - 1, -1, -1):
        for a in range(4):
            da = edof[e, a]
            if da >= 0:
                M[0, 1 + da] += W[1, 4 * e + a] * ty
                Q[1 + da] -= W[1, 4 * e + a] * tf
        ty += W[3, e]
        tf += W[3, E + e]
        if estart[e]:
            ty = 0.0
            tf = 0.0
    M[0, 0] = m00
    Q[0] = q0 + tau
    for i in range(n):
        M[1 + i, 0] = M[0, 1 + i]
        acc = 0.0
        for j in range(max(0, i - kbw), min(n, i + kbw + 1)):
            acc += C[i, j] * qd[1 + j]
        Q[1 + i] -= acc
    for e in range(E):
        elastic_force_elem(q, e, edof, eK, eh, Q)


@compiled
def mass_forces_elem(q, qd, par, arrs):
    """As :func:`mass_forces_elem_into` for the modal data ``arrs``, returning new (M, Q)."""
    n = arrs.Phi_L.shape[0]
    M = np.empty((n + 1, n + 1))
    Q = np.empty(n + 1)
    mass_forces_elem_into(q, qd, par, n, arrs.M2, arrs.C, arrs.edof, arrs.estart, arrs.etail,
                          arrs.eA, arrs.ew, arrs.ex, arrs.eN, arrs.eP, arrs.eK, arrs.eh,
                          np.empty((15, max(n * n, 16 * arrs.edof.shape[0], 4))), M, Q, True, n)
    return M, Q


@inlined
def element_route(arrs):
    """True when the beam of the modal data ``arrs`` runs by the element route
    (:func:`mass_forces_elem_into`): a basis whose functions have local support (finite
    elements, clamped at the root or at the centre), without axial modes."""
    return arrs.eA.shape[0] > 0


@inlined
def quadrature_route(arrs):
    """True when the beam of the modal data ``arrs`` runs by the quadrature route: not the
    element route, and with axial modes or a basis without tensors (too many coordinates for
    the tensor route)."""
    return not element_route(arrs) and (arrs.Psi_L.shape[0] > 0 or arrs.T4r.shape[0] == 0)


@compiled
def mass_forces_any(q, qd, par, arrs):
    """M, Q from the modal data ``arrs`` (a :class:`KernelArrays`) by its route (see
    :func:`mass_forces_arrs_into`)."""
    if element_route(arrs):
        return mass_forces_elem(q, qd, par, arrs)
    if quadrature_route(arrs):
        return mass_forces_quad(q, qd, par, arrs.Phi_L.shape[0], arrs.K2, arrs.C, arrs.xk,
                                arrs.wk, arrs.Phik, arrs.Hk, arrs.Psik, arrs.KA)
    return mass_forces(q, qd, par, arrs.M2, arrs.M2mD, arrs.S_y, arrs.K2, arrs.T3r, arrs.T3tr,
                       arrs.T4r, arrs.T4pr, arrs.Hbar, arrs.Sbar, arrs.C)


@inlined
def mass_forces_arrs_into(q, qd, par, arrs, W, M, Q, dense, kbw):
    """M(q) and Q(q, q') of the beam with the modal data ``arrs`` (a :class:`KernelArrays`),
    written into ``M`` and ``Q`` with the work array ``W`` (>= 15 x max(N^2, 16 E, nd, 4); with
    ``dense`` False the element route leaves M_BB as its generators in ``W``: see
    :func:`mass_forces_elem_into`, the other routes ignore it; ``kbw``: the half-bandwidth of
    K2 and C, or N).  One route
    per basis, each the same sums over the beam (exact to round-off against each other):

    * finite elements, root- or centre-clamped, without axial modes: the element route
      (:func:`mass_forces_elem_into`, O(K + N^2): the functions' local support makes H(x) B a
      prefix sum of element integrals);
    * the modal basis up to :data:`flexlib.bodies.modes.TENSOR_ROUTE_MAX` modes without axial
      modes: the paper's tensor form (:func:`mass_forces_into`, O(N^4), the fewest operations
      for a few global modes);
    * otherwise (axial modes, whose functions are global; larger modal bases; the partitioned
      basis, whose far functions are global and whose reduced local functions span the whole
      region): the quadrature route (:func:`mass_forces_quad_into`, O(K N^2))."""
    n = arrs.Phi_L.shape[0]
    if element_route(arrs):
        mass_forces_elem_into(q, qd, par, n, arrs.M2, arrs.C, arrs.edof, arrs.estart, arrs.etail,
                              arrs.eA, arrs.ew, arrs.ex, arrs.eN, arrs.eP, arrs.eK, arrs.eh, W,
                              M, Q, dense, kbw)
    elif quadrature_route(arrs):
        mass_forces_quad_into(q, qd, par, n, arrs.K2, arrs.C, arrs.xk, arrs.wk, arrs.Phik,
                              arrs.Hk, arrs.Psik, arrs.KA, W, M, Q)
    else:
        mass_forces_into(q, qd, par, arrs.M2, arrs.M2mD, arrs.S_y, arrs.K2, arrs.T3r,
                         arrs.T3tr, arrs.T4r, arrs.T4pr, arrs.Hbar, arrs.Sbar, arrs.C, W, M, Q)


@inlined
def damping_power(y, nd, arrs, kbw):
    """B'^T C B' [W], the power the modal damping takes from the beam, with B' read from the
    state vector ``y`` (q' starts at ``nd``); ``kbw``: C's half-bandwidth or more (the sum is
    :func:`flexlib.solver.linalg.quad_at`'s, row by row, over the band only: the terms outside it
    are exact zeros, so the bits are the same)."""
    n = arrs.Phi_L.shape[0]
    C = arrs.C
    acc = 0.0
    for i in range(n):
        r = 0.0
        for j in range(max(0, i - kbw), min(n, i + kbw + 1)):
            r += C[i, j] * y[nd + 1 + j]
        acc += y[nd + 1 + i] * r
    return acc


@hot
def rotate(c, s, x, y):
    """W(theta) (x, y) = (c x - s y, s x + c y), eq (6): floating-frame components to inertial
    ones, from c = cos theta, s = sin theta."""
    return c * x - s * y, s * x + c * y


@hot
def tip_point(q, qd, L, Phi_L, H_L, Psi_L, HLB, rates):
    """The tip P in the floating frame (eqs (23)-(25)): the one statement of the formula.

    Returns (px, py, pdx, pdy) with p_P = (L + Psi_L C - 1/2 B^T H_L B, Phi_L B) [m] and, if
    ``rates``, p_P' = (-B^T H_L B' + Psi_L C', Phi_L B') [m/s] (NaN otherwise); writes H_L B
    into ``HLB``.  ``Psi_L`` is empty without axial modes."""
    n = Phi_L.shape[0]
    na = Psi_L.shape[0]
    mv_at(H_L, q, 1, n, HLB)
    px = L - 0.5 * dot_at(HLB[:n], q, 1)
    if na > 0:
        px += dot_at(Psi_L, q, 1 + n)
    py = dot_at(Phi_L, q, 1)
    pdx = np.nan
    pdy = np.nan
    if rates:
        pdx = -dot_at(HLB[:n], qd, 1)
        if na > 0:
            pdx += dot_at(Psi_L, qd, 1 + n)
        pdy = dot_at(Phi_L, qd, 1)
    return px, py, pdx, pdy


@hot
def tip_rows_into(nfx, nfy, tfx, tfy, px, py, HLB, Phi_L, Psi_L, Pq, Gq):
    """The tip Jacobian rows Psi_q = n . dr/dq and Gamma_q = t . dr/dq (eqs (28)-(29), (54)-(55))
    from the
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


@hot
def tip_accel_vp(thd, px, py, pdx, pdy, H_L, qd, n):
    """The velocity-product part a_vp of the tip's acceleration in the floating frame
    (eqs (32), (58)): (-theta'^2 px - 2 theta' py' - B'^T H_L B', -theta'^2 py + 2 theta' px')
    [m/s^2], from the tip point and its rate (:func:`tip_point`)."""
    ax = -thd * thd * px - 2.0 * thd * pdy - quad_at(H_L, qd, 1, n)
    ay = -thd * thd * py + 2.0 * thd * pdx
    return ax, ay


@hot
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


@inlined
def _quad_band(A, y, off, n, bw):
    """:func:`flexlib.solver.linalg.quad_flat` (x^T A x, term by term in row-major order) over
    the band |i - j| <= ``bw`` of A, whose other entries are zero."""
    acc = 0.0
    for i in range(n):
        for j in range(max(0, i - bw), min(n, i + bw + 1)):
            acc += y[off + i] * A[i, j] * y[off + j]
    return acc


@compiled
def potential_energies(q, par, arrs, kbw, hbw):
    """(V_E, V_A, V_G) at q [J]: the one statement of the potential energies.

    V_E = 1/2 B^T K2 B (eq (9)); V_A = 1/2 C^T K_A C (axial modes, 0 without); V_G = -g^T W R
    = g0 (sin theta R_x + cos theta Sbar B) with R_x = Rx0 - 1/2 B^T Hbar B + Psibar C (eqs
    (9)-(10)), referred to the hinge level.  ``par`` gives Rx0 and g0, ``arrs`` (a
    :class:`KernelArrays`) K2, KA, Hbar, Sbar, Psibar; ``kbw``, ``hbw`` the half-bandwidths of K2
    and Hbar, or N (the quadratic forms skip only exact zeros: the same bits)."""
    n = arrs.Phi_L.shape[0]
    na = arrs.Psi_L.shape[0]
    V_E = 0.5 * _quad_band(arrs.K2, q, 1, n, kbw)
    V_A = 0.0
    Rx = par[P_RX0] - 0.5 * _quad_band(arrs.Hbar, q, 1, n, hbw)
    if na > 0:
        V_A = 0.5 * quad_flat(arrs.KA, q, 1 + n, na)
        Rx = Rx + dot_at(arrs.Psibar, q, 1 + n)
    V_G = par[P_G0] * (math.sin(q[0]) * Rx + math.cos(q[0]) * dot_at(arrs.Sbar, q, 1))
    return V_E, V_A, V_G


@compiled
def sample_kinematics(Y, par, arrs):
    """The tip and potential-energy histories of a run, one row of the states ``Y`` (m, >= 2 nd)
    at a time: an array (8, m) with the rows tip X, tip Y [m], tip X', Y' [m/s] (inertial),
    the tip deflection u_y(L) = Phi_L B [m] (the floating py), V_E, V_A, V_G [J].

    The tip point is :func:`tip_point` (the simulator's), rotated by W(theta) (:func:`rotate`);
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
        px, py, pdx, pdy = tip_point(q, qd, L, arrs.Phi_L, arrs.H_L, arrs.Psi_L, HLB, True)
        c = math.cos(q[0])
        s = math.sin(q[0])
        thd = qd[0]
        out[0, k], out[1, k] = rotate(c, s, px, py)
        out[2, k], out[3, k] = rotate(c, s, pdx - thd * py, pdy + thd * px)
        out[4, k] = py
        out[5, k], out[6, k], out[7, k] = potential_energies(q, par, arrs, nd, nd)
    return out




@compiled
def _quad_points_into(b, bd, arrs, X):
    """The floating positions p(x_k) and rates p'(x_k) of the quadrature route's nodes x_k
    (:class:`KernelArrays` ``xk``, ``Hk``, ``Phik``, ``Psik``) for the body's [theta, B, C] ``b``
    and rates ``bd``, into X (K, 4) as (p_x, p_y, p'_x, p'_y): p = (x - 1/2 B^T H B + Psi C,
    Phi B), p' = (-B'^T H B + Psi C', Phi B')."""
    n = arrs.Phi_L.shape[0]
    na = arrs.Psi_L.shape[0]
    for j in range(arrs.xk.shape[0]):
        bhb = 0.0
        bhbd = 0.0
        py = 0.0
        pdy = 0.0
        for i in range(n):
            hb = 0.0
            for l in range(n):
                hb += arrs.Hk[j, i * n + l] * b[1 + l]
            bhb += b[1 + i] * hb
            bhbd += bd[1 + i] * hb
            py += arrs.Phik[j, i] * b[1 + i]
            pdy += arrs.Phik[j, i] * bd[1 + i]
        px = arrs.xk[j] - 0.5 * bhb
        pdx = -bhbd
        for a in range(na):
            px += arrs.Psik[j, a] * b[1 + n + a]
            pdx += arrs.Psik[j, a] * bd[1 + n + a]
        X[j, 0] = px
        X[j, 1] = py
        X[j, 2] = pdx
        X[j, 3] = pdy


@compiled
def _element_points_into(b, bd, arrs, X):
    """The same at the element route's nodes (node G e + k is node k of element e; no axial
    coordinates on this route): B^T H B at a node is the chain's carry sum_a B_a^T A_a B_a over
    its earlier elements plus B_e^T P B_e, and likewise B'^T H B (:func:`mass_forces_elem_into`'s
    regrouping), O(E) instead of O(K N^2)."""
    G = arrs.ew.shape[1]
    L = np.empty((2, 4))
    c = 0.0
    cd = 0.0
    for e in range(arrs.edof.shape[0]):
        if arrs.estart[e]:
            c = 0.0
            cd = 0.0
        for k in range(G):
            j = G * e + k
            X[j, 0], X[j, 1], X[j, 2], X[j, 3], _ = _node_point(b, bd, e, k, arrs.edof, arrs.eN,
                                                                arrs.eP, arrs.ex, c, cd, L)
        for a in range(4):
            l = 0.0
            for m in range(4):
                l += arrs.eA[e, a, m] * _at(b, 1, arrs.edof[e, m])
            c += _at(b, 1, arrs.edof[e, a]) * l
            cd += _at(bd, 1, arrs.edof[e, a]) * l


@compiled
def mean_motion(Qb, Qdb, R, Rd, arrs):
    """The frame-free motion of a body at m samples: an array (m, 5) with its centre of mass
    r_cm (x, y) [m], its velocity v_cm (x, y) [m/s] and its mean angular velocity
    omega_mean = H_cm / I_cm [rad/s] (the angular momentum about the centre of mass over the
    moment of inertia about it, both of the deformed body).

    ``Qb``, ``Qdb`` (m, 1 + N + Na) the body's [theta, B, C] and rates, ``R``, ``Rd`` (m, 2) its
    frame origin and rate.  By the quadrature of the body's modal data ``arrs``
    (:class:`KernelArrays`) over its material points r_k = R + W p(x_k) and their velocities
    v_k = R' + W (p'(x_k) + theta' I~ p(x_k)), p and p' at the nodes from the element route where
    the basis has one (:func:`_element_points_into`, linear in the mesh), else from the
    quadrature route (:func:`_quad_points_into`): m = sum w_k, r_cm = sum w_k r_k / m, likewise
    v_cm, H_cm = sum w_k (r_k - r_cm) x (v_k - v_cm), I_cm = sum w_k |r_k - r_cm|^2."""
    elem = element_route(arrs)
    wts = arrs.ew.reshape(-1) if elem else arrs.wk
    K = wts.shape[0]
    ns = Qb.shape[0]
    out = np.empty((ns, 5))
    X = np.empty((K, 4))
    P = np.empty((K, 2))
    V = np.empty((K, 2))
    for k in range(ns):
        if elem:
            _element_points_into(Qb[k], Qdb[k], arrs, X)
        else:
            _quad_points_into(Qb[k], Qdb[k], arrs, X)
        th = Qb[k, 0]
        thd = Qdb[k, 0]
        c = math.cos(th)
        s = math.sin(th)
        m = 0.0
        cx = 0.0
        cy = 0.0
        vx = 0.0
        vy = 0.0
        for j in range(K):
            px, py, pdx, pdy = X[j, 0], X[j, 1], X[j, 2], X[j, 3]
            ux = pdx - thd * py
            uy = pdy + thd * px
            P[j, 0] = R[k, 0] + c * px - s * py
            P[j, 1] = R[k, 1] + s * px + c * py
            V[j, 0] = Rd[k, 0] + c * ux - s * uy
            V[j, 1] = Rd[k, 1] + s * ux + c * uy
            w = wts[j]
            m += w
            cx += w * P[j, 0]
            cy += w * P[j, 1]
            vx += w * V[j, 0]
            vy += w * V[j, 1]
        cx /= m
        cy /= m
        vx /= m
        vy /= m
        h = 0.0
        inertia = 0.0
        for j in range(K):
            dx = P[j, 0] - cx
            dy = P[j, 1] - cy
            h += wts[j] * (dx * (V[j, 1] - vy) - dy * (V[j, 0] - vx))
            inertia += wts[j] * (dx * dx + dy * dy)
        out[k, 0] = cx
        out[k, 1] = cy
        out[k, 2] = vx
        out[k, 3] = vy
        out[k, 4] = h / inertia
    return out


def rotation(theta: float) -> np.ndarray:
    """W(theta), eq (6): floating-frame components to inertial components."""
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s], [s, c]])


class BeamModel:
    """Precomputed beam model.  Build once per parameter set; all methods are pure in (q, q').

    ``clamp``: where the basis's functions are clamped, ``"root"`` (x = 0, the hinged beam) or
    ``"centre"`` (x = L/2, a free body; :mod:`flexlib.bodies.basis_centre`)."""

    def __init__(self, beam: BeamParams | None = None, clamp: str = "root"):
        if beam is not None and not isinstance(beam, BeamParams):
            raise TypeError(f"BeamModel expects a BeamParams (or None for the paper's beam), got "
                            f"{type(beam).__name__} {beam!r:.60}; for a Case use BeamModel(case.beam)")
        self.params = beam if beam is not None else BeamParams()
        self.clamp = clamp
        self.basis = basis_of(self.params, clamp)
        self.mi: ModalIntegrals = modal_integrals(self.params, self.basis)
        self.n = self.mi.n
        self.na = self.mi.na
        self.ndof = self.n + 1 + self.na
        self.g0 = self.params.g0
        self._kernel_arrays = None

    # ------------------------------------------------------------------ hot path
    def kernel_arrays(self) -> KernelArrays:
        """The modal data in the layout of the compiled code, a :class:`KernelArrays`: the
        tensor route's arrays (M2, M2 - D, S_y, K2, T3 and T4 flattened, Hbar, Sbar, C; the
        tensors empty for a basis on another route), the tip values (Phi_L, H_L), the quadrature
        route's (nodes, weights x rho S, Phi, H, Psi, K_A), Psi_L and Psibar, and the element
        route's (:class:`flexlib.bodies.modes.ElementIntegrals`, empty for a basis without
        local support).  Built once per model."""
        if self._kernel_arrays is None:
            mi = self.mi
            n = mi.n
            c = np.ascontiguousarray
            el = mi.elements
            tensors = mi.T4.shape[0] > 0 and el.eA.shape[0] == 0
            T3, T4 = mi.T3, mi.T4
            self._kernel_arrays = KernelArrays(
                M2=c(mi.M2), M2mD=c(mi.M2 - mi.D), S_y=c(mi.S_y), K2=c(mi.K2),
                T3r=c(T3.reshape(n * n, n)) if tensors else np.zeros((0, n)),
                T3tr=c(T3.transpose(0, 2, 1).reshape(n * n, n)) if tensors else np.zeros((0, n)),
                T4r=c(T4.reshape(n * n, n * n)) if tensors else np.zeros((0, n * n)),
                T4pr=c(T4.transpose(0, 2, 1, 3).reshape(n * n, n * n)) if tensors else
                np.zeros((0, n * n)), Hbar=c(mi.Hbar),
                Sbar=c(mi.Sbar), C=c(mi.C), Phi_L=c(mi.Phi_L), H_L=c(mi.H_L),
                # generic quadrature route: with axial modes (an extension beyond the paper), and
                # for a basis without the tensors T3, T4
                xk=c(mi.x), wk=c(mi.w * mi.rhoS), Phik=c(mi.Phi),
                Hk=c(mi.H.reshape(mi.H.shape[0], n * n)), Psik=c(mi.Psi), KA=c(mi.K_A),
                Psi_L=c(mi.Psi_L), Psibar=c(mi.Psibar), **el._asdict())
        return self._kernel_arrays

    def kernel_params(self, tau_d: float | None = None) -> np.ndarray:
        """The beam's parameter vector (:data:`BODY_PAR_NAMES`: J_ob, Rx0, g0, tau_d, L)."""
        mi = self.mi
        par = np.zeros(NPAR_BODY)
        par[P_J_OB], par[P_RX0], par[P_G0], par[P_L] = mi.J_ob, mi.Rx0, self.g0, mi.L
        par[P_TAU] = self.params.tau_d if tau_d is None else tau_d
        return par

    def mass_and_forces(self, q, qd, tau_d: float | None = None):
        """M(q) and Q(q, q') together (eqs (13)-(17), corrected), by the simulator's compiled
        code (:func:`mass_forces_any`).

        Q contains the drive torque, gravity, all velocity terms, the elastic force -K2 B and
        the modal damping -C B'.  It does not contain contact forces.  The route is the basis's
        (:func:`mass_forces_arrs_into`): the finite-element bases' element route, the paper's
        closed form with the tensors T3, T4 for a few modes, else the quadrature route.
        """
        c = np.ascontiguousarray
        return mass_forces_any(c(q, dtype=float), c(qd, dtype=float),
                               self.kernel_params(tau_d), self.kernel_arrays())

    def mass_matrix(self, q) -> np.ndarray:
        """M(q), eqs (13)-(15) (S_y = int rho S x Phi^T dx: eq (20) misses the x).  Symmetric positive
        definite."""
        return self.mass_and_forces(np.asarray(q, float), np.zeros(self.ndof))[0]

    def generalized_forces(self, q, qd, tau_d: float | None = None) -> np.ndarray:
        """Q(q, q'), eqs (16)-(17) with the printed typos corrected: drive, gravity, velocity,
        elastic, damping."""
        return self.mass_and_forces(np.asarray(q, float), np.asarray(qd, float), tau_d)[1]

    def accelerations(self, q, qd, tau_d: float | None = None) -> np.ndarray:
        """q'' in free flight: the solution of M q'' = Q (Cholesky)."""
        M, Q = self.mass_and_forces(q, qd, tau_d)
        return _chol_solve(M, Q)

    def _split(self, q):
        """(theta, B, C) of a coordinate vector (C is empty without axial modes)."""
        q = np.asarray(q, float)
        return q[0], q[1:1 + self.n], q[1 + self.n:]

    # ------------------------------------------------------------------ whole-beam positions
    def station_data(self, xs):
        """(xs, Phi(x), H(x)) at stations ``xs`` (precompute once, then use :meth:`positions`);
        with axial modes also Psi(x) as a 4th entry.  The functions are the basis's."""
        xs = np.asarray(xs, float)
        phi = self.basis.shapes(xs)[0]
        H = self.basis.coupling(xs)
        if self.na:
            return xs, phi, H, axial_of(self.basis, xs, self.mi.L, self.params.axial_modes)[0]
        return xs, phi, H

    def positions(self, q, stations) -> np.ndarray:
        """Inertial positions (len(xs), 2) of material points, given :meth:`station_data`
        (:func:`material_points_into`, the code of the interior-contact check)."""
        xs, phi, H = stations[:3]
        Psi = stations[3] if self.na else np.zeros((len(xs), 0))
        _, B, C = self._split(q)
        P = np.empty((len(xs), 2))
        c_ = np.ascontiguousarray
        material_points_into(c_(B), c_(C), math.cos(q[0]), math.sin(q[0]),
                             c_(xs, dtype=float), c_(phi, dtype=float), c_(H, dtype=float),
                             c_(Psi, dtype=float), P)
        return P

    # ------------------------------------------------------------------ frequencies
    def natural_frequencies(self) -> np.ndarray:
        """Clamped-free bending frequencies (rad/s), ascending: the generalized eigenvalues of the
        basis's stiffness K2 and mass M2 (the hinge held, no rotation, no gravity; with the
        centre clamp, those of the beam clamped at its centre, each value twice).  Exact for the
        modal basis (its functions are the eigenfunctions); upper bounds of the exact values for
        the finite-element and partitioned bases (Rayleigh-Ritz)."""
        return _frequencies(self.mi.K2, self.mi.M2)

    def axial_frequencies(self) -> np.ndarray:
        """Fixed-free axial frequencies (rad/s): eig(K_A, M_A); empty without axial
        modes.  Exact values (2j - 1)(pi/2) sqrt(E/rho)/L: the shapes are eigenfunctions."""
        if not self.na:
            return np.zeros(0)
        return _frequencies(self.mi.K_A, self.mi.M_A)

    def pinned_free_frequencies(self) -> np.ndarray:
        """Hinged (pinned-free) frequencies, rad/s: eig(diag(0, K2), M(q = 0)) with g = 0 (E6).

        The first value is the rigid rotation (0 rad/s)."""
        K = np.zeros((self.ndof, self.ndof))
        K[1:1 + self.n, 1:1 + self.n] = self.mi.K2
        if self.na:
            K[1 + self.n:, 1 + self.n:] = self.mi.K_A
        return _frequencies(K, self.mass_matrix(np.zeros(self.ndof)))


def _frequencies(K, M) -> np.ndarray:
    """sqrt of the generalized eigenvalues of K v = w^2 M v (M symmetric positive definite),
    ascending: the eigenvalues of L^-1 K L^-T with M = L L^T, with NumPy alone (SciPy's eigh,
    imported for this in a fresh process, cost a run about 0.1 s)."""
    L = np.linalg.cholesky(M)
    A = np.linalg.solve(L, np.linalg.solve(L, K).T)
    w2 = np.linalg.eigvalsh(0.5 * (A + A.T))
    return np.sqrt(np.clip(w2, 0.0, None))


def _chol_solve(M, b):
    L = np.linalg.cholesky(M)
    y = np.linalg.solve(L, b)
    return np.linalg.solve(L.T, y)


_jit.flush_module(__name__)
