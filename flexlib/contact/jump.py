"""The impact: the velocity jump of the impulse-momentum method (eqs (39)-(48)).

When the tip reaches the slope with a normal velocity v_n^- < 0, the contact impulse acts in
an instant: the positions do not change and the velocities jump so that

    M (q'^+ - q'^-) = D_n I,    v_n^+ = D_n^T q'^+ = -e v_n^-,

with D_n = Psi_q (as a column) the normal Jacobian of the tip (:func:`flexlib.contact.slope.tip_into`)
and e the restitution (the paper's e = 0: a plastic impact).  Hence the normal impulse
I = -(1 + e) v_n^- / (D_n^T M^-1 D_n) >= 0 and the kinetic energy changes by
dT = -1/2 (1 - e^2) (v_n^-)^2 / (D_n^T M^-1 D_n).  The jump is frictionless (no tangential
impulse): which state follows it -- free, stick or slip -- is the contact-mode selection of
:mod:`flexlib.contact.selection`.  The simulator calls
:func:`velocity_jump` (compiled, with the elimination of :func:`flexlib.solver.linalg.solve`);
:func:`impulse_jump` is the same code for arrays from Python.
"""
from __future__ import annotations

import numpy as np

from .. import _jit
from .._jit import compiled
from ..solver.linalg import solve

__all__ = ["impulse_jump", "velocity_jump"]


@compiled
def velocity_jump(M, D_n, v_n_minus, e):
    """Frictionless impulse-momentum jump, eqs (39)-(48): (dq', I, dT) for the mass matrix
    ``M``, the normal Jacobian row ``D_n`` = Psi_q, the approach speed ``v_n_minus`` < 0 [m/s]
    and the restitution ``e`` (see :func:`impulse_jump`)."""
    nd = D_n.shape[0]
    X = solve(M, D_n)
    w = 0.0
    for i in range(nd):
        w += D_n[i] * X[i, 0]
    impulse = -(1.0 + e) * v_n_minus / w
    dT = -0.5 * (1.0 - e * e) * v_n_minus * v_n_minus / w
    dqd = np.empty(nd)
    for i in range(nd):
        dqd[i] = X[i, 0] * impulse
    return dqd, impulse, dT


def impulse_jump(M, D_n, v_n_minus: float, e: float):
    """Frictionless impulse-momentum velocity jump, eqs (39)-(48) (Delta q' for the printed
    Delta q).

    Returns (dqd, I, dT): the velocity change M^-1 D_n I, the normal impulse
    I = -(1 + e) v_n^- / (D_n^T M^-1 D_n) >= 0 [N s] and the kinetic-energy change
    dT = -1/2 (1 - e^2) (v_n^-)^2 / (D_n^T M^-1 D_n) [J].  Positions do not change.
    The simulator's compiled code (:func:`velocity_jump`)."""
    c = np.ascontiguousarray
    dqd, impulse, dT = velocity_jump(c(M, dtype=float), c(D_n, dtype=float),
                                     float(v_n_minus), float(e))
    return dqd, float(impulse), float(dT)


_jit.flush_module(__name__)
