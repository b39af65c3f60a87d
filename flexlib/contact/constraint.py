"""The contact constraints: the Lagrange multipliers of the hybrid models' contact phases.

In contact the normal direction is a constraint, Psi = 0, enforced at the acceleration level
with Baumgarte stabilisation (eq (36)): Psi'' + 2 chi Psi' + beta^2 Psi = 0.  With M q'' = Q +
Psi_q^T N + Gamma_q^T F_t this gives the multiplier equations (eqs (37)-(38), (62), (75)), in
terms of the solved columns X = M^-1 [Q | Psi_q^T | Gamma_q^T] (:func:`normal_constraint`):

* CONTACT without friction: N = r1 / s11 (:func:`normal_solve`);
* STICK: the tangential direction is a constraint too, s = s* held by the same stabilisation
  (eqs (63)-(64)), and (N, F_t) solve a 2 x 2 system (eq (62), :func:`stick_solve`);
* SLIP: F_t = c N with the friction law's ratio c (Coulomb, LuGre: :mod:`flexlib.contact.friction`), one
  equation for N whose denominator is the Painleve margin (eq (75), :func:`slip_solve`).

The ``mult`` switch selects the coupled multiplier equations (0, the default: the off-diagonal
terms s12, s21 kept) or the paper's printed decoupled formulas (1: eqs (37), (65), (66), which
drop them and so satisfy eqs (62), (75) only when Psi_q M^-1 Gamma_q^T = 0).  Which of these
phases runs is the state machine's choice (:mod:`flexlib.solver.simulate`, after an impact
:mod:`flexlib.contact.selection`); the right-hand side (:mod:`flexlib.solver.kernel`) calls these functions.
All are compiled and allocate nothing.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _jit
from .._jit import hot
from ..layout import O_COND, O_MARGIN, O_MU
from ..solver.linalg import solve_into

__all__ = ["normal_constraint", "normal_solve", "stick_solve", "slip_solve"]


@hot
def normal_constraint(gap, v_n, gam_n, chi, beta, Pq, Mw, Xw, nd):
    """Solve M X = [Q | Psi_q^T | Gamma_q^T] in place (``Mw`` = M is destroyed, ``Xw`` holds the
    three columns and then X) and return (r1, s11) of the normal constraint row:
    s11 = Psi_q M^-1 Psi_q^T and r1 = gamma_n - 2 chi v_n - beta^2 Psi - Psi_q M^-1 Q."""
    gn = gam_n - 2.0 * chi * v_n - beta * beta * gap
    solve_into(Mw, Xw, 3)          # columns: a = M^-1 Q, mP = M^-1 Psi_q, mG = M^-1 Gamma_q
    s11 = 0.0
    pa = 0.0
    for i in range(nd):
        s11 += Pq[i] * Xw[i, 1]
        pa += Pq[i] * Xw[i, 0]
    r1 = gn - pa
    return r1, s11


@hot
def normal_solve(r1, s11):
    """The normal multiplier N of a frictionless contact, eq (37)."""
    return r1 / s11


@hot
def stick_solve(gam_t, v_t, sc, chi, beta, s_star, r1, s11, Pq, Gq, Xw, nd, mult, out):
    """The STICK multipliers (N, F_t) of the normal and tangential constraints (eq (62)),
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


@hot
def slip_solve(cf, r1, s11, Pq, Xw, nd, mult, out):
    """(N, F_t) in slip with F_t = cf N (``cf`` from the friction law), and the Painleve margin
    s11 + cf s12 over s11 (> 0: N follows from the state; its zero is the Painleve point) written
    into ``out``; ``Xw`` holds the solved columns of :func:`normal_constraint`."""
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
    return N, cf * N


_jit.flush_module(__name__)
