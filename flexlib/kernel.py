"""The right-hand side of every phase as one small function: the hot path of the simulator.

The same Python source is used twice: as plain NumPy (``phase_eval_py``) and, when numba is
installed and ``FLEXLIB_NO_NUMBA`` is not set, compiled with ``numba.njit(cache=True)``
(``phase_eval``).  Tests check that both give the same numbers.  Only ``np.dot`` on contiguous
1-D/2-D arrays, ``reshape``, ``np.outer`` and ``np.linalg.solve`` are used, so the function is
valid in both worlds.

Physics: MODEL.md 4.2 (M and Q, the paper's closed form written with the tensors T3, T4 of
:mod:`flexlib.modes`), 5 (tip contact kinematics), 7 (Baumgarte multiplier solves) and 8.2 (LuGre).

Codes: mode FREE=0, CONTACT=1, STICK=2, SLIP=3; model free=0, frictionless=1,
hybrid_coulomb=2, hybrid_lugre=3, lugre=4; mult coupled=0, printed=1.

``par`` packs the scalars: [J_ob, Rx0, g0, tau_d, L, nx, ny, tx, ty, X1, Y1, chi, beta,
mu_d, mu_s, sigma0, sigma1, sigma2, v_s, dir, s_star, atol_dummy].
The output vector ``out``: [N, F_t, zdot, mu, margin, cond_S, gap, s, v_n, v_t].
"""
from __future__ import annotations

import math
import os

import numpy as np

NPAR = 22
NOUT = 10


def mass_forces(q, qd, par, M2, M2mD, S_y, K2, T3r, T3tr, T4r, T4pr, Hbar, Sbar, C):
    """M(q) and Q(q, q') (no contact forces): eqs (13)-(17) corrected, tensor form."""
    n = q.shape[0] - 1
    B = q[1:].copy()
    Bd = qd[1:].copy()
    th = q[0]
    thd = qd[0]
    J_ob, Rx0, g0, tau = par[0], par[1], par[2], par[3]
    BB = np.outer(B, B).ravel()
    T4BB = np.dot(T4r, BB).reshape(n, n)          # int (B^T H B) H_ij   [i,j]
    P = np.dot(T4pr, BB).reshape(n, n)            # int (H B)_i (H B)_m
    v4 = np.dot(T4BB, B)                          # int (B^T H B)(H B)_i
    T3B = np.dot(T3r, B).reshape(n, n)            # [i,j] = T3[i,j,k] B_k
    BT3 = np.dot(T3tr, B).reshape(n, n)           # [j,i] = T3[j,k,i] B_k
    M2mDB = np.dot(M2mD, B)
    M = np.empty((n + 1, n + 1))
    M[0, 0] = J_ob + np.dot(B, M2mDB) + 0.25 * np.dot(v4, B)
    m21 = S_y + np.dot(T3B, B) - 0.5 * np.dot(B, BT3)
    for i in range(n):
        M[i + 1, 0] = m21[i]
        M[0, i + 1] = m21[i]
        for j in range(n):
            M[i + 1, j + 1] = M2[i, j] + P[i, j]
    HbarB = np.dot(Hbar, B)
    Rx = Rx0 - 0.5 * np.dot(B, HbarB)
    Ry = np.dot(Sbar, B)
    s = math.sin(th)
    c = math.cos(th)
    T4dd = np.dot(T4r, np.outer(Bd, Bd).ravel()).reshape(n, n)
    T3d = np.dot(T3r, Bd).reshape(n, n)           # [i,l] = T3[i,l,k] Bd_k
    BdT3 = np.dot(T3tr, Bd).reshape(n, n)         # [j,i] = T3[j,k,i] Bd_k
    Q = np.empty(n + 1)
    Q[0] = (tau - 2.0 * thd * np.dot(Bd, M2mDB) - thd * np.dot(v4, Bd)
            - np.dot(Bd, np.dot(T3B, Bd)) + g0 * (s * Ry - c * Rx))
    QB = (thd * thd * M2mDB - np.dot(K2, B) + 0.5 * thd * thd * v4 - np.dot(T4dd, B)
          + 2.0 * thd * (np.dot(B, BdT3) - np.dot(T3d, B))
          + g0 * (s * HbarB - c * Sbar) - np.dot(C, Bd))
    for i in range(n):
        Q[i + 1] = QB[i]
    return M, Q


