"""The equations of a system of beams in a tree: M, Q by the velocity transformation, and points.

Each body is a beam in a floating frame with the absolute coordinates v_b = [R (2), theta,
B (N), C (Na)].  A material point at x is r(x) = R + W(theta) p(x) with
p = (x + Psi C - 1/2 B^T H B, Phi B), so its Jacobian with respect to v_b is
J_b(x) = [I_2 | W I~ p | W P(x)] (I~ p = (-p_y, p_x); P's columns (-(H B)_i, Phi_i) for B and
(Psi_j, 0) for C) and its acceleration with v_b'' = 0 is
gamma_b(x) = W (-theta'^2 p + 2 theta' I~ p' + (-B'^T H B', 0)).

The joints make the system's independent coordinates q (per body: R if the joint is ``free``,
theta, B, C); each body's absolute velocities follow by the velocity transformation
v_b' = C_b q', v_b'' = C_b q'' + c_b (Shabana, *Dynamics of Multibody Systems*, ch. 5; seed of
this code: Sheng, Liu and Yu's "condensed coordinates" for the flexible double pendulum): a
ground hinge fixes R, a free joint takes R from q, and a hinge to a parent's material point x_j
takes R = r_parent(x_j), so C_b's R rows are J_parent(x_j) C_parent and c_b's are
J_parent(x_j) c_parent + gamma_parent(x_j).  Then

    M = sum_b C_b^T M_b C_b,    Q = sum_b C_b^T (Q_b - M_b c_b),

where M_b, Q_b are the floating body's (:mod:`flexlib.multibody.floating`: the hinged beam's
block of :mod:`flexlib.bodies.beam` bordered by the frame origin's rows).  A contact point's rows are
W_n = n^T J_b(x_c) C_b, W_t = t^T J_b(x_c) C_b and its velocity product n^T (J_b c_b + gamma_b).
Everything here is compiled and allocates nothing; the work arrays come from
:func:`flexlib.multibody.system.SystemArrays`.
"""
from __future__ import annotations

import math

from .. import _jit
from .._jit import inlined
from ..bodies.beam import mass_forces_arrs_into
from .floating import frame_rows_into
from .structured import body_aug_into, factor_body

# joint kinds (the ``bint`` column J_KIND)
GROUND_HINGE, PARENT_HINGE, FREE_JOINT = 0, 1, 2
# columns of the body integer table ``bint``
J_KIND, J_PARENT, J_IR, J_ITH, J_NF, J_POINT, J_N = range(7)
# columns of the body float table ``bflt``: the ground hinge point [m], the body's mass [kg], and
# a driven ground hinge's law (1: the spin-up of flexlib.multibody.drives, 0: not driven), its
# final rate [rad/s], ramp time [s] and the angle it starts from [rad]
B_OX, B_OY, B_MASS, B_DRIVE, B_OMEGA, B_RAMP, B_TH0 = range(7)
NBFLT = 7


