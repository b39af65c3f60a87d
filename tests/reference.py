"""Test references: NumPy statements of formulas the library computes with compiled code.

These are *references for the tests*, not library code: the simulator runs the compiled
functions of :mod:`flexlib.kernel` (through :mod:`flexlib.contact` and :mod:`flexlib.friction`),
and the tests compare the two.  Each function here is a direct, readable transcription of the
paper's equations (docs/model.md), written independently of the kernel's loops.
"""
from __future__ import annotations

import math

import numpy as np

from flexlib.contact import TipContact


def tip_contact(beam, slope, q, qd) -> TipContact:
    """Gap, tangential coordinate, their rates, Jacobians and velocity-product terms of the tip."""
    mi = beam.mi
    nb, na = beam.n, beam.na
    th, B, C = q[0], q[1:1 + nb], q[1 + nb:]
    thd, Bd, Cd = qd[0], qd[1:1 + nb], qd[1 + nb:]
    HLB = mi.H_L @ B
    px = mi.L - 0.5 * (B @ HLB)
    if na:                       # axial modes (extension beyond the paper): p_P gains Psi(L) C
        px += mi.Psi_L @ C
    py = mi.Phi_L @ B
    c, s_ = math.cos(th), math.sin(th)
    # Rotate the slope directions into the floating frame once: n_f = W^T n, t_f = W^T t.
    n, t = slope.n, slope.t
    nf = (c * n[0] + s_ * n[1], -s_ * n[0] + c * n[1])
    tf = (c * t[0] + s_ * t[1], -s_ * t[0] + c * t[1])
    rx, ry = c * px - s_ * py, s_ * px + c * py
    dx, dy = rx - slope.origin[0], ry - slope.origin[1]
    # J~ = [I~ p | P], I~ p = (-py, px), P = [-(H_L B)^T, Psi_L ; Phi_L, 0]
    Psi_q = np.empty(beam.ndof)
    Gam_q = np.empty(beam.ndof)
    Psi_q[0] = -nf[0] * py + nf[1] * px
    Gam_q[0] = -tf[0] * py + tf[1] * px
    Psi_q[1:1 + nb] = -nf[0] * HLB + nf[1] * mi.Phi_L
    Gam_q[1:1 + nb] = -tf[0] * HLB + tf[1] * mi.Phi_L
    if na:
        Psi_q[1 + nb:] = nf[0] * mi.Psi_L
        Gam_q[1 + nb:] = tf[0] * mi.Psi_L
    # a~ = -thd^2 p + 2 thd I~ pd + (-Bd^T H_L Bd, 0),  pd = (-B^T H_L Bd + Psi_L C', Phi_L Bd)
    pdx = -(HLB @ Bd)
    if na:
        pdx += mi.Psi_L @ Cd
    pdy = mi.Phi_L @ Bd
    ax = -thd * thd * px - 2.0 * thd * pdy - Bd @ mi.H_L @ Bd
    ay = -thd * thd * py + 2.0 * thd * pdx
    return TipContact(
        gap=n[0] * dx + n[1] * dy, s=t[0] * dx + t[1] * dy,
        v_n=float(Psi_q @ qd), v_t=float(Gam_q @ qd), Psi_q=Psi_q, Gamma_q=Gam_q,
        gamma_n=-(nf[0] * ax + nf[1] * ay), gamma_t=-(tf[0] * ax + tf[1] * ay))


def impulse_jump(M, D_n, v_n_minus: float, e: float):
    """Frictionless impulse-momentum velocity jump, eqs (39)-(48) (Delta q' for the printed Delta q).

    Returns (dqd, I, dT): the velocity change M^-1 D_n I, the normal impulse
    I = -(1 + e) v_n^- / (D_n^T M^-1 D_n) >= 0 [N s] and the kinetic-energy change
    dT = -1/2 (1 - e^2) (v_n^-)^2 / (D_n^T M^-1 D_n) [J].  Positions do not change."""
    Minv_D = _chol_solve(M, D_n)
    w = float(D_n @ Minv_D)
    impulse = -(1.0 + e) * v_n_minus / w
    dT = -0.5 * (1.0 - e * e) * v_n_minus**2 / w
    return Minv_D * impulse, impulse, dT


def _chol_solve(M, b):
    L = np.linalg.cholesky(M)
    return np.linalg.solve(L.T, np.linalg.solve(L, b))


def mass_and_forces(beam, q, qd, tau_d: float | None = None):
    """NumPy statement of :meth:`flexlib.beam.BeamModel.mass_and_forces` (a test reference):
    M(q) and Q(q, q') together (eqs (13)-(17), corrected), sharing the products.

    Q contains the drive torque, gravity, all velocity terms, the elastic force -K2 B and
    the modal damping -C B'.  It does not contain contact forces.  With axial modes
    both come from the generic quadrature route.
    """
    if beam.na:
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        return beam.mass_matrix_quadrature(q), beam.generalized_forces_quadrature(q, qd, tau_d)
    mi = beam.mi
    th, B = q[0], q[1:]
    thd, Bd = qd[0], qd[1:]
    tau = beam.params.tau_d if tau_d is None else tau_d
    T4B = mi.T4 @ B                      # [i,j,k] = T4[i,j,k,l] B_l
    T4BB = T4B @ B                       # [i,j]   = T4[i,j,k,l] B_k B_l
    v4 = T4BB @ B                        # int (B^T H B) (H B)_i
    T3B = mi.T3 @ B                      # [i,j]   = T3[i,j,k] B_k
    BT3 = B @ mi.T3                      # [j,i]   = B_k T3[j,k,i]
    M2mDB = (mi.M2 - mi.D) @ B
    n = beam.n
    M = np.empty((n + 1, n + 1))
    M[0, 0] = mi.J_ob + B @ M2mDB + 0.25 * (v4 @ B)
    m21 = mi.S_y + T3B @ B - 0.5 * (B @ BT3)
    M[1:, 0] = m21
    M[0, 1:] = m21
    M[1:, 1:] = mi.M2 + B @ T4B
    # generalized forces
    HbarB = mi.Hbar @ B
    Rx = mi.Rx0 - 0.5 * (B @ HbarB)
    Ry = mi.Sbar @ B
    s, c = math.sin(th), math.cos(th)
    g0 = beam.g0
    T4Bd = (mi.T4 @ Bd) @ Bd             # [i,l] = T4[i,l,j,k] Bd_j Bd_k
    Q = np.empty(n + 1)
    Q[0] = (tau - 2.0 * thd * (Bd @ M2mDB)
            - thd * (v4 @ Bd)
            - Bd @ T3B @ Bd
            + g0 * (s * Ry - c * Rx))
    Q[1:] = (thd * thd * M2mDB - mi.K2 @ B + 0.5 * thd * thd * v4
             - T4Bd @ B
             + 2.0 * thd * (B @ (Bd @ mi.T3) - (mi.T3 @ Bd) @ B)
             + g0 * (s * HbarB - c * mi.Sbar)
             - mi.C @ Bd)
    return M, Q
