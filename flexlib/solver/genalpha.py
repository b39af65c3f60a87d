"""A compiled generalized-alpha integrator for one phase of an event-driven simulation.

The second implicit counterpart of :mod:`flexlib.solver.integrator`'s DOP853, beside
:mod:`flexlib.solver.radau`, for a mechanical state y = [q, q', z, works] whose fastest modes
an explicit step would have to follow.  Radau IIA costs, per step, three stage evaluations per
Newton iteration and a real and a complex factorization whenever the step changes; the
generalized-alpha method of Chung & Hulbert (J. Appl. Mech. 60, 371-375, 1993), in the form of
Arnold & Bruels (Multibody Syst. Dyn. 18, 185-202, 2007) that satisfies the equations of motion
at the step's end, needs one evaluation per Newton iteration and one real factorization of the
size of q:

    (1 - alpha_m) abar_{n+1} + alpha_m abar_n = (1 - alpha_f) a_{n+1} + alpha_f a_n,
    q_{n+1} = q_n + h q'_n + h^2 (1/2 - beta) abar_n + h^2 beta abar_{n+1},
    q'_{n+1} = q'_n + h (1 - gamma) abar_n + h gamma abar_{n+1},
    a_{n+1} = q''(t_{n+1}, q_{n+1}, q'_{n+1})      (the right-hand side's acceleration rows),

with abar_0 = a_0 at a phase's start.  The coefficients come from the spectral radius at
infinity rho_inf: alpha_m = (2 rho - 1)/(rho + 1), alpha_f = rho/(rho + 1), gamma = 1/2 +
alpha_f - alpha_m, beta = (gamma + 1/2)^2 / 4: second order, unconditionally stable, and the
modes that a step does not resolve (omega h >> 1) are damped to rho_inf per step, those it
resolves hardly at all.  :data:`RHO_INF` = 0.8: with 1.0 nothing damps the unresolved modes of
a fine mesh and they drive the error control; lower values damp the resolved modes more.  The
energy this removes is not hidden: :mod:`flexlib.multibody.result` reports what the energy
books do not explain as the run's numerical dissipation.  The other states are integrated by
the trapezoidal rule, z_{n+1} = z_n + h (z'_n + z'_{n+1}) / 2 (the bristle states and the works,
so that a work is the trapezoidal quadrature of its power), by fixed-point iteration inside the
Newton iteration (their rows of the Jacobian are left out).

**The Newton iteration** is on a_{n+1}.  The residual R = a_{n+1} - q''(y_{n+1}) has the
derivative I - (h^2 beta / beta') J_q - (h gamma / beta') J_v (beta' = (1 - alpha_m) / (1 -
alpha_f), J_q, J_v the acceleration rows of the Jacobian); times lam^2 = beta' / (h^2 beta) it is
lam^2 I - J_q - lam' J_v with lam' = gamma / (h beta), which for rho_inf = 0.8 differs from lam by
0.4 %.  So the increment is the q-part of (lam I - J)^-1 [0, -lam^2 R], the reduced system that
:mod:`flexlib.solver.radau` solves, with the same Jacobian (forward differences of the unknown
columns, or a right-hand side's structured Newton matrix: banded for finite elements) and the
same real factorization; the iteration is simplified Newton, the factorization kept while the
step size is.  The iteration stops when the correction it would make to y_{n+1} is below
:data:`NEWTON_TOL` of the error tolerance (a looser iteration leaves velocity noise that excites
the high modes); the state last evaluated is then the step's end, so that its derivative is the
right-hand side there, exactly.

**The error estimate** covers the positions and the velocities, each by its local truncation
error for smooth motion.  The positions': h^3 (beta - 1/6) q''' ~ h^2 (beta - 1/6) (a_{n+1} - a_n)
(Zienkiewicz & Xie, Earthquake Eng. Struct. Dyn. 20, 871-887, 1991; Geradin & Cardona, Flexible
Multibody Dynamics, Wiley 2001, Sec. 12.5; with abar carried, abar_n = a(t_n + D h) + O(h^2),
D = alpha_m - alpha_f, the constant is beta - 1/6 + D/2, 28/324 against 46/324 for rho_inf =
0.8: the estimate errs on the safe side).  The velocities': their update and the trapezoidal
rule q'_n + h (a_n + a_{n+1}) / 2 are both of second order (gamma + D = 1/2), with local errors
C_v h^3 q'''' and h^3 q'''' / 12, C_v = :func:`velocity_error_constant` (29/324 for rho_inf =
0.8); so the step's own is C_v / (C_v - 1/12) times their difference (Milne's device for two
methods of one order, Lambert, Numerical Methods for Ordinary Differential Systems, Wiley 1991,
ch. 4): 14.5 times, since the two constants nearly agree.  With the positions' estimate alone the
velocities went unchecked: after the falling beam's landing at 64 elements and rtol 1e-3 the
horizontal centre-of-mass velocity, zero in the exact motion, reached 3.8e-2 m/s.  At a phase's
start abar_0 = a_0 is a(t_0) rather than a(t_0 + D h), and the velocities' estimate is of order
h^2 for the first steps (the offset halves, with alternating sign, every step): those steps come
out shorter than they need to be.  Both estimates are scaled as the other integrators scale
(atol + rtol |y|) into one root mean square, with the controller h_new = h 0.9 err^(-1/3); the
step and its factorization are kept while the proposed ratio lies in [1, 1.2], as in Radau.

**Dense output and events** are those of the other integrators: each step stores the cubic
Hermite interpolant of every state component through y and f at both ends, in the integrator's
three-row format (:func:`~flexlib.solver.integrator.dense_point`), and the events are compared
at the step's ends and located by the compiled Brent's method on that interpolant.  There are no
stage states to screen for a sign change that begins and ends inside one step (the Runge-Kutta
integrators screen theirs): such a change is not seen.  The steps in contact are short against
the episodes (microseconds in episodes of tenths of milliseconds), and a penalty contact's onset
is a sign change of the gap between two free-flight states, which the step's ends show.

Entry point: :func:`specialize` (the compiled ``integrate_phase`` of a right-hand side, with the
arguments and results of Radau's).
"""
from __future__ import annotations