@inlined
def point_into(b, pt, q, qd, S, R, Rd, xi, Ji, gi):
    """Position ``xi`` (2,), Jacobian ``Ji`` (2, 3 + nf) with respect to the body's absolute
    coordinates and velocity-product acceleration ``gi`` (2,) of the material point ``pt`` (a row of
    ``S.pflt``: x, Phi, H, Psi) of body ``b``; returns its inertial velocity (vx, vy)."""
    ith = S.bint[b, J_ITH]
    n = S.bint[b, J_N]
    na = S.bint[b, J_NF] - n
    th = q[ith]
    thd = qd[ith]
    c = math.cos(th)
    s = math.sin(th)
    row = S.pflt[pt]
    x = row[0]
    px = x
    py = 0.0
    pdx = 0.0
    pdy = 0.0
    BdHBd = 0.0
    h0 = 1 + S.nmax
    bw = S.pband[pt]
    for i in range(n):
        hb = 0.0
        hbd = 0.0
        # H's band only: the terms outside it are exact zeros, so the sums are the same bits
        for j in range(max(0, i - bw), min(n, i + bw + 1)):
            h = row[h0 + i * n + j]
            hb += h * q[ith + 1 + j]
            hbd += h * qd[ith + 1 + j]
        phi = row[1 + i]
        px -= 0.5 * q[ith + 1 + i] * hb
        pdx -= qd[ith + 1 + i] * hb
        BdHBd += qd[ith + 1 + i] * hbd
        py += phi * q[ith + 1 + i]
        pdy += phi * qd[ith + 1 + i]
        # column of B_i: W (-(H B)_i, Phi_i)
        Ji[0, 3 + i] = c * (-hb) - s * phi
        Ji[1, 3 + i] = s * (-hb) + c * phi
    a0 = h0 + S.nmax * S.nmax
    for j in range(na):
        psi = row[a0 + j]
        px += psi * q[ith + 1 + n + j]
        pdx += psi * qd[ith + 1 + n + j]
        Ji[0, 3 + n + j] = c * psi
        Ji[1, 3 + n + j] = s * psi
    Ji[0, 0] = 1.0
    Ji[0, 1] = 0.0
    Ji[1, 0] = 0.0
    Ji[1, 1] = 1.0
    # column of theta: W I~ p
    Ji[0, 2] = c * (-py) - s * px
    Ji[1, 2] = s * (-py) + c * px
    xi[0] = R[b, 0] + c * px - s * py
    xi[1] = R[b, 1] + s * px + c * py
    # gamma = W (-theta'^2 p + 2 theta' I~ p' - (B'^T H B', 0))
    ax = -thd * thd * px - 2.0 * thd * pdy - BdHBd
    ay = -thd * thd * py + 2.0 * thd * pdx
    gi[0] = c * ax - s * ay
    gi[1] = s * ax + c * ay
    ux = pdx - thd * py
    uy = pdy + thd * px
    return Rd[b, 0] + c * ux - s * uy, Rd[b, 1] + s * ux + c * uy


@inlined
def chain_into(b, ith, Ji, gi, Cs, cs, rows, acc, nq):
    """The system Jacobian ``rows`` (2, nq) = J_b C_b and velocity product ``acc`` (2,) =
    J_b c_b + gamma_b of a point of body ``b`` whose theta is q[ith] (``Ji``, ``gi`` from
    :func:`point_into`).  C_b's rows of the body's own coordinates are a unit selection
    (:func:`transform_into`: row 2 + k is column ith + k), so the product takes only the
    nonzero terms, in the dense product's order (whose other terms are exact zeros): O(nq)
    instead of O((3 + nf) nq)."""
    nb_ = Ji.shape[1]
    for a in range(2):
        g = gi[a]
        for k in range(nb_):
            g += Ji[a, k] * cs[b, k]
        acc[a] = g
        for j in range(nq):
            v = 0.0
            v += Ji[a, 0] * Cs[b, 0, j]
            v += Ji[a, 1] * Cs[b, 1, j]
            own = 2 + j - ith
            if 2 <= own < nb_:
                v += Ji[a, own]
            rows[a, j] = v


