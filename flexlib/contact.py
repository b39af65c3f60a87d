"""Contact with the rigid slope: geometry, Jacobians and the impulse jump.

docs/model.md sections 6-8.  :func:`tip_contact` and :func:`impulse_jump` call the compiled
functions the simulator runs (:func:`flexlib.kernel.tip_kinematics`,
:func:`flexlib.kernel.velocity_jump`); the multiplier solves are in
:func:`flexlib.kernel.phase_eval_into`.  Sign convention: the slope pushes the tip with
N n + F_t t, N >= 0 in contact; the generalised contact force is Psi_q^T N + Gamma_q^T F_t.
The paper's multipliers are lambda_n = -N and lambda_tau = -F_t.

Slope: t = (cos a, sin a), n = (-sin a, cos a), through O1 = (X1, 0).  The paper's
eq (23) loses the slope offset; here Psi = n . (r_P - r_O1) and s = t . (r_P - r_O1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import kernel
from .beam import BeamModel
from .layout import pack_params
from .params import SlopeParams

__all__ = ["Slope", "TipContact", "tip_contact", "impulse_jump"]


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

    def kernel_params(self, L: float) -> np.ndarray:
        """The kernel's parameter vector with the slope and the beam length L [m] set (what
        :func:`flexlib.kernel.tip_kinematics` reads)."""
        (nx, ny), (tx, ty), (X1, Y1) = self.n, self.t, self.origin
        return pack_params(L=L, nx=nx, ny=ny, tx=tx, ty=ty, X1=X1, Y1=Y1)


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
    """Gap, tangential coordinate, their rates, Jacobians and velocity-product terms of the tip
    (eqs (23)-(32), (49)-(58)), by the simulator's compiled code."""
    c = np.ascontiguousarray
    g, s, v_n, v_t, Pq, Gq, gn, gt = kernel.tip_kinematics(
        c(q, dtype=float), c(qd, dtype=float), slope.kernel_params(beam.mi.L),
        beam.kernel_arrays())
    return TipContact(gap=float(g), s=float(s), v_n=float(v_n), v_t=float(v_t), Psi_q=Pq,
                      Gamma_q=Gq, gamma_n=float(gn), gamma_t=float(gt))


def impulse_jump(M, D_n, v_n_minus: float, e: float):
    """Frictionless impulse-momentum velocity jump, eqs (39)-(48) (Delta q' for the printed Delta q).

    Returns (dqd, I, dT): the velocity change M^-1 D_n I, the normal impulse
    I = -(1 + e) v_n^- / (D_n^T M^-1 D_n) >= 0 [N s] and the kinetic-energy change
    dT = -1/2 (1 - e^2) (v_n^-)^2 / (D_n^T M^-1 D_n) [J].  Positions do not change.
    The simulator's compiled code (:func:`flexlib.kernel.velocity_jump`)."""
    c = np.ascontiguousarray
    dqd, impulse, dT = kernel.velocity_jump(c(M, dtype=float), c(D_n, dtype=float),
                                            float(v_n_minus), float(e))
    return dqd, float(impulse), float(dT)