import numpy as np

from . import integrator as _ig
from . import radau as _rd
from .integrator import (C_N, COMPILED, EVENT, GROW, NEWTON_FAILURE, NON_FINITE, OK, S_T, S_TEV,
                         TOO_SMALL_STEP, _active_events, _grown, _loop_stop, _put)
from .linalg import lu_factor as _lu_factor, lu_solve as _lu_solve
from .radau import CUR_JAC, H_ABS, H_LU, N_JAC, N_LU, N_REJ, N_RHS, _phase_result

__all__ = ["specialize", "coefficients", "velocity_error_constant", "RHO_INF", "NEWTON_TOL"]

RHO_INF = 0.8
NEWTON_TOL = 0.01           # the Newton correction accepted, in units of the error tolerance
NEWTON_MAXITER = 7
MIN_FACTOR, MAX_FACTOR = 0.2, 5.0
KEEP_LO, KEEP_HI = 1.0, 1.2     # keep h and its factorization while the proposed ratio is here
SLOW_RATE = 0.1                 # a Newton rate above this (after > 2 iterations): new Jacobian


def coefficients(rho_inf):
    """(alpha_m, alpha_f, gamma, beta) of the generalized-alpha method for rho_inf in [0, 1]."""
    am = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
    af = rho_inf / (rho_inf + 1.0)
    gamma = 0.5 + af - am
    return am, af, gamma, 0.25 * (gamma + 0.5) ** 2