@inlined
def transform_into(q, qd, S, R, Rd, Cs, cs, xi, Ji, gi, rows, acc):
    """The velocity transformation of every body, parents first: ``Cs[b]`` = C_b's rows of the
    frame origin R (2, nq) (its other rows, those of the body's own coordinates, are a unit
    selection, which every product takes implicitly: row 2 + k is column ith + k), ``cs[b]`` = c_b
    (zero beyond its R rows), and the frame origins ``R``, ``Rd`` (nb, 2)."""
    nq = q.shape[0]
    for b in range(S.bint.shape[0]):
        kind = S.bint[b, J_KIND]
        ith = S.bint[b, J_ITH]
        nf = S.bint[b, J_NF]
        for k in range(3 + nf):
            cs[b, k] = 0.0
        for k in range(2):
            for j in range(nq):
                Cs[b, k, j] = 0.0
        if kind == GROUND_HINGE:
            R[b, 0] = S.bflt[b, B_OX]
            R[b, 1] = S.bflt[b, B_OY]
            Rd[b, 0] = 0.0
            Rd[b, 1] = 0.0
        elif kind == FREE_JOINT:
            ir = S.bint[b, J_IR]
            R[b, 0] = q[ir]
            R[b, 1] = q[ir + 1]
            Rd[b, 0] = qd[ir]
            Rd[b, 1] = qd[ir + 1]
            Cs[b, 0, ir] = 1.0
            Cs[b, 1, ir + 1] = 1.0
        else:
            p = S.bint[b, J_PARENT]
            vx, vy = point_into(p, S.bint[b, J_POINT], q, qd, S, R, Rd, xi, Ji, gi)
            chain_into(p, S.bint[p, J_ITH], Ji[:, :3 + S.bint[p, J_NF]], gi, Cs, cs, rows, acc,
                       nq)
            R[b, 0] = xi[0]
            R[b, 1] = xi[1]
            Rd[b, 0] = vx
            Rd[b, 1] = vy
            for a in range(2):
                cs[b, a] = acc[a]
                for j in range(nq):
                    Cs[b, a, j] = rows[a, j]


@inlined
def body_terms_into(b, q, qd, S, ws, dense):
    """Body ``b``'s own M_b and Q_b (its own coordinates' rows and columns, into ``ws[9]``,
    ``ws[10]``; with ``dense`` False the element route's generators of its elastic block into
    ``ws[11]``); returns (index of its theta in q, its elastic and axial coordinates, the size
    of M_b, the end of its coordinates in q)."""
    ith = S.bint[b, J_ITH]
    nf = S.bint[b, J_NF]
    db = 3 + nf
    # C_b is zero beyond the body's own coordinates (parents come first in q)
    nj = ith + 1 + nf
    mass_forces_arrs_into(q[ith:nj], qd[ith:nj], S.bpar[b], S.bodies[b], ws[11],
                          ws[9][b, 2:db, 2:db], ws[10][b, 2:db], dense, S.skbw[b])
    return ith, nf, db, nj


