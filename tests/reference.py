"""Test references: NumPy statements of formulas the library computes with compiled code.

These are *references for the tests*, not library code: the simulator runs the
compiled functions of :mod:`flexlib.bodies.beam`, :mod:`flexlib.contact.slope` and :mod:`flexlib.contact.friction`,
and the tests compare the two.  Each function here is a direct, readable transcription of the
paper's equations (docs/model.md), written independently of the kernel's loops.

Tip kinematics, energies and the generic quadrature route (the functions taking a
:class:`~flexlib.bodies.beam.BeamModel` first): the library computes the tip point and the potential
energies once, in :mod:`flexlib.bodies.beam` (:func:`~flexlib.bodies.beam.tip_point`,
:func:`~flexlib.bodies.beam.potential_energies`, over a run :func:`~flexlib.bodies.beam.sample_kinematics`),
and M, Q in :func:`~flexlib.bodies.beam.mass_forces_into` / :func:`~flexlib.bodies.beam.mass_forces_quad_into`;
the NumPy statements below are the tests' references for them (they were methods of
``BeamModel`` and are not library code).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from flexlib.contact.slope import TipContact


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
    """NumPy statement of :meth:`flexlib.bodies.beam.BeamModel.mass_and_forces` (a test reference):
    M(q) and Q(q, q') together (eqs (13)-(17), corrected), sharing the products.

    Q contains the drive torque, gravity, all velocity terms, the elastic force -K2 B and
    the modal damping -C B'.  It does not contain contact forces.  With axial modes
    both come from the generic quadrature route.
    """
    if beam.na:
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        return mass_matrix_quadrature(beam, q), generalized_forces_quadrature(beam, q, qd, tau_d)
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


# ------------------------------------------------------------------ beam: tip, energies, quadrature
_IT = np.array([[0.0, -1.0], [1.0, 0.0]])   # the planar 90 degree rotation I~


def rotation(theta: float) -> np.ndarray:
    """W(theta), eq (6): floating-frame components to inertial components."""
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s], [s, c]])


def _split(beam, q):
    """(theta, B, C) of a coordinate vector (C is empty without axial modes)."""
    q = np.asarray(q, float)
    return q[0], q[1:1 + beam.n], q[1 + beam.n:]


def kinetic_energy(beam, q, qd) -> float:
    """T = 1/2 q'^T M q' (eq (8)), J, with the library's M."""
    qd = np.asarray(qd, float)
    return 0.5 * qd @ beam.mass_matrix(q) @ qd


def elastic_energy(beam, q) -> float:
    """V_E = 1/2 B^T K2 B (eq (9)) + V_A = 1/2 C^T K_A C (axial modes), J."""
    _, B, C = _split(beam, q)
    V = 0.5 * B @ beam.mi.K2 @ B
    if beam.na:
        V += 0.5 * C @ beam.mi.K_A @ C
    return V


def gravitational_energy(beam, q) -> float:
    """V_G = -g^T W R = m g0 Y_centroid (eqs (9)-(10)), J, referred to the hinge level."""
    th, B, C = _split(beam, q)
    mi = beam.mi
    Rx = mi.Rx0 - 0.5 * (B @ mi.Hbar @ B)
    if beam.na:
        Rx += mi.Psibar @ C
    Ry = mi.Sbar @ B
    return beam.g0 * (math.sin(th) * Rx + math.cos(th) * Ry)


def energies(beam, q, qd):
    """(T, V_E, V_G) in J (V_E includes V_A)."""
    return kinetic_energy(beam, q, qd), elastic_energy(beam, q), gravitational_energy(beam, q)


def tip_floating(beam, q):
    """p_P = (L + Psi_L C - 1/2 B^T H_L B, Phi_L B) in the floating frame, m."""
    _, B, C = _split(beam, q)
    mi = beam.mi
    px = mi.L - 0.5 * (B @ mi.H_L @ B)
    if beam.na:
        px += mi.Psi_L @ C
    return np.array([px, mi.Phi_L @ B])


def tip_position(beam, q) -> np.ndarray:
    """r_P = W p_P (inertial X, Y of the tip), m."""
    return rotation(q[0]) @ tip_floating(beam, q)


def tip_jacobian(beam, q) -> np.ndarray:
    """dr_P/dq = W [I~ p_P | P_L], 2 x (N+1+Na) (eqs (26)-(29); axial columns (Psi_L, 0))."""
    th, B, _ = _split(beam, q)
    n = beam.n
    J = np.zeros((2, beam.ndof))
    J[:, 0] = _IT @ tip_floating(beam, q)
    J[0, 1:1 + n] = -(beam.mi.H_L @ B)
    J[1, 1:1 + n] = beam.mi.Phi_L
    if beam.na:
        J[0, 1 + n:] = beam.mi.Psi_L
    return rotation(th) @ J


def tip_velocity(beam, q, qd) -> np.ndarray:
    """r_P' = J_P q', m/s."""
    return tip_jacobian(beam, q) @ np.asarray(qd, float)


def tip_velocity_product(beam, q, qd) -> np.ndarray:
    """a_vp = J_P' q' = W[-theta'^2 p + 2 theta' I~ p' + (-B'^T H_L B', 0)] (eqs (30)-(32)), m/s^2."""
    q, qd = np.asarray(q, float), np.asarray(qd, float)
    mi = beam.mi
    _, B, _ = _split(beam, q)
    thd, Bd, Cd = _split(beam, qd)
    p = tip_floating(beam, q)
    pd = np.array([-(B @ mi.H_L @ Bd), mi.Phi_L @ Bd])
    if beam.na:
        pd[0] += mi.Psi_L @ Cd
    a = -thd**2 * p + 2.0 * thd * (_IT @ pd) + np.array([-(Bd @ mi.H_L @ Bd), 0.0])
    return rotation(q[0]) @ a


def tip_deflection(beam, q) -> float:
    """u_y(L) = Phi_L B, the tip transverse deformation in the floating frame, m."""
    return float(beam.mi.Phi_L @ _split(beam, q)[1])


def _coupling(mi):
    """H(x_k) at the quadrature nodes: the modal data's, or for a basis on the element route
    (which keeps H only by element) from the basis's own coupling shape."""
    return mi.H if mi.H.shape[0] else mi.basis.coupling(mi.x)


def _jtilde_nodes(beam, q):
    """Floating positions p_k, H_k B and the Jacobians J~_k at the quadrature nodes."""
    mi = beam.mi
    n = beam.n
    _, B, C = _split(beam, q)
    HB = _coupling(mi) @ B                          # (K, N)
    p = np.stack([mi.x - 0.5 * HB @ B, mi.Phi @ B], axis=-1)   # (K, 2)
    if beam.na:
        p[:, 0] += mi.Psi @ C
    J = np.zeros((len(mi.x), 2, beam.ndof))
    J[:, 0, 0] = -p[:, 1]
    J[:, 1, 0] = p[:, 0]
    J[:, 0, 1:1 + n] = -HB
    J[:, 1, 1:1 + n] = mi.Phi
    if beam.na:
        J[:, 0, 1 + n:] = mi.Psi
    return p, HB, J


def mass_matrix_quadrature(beam, q) -> np.ndarray:
    """M = sum_k w_k rho S J~_k^T J~_k: the generic route (docs/model.md 5.3)."""
    _, _, J = _jtilde_nodes(beam, q)
    return np.einsum("k,kai,kaj->ij", beam.mi.w * beam.mi.rhoS, J, J)


def generalized_forces_quadrature(beam, q, qd, tau_d: float | None = None) -> np.ndarray:
    """Q by the generic route (quadrature over the nodes)."""
    mi = beam.mi
    q, qd = np.asarray(q, float), np.asarray(qd, float)
    n = beam.n
    _, B, C = _split(beam, q)
    thd, Bd, Cd = _split(beam, qd)
    p, HB, J = _jtilde_nodes(beam, q)
    pd = np.stack([-(HB @ Bd), mi.Phi @ Bd], axis=-1)
    if beam.na:
        pd[:, 0] += mi.Psi @ Cd
    HBd = _coupling(mi) @ Bd
    a = -thd**2 * p + 2.0 * thd * (pd @ _IT.T)
    a[:, 0] -= HBd @ Bd
    gloc = rotation(q[0]).T @ np.array([0.0, -beam.g0])
    ws = mi.w * mi.rhoS
    Q = -np.einsum("k,kai,ka->i", ws, J, a) + np.einsum("k,kai,a->i", ws, J, gloc)
    Q[1:1 + n] -= mi.K2 @ B + mi.C @ Bd
    if beam.na:
        Q[1 + n:] -= mi.K_A @ C
    Q[0] += beam.params.tau_d if tau_d is None else tau_d
    return Q


# ------------------------------------------------------------------ the library's values, for tests
_RUNS = {}        # repr(BeamParams) -> the BeamRun that kernel_point evaluates with


def kernel_point(beam, q, qd=None):
    """The library's tip and potential energies at one state, as a dict:
    tip_X, tip_Y, tip_Xdot, tip_Ydot, tip_deflection, V_E, V_A, V_G
    (:meth:`flexlib.paper.BeamRun.kinematics`, i.e. :func:`flexlib.bodies.beam.sample_kinematics`,
    on one sample) and T (the kinetic energy of the system engine's right-hand side,
    :meth:`flexlib.paper.BeamRun.outputs`), for ``beam`` hinged as in case 3.2 (free flight).
    Not a reference: what the tests check."""
    from flexlib.layout import FREE
    from flexlib.paper import BeamRun
    from flexlib.params import paper_case
    assert beam.clamp == "root", "the run's beam is hinged at its root"
    q = np.asarray(q, float)
    qd = np.zeros_like(q) if qd is None else np.asarray(qd, float)
    run = _RUNS.get(repr(beam.params))
    if run is None:
        case = dataclasses.replace(paper_case("3.2"), beam=beam.params)
        run = _RUNS[repr(beam.params)] = BeamRun(case, "frictionless", 1.0)
    assert run.beam.ndof == len(q)
    y = np.zeros((1, run.layout.size))
    y[0, run.layout.q], y[0, run.layout.qd] = q, qd
    kin = run.kinematics(y)[:, 0]
    _, T = run.outputs(np.zeros(1), y, np.array([FREE]), np.zeros((1, 3)))
    keys = ("tip_X", "tip_Y", "tip_Xdot", "tip_Ydot", "tip_deflection", "V_E", "V_A", "V_G")
    out = dict(zip(keys, kin.tolist()))
    out["T"] = float(T[0])
    return out