AM, AF, GAMMA, BETA = coefficients(RHO_INF)
BPRIME = (1.0 - AM) / (1.0 - AF)
LAM_H = (BPRIME / BETA) ** 0.5          # lam = LAM_H / h
ERR_C = BETA - 1.0 / 6.0


def velocity_error_constant(rho_inf):
    """C_v of the velocity update's local error C_v h^3 q'''' for smooth motion (abar carried
    consistently, abar_n = a(t_n + D h) + c h^2 a'' with D = alpha_m - alpha_f,
    c = D (alpha_m - 1/2 - D/2))."""
    am, af, gamma, _ = coefficients(rho_inf)
    d = am - af
    c = d * (am - 0.5 - 0.5 * d)
    return 0.5 * (1.0 - gamma) * d * d + 0.5 * gamma * (1.0 + d) ** 2 + c - 1.0 / 6.0


# Milne's factor: the trapezoidal rule's velocity error is h^3 q''''/12, so the step's own is
# C_v / (C_v - 1/12) times the difference of the two updates (14.5 for rho_inf = 0.8)
C_V = velocity_error_constant(RHO_INF)
ERR_V = C_V / (C_V - 1.0 / 12.0)

# step-controller state ``ctl`` in radau's layout, which its _start_phase fills (the next step,
# the step of the factorization, whether the Jacobian is fresh), with 1 / the last accepted step
# (0 at a phase's start) in the slot radau keeps its last step in
INV_H_LAST = _rd.H_OLD


# ---------------------------------------------------------------- kernel-free pieces
def _hermite(y, y1, f, f1, h, Fn):
    """The cubic Hermite interpolant through (y, h f) and (y1, h f1) in the three-row format
    y + x (F0 + (1 - x)(F1 + x F2))."""
    for k in range(y.shape[0]):
        d = y1[k] - y[k]
        Fn[0, k] = d
        Fn[1, k] = h * f[k] - d
        Fn[2, k] = 2.0 * d - h * f[k] - h * f1[k]


def _state(y, f, abar, a1, h, n2, fz, y1, abar1):
    """y_{n+1} and abar_{n+1} from the acceleration guess ``a1``: the generalized-alpha update
    of q and q', the trapezoidal rule for the rest with their rates ``fz`` at the step's end."""
    c = 1.0 / (1.0 - AM)
    for i in range(n2):
        ab = (AF * f[n2 + i] + (1.0 - AF) * a1[i] - AM * abar[i]) * c
        abar1[i] = ab
        y1[i] = y[i] + h * y[n2 + i] + h * h * ((0.5 - BETA) * abar[i] + BETA * ab)
        y1[n2 + i] = y[n2 + i] + h * ((1.0 - GAMMA) * abar[i] + GAMMA * ab)
    for k in range(2 * n2, y.shape[0]):
        y1[k] = y[k] + 0.5 * h * (f[k] + fz[k])


def _error_norm(y, y1, f, a1, h, n2, atol, rtol):
    """The root mean square of the scaled local errors of the positions, h^2 (beta - 1/6)
    (a_{n+1} - a_n), and of the velocities, ERR_V (q'_{n+1} - q'_n - h (a_n + a_{n+1}) / 2)
    (Milne's device against the trapezoidal rule)."""
    s = 0.0
    for i in range(n2):
        e = h * h * ERR_C * (a1[i] - f[n2 + i])
        w = e / (atol[i] + rtol * max(abs(y[i]), abs(y1[i])))
        s += w * w
        j = n2 + i
        e = ERR_V * (y1[j] - y[j] - 0.5 * h * (f[j] + a1[i]))
        w = e / (atol[j] + rtol * max(abs(y[j]), abs(y1[j])))
        s += w * w
    return np.sqrt(s / max(2 * n2, 1))


def _build_x(J, n2, lam, M):
    """lam^2 I - lam J_v - J_q (the reduced Newton matrix without the first-order states)."""
    for i in range(n2):
        for j in range(n2):
            M[i, j] = -lam * J[n2 + i, n2 + j] - J[n2 + i, j]
        M[i, i] += lam * lam