def phase_eval(t, y, mode, model, mult, par, M2, M2mD, S_y, K2, T3r, T3tr, T4r, T4pr, Hbar,
               Sbar, C, Phi_L, H_L):
    """dy/dt of the phase ``mode`` and the algebraic outputs at (t, y)."""
    nd = (y.shape[0] - 5) // 2
    n = nd - 1
    q = y[:nd].copy()
    qd = y[nd:2 * nd].copy()
    iz = 2 * nd
    out = np.full(NOUT, np.nan)
    M, Q = mass_forces(q, qd, par, M2, M2mD, S_y, K2, T3r, T3tr, T4r, T4pr, Hbar, Sbar, C)
    dy = np.zeros(y.shape[0])
    Bd = qd[1:].copy()
    dy[iz + 3] = np.dot(Bd, np.dot(C, Bd))
    dy[iz + 4] = par[3] * qd[0]
    for i in range(nd):
        dy[i] = qd[i]
    if model == 0:
        qdd = np.linalg.solve(M, Q)
        for i in range(nd):
            dy[nd + i] = qdd[i]
        out[0] = 0.0
        out[1] = 0.0
        return dy, out
    # ---- tip contact kinematics (MODEL.md 5)
    L = par[4]
    nx, ny, tx, ty = par[5], par[6], par[7], par[8]
    B = q[1:].copy()
    th = q[0]
    thd = qd[0]
    HLB = np.dot(H_L, B)
    px = L - 0.5 * np.dot(B, HLB)
    py = np.dot(Phi_L, B)
    c = math.cos(th)
    s_ = math.sin(th)
    nfx = c * nx + s_ * ny
    nfy = -s_ * nx + c * ny
    tfx = c * tx + s_ * ty
    tfy = -s_ * tx + c * ty
    rx = c * px - s_ * py
    ry = s_ * px + c * py
    dx = rx - par[9]
    dyy = ry - par[10]
    gap = nx * dx + ny * dyy
    sc = tx * dx + ty * dyy
    X = np.empty((nd, 3))
    Pq = np.empty(nd)
    Gq = np.empty(nd)
    Pq[0] = -nfx * py + nfy * px
    Gq[0] = -tfx * py + tfy * px
    for i in range(n):
        Pq[i + 1] = -nfx * HLB[i] + nfy * Phi_L[i]
        Gq[i + 1] = -tfx * HLB[i] + tfy * Phi_L[i]
    for i in range(nd):
        X[i, 0] = Q[i]
        X[i, 1] = Pq[i]
        X[i, 2] = Gq[i]
    v_n = np.dot(Pq, qd)
    v_t = np.dot(Gq, qd)
    out[6] = gap
    out[7] = sc
    out[8] = v_n
    out[9] = v_t
    if mode == 0:
        qdd = np.linalg.solve(M, Q)
        for i in range(nd):
            dy[nd + i] = qdd[i]
        out[0] = 0.0
        out[1] = 0.0
        return dy, out
    pdx = -np.dot(HLB, Bd)
    pdy = np.dot(Phi_L, Bd)
    ax = -thd * thd * px - 2.0 * thd * pdy - np.dot(Bd, np.dot(H_L, Bd))
    ay = -thd * thd * py + 2.0 * thd * pdx
    gam_n = -(nfx * ax + nfy * ay)
    gam_t = -(tfx * ax + tfy * ay)
    chi, beta = par[11], par[12]
    gn = gam_n - 2.0 * chi * v_n - beta * beta * gap
    Xs = np.linalg.solve(M, X)
    a = Xs[:, 0].copy()
    mP = Xs[:, 1].copy()
    mG = Xs[:, 2].copy()
    s11 = np.dot(Pq, mP)
    r1 = gn - np.dot(Pq, a)
    N = 0.0
    F = 0.0
    if mode == 1 and model == 1:
        N = r1 / s11
    elif mode == 2:
        gt = gam_t - 2.0 * chi * v_t - beta * beta * (sc - par[20])
        s12 = np.dot(Pq, mG)
        s21 = np.dot(Gq, mP)
        s22 = np.dot(Gq, mG)
        r2 = gt - np.dot(Gq, a)
        if mult == 1:
            N = r1 / s11
            F = r2 / s22
        else:
            det = s11 * s22 - s12 * s21
            N = (r1 * s22 - s12 * r2) / det
            F = (s11 * r2 - s21 * r1) / det
        # 2x2 condition number (2-norm) from the singular values
        fro2 = s11 * s11 + s12 * s12 + s21 * s21 + s22 * s22
        dt2 = abs(s11 * s22 - s12 * s21)
        disc = math.sqrt(max(fro2 * fro2 - 4.0 * dt2 * dt2, 0.0))
        smax = math.sqrt(0.5 * (fro2 + disc))
        smin2 = 0.5 * (fro2 - disc)
        out[5] = smax / math.sqrt(smin2) if smin2 > 0.0 else np.inf
        if N != 0.0:
            out[3] = -F / N
    else:
        if model == 2:
            cf = -par[19] * par[13]
            out[3] = -cf
        else:
            mu_d, mu_s, s0, s1, s2, vs = par[13], par[14], par[15], par[16], par[17], par[18]
            z = y[iz]
            g = mu_d + (mu_s - mu_d) * math.exp(-(v_t / vs) ** 2)
            zd = v_t - s0 * abs(v_t) * z / g
            mu = s0 * z + s1 * zd + s2 * v_t
            out[2] = zd
            out[3] = mu
            dy[iz] = zd
            cf = -mu
        s12 = np.dot(Pq, mG)
        if mult == 1:
            N = r1 / s11
            out[4] = 1.0 + cf * s12 / s11
        else:
            den = s11 + cf * s12
            out[4] = den / s11
            N = r1 / den
        F = cf * N
    qdd = a + mP * N + mG * F
    for i in range(nd):
        dy[nd + i] = qdd[i]
    dy[iz + 1] = N * v_n
    dy[iz + 2] = F * v_t
    out[0] = N
    out[1] = F
    return dy, out


