"""The right-hand side of a system with contact points: one phase, every contact in its mode.

The state is y = [q (nq), q' (nq), z (nc), W_N (nc), W_F (nc), W_d, W_tau] (the bristle deflection
of a LuGre contact, the work of each point's normal and friction force, the work of the modal
damping and of the bodies' drive torques)
and the discrete state of the phase is ``par`` = [mode, slip direction, stick anchor s*, approach
speed] per contact point.  Per point:

* a continuous (penalty) contact adds W_n^T N + W_t^T F_t with N of its normal law
  (:func:`flexlib.contact.penalty.normal_force`) while it penetrates, F_t = -mu N of its friction law;
* a constraint contact in CONTACT, STICK or SLIP holds Psi'' + 2 chi Psi' + beta^2 Psi = 0 with
  a multiplier N whose generalised force is (W_n + c W_t)^T N (c = F_t / N of its friction law:
  -dir mu_d in Coulomb slip, -mu(z, v_t) for LuGre, 0 without friction); in STICK the tangential
  position is held the same way by a second multiplier F_t along W_t.

A friction law from outside the package (:mod:`flexlib.multibody.laws`) is called through its
address ``S.laddr[c]`` with the point's own parameters ``S.lpar[c]``: this code is compiled once
for every such law.

All active constraints are solved together: X = M^-1 [Q | G^T], S = A X_G, S lambda = r - A X_Q
(one point's contact, stick and slip solves are its 1- and 2-row cases).  The
outputs per point (gap, v_n, v_t, s, N, F_t, Psi'', s'', the stick ratio -F_t / N) and the event
functions (gap; N; the stick margin mu_lim N - |F_t|; dir v_t) are written into ``out`` at
fixed slots, so that :mod:`flexlib.solver.integrator` can locate the events.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _jit
from .._jit import compiled, hot, inlined
from ..bodies.beam import P_G0, P_TAU, damping_power, potential_energies
from ..contact.friction import lugre_rates, modified_coulomb
from ..solver.linalg import ldlt_solve_into, solve_into, solve_rank_into
from ..contact.penalty import normal_force
from .assembly import (B_DRIVE, B_MASS, B_OMEGA, B_RAMP, B_TH0, J_ITH, J_NF, contact_rows_into,
                       mass_forces_into)
from .drives import spin_up
from .laws import law_at
from .structured import structured_kinetic, structured_solve_into

NC_MAX = 8                       # contact points per system (the size of the event vector)
NB_MAX = 4                       # bodies per system (the compiled code's tuple of bodies has this length)
FREE, CONTACT, STICK, SLIP = 0, 1, 2, 3
MODE_NAMES = ("FREE", "CONTACT", "STICK", "SLIP")
# contact methods and friction laws (columns 2 and 3 of ``cint``)
CONSTRAINT, PENALTY = 0, 1
# CUSTOM: a law from outside the package, at S.laddr[c], with its parameters S.lpar[c]
NO_FRICTION, COULOMB, LUGRE, MOD_COULOMB, CUSTOM = 0, 1, 2, 3, 4
# columns of the contact float table ``cflt`` (C_LIM: the friction ratio bounding a stick)
(C_E, C_K, C_N, C_D, C_C, C_MU_D, C_MU_S, C_SIGMA0, C_SIGMA1, C_SIGMA2, C_V_S, C_V0, C_V1,
 C_DV, C_LIM) = range(15)
NCFLT = 15
# the discrete state of a contact in ``par`` (4 per contact)
D_MODE, D_DIR, D_SSTAR, D_VIN = range(4)
# outputs: system values (T, V_E, V_G, the modal damping's power, the rank of the constraint
# rows, the torque of each body's hinge drive), then per contact NOC values, then the event functions
O_T, O_VE, O_VG, O_PD, O_RANK = range(5)
O_DRIVE = 5
# Redundant constraints (e.g. three collinear points of a rigid rod): the multipliers of the
# pivots below RANK_TOL times the largest are set to 0 (a basic solution; O_RANK: the rank).
RANK_TOL = 1e-10
# The smallest nq whose mass matrix is solved by its LDL^T factorization (linalg.ldlt_solve_into)
# rather than by Gaussian elimination (linalg.solve_into).  Measured (random SPD matrices, 1
# right-hand side, compiled loop, shared 2-core machine at load ~2), LDL^T against elimination:
# nq 5: 108 vs 123 ns; 6: 144 vs 174; 10: 357 vs 514; 11: 419 vs 643; 19: 1.26 vs 2.27 us;
# 35: 4.7 vs 10.9; 67: 23 vs 68; 131: 135 vs 494.  LDL^T is faster from nq = 5 or 6 on, but by
# at most 0.16 us below 11 (a few % of an evaluation), so the modal bases (nq = 1 + N or
# 3 + N <= 10) keep the elimination and their runs keep their bits.
LDLT_MIN_NQ = 11
# N_raw: a penalty law's force before the clip at 0 (0 at a constraint point)
OC_NAMES = ("gap", "v_n", "v_t", "s", "N", "F_t", "a_n", "a_t", "ratio", "zdot", "margin", "N_raw")
(OC_GAP, OC_VN, OC_VT, OC_S, OC_N, OC_FT, OC_AN, OC_AT, OC_RATIO, OC_ZDOT,
 OC_MARGIN, OC_NRAW) = range(len(OC_NAMES))
NOC = len(OC_NAMES)
O_C0 = O_DRIVE + NB_MAX
# gap: a free point reaches its obstacle (or a penalty point starts/stops penetrating); normal
# force: N falls to 0 (separation); stick margin: mu_lim N - |F_t| falls to 0 (stick -> slip);
# slip velocity: dir v_t crosses 0 (slip stop); stick drift: |v_t| exceeds Dv while sticking
# (constraint drift); slip arm: |v_t| exceeds Dv in a slip that began at rest (the slip stop is
# watched from then on); Painleve: the slip solve's margin falls to PAINLEVE_MIN
EVENT_KINDS = ("gap", "normal force", "stick margin", "slip velocity", "stick drift", "slip arm",
               "Painleve margin")
EV_GAP, EV_N, EV_STICK, EV_SLIP, EV_DRIFT, EV_ARM, EV_PAINLEVE = range(len(EVENT_KINDS))
# The smallest Painleve margin 1 + c S12/S11 of a slip solve (c = F_t / N) that is accepted: below
# it the normal force no longer follows from the state (the slip equation's denominator vanishes)
PAINLEVE_MIN = 1e-6
NEK = len(EVENT_KINDS)
O_EV = O_C0 + NOC * NC_MAX
NOUT = O_EV + NEK * NC_MAX
NEV = NEK * NC_MAX


def use_ldlt(nq: int) -> bool:
    """Whether a system of ``nq`` coordinates solves its mass matrix by LDL^T: nq >=
    :data:`LDLT_MIN_NQ` (read at each call, so that a test can move the threshold; the choice
    is stored in the system's arrays, ``SystemArrays.ldlt``)."""
    return nq >= LDLT_MIN_NQ


@compiled
def work_arrays(S):
    """The work arrays (ws, Mw, Xw) of :func:`phase_eval_into` for the system arrays ``S``."""
    nb = S.bint.shape[0]
    nq = S.nq
    db = 3 + S.bint[:, J_NF].max()
    nmax = max(S.nmax, 1)
    nc = max(S.cint.shape[0], 1)
    nr = 2 * nc + nb                 # constraint rows: two per sticking point, one per hinge drive
    ws = (np.zeros((nb, 2)), np.zeros((nb, 2)), np.zeros((nb, 2, nq)), np.zeros((nb, db)),
          np.zeros(2), np.zeros((2, db)), np.zeros(2), np.zeros((2, nq)), np.zeros(2),
          np.zeros((nb, db, db)), np.zeros((nb, db)),
          np.zeros((15, max(nmax * nmax, db, 16 * S.sypos.shape[1]))),
          np.zeros((db, nq)), np.zeros((nc, nq)), np.zeros((nc, nq)), np.zeros((nr, nq)),
          np.zeros((nr, nq)), np.zeros((nr, nr + 1)), np.zeros(nr),
          np.zeros(nr, dtype=np.int64), np.zeros(nr, dtype=np.int64), np.zeros(nr),
          np.zeros(nr, dtype=np.int64), np.zeros(nr, dtype=np.int64)) + _structured_work(S, nr, nc)
    return ws, np.zeros((nq, nq)) if not S.structured else np.zeros((1, 1)), \
        np.zeros((nq, 1 + nr + nc))


@compiled
def _structured_work(S, nr, nc):
    """ws[24:33] for the structured solve (flexlib.multibody.structured): the bodies' band
    matrices, pivots, factorization flags, a band vector, V, D^-1 V, the small system, its
    right-hand sides and the elastic parts of 2 T (size 1 when M is solved dense)."""
    nb = S.bint.shape[0]
    if S.structured:
        na = S.sna.max()
        w = 3 * S.skl.max() + 1
        nq = S.nq
        ns = S.fq.shape[0] + 6 * nb
    else:
        na, w, nq, ns = 1, 1, 1, 1
    return (np.zeros((nb, na, w)), np.zeros((nb, na), dtype=np.int64), np.ones(7 * nb), np.zeros(na),
            np.zeros((nq, 6 * nb)), np.zeros((nq, 6 * nb)), np.zeros((ns, ns)),
            np.zeros((ns, 1 + nr + nc)), np.zeros(nb))


@hot
def _friction_ratio(c, kind, mode, v_t, z, cf, dirn, S):
    """(c, z') of the constraint contact ``c``: F_t = c N in the mode ``mode``."""
    if kind == COULOMB and mode == SLIP:
        return -dirn * cf[C_MU_D], 0.0
    if kind == LUGRE and (mode == SLIP or mode == CONTACT):
        zd, mu = lugre_rates(v_t, z, cf[C_MU_D], cf[C_MU_S], cf[C_SIGMA0], cf[C_SIGMA1],
                             cf[C_SIGMA2], cf[C_V_S])
        return -mu, zd
    if kind == CUSTOM and (mode == SLIP or mode == CONTACT):
        zd, mu = law_at(S.laddr[c])(v_t, z, dirn if mode == SLIP else 0.0, S.lpar[c])
        return -mu, zd
    return 0.0, 0.0


@inlined
def _penalty_into(c, md, gap, v_n, v_t, z, cf, par, S, WN, WT, Xw, out, nq):
    """The penalty point ``c``'s normal force and friction (while it penetrates), added to the
    generalised forces in ``Xw[:, 0]``."""
    if md == FREE:
        return
    o = O_C0 + NOC * c
    N, raw = normal_force(gap, v_n, cf[C_K], cf[C_N], cf[C_D], cf[C_C], par[4 * c + D_VIN])
    kind = S.cint[c, 3]
    mu = 0.0
    zd = 0.0
    if kind == MOD_COULOMB:
        mu = modified_coulomb(v_t, cf[C_MU_D], cf[C_V0], cf[C_V1])
    elif kind == LUGRE:
        zd, mu = lugre_rates(v_t, z, cf[C_MU_D], cf[C_MU_S], cf[C_SIGMA0], cf[C_SIGMA1],
                             cf[C_SIGMA2], cf[C_V_S])
    elif kind == CUSTOM:
        zd, mu = law_at(S.laddr[c])(v_t, z, 0.0, S.lpar[c])
    F = -mu * N
    out[o + OC_N] = N
    out[o + OC_FT] = F
    out[o + OC_ZDOT] = zd
    out[o + OC_NRAW] = raw
    for i in range(nq):
        Xw[i, 0] += WN[c, i] * N + WT[c, i] * F


@inlined
def _constraint_rows(c, md, m, gap, v_n, v_t, sc, a_n, a_t, z, cf, par, S, WN, WT, G, A, r, act,
                     kin, out, nq):
    """Append the constraint rows of the closed point ``c`` (normal; tangential in STICK) with
    their Baumgarte targets; returns the new number of rows."""
    o = O_C0 + NOC * c
    cfr, zd = _friction_ratio(c, S.cint[c, 3], md, v_t, z, cf, par[4 * c + D_DIR], S)
    out[o + OC_ZDOT] = zd
    out[o + OC_RATIO] = cfr
    chi, beta = S.gflt[0], S.gflt[1]
    for i in range(nq):
        G[m, i] = WN[c, i] + cfr * WT[c, i]
        A[m, i] = WN[c, i]
    r[m] = -a_n - 2.0 * chi * v_n - beta * beta * gap
    act[m] = c
    kin[m] = 0
    m += 1
    if md == STICK:
        for i in range(nq):
            G[m, i] = WT[c, i]
            A[m, i] = WT[c, i]
        r[m] = -a_t - 2.0 * chi * v_t - beta * beta * (sc - par[4 * c + D_SSTAR])
        act[m] = c
        kin[m] = 1
        m += 1
    return m


@inlined
def _drive_rows(t, y, S, G, A, r, act, kin, out, m, nq):
    """Append the driving constraint of every driven hinge: theta'' = phi'' - 2 chi (theta' - phi')
    - beta^2 (theta - theta0 - phi) (:mod:`flexlib.multibody.drives`); returns the new number of
    rows.  Every body's drive torque output is reset (0 for a body not driven)."""
    chi, beta = S.gflt[0], S.gflt[1]
    for b in range(NB_MAX):
        out[O_DRIVE + b] = 0.0
    for b in range(S.bint.shape[0]):
        bf = S.bflt[b]
        if bf[B_DRIVE] == 0.0:
            continue
        ith = S.bint[b, J_ITH]
        ph, phd, phdd = spin_up(t, bf[B_OMEGA], bf[B_RAMP])
        for i in range(nq):
            G[m, i] = 0.0
            A[m, i] = 0.0
        G[m, ith] = 1.0
        A[m, ith] = 1.0
        r[m] = phdd - 2.0 * chi * (y[nq + ith] - phd) - beta * beta * (y[ith] - bf[B_TH0] - ph)
        act[m] = b
        kin[m] = 2
        m += 1
    return m


@inlined
def _solve_into(m, nq, spd, Mw, Xw, G, A, r, Sm, lam_, perm, act, kin, xcol, out, S, ws):
    """q'' into ``Xw[:, 0]`` with the ``m`` constraint rows solved together: X = M^-1 [Q | G^T],
    S lambda = r - A X_Q; the multipliers into the points' outputs (N, F_t, ratio), and the
    Painleve margin of every normal row with friction along it (G != A): S_kk / (A_k M^-1 A_k^T),
    i.e. 1 + c S12/S11 for one point (eq (75)'s denominator over its frictionless value).
    ``spd``: M is solved by LDL^T (else by Gaussian elimination), see :func:`use_ldlt`; a
    system with ``S.structured`` is solved through its structure
    (:func:`flexlib.multibody.structured.structured_solve_into`)."""
    for k in range(m):
        for i in range(nq):
            Xw[i, 1 + k] = G[k, i]
    ne = 0                 # extra columns M^-1 A_k^T for the normal rows with friction along them
    for k in range(m):
        if kin[k] == 0 and out[O_C0 + NOC * act[k] + OC_RATIO] != 0.0:
            for i in range(nq):
                Xw[i, 1 + m + ne] = A[k, i]
            xcol[ne] = k
            ne += 1
    if S.structured:
        structured_solve_into(nq, S.bint.shape[0], S.sith, S.snel, S.spos, S.sna, S.skl, S.fq,
                              ws[2], ws[9], ws[24], ws[25], ws[26], ws[27], ws[28], ws[29],
                              ws[30], ws[31], Xw, 1 + m + ne)
    elif spd:
        ldlt_solve_into(Mw, Xw, 1 + m + ne)
    else:
        solve_into(Mw, Xw, 1 + m + ne)
    if m == 0:
        return
    for k in range(m):
        v = r[k]
        for i in range(nq):
            v -= A[k, i] * Xw[i, 0]
        Sm[k, m] = v
        for l in range(m):
            s = 0.0
            for i in range(nq):
                s += A[k, i] * Xw[i, 1 + l]
            Sm[k, l] = s
    for j in range(ne):
        k = xcol[j]
        s11 = 0.0
        for i in range(nq):
            s11 += A[k, i] * Xw[i, 1 + m + j]
        out[O_C0 + NOC * act[k] + OC_MARGIN] = Sm[k, k] / s11 if s11 != 0.0 else 0.0
    for k in range(m):
        lam_[k] = Sm[k, m]
    out[O_RANK] = solve_rank_into(Sm[:m, :m], lam_[:m], perm, RANK_TOL)
    for i in range(nq):
        v = Xw[i, 0]
        for l in range(m):
            v += Xw[i, 1 + l] * lam_[l]
        Xw[i, 0] = v
    for k in range(m):
        lam = lam_[k]
        if kin[k] == 2:                  # a hinge drive: its torque
            out[O_DRIVE + act[k]] = lam
            continue
        o = O_C0 + NOC * act[k]
        if kin[k] == 0:
            out[o + OC_N] = lam
            if not (k + 1 < m and act[k + 1] == act[k] and kin[k + 1] == 1):
                out[o + OC_FT] = out[o + OC_RATIO] * lam
        else:
            out[o + OC_FT] = lam
            nn = out[o + OC_N]
            out[o + OC_RATIO] = -lam / nn if nn != 0.0 else 0.0


@inlined
def _rates_and_events(y, par, S, WN, WT, dy, out, nq, nc):
    """With q'' in ``dy``: each point's Psi'' and s'', the rates of z and of the works, and the
    event functions; the modal damping's power."""
    iz = 2 * nq
    pd = 0.0
    ptau = 0.0
    for b in range(S.bint.shape[0]):
        pd += damping_power(y, nq + S.bint[b, J_ITH], S.bodies[b], S.skbw[b])
        ptau += (S.bpar[b, P_TAU] + out[O_DRIVE + b]) * y[nq + S.bint[b, J_ITH]]
    out[O_PD] = pd
    for c in range(nc):
        o = O_C0 + NOC * c
        an = out[o + OC_AN]
        at = out[o + OC_AT]
        for i in range(nq):
            an += WN[c, i] * dy[nq + i]
            at += WT[c, i] * dy[nq + i]
        out[o + OC_AN] = an
        out[o + OC_AT] = at
        N = out[o + OC_N]
        F = out[o + OC_FT]
        dy[iz + c] = out[o + OC_ZDOT]
        dy[iz + nc + c] = N * out[o + OC_VN]
        dy[iz + 2 * nc + c] = F * out[o + OC_VT]
        cf = S.cflt[c]
        e0 = O_EV + NEK * c
        out[e0 + EV_GAP] = out[o + OC_GAP]
        out[e0 + EV_N] = N
        out[e0 + EV_STICK] = cf[C_LIM] * abs(N) - abs(F)
        dirn = par[4 * c + D_DIR]
        out[e0 + EV_SLIP] = (dirn if dirn != 0.0 else 1.0) * out[o + OC_VT]
        out[e0 + EV_DRIFT] = cf[C_DV] - abs(out[o + OC_VT])
        out[e0 + EV_ARM] = abs(out[o + OC_VT]) - cf[C_DV]
        out[e0 + EV_PAINLEVE] = out[o + OC_MARGIN] - PAINLEVE_MIN
    dy[iz + 3 * nc] = -pd
    dy[iz + 3 * nc + 1] = ptau


@inlined
def _energies_into(q, S, R, out):
    """V_E (with the axial part) and V_G [J] of all bodies into ``out``."""
    ve = 0.0
    vg = 0.0
    for b in range(S.bint.shape[0]):
        ith = S.bint[b, J_ITH]
        nf = S.bint[b, J_NF]
        e1, e2, e3 = potential_energies(q[ith:ith + 1 + nf], S.bpar[b], S.bodies[b], S.skbw[b],
                                        S.shbw[b])
        ve += e1 + e2
        vg += e3 + S.bflt[b, B_MASS] * S.bpar[b, P_G0] * R[b, 1]
    out[O_VE] = ve
    out[O_VG] = vg


@hot
def phase_eval_into(t, y, mode, model, mult, par, S, ws, Mw, Xw, dy, out, want_T):
    """dy/dt and the outputs of the phase whose contact modes are in ``par``, at (t, y), written
    into ``dy`` and ``out``; returns T = q'^T M q' / 2 if ``want_T``.  ``mode``, ``model`` and
    ``mult`` are the single-body kernel's arguments (the integrator passes them), unused here."""
    WN, WT, G, A, Sm, r, act, kin = ws[13], ws[14], ws[15], ws[16], ws[17], ws[18], ws[19], ws[20]
    nq = S.nq
    nc = S.cint.shape[0]
    q = y[:nq]
    qd = y[nq:2 * nq]
    # Q, kept in dy until q'' is known
    mass_forces_into(q, qd, S, ws, Mw, dy[nq:2 * nq], not S.structured)
    T = 0.0
    if want_T:
        if S.structured:
            T = structured_kinetic(S.bint.shape[0], S.sith, S.snel, qd, ws[1], ws[9], ws[32])
        else:
            for i in range(nq):
                for j in range(nq):
                    T += 0.5 * qd[i] * Mw[i, j] * qd[j]
    for i in range(nq):
        Xw[i, 0] = dy[nq + i]
    m = 0                                        # active constraint rows
    out[O_RANK] = 0.0
    for c in range(nc):
        o = O_C0 + NOC * c
        gap, v_n, v_t, sc, a_n, a_t = contact_rows_into(c, q, qd, S, ws, WN[c], WT[c])
        md = int(par[4 * c + D_MODE])
        z = y[2 * nq + c]
        out[o + OC_GAP] = gap
        out[o + OC_VN] = v_n
        out[o + OC_VT] = v_t
        out[o + OC_S] = sc
        out[o + OC_AN] = a_n
        out[o + OC_AT] = a_t
        out[o + OC_N] = 0.0
        out[o + OC_FT] = 0.0
        out[o + OC_RATIO] = 0.0
        out[o + OC_ZDOT] = 0.0
        out[o + OC_MARGIN] = 1.0
        out[o + OC_NRAW] = 0.0
        if S.cint[c, 2] == PENALTY:
            _penalty_into(c, md, gap, v_n, v_t, z, S.cflt[c], par, S, WN, WT, Xw, out, nq)
        elif md != FREE:
            m = _constraint_rows(c, md, m, gap, v_n, v_t, sc, a_n, a_t, z, S.cflt[c], par, S, WN,
                                 WT, G, A, r, act, kin, out, nq)
    m = _drive_rows(t, y, S, G, A, r, act, kin, out, m, nq)
    _solve_into(m, nq, S.ldlt, Mw, Xw, G, A, r, Sm, ws[21], ws[22], act, kin, ws[23], out, S,
                ws)
    for i in range(nq):
        dy[i] = qd[i]
        dy[nq + i] = Xw[i, 0]
    _rates_and_events(y, par, S, WN, WT, dy, out, nq, nc)
    if want_T:
        out[O_T] = T
        _energies_into(q, S, ws[0], out)
    return T


@hot
def event_values_into(out, epar, eoff, ev):
    """The event functions of ``out`` less their offsets, into ``ev``."""
    for i in range(NEV):
        ev[i] = out[O_EV + i] - eoff[i]


@hot
def _samples_into(ts, Y, discs, S, ws, Mw, Xw, y, dy, p, outs, R, Rd):
    """The loop of :func:`phase_eval_samples` (allocation-free)."""
    nb = S.bint.shape[0]
    for k in range(ts.shape[0]):
        for j in range(p.shape[0]):
            p[j] = discs[k, j]
        for j in range(y.shape[0]):
            y[j] = Y[k, j]
        phase_eval_into(ts[k], y, 0, 0, 0, p, S, ws, Mw, Xw, dy, outs[k], True)
        for b in range(nb):                 # the frame origins the evaluation placed in ws[0], ws[1]
            for i in range(2):
                R[k, b, i] = ws[0][b, i]
                Rd[k, b, i] = ws[1][b, i]


@compiled
def phase_eval_samples(ts, Y, discs, S):
    """The outputs (len(ts), NOUT) and the bodies' frame origins R, R' (len(ts), nb, 2) at every
    row of ``Y``, each with its own phase's discrete state ``discs[k]``: the samples of a whole
    run in one call (a call from Python costs ~10 us before it does any work, and a run's step
    histories have 10^4-10^5 samples)."""
    m = ts.shape[0]
    nb = S.bint.shape[0]
    ws, Mw, Xw = work_arrays(S)
    outs = np.empty((m, NOUT))
    R = np.empty((m, nb, 2))
    Rd = np.empty((m, nb, 2))
    _samples_into(ts, Y, discs, S, ws, Mw, Xw, np.empty(Y.shape[1]), np.empty(Y.shape[1]),
                  np.empty(discs.shape[1]), outs, R, Rd)
    return outs, R, Rd


def phase_eval(t, y, par, S):
    """(dy, out) at one state, for Python callers (allocates its work arrays)."""
    ws, Mw, Xw = work_arrays(S)
    dy = np.zeros(len(y))
    out = np.zeros(NOUT)
    phase_eval_into(float(t), np.asarray(y, float), 0, 0, 0, np.asarray(par, float), S, ws, Mw, Xw,
                    dy, out, True)
    return dy, out


_jit.flush_module(__name__)