def _solve_x(J, n2, lam, M, piv, r, d, u):
    """d[:n2] = (lam^2 I - lam J_v - J_q)^-1 r[n2:2 n2] (r[:n2] = 0)."""
    for i in range(n2):
        u[i] = r[n2 + i]
    _lu_solve(M, piv, u)
    for i in range(n2):
        d[i] = u[i]


def _predict_factor(err):
    if err == 0.0:
        return MAX_FACTOR
    return 0.9 * err ** (-1.0 / 3.0)


# ---------------------------------------------------------------- compiled core (calls the RHS)
def _factor_ga(lin, n2, h, arrs):
    lam = LAM_H / h
    if lin[10][0]:
        nt = lin[9]
        return _nt_factor(nt[0], nt[1], lam, arrs)
    _build_x(lin[0], n2, lam, lin[1])
    return _lu_factor(lin[1], lin[2])


def _solve_ga(lin, n2, nz, lam, r, d, arrs):
    if lin[10][0]:
        _nt_solve(lin[9][0], lin[9][1], arrs, lam, r, d, nz)
    else:
        _solve_x(lin[0], n2, lam, lin[1], lin[2], r, d, lin[3])


def _newton_ga(t, y, f, abar, a_old, inv_h_last, h, wk, lin, n2, nz, out, kx, atol, rtol):
    """The Newton iteration of one step of size h from (t, y): on success y_new (wk[7]) and
    f_new (wk[8]) hold the last evaluated state and its derivative, abar1 (wk[6]) its abar.
    Returns (converged, iterations, rate, RHS evaluations)."""
    mode, model, mult, par, arrs, ws = kx
    a1, r, d, scale, y1, f1, abar1 = wk[0], wk[1], wk[2], wk[3], wk[7], wk[8], wk[6]
    ny = y.shape[0]
    lam = LAM_H / h
    for i in range(n2):                 # the acceleration extrapolated from the last step
        a1[i] = f[n2 + i] + (f[n2 + i] - a_old[i]) * h * inv_h_last
    for k in range(ny):
        f1[k] = f[k]
    cq = h * h * BETA / BPRIME
    cv = h * GAMMA / BPRIME
    dw_old = -1.0
    rate = -1.0
    it = 0
    n_rhs = 0
    while it < NEWTON_MAXITER:
        _state(y, f, abar, a1, h, n2, f1, y1, abar1)
        _rhs(t + h, y1, mode, model, mult, par, arrs, ws, f1, out)
        n_rhs += 1
        it += 1
        ok = True
        for k in range(ny):
            if not np.isfinite(f1[k]):
                ok = False
        if not ok:
            break
        for k in range(ny):
            r[k] = 0.0
        for i in range(n2):
            r[n2 + i] = -lam * lam * (a1[i] - f1[n2 + i])
        _solve_ga(lin, n2, nz, lam, r, d, arrs)
        s = 0.0
        for i in range(n2):
            wq = cq * d[i] / scale[i]
            wv = cv * d[i] / scale[n2 + i]
            s += wq * wq + wv * wv
        dw = np.sqrt(s / max(2 * n2, 1))
        if dw_old >= 0.0:
            rate = dw / dw_old
            if rate >= 1.0:
                break
        if dw <= NEWTON_TOL or (rate >= 0.0 and rate / (1.0 - rate) * dw <= NEWTON_TOL):
            for k in range(2 * n2, ny):     # the trapezoidal rule with the rates at the end
                y1[k] = y[k] + 0.5 * h * (f[k] + f1[k])
            return True, it, rate, n_rhs
        for i in range(n2):
            a1[i] += d[i]
        dw_old = dw
    return False, it, rate, n_rhs