# Event functions (MODEL.md 8.4).  Index, name, direction of the zero crossing that counts.
EVENT_NAMES = ("CONTACT-ON", "SEPARATE", "STICK->SLIP", "STICK-DRIFT", "PAINLEVE", "SLIP-STOP", "ARM")
EVENT_DIRECTIONS = (-1.0, -1.0, -1.0, -1.0, -1.0, 0.0, 1.0)   # SLIP-STOP: see event_directions
NEV = 7


def event_values(out, epar):
    """Values of the 7 event functions from the phase outputs ``out``.

    ``epar`` = [mu_lim, Dv, painleve_min, slip_dir]: CONTACT-ON = gap; SEPARATE = N;
    STICK->SLIP = mu_lim N - |F_t|; STICK-DRIFT = Dv - |v_t|; PAINLEVE = margin - painleve_min;
    SLIP-STOP = slip_dir * v_t (slip_dir = 1 for LuGre, dir for Coulomb); ARM = |v_t| - Dv."""
    ev = np.empty(NEV)
    ev[0] = out[6]
    ev[1] = out[0]
    ev[2] = epar[0] * out[0] - abs(out[1])
    ev[3] = epar[1] - abs(out[9])
    ev[4] = out[4] - epar[2]
    ev[5] = epar[3] * out[9]
    ev[6] = abs(out[9]) - epar[1]
    return ev


COMPILED = False

if not os.environ.get("FLEXLIB_NO_NUMBA"):   # FLEXLIB_NO_NUMBA=1 selects the pure-NumPy path
    try:
        import numba as _nb
    except ImportError:      # pragma: no cover - numba is a declared dependency
        _nb = None
    if _nb is not None:
        # phase_eval calls the module-global mass_forces, which numba resolves to the
        # compiled version at compile time.
        mass_forces = _nb.njit(cache=True)(mass_forces)
        phase_eval = _nb.njit(cache=True)(phase_eval)
        event_values = _nb.njit(cache=True)(event_values)
        COMPILED = True
