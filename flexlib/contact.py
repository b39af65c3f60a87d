"""Contact with the rigid slope: geometry, Jacobians, the impulse jump and the multiplier solves.

docs/model.md sections 6-8.  Sign convention: the slope pushes the tip with
N n + F_t t, N >= 0 in contact; the generalised contact force is Psi_q^T N + Gamma_q^T F_t.
The paper's multipliers are lambda_n = -N and lambda_tau = -F_t.

Slope: t = (cos a, sin a), n = (-sin a, cos a), through O1 = (X1, 0).  The paper's
eq (23) loses the slope offset; here Psi = n . (r_P - r_O1) and s = t . (r_P - r_O1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .beam import BeamModel
from .params import SlopeParams

__all__ = ["Slope", "TipContact", "tip_contact", "impulse_jump", "frictionless_normal_force",
           "stick_forces", "slip_normal_force", "printed_normal_force", "printed_stick_forces"]


@dataclass(frozen=True)
class Slope:
    """Unit tangent t, outward normal n and origin r_O1 of the slope."""
    t: np.ndarray
    n: np.ndarray
    origin: np.ndarray
    params: SlopeParams

    @classmethod
    def from_params(cls, p: SlopeParams) -> "Slope":
        a = p.alpha
        return cls(t=np.array([math.cos(a), math.sin(a)]), n=np.array([-math.sin(a), math.cos(a)]),
                   origin=np.array([p.X1, 0.0]), params=p)

    def gap_of_points(self, r) -> np.ndarray:
        """n . (r - r_O1) for points r (..., 2): > 0 above the slope, m."""
        return (np.asarray(r) - self.origin) @ self.n


@dataclass
class TipContact:
    """Contact kinematics of the tip at one state (eqs (23)-(32), (49)-(58)).

    gap = Psi [m], s [m], v_n = Psi' and v_t = s' [m/s], Psi_q and Gamma_q (N+1,) rows,
    gamma_n = -n . a_vp and gamma_t = -t . a_vp [m/s^2] (eqs (32), (58))."""
    gap: float
    s: float
    v_n: float
    v_t: float
    Psi_q: np.ndarray
    Gamma_q: np.ndarray
    gamma_n: float
    gamma_t: float


def tip_contact(beam: BeamModel, slope: Slope, q, qd) -> TipContact:
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


def baumgarte_rhs(gamma: float, rate: float, value: float, chi: float, beta: float) -> float:
    """gamma* = gamma - 2 chi rate - beta^2 value (eqs (36), (63), (64)).

    +beta^2, as in eqs (36), (61), (63), (64): the printed -beta^2 of eqs (34), (60) would make
    the constraint drift grow exponentially."""
    return gamma - 2.0 * chi * rate - beta * beta * value


def frictionless_normal_force(Psi_q, a, MinvPsi, gn_star: float) -> float:
    """N = (gamma_n* - Psi_q a) / (Psi_q M^-1 Psi_q^T), eq (37) in the physical sign."""
    return (gn_star - Psi_q @ a) / (Psi_q @ MinvPsi)


def stick_forces(Psi_q, Gamma_q, a, MinvPsi, MinvGam, gn_star: float, gt_star: float):
    """Coupled stick solve S [N, F_t] = [gn*, gt*] - A a, eq (62).  Returns (N, F_t, cond S)."""
    S = np.array([[Psi_q @ MinvPsi, Psi_q @ MinvGam], [Gamma_q @ MinvPsi, Gamma_q @ MinvGam]])
    rhs = np.array([gn_star - Psi_q @ a, gt_star - Gamma_q @ a])
    sol = np.linalg.solve(S, rhs)
    return sol[0], sol[1], np.linalg.cond(S)


def slip_normal_force(Psi_q, a, MinvPsi, MinvGam, gn_star: float, c: float):
    """Slip with F_t = c N: N = (gn* - Psi_q a) / (Psi_q M^-1 (Psi_q + c Gamma_q)^T), eqs (75), (79).

    Returns (N, margin) with margin = 1 + c S12/S11, the Painleve margin (docs/model.md 8.5): the
    solve is singular when it reaches 0."""
    s11 = Psi_q @ MinvPsi
    s12 = Psi_q @ MinvGam
    den = s11 + c * s12
    return (gn_star - Psi_q @ a) / den, den / s11


def printed_normal_force(Psi_q, a, MinvPsi, gn_star: float) -> float:
    """The paper's decoupled eq (37)/(65) (the paper reuses it in slip): only a diagnostic option."""
    return frictionless_normal_force(Psi_q, a, MinvPsi, gn_star)


def printed_stick_forces(Psi_q, Gamma_q, a, MinvPsi, MinvGam, gn_star, gt_star):
    """The paper's decoupled eqs (65)-(66) for stick (exact only if Psi_q M^-1 Gamma_q^T = 0)."""
    N = (gn_star - Psi_q @ a) / (Psi_q @ MinvPsi)
    F = (gt_star - Gamma_q @ a) / (Gamma_q @ MinvGam)
    return N, F


def _chol_solve(M, b):
    L = np.linalg.cholesky(M)
    return np.linalg.solve(L.T, np.linalg.solve(L, b))