def _attempt_step_ga(t, t_end, y, f, abar, a_old, inv_h_last, ctl, cnt, min_step, wk, lin, n2,
                     nz, out, atol, rtol, kx):
    """One accepted step from (t, y): Newton with the Jacobian refreshed once if it fails, the
    step halved if it fails with a fresh one, shrunk by the controller while the error norm
    exceeds 1.  Returns (t_new, h, error norm, iterations, rate, code)."""
    arrs = kx[4]
    scale = wk[3]
    h_abs = ctl[H_ABS]
    newton_fail = False
    non_finite = False
    for k in range(y.shape[0]):
        scale[k] = atol[k] + abs(y[k]) * rtol
    while True:
        if h_abs < min_step:
            code = NEWTON_FAILURE if newton_fail else (NON_FINITE if non_finite else TOO_SMALL_STEP)
            return t, 0.0, 0.0, 0, 0.0, code
        t_new = t + h_abs
        if t_new - t_end > 0.0:
            t_new = t_end
        h = t_new - t
        h_abs = abs(h)
        converged = False
        n_iter = 0
        rate = -1.0
        while True:
            ok = ctl[H_LU] == h
            if not ok:
                ok = _factor_ga(lin, n2, h, arrs)
                cnt[N_LU] += 1
                ctl[H_LU] = h if ok else -1.0
            if ok:
                converged, n_iter, rate, nr = _newton_ga(t, y, f, abar, a_old, inv_h_last, h,
                                                         wk, lin, n2, nz, out, kx, atol, rtol)
                cnt[N_RHS] += nr
            if converged or ctl[CUR_JAC] != 0.0:
                break
            cnt[N_RHS] += _jacobian(t, y, f, lin, n2, nz, atol, rtol, wk[4], wk[5], out, kx)
            cnt[N_JAC] += 1
            ctl[CUR_JAC] = 1.0
            ctl[H_LU] = -1.0
        if not converged:
            h_abs *= 0.5
            ctl[H_LU] = -1.0
            newton_fail = True
            continue
        newton_fail = False
        norm = _error_norm(y, wk[7], f, wk[8][n2:2 * n2], h, n2, atol, rtol)
        if norm <= 1.0:
            return t_new, h, norm, n_iter, rate, OK
        if norm != norm:
            non_finite = True
            h_abs *= MIN_FACTOR
        else:
            h_abs *= max(MIN_FACTOR, _predict_factor(norm))
        cnt[N_REJ] += 1


def _next_step_ga(ctl, h_abs, norm, n_iter, rate):
    """The step after an accepted one of size ``h_abs``; returns whether to refresh the
    Jacobian."""
    refresh = n_iter > 2 and rate > SLOW_RATE
    factor = min(MAX_FACTOR, _predict_factor(norm))
    if not refresh and KEEP_LO <= factor <= KEEP_HI:
        factor = 1.0
    ctl[H_ABS] = h_abs * factor
    return refresh


def _ga_buffers(y0, arrs, cap, n2):
    """The buffers of a phase's step loop (storage, work vectors, the Jacobian and the reduced
    matrix in Radau's ``lin`` layout, the event arrays)."""
    ny = y0.shape[0]
    y_event = np.empty(ny)
    for k in range(ny):
        y_event[k] = np.nan
    store = (np.empty(cap), np.empty(cap), np.empty((cap, ny)), np.zeros((cap, 3, ny)))
    vec = np.zeros((13, ny))
    m = max(n2, 1)
    lin = (np.zeros((ny, ny)), np.zeros((m, m)), np.zeros(m, dtype=np.int64), np.zeros(m),
           np.zeros((1, 1), dtype=np.complex128), np.zeros(1, dtype=np.int64),
           np.zeros(1, dtype=np.complex128), np.zeros(1, dtype=np.complex128),
           np.zeros(1, dtype=np.complex128), _nt_arrays(arrs), np.zeros(1, dtype=np.bool_))
    ev = (np.zeros((2, _NEV)), np.zeros(_NEV, dtype=np.bool_), np.empty(_NEV), np.empty(_NEV),
          np.empty((2, _NEV)), np.empty(_NOUT),
          (np.empty(ny), np.empty(_NOUT), np.empty(_NEV)), y_event, _work_arrays(arrs))
    return store, vec, lin, ev