@inlined
def mass_forces_into(q, qd, S, ws, M, Q, dense):
    """The system's M(q) (nq, nq) and Q(q, q') (nq,) without contact forces, by the velocity
    transformation; ``ws`` is the work tuple of :func:`flexlib.multibody.kernel.work_arrays`.
    With ``dense`` False (a system solved through its structure, ``S.structured``) M is not
    written: each body's elastic block is factorized in its banded form
    (:mod:`flexlib.multibody.structured`; its velocities' quadratic form into ``ws[32]``), and
    the bodies' frame rows stay in ``ws[9]``."""
    R, Rd, Cs, cs, xi, Ji, gi, rows, acc = (ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6],
                                            ws[7], ws[8])
    Mb, Qb, Wb, MC = ws[9], ws[10], ws[11], ws[12]
    nq = q.shape[0]
    transform_into(q, qd, S, R, Rd, Cs, cs, xi, Ji, gi, rows, acc)
    for i in range(nq):
        Q[i] = 0.0
        if dense:
            for j in range(nq):
                M[i, j] = 0.0
    for b in range(S.bint.shape[0]):
        ith, nf, db, nj = body_terms_into(b, q, qd, S, ws, dense)
        arrs = S.bodies[b]
        n = S.bint[b, J_N]
        if not dense and n > 0:
            kl = S.skl[b]
            na = S.sna[b]
            ws[32][b] = body_aug_into(n, arrs.M2, S.smbw[b], arrs.edof, arrs.estart,
                                      qd[ith + 1:ith + 1 + n], Wb, ws[24][b], S.spos[b],
                                      S.sypos[b], kl, na)
            ws[26][b] = 1.0 if factor_body(ws[24][b], na, kl, ws[25][b]) else 0.0
        if S.bint[b, J_KIND] != GROUND_HINGE:
            frame_rows_into(q[ith:nj], qd[ith:nj], S.bpar[b], arrs, S.bflt[b, B_MASS], Mb[b], Qb[b],
                            S.shbw[b])
        else:
            # the frame origin's rows: a ground hinge's C_b and c_b are zero there, so they are
            # only multiplied by zeros (zeroed, not computed: the work arrays may hold anything)
            for k in range(db):
                Mb[b, 0, k] = 0.0
                Mb[b, 1, k] = 0.0
                Mb[b, k, 0] = 0.0
                Mb[b, k, 1] = 0.0
            Qb[b, 0] = 0.0
            Qb[b, 1] = 0.0
        # Q_b - M_b c_b, then C_b^T (.) and C_b^T M_b C_b (MC = M_b C_b).  C_b's rows of the
        # body's own coordinates are a unit selection (row 2 + k: column ith + k) and its R rows
        # 0, 1 are general: the products take only their nonzero terms, in the order of the
        # dense ones (whose other terms are exact zeros), O(db nj) instead of O(db^2 nj)
        # (c_b is zero beyond its R rows 0, 1: only M_b's R columns multiply it)
        for k in range(db):
            Qb[b, k] = (Qb[b, k] - Mb[b, k, 0] * cs[b, 0]) - Mb[b, k, 1] * cs[b, 1]
        for i in range(nj):
            own = 2 + i - ith
            v = Cs[b, 0, i] * Qb[b, 0] + Cs[b, 1, i] * Qb[b, 1]
            if own >= 2:
                v += Qb[b, own]
            Q[i] += v
        if not dense:
            continue
        for k in range(db):
            for j in range(nj):
                v = Mb[b, k, 0] * Cs[b, 0, j] + Mb[b, k, 1] * Cs[b, 1, j]
                if j >= ith:
                    v += Mb[b, k, 2 + j - ith]
                MC[k, j] = v
        for i in range(nj):
            own = 2 + i - ith
            for j in range(nj):
                v = Cs[b, 0, i] * MC[0, j] + Cs[b, 1, i] * MC[1, j]
                if own >= 2:
                    v += MC[own, j]
                M[i, j] += v


@inlined
def contact_rows_into(c, q, qd, S, ws, Wn, Wt):
    """Gap, normal and tangential velocity, tangential position and the velocity products
    (gap, v_n, v_t, s, a_n, a_t) of contact point ``c``, with its rows ``Wn``, ``Wt`` (nq,) =
    n^T J_sys, t^T J_sys; needs :func:`transform_into` done for this (q, q') (``ws``)."""
    R, Rd, Cs, cs, xi, Ji, gi, rows, acc = (ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6],
                                            ws[7], ws[8])
    pt = S.cint[c, 0]
    ob = S.cint[c, 1]
    b = S.pint[pt]
    nq = q.shape[0]
    vx, vy = point_into(b, pt, q, qd, S, R, Rd, xi, Ji, gi)
    chain_into(b, S.bint[b, J_ITH], Ji[:, :3 + S.bint[b, J_NF]], gi, Cs, cs, rows, acc, nq)
    ox, oy, nx, ny = S.oflt[ob, 0], S.oflt[ob, 1], S.oflt[ob, 2], S.oflt[ob, 3]
    tx, ty = ny, -nx
    for j in range(nq):
        Wn[j] = nx * rows[0, j] + ny * rows[1, j]
        Wt[j] = tx * rows[0, j] + ty * rows[1, j]
    dx = xi[0] - ox
    dy = xi[1] - oy
    return (nx * dx + ny * dy, nx * vx + ny * vy, tx * vx + ty * vy, tx * dx + ty * dy,
            nx * acc[0] + ny * acc[1], tx * acc[0] + ty * acc[1])


_jit.flush_module(__name__)
