"""Contact with the rigid slope: the tip's gap, slip, their rates and Jacobians.

docs/model.md section 6.  The slope: t = (cos a, sin a), n = (-sin a, cos a), through
O1 = (X1, 0).  The paper's eq (23) loses the slope offset; here Psi = n . (r_P - r_O1) and
s = t . (r_P - r_O1), with r_P = W(theta) p_P the tip of the body (:func:`flexlib.bodies.beam.tip_point`).
Sign convention: the slope pushes the tip with N n + F_t t, N >= 0 in contact; the generalised
contact force is Psi_q^T N + Gamma_q^T F_t.  The paper's multipliers are lambda_n = -N and
lambda_tau = -F_t.

:func:`tip_into` states the tip's kinematics as the paper writes them (eqs (23)-(32), (49)-(58));
the paper's histories of the tip (:func:`flexlib.bodies.beam.sample_kinematics`) and the readable
API (:func:`tip_contact`) use it.  The engine itself runs the rows of any contact point
(:func:`flexlib.multibody.assembly.contact_rows_into`), which for the tip are these (the tests
hold the two together).  What happens in contact is elsewhere: Newton's impact law in
:mod:`flexlib.contact.lcp`, the constraint forces in :mod:`flexlib.multibody.kernel`, the penalty
force in :mod:`flexlib.contact.penalty`, the choice of the contact modes in
:mod:`flexlib.multibody.simulate`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _jit
from .._jit import hot
from ..bodies.beam import BeamModel, rotate, tip_accel_vp, tip_point, tip_rows_into
from ..solver.linalg import dot_at
from ..params import SlopeParams

__all__ = ["Slope", "TipContact", "tip_contact", "tip_into"]

# The tip's parameter vector: the beam's length L [m], the slope's outward unit normal, its unit
# tangent and its origin O1 [m] (module-level integers: numba reads them as constants).
TIP_PAR_NAMES = ("L", "nx", "ny", "tx", "ty", "X1", "Y1")
P_TIP_L, P_NX, P_NY, P_TX, P_TY, P_X1, P_Y1 = range(len(TIP_PAR_NAMES))
NPAR_TIP = len(TIP_PAR_NAMES)


@hot
def slope_in_beam_frame(th, nx, ny, tx, ty):
    """cos th, sin th and the slope normal n and tangent t in the beam frame:
    (c, s, n_fx, n_fy, t_fx, t_fy) with n_f = W^T n, t_f = W^T t (W the rotation by th)."""
    c = math.cos(th)
    s_ = math.sin(th)
    return c, s_, c * nx + s_ * ny, -s_ * nx + c * ny, c * tx + s_ * ty, -s_ * tx + c * ty


@hot
def tip_into(q, qd, par, Phi_L, H_L, Psi_L, HLB, Pq, Gq, accel):
    """Tip contact kinematics at (q, q') : returns (gap, s, v_n, v_t, gamma_n,
    gamma_t) and writes H_L B into ``HLB`` and the Jacobian rows Psi_q, Gamma_q into ``Pq``,
    ``Gq``.  gamma_n = -n . a_vp and gamma_t = -t . a_vp (eqs (32), (58)) are computed only if
    ``accel`` (they are NaN otherwise: a flight phase does not need them).  The tip point and
    its rate are those of :func:`tip_point`."""
    n = Phi_L.shape[0]
    L = par[P_TIP_L]
    nx, ny, tx, ty = par[P_NX], par[P_NY], par[P_TX], par[P_TY]
    th = q[0]
    thd = qd[0]
    px, py, pdx, pdy = tip_point(q, qd, L, Phi_L, H_L, Psi_L, HLB, accel)
    c, s_, nfx, nfy, tfx, tfy = slope_in_beam_frame(th, nx, ny, tx, ty)
    rx, ry = rotate(c, s_, px, py)
    dx = rx - par[P_X1]
    dyy = ry - par[P_Y1]
    tip_rows_into(nfx, nfy, tfx, tfy, px, py, HLB, Phi_L, Psi_L, Pq, Gq)
    gam_n = np.nan
    gam_t = np.nan
    if accel:
        ax, ay = tip_accel_vp(thd, px, py, pdx, pdy, H_L, qd, n)
        gam_n = -(nfx * ax + nfy * ay)
        gam_t = -(tfx * ax + tfy * ay)
    return (nx * dx + ny * dyy, tx * dx + ty * dyy, dot_at(Pq, qd, 0), dot_at(Gq, qd, 0),
            gam_n, gam_t)


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
        """The tip's parameter vector (:data:`TIP_PAR_NAMES`) for a beam of length L [m]: what
        :func:`tip_into` reads."""
        par = np.zeros(NPAR_TIP)
        par[P_TIP_L] = L
        par[P_NX:P_Y1 + 1] = (*self.n, *self.t, *self.origin)
        return par


@dataclass
class TipContact:
    """Contact kinematics of the tip at one state (eqs (23)-(32), (49)-(58)).

    gap = Psi [m], s [m], v_n = Psi' and v_t = s' [m/s], Psi_q and Gamma_q (nd,) rows,
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
    (eqs (23)-(32), (49)-(58)), by the compiled :func:`tip_into`."""
    c = np.ascontiguousarray
    q, qd = c(q, dtype=float), c(qd, dtype=float)
    arrs = beam.kernel_arrays()
    Pq, Gq = np.empty(q.shape[0]), np.empty(q.shape[0])
    g, s, v_n, v_t, gn, gt = tip_into(q, qd, slope.kernel_params(beam.mi.L), arrs.Phi_L, arrs.H_L,
                                      arrs.Psi_L, np.empty(arrs.Phi_L.shape[0]), Pq, Gq, True)
    return TipContact(gap=float(g), s=float(s), v_n=float(v_n), v_t=float(v_t), Psi_q=Pq,
                      Gamma_q=Gq, gamma_n=float(gn), gamma_t=float(gt))


_jit.flush_module(__name__)