def integrate_phase(t0, y0, t_end, mode, model, mult, par, arrs, rtol, atol, max_step, first_step,
                    active, direction, epar, eoff, max_steps, dense, n2, nz):
    """Integrate dy/dt = phase_eval(t, y, ...)[0] from t0 to t_end with the generalized-alpha
    method: the arguments and the returned tuple of :func:`flexlib.solver.radau.integrate_phase`
    (``n_lu`` counts the real factorizations)."""
    cap = 64
    store, vec, lin, ev = _ga_buffers(y0, arrs, cap, n2)
    ts, hs, ys, Fs = store
    lin[10][0] = _nt_usable(par, arrs)
    G, hit, roots, xb, G2, out, scr, y_event, ws = ev
    kx = (mode, model, mult, par, arrs, ws)
    y, f = vec[9], vec[11]
    ctl = np.zeros(6)
    cnt = np.zeros(4, dtype=np.int64)
    if not _start_phase(t0, y0, t_end, rtol, atol, max_step, first_step, n2, nz, y, f, vec[4],
                        vec[5], ts, ys, G2[0], out, lin, ctl, cnt, kx, epar, eoff, 2):
        return 0, OK, ts[:1], hs[:0], ys[:1], Fs[:0], 0, np.nan, \
            y_event, cnt[N_RHS], 0, 0, 0, 0
    abar = vec[12]
    for i in range(n2):
        abar[i] = f[n2 + i]
        vec[10][i] = f[n2 + i]     # no previous step: a constant acceleration predicted
    ctl[INV_H_LAST] = 0.0
    st = np.empty(3)
    ct = np.zeros(6, dtype=np.int64)
    st[S_T] = t0
    st[S_TEV] = np.nan
    while True:
        status, code = _steps(t_end, mode, model, mult, par, arrs, rtol, atol, max_step, active,
                              direction, epar, eoff, max_steps, n2, nz, (ts, hs, ys, Fs), vec,
                              lin, ev, ctl, cnt, st, ct)
        if status != GROW:
            break
        ts, hs, ys, Fs = _grown(ts, hs, ys, Fs)
    return _phase_result(status, code, ts, hs, ys, Fs, st, ct, cnt, y_event)


