"""The floating beam: the rows of its frame origin R bordering the hinged beam's M and Q.

A beam whose frame origin R moves has the kinetic energy 1/2 int rho S |R' + (W p)'|^2 dx.  Its
(theta, B, C) block of M and Q is the hinged beam's (:func:`flexlib.bodies.beam.mass_forces_arrs_into`:
R'' enters only through the coupling rows below, and WᵀW = I), and the rows of R are

    M_RR = m I_2,   M_R,theta = W I~ S_p,   M_R,f = W int rho S P dx,
    Q_R = (0, -m g0) + W (theta'^2 S_p - 2 theta' I~ S_p' + (B'^T Hbar B', 0)),

with S_p = int rho S p dx = (int rho S x + Psibar C - 1/2 B^T Hbar B, Sbar B), S_p' its rate,
int rho S P's columns (-(Hbar B)_i, Sbar_i) for B and (Psibar_j, 0) for C, I~ (a, b) = (-b, a)
(Shabana, *Dynamics of Multibody Systems*, ch. 5, the floating frame of reference).  Every
integral is one of the beam's modal integrals (:class:`flexlib.bodies.beam.KernelArrays`).
"""
from __future__ import annotations

import math

from .. import _jit
from .._jit import inlined
from ..bodies.beam import P_G0, P_RX0


@inlined
def frame_rows_into(qb, qdb, par, arrs, m, Mb, Qb, hbw):
    """Write the rows and columns 0, 1 (R) of the body's M_b and Q_b[0:2]; ``qb`` = [theta, B, C],
    ``hbw`` the half-bandwidth of Hbar (its products take only the band: the same bits)."""
    n = arrs.Phi_L.shape[0]
    na = arrs.Psi_L.shape[0]
    th = qb[0]
    thd = qdb[0]
    c = math.cos(th)
    s = math.sin(th)
    spx = par[P_RX0]
    spy = 0.0
    sdx = 0.0
    sdy = 0.0
    bhb = 0.0
    for i in range(n):
        hb = 0.0
        hbd = 0.0
        for j in range(max(0, i - hbw), min(n, i + hbw + 1)):
            hb += arrs.Hbar[i, j] * qb[1 + j]
            hbd += arrs.Hbar[i, j] * qdb[1 + j]
        spx -= 0.5 * qb[1 + i] * hb
        sdx -= qdb[1 + i] * hb
        bhb += qdb[1 + i] * hbd
        spy += arrs.Sbar[i] * qb[1 + i]
        sdy += arrs.Sbar[i] * qdb[1 + i]
        # column of B_i: W (-(Hbar B)_i, Sbar_i)
        Mb[0, 3 + i] = c * (-hb) - s * arrs.Sbar[i]
        Mb[1, 3 + i] = s * (-hb) + c * arrs.Sbar[i]
    for j in range(na):
        psi = arrs.Psibar[j]
        spx += psi * qb[1 + n + j]
        sdx += psi * qdb[1 + n + j]
        Mb[0, 3 + n + j] = c * psi
        Mb[1, 3 + n + j] = s * psi
    Mb[0, 0] = m
    Mb[0, 1] = 0.0
    Mb[1, 0] = 0.0
    Mb[1, 1] = m
    Mb[0, 2] = c * (-spy) - s * spx
    Mb[1, 2] = s * (-spy) + c * spx
    db = 3 + n + na
    for k in range(2, db):
        Mb[k, 0] = Mb[0, k]
        Mb[k, 1] = Mb[1, k]
    fx = thd * thd * spx + 2.0 * thd * sdy + bhb
    fy = thd * thd * spy - 2.0 * thd * sdx
    Qb[0] = c * fx - s * fy
    Qb[1] = s * fx + c * fy - m * par[P_G0]


_jit.flush_module(__name__)