def _steps(t_end, mode, model, mult, par, arrs, rtol, atol, max_step, active, direction, epar,
           eoff, max_steps, n2, nz, store, vec, lin, ev, ctl, cnt, st, ct):
    """The accepted steps of :func:`integrate_phase` from its state (as Radau's ``_steps``);
    y, f and abar at t live in ``vec``'s rows 9, 11 and 12 (the accepted step's y_new, f_new and
    abar1, rows 7, 8 and 6, are copied there), the last step's acceleration in row 10.
    Allocation-free."""
    ts, hs, ys, Fs = store
    cap = ts.shape[0]
    wk = (vec[0], vec[1], vec[2], vec[3], vec[4], vec[5], vec[6], vec[7], vec[8])
    G, hit, roots, xb, G2, out, scr, y_event, ws = ev
    kx = (mode, model, mult, par, arrs, ws)
    yq = vec[4]
    abar = vec[12]
    a_old = vec[10]
    t = st[S_T]
    n = ct[C_N]
    y = vec[9]
    f = vec[11]
    g, g_new = G2[0], G2[1]
    status, code = 0, OK
    while True:
        status, code = _loop_stop(n, ts, cap, max_steps)
        if status != 0:
            break
        min_step = 10.0 * abs(np.nextafter(t, np.inf) - t)
        if ctl[H_ABS] > max_step or ctl[H_ABS] < min_step:
            ctl[H_ABS] = max_step if ctl[H_ABS] > max_step else min_step
        t_new, h, norm, n_iter, rate, code = _attempt_step_ga(
            t, t_end, y, f, abar, a_old, ctl[INV_H_LAST], ctl, cnt, min_step, wk, lin, n2, nz, out,
            atol, rtol, kx)
        if code != OK:
            status = -1
            break
        refresh = _next_step_ga(ctl, abs(h), norm, n_iter, rate)
        y_new, f_new = wk[7], wk[8]
        _event_values_into(out, epar, eoff, g_new)
        any_hit = _active_events(g, g_new, active, direction, hit, xb, t_new)
        Fn = Fs[n]
        _hermite(y, y_new, f, f_new, h, Fn)
        n, stop = _end_step(t, t_new, h, Fn, y, y_new, yq, hit, xb, roots, mode, model, mult, par,
                            arrs, epar, eoff, ws, scr, store, n, y_event, st, ct)
        if stop:
            status, code = 1, EVENT
            break
        t = t_new
        for i in range(n2):
            a_old[i] = f[n2 + i]
        ctl[INV_H_LAST] = 1.0 / h
        _put(y, y_new)
        _put(f, f_new)
        for i in range(n2):
            abar[i] = wk[6][i]
        for i in range(_NEV):
            g[i] = g_new[i]
        if refresh:
            cnt[N_RHS] += _jacobian(t, y, f, lin, n2, nz, atol, rtol, yq, vec[5], scr[1], kx)
            cnt[N_JAC] += 1
            ctl[H_LU] = -1.0
        ctl[CUR_JAC] = 1.0 if refresh else 0.0
        if t_new - t_end >= 0.0:
            break
    st[S_T] = t
    ct[C_N] = n
    return status, code


# the right-hand side: set in the copy of these functions that specialize() compiles around one
_phase_eval_into = _event_values_into = _work_arrays = None
_nt_arrays = _nt_usable = _nt_store = _nt_factor = _nt_solve = None
_NOUT = _NEV = 0
_HOT = ("_hermite", "_state", "_error_norm", "_build_x", "_solve_x", "_predict_factor",
        "_next_step_ga")
_INLINED = _ig.SHARED + ("_initial_step", "_jacobian", "_start_phase", "_phase_result", "_factor_ga", "_solve_ga", "_newton_ga",
                         "_attempt_step_ga", "_ga_buffers")
if COMPILED:
    import numba as _nb
    from .. import _jit
    for _name in _HOT:
        globals()[_name] = _nb.njit(cache=True, **_jit.NO_REFCOUNT)(globals()[_name])

_SPECIALIZED = {}


def specialize(kern, cache=True, newton=None):
    """:func:`integrate_phase` compiled around the right-hand side ``kern`` and, optionally, its
    structured Newton matrix ``newton`` (as :func:`flexlib.solver.radau.specialize`)."""
    key = (id(kern), bool(cache), id(newton))
    if key not in _SPECIALIZED:
        base = {**vars(_ig), **vars(_rd), **globals()}
        for name in _ig.SHARED + ("_initial_step",):
            base[name] = getattr(_ig, name)
        # (radau's globals bring its difference Jacobian, ``_jacobian``, and the hooks of a
        # right-hand side without a structured Newton matrix)
        nt = newton if newton is not None else base["_NO_NEWTON"]
        base.update(_nt_arrays=nt.newton_arrays, _nt_usable=nt.newton_usable,
                    _nt_store=nt.newton_store, _nt_factor=nt.newton_factor,
                    _nt_solve=nt.newton_solve)
        g = _ig.compile_around(kern, base, _INLINED + ("_steps", "integrate_phase"), _INLINED,
                               ("_steps",), "genalpha.kernel-sha256", cache,
                               "" if newton is None else "_newton")
        _SPECIALIZED[key] = (kern, newton, g["integrate_phase"])
    return _SPECIALIZED[key][2]
