"""A compiled Radau IIA integrator (order 5, 3 stages) for one phase of an event-driven simulation.

The implicit counterpart of :mod:`flexlib.solver.integrator`'s DOP853, for right-hand sides
whose fastest modes an explicit step would have to follow (a beam meshed with many finite
elements: the highest elastic frequency grows like the square of the number of elements, and
an explicit step stays below ~2/omega_max however little those modes matter).  The method is
RADAU5 of Hairer & Wanner (Solving Ordinary Differential Equations II, 2nd ed., Springer 1996,
Sec. IV.8), as in :class:`scipy.integrate.Radau`:

* collocation at the three Radau points c = (4 - sqrt 6)/10, (4 + sqrt 6)/10, 1; the stage
  system is transformed with the eigenvectors of the Butcher matrix into one real and one complex
  linear system of the state's size, solved by simplified Newton iterations (at most 6) with the
  convergence-rate test of scipy (rate >= 1, or the predicted error after the remaining
  iterations above the Newton tolerance max(10 eps / rtol, min(0.03, sqrt rtol)), stops them);
* the error estimate (I - h gamma0 J)^-1 (f0 + sum e_i Z_i / h), filtered by the real system's
  factorization so that stiff components do not inflate it, and on a first step or after a
  rejection the second estimate through one more right-hand side evaluation;
* the predictive (Gustafsson) step-size controller with the safety factor that falls with the
  Newton iterations; the step size and the factorizations are kept when the proposed ratio lies
  within [1, 1.2] (RADAU5's QUOT1, QUOT2) and the Jacobian is reused until the Newton iteration
  converges slowly (more than 2 iterations at a rate above 1e-3) or fails;
* the Newton starting values extrapolated from the previous step's collocation polynomial.

**The Jacobian and the reduced Newton systems.**  ∂f/∂y is formed by forward differences of the
right-hand side, but only where it is unknown.  The state is split as [x, v, z, w] (sizes n2,
n2, nz, the rest): ``x' = v`` exactly (the generalized coordinates and their rates), ``z`` are
first-order states coupled to the rest (the LuGre bristles), ``w`` are quadratures (works) on
which no derivative depends.  So J = [[0, I, 0, 0], [Jxx, Jxv, Jxz, 0], [Jzx, Jzv, Jzz, 0],
[Jwx, Jwv, Jwz, 0]]: 2 n2 + nz difference columns, not n.  The linear systems (lam I - J) d = r
(lam = gamma/h real, or (alpha + i beta)/h complex) are reduced by eliminating dv = lam dx - r_x
and, after the solve, dw = (r_w + J_w d)/lam:

    [lam^2 I - lam Jxv - Jxx    -Jxz       ] [dx]   [r_v + lam r_x - Jxv r_x]
    [-(Jzx + lam Jzv)           lam I - Jzz] [dz] = [r_z - Jzv r_x          ]

of size n2 + nz instead of 2 n2 + 3 nz + 2: with nz small the two LU factorizations cost about
8 times less, and the elimination is exact (same iterates as the full system up to round-off).
With n2 = 0 and nz = n (a general first-order system) it is the full system.

**A structured Newton matrix.**  A right-hand side may bring its own Newton matrix
(:func:`specialize`'s ``newton``; :mod:`flexlib.multibody.newton` for the systems of elastic
bodies): then, in the phases where it says it applies, the "Jacobian" is what that matrix needs
of the state (one evaluation instead of 2 n2 + nz), and the two factorizations and the solves
are its own (for the finite-element bodies banded, O(n) instead of O(n^3) and O(n^2)).  Only
the Newton iteration's convergence and the error estimate's filter depend on it: the collocation
equations and the step control are the same.

Events and dense output are those of the DOP853 path: the collocation polynomial (a cubic
through y at t and the three stage states) is stored as the first three rows of the integrator's
format (DOP853's rows F[3:] would be zero: not stored, so a step keeps 4 ny numbers instead of
8 ny), and :func:`~flexlib.solver.integrator.dense_point`, ``dense_eval`` and
:class:`~flexlib.solver.integrator.PhaseSolution` use it unchanged; the event functions are
compared at the step's ends, screened at the two interior stage states, and located by the same
compiled Brent's method on the interpolant (:data:`~flexlib.solver.integrator.SHARED`, with the
same ``EVENT_TIE`` rule).

Radau IIA is L-stable: a mode that the step does not resolve (omega h >> 1) is damped, not
followed.  Its energy leaves the system numerically; :mod:`flexlib.multibody.result` reports it as
the run's numerical dissipation.

Entry point: :func:`specialize` (the compiled ``integrate_phase`` of a right-hand side).  Without
numba (``FLEXLIB_NO_NUMBA=1``) the same code runs as plain Python: correct, but slow.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from . import integrator as _ig
from .integrator import (C_EVT, C_MASK, C_N, C_ROW, COMPILED, EVENT, GROW, NEWTON_FAILURE,
                         NON_FINITE, OK, S_T, S_TEV, TOO_SMALL_STEP, _active_events, _grown,
                         _loop_stop, _put, dense_point)
from .linalg import lu_factor as _lu_factor, lu_solve as _lu_solve

__all__ = ["specialize", "C", "NEWTON_MAXITER"]

_S6 = 6.0 ** 0.5
C = np.array([(4.0 - _S6) / 10.0, (4.0 + _S6) / 10.0, 1.0])     # the collocation points
_CI = C[:2].copy()                   # the interior stage times (event screening)
_E = np.array([-13.0 - 7.0 * _S6, -13.0 + 7.0 * _S6, -1.0]) / 3.0
MU_REAL = 3.0 + 3.0 ** (2.0 / 3.0) - 3.0 ** (1.0 / 3.0)
MU_RE = 3.0 + 0.5 * (3.0 ** (1.0 / 3.0) - 3.0 ** (2.0 / 3.0))         # the complex eigenvalue
MU_IM = -0.5 * (3.0 ** (5.0 / 6.0) + 3.0 ** (7.0 / 6.0))
_T = np.array([[0.09443876248897524, -0.14125529502095421, 0.03002919410514742],
               [0.25021312296533332, 0.20412935229379994, -0.38294211275726192],
               [1.0, 1.0, 0.0]])
_TI = np.array([[4.17871859155190428, 0.32768282076106237, 0.52337644549944951],
                [-4.17871859155190428, -0.32768282076106237, 0.47662355450055044],
                [0.50287263494578682, -2.57192694985560522, 0.59603920482822492]])
_P = np.array([[13.0 / 3.0 + 7.0 * _S6 / 3.0, -23.0 / 3.0 - 22.0 * _S6 / 3.0,
                10.0 / 3.0 + 5.0 * _S6],
               [13.0 / 3.0 - 7.0 * _S6 / 3.0, -23.0 / 3.0 + 22.0 * _S6 / 3.0,
                10.0 / 3.0 - 5.0 * _S6],
               [1.0 / 3.0, -8.0 / 3.0, 10.0 / 3.0]])
NEWTON_MAXITER = 6
MIN_FACTOR, MAX_FACTOR = 0.2, 10.0
KEEP_LO, KEEP_HI = 1.0, 1.2         # RADAU5's QUOT1, QUOT2: keep h and the LU within this ratio
SLOW_RATE = 1e-3                    # a Newton rate above this (after > 2 iterations): new Jacobian
_SQRT_EPS = np.finfo(float).eps ** 0.5

# step-controller state (a float array ``ctl`` carried through the phase)
H_ABS, H_OLD, ERR_OLD, H_LU, CUR_JAC, FIRST = 0, 1, 2, 3, 4, 5
# counters (an int array ``cnt``)
N_RHS, N_JAC, N_LU, N_REJ = 0, 1, 2, 3
# the step loop's state handed between integrate_phase and _steps is the DOP853 loop's, floats
# ``st`` (integrator.S_*: t, the event time) and integers ``ct`` (integrator.C_*: steps, event
# evaluations, the events' bit mask, the row of the pairs y/f and g that holds the state at t),
# so that the loops share the end of a step (integrator._end_step); the slots for the step size
# and the RHS and rejection counters are unused here (``ctl``, ``cnt``)


# ---------------------------------------------------------------- linear algebra (kernel-free)
def _build(J, n2, nz, lam, M):
    """The reduced Newton matrix of (lam I - J) (module docstring) into ``M`` (n2 + nz square)."""
    for i in range(n2):
        for j in range(n2):
            M[i, j] = -lam * J[n2 + i, n2 + j] - J[n2 + i, j]
        M[i, i] += lam * lam
        for k in range(nz):
            M[i, n2 + k] = -J[n2 + i, 2 * n2 + k]
    for k in range(nz):
        for j in range(n2):
            M[n2 + k, j] = -(J[2 * n2 + k, j] + lam * J[2 * n2 + k, n2 + j])
        for m in range(nz):
            M[n2 + k, n2 + m] = -J[2 * n2 + k, 2 * n2 + m]
        M[n2 + k, n2 + k] += lam


def _factor(J, n2, nz, h, Mr, pr, Mc, pc):
    """Build and factorize the real and the complex reduced Newton matrices of step ``h``;
    False if either is singular."""
    _build(J, n2, nz, MU_REAL / h, Mr)
    _build(J, n2, nz, complex(MU_RE, MU_IM) / h, Mc)
    ok = _lu_factor(Mr, pr)
    return _lu_factor(Mc, pc) and ok


def _solve_sys(J, n2, nz, lam, M, piv, r, d, u):
    """d = (lam I - J)^-1 r through the reduced system (``M``, ``piv``: its factorization; ``u``:
    work of size n2 + nz)."""
    ny = r.shape[0]
    nx = 2 * n2 + nz
    for i in range(n2):
        acc = r[n2 + i] + lam * r[i]
        for j in range(n2):
            acc -= J[n2 + i, n2 + j] * r[j]
        u[i] = acc
    for k in range(nz):
        acc = r[2 * n2 + k]
        for j in range(n2):
            acc -= J[2 * n2 + k, n2 + j] * r[j]
        u[n2 + k] = acc
    _lu_solve(M, piv, u)
    for i in range(n2):
        d[i] = u[i]
        d[n2 + i] = lam * u[i] - r[i]
    for k in range(nz):
        d[2 * n2 + k] = u[n2 + k]
    for i in range(nx, ny):
        acc = r[i]
        for j in range(nx):
            acc += J[i, j] * d[j]
        d[i] = acc / lam


def _factor_any(lin, n2, nz, h, arrs):
    """:func:`_factor`, or with the phase's structured Newton matrix (``lin[10][0]``, the
    right-hand side's ``newton`` hooks: :func:`specialize`) its two factorizations."""
    if lin[10][0]:
        nt = lin[9]
        ok = _nt_factor(nt[0], nt[1], MU_REAL / h, arrs)
        return _nt_factor(nt[0], nt[2], complex(MU_RE, MU_IM) / h, arrs) and ok
    return _factor(lin[0], n2, nz, h, lin[1], lin[2], lin[4], lin[5])


def _solve_real(lin, n2, nz, lam, r, d, arrs):
    """d = (lam I - J)^-1 r for the real lam."""
    if lin[10][0]:
        _nt_solve(lin[9][0], lin[9][1], arrs, lam, r, d, nz)
    else:
        _solve_sys(lin[0], n2, nz, lam, lin[1], lin[2], r, d, lin[3])


def _solve_complex(lin, n2, nz, lam, r, d, arrs):
    """d = (lam I - J)^-1 r for the complex lam."""
    if lin[10][0]:
        _nt_solve(lin[9][0], lin[9][2], arrs, lam, r, d, nz)
    else:
        _solve_sys(lin[0], n2, nz, lam, lin[4], lin[5], r, d, lin[6])


def _rms1(v, scale):
    """sqrt(mean((v / scale)^2)) of a vector."""
    s = 0.0
    for k in range(v.shape[0]):
        w = v[k] / scale[k]
        s += w * w
    return np.sqrt(s / v.shape[0])


def _rms(v, scale):
    """sqrt(mean((v / scale)^2)) over the rows of ``v`` (each scaled by ``scale``)."""
    s = 0.0
    m = 0
    for r in range(v.shape[0]):
        for k in range(v.shape[1]):
            w = v[r, k] / scale[k]
            s += w * w
            m += 1
    return np.sqrt(s / m)


def _dense_cubic(Z, Fn):
    """The collocation polynomial y(t + x h) = y + Q [x, x^2, x^3] (Q = Z^T P) in the
    integrator's dense format, three rows: y + x (F0 + (1 - x)(F1 + x F2))."""
    for k in range(Z.shape[1]):
        a1 = Z[0, k] * _P[0, 0] + Z[1, k] * _P[1, 0] + Z[2, k] * _P[2, 0]
        a2 = Z[0, k] * _P[0, 1] + Z[1, k] * _P[1, 1] + Z[2, k] * _P[2, 1]
        a3 = Z[0, k] * _P[0, 2] + Z[1, k] * _P[1, 2] + Z[2, k] * _P[2, 2]
        Fn[0, k] = a1 + a2 + a3
        Fn[1, k] = -a2 - a3
        Fn[2, k] = -a3


def _predict(Fp, yp, tp, hp, t, h, y, Z, yq, have):
    """Newton starting values Z[i] = y(t + C[i] h) - y from the previous step's polynomial
    (``Fp``, ``yp`` at ``tp``, size ``hp``), or zeros without one."""
    for i in range(3):
        if have:
            dense_point(Fp, yp, (t + C[i] * h - tp) / hp, yq)
            for k in range(y.shape[0]):
                Z[i, k] = yq[k] - y[k]
        else:
            for k in range(y.shape[0]):
                Z[i, k] = 0.0


def _predict_factor(h_abs, h_old, err, err_old):
    """scipy's ``predict_factor``: Gustafsson's predictive controller (h_old <= 0: none)."""
    if err_old <= 0.0 or h_old <= 0.0 or err == 0.0:
        mult = 1.0
    else:
        mult = h_abs / h_old * (err_old / err) ** 0.25
    if err == 0.0:
        return np.inf
    return min(1.0, mult) * err ** -0.25


def _newton_rhs(Fst, W, h, rr, rc):
    """The transformed residuals of the collocation system: real and complex parts."""
    mr = MU_REAL / h
    mc = complex(MU_RE, MU_IM) / h
    for k in range(W.shape[1]):
        rr[k] = Fst[0, k] * _TI[0, 0] + Fst[1, k] * _TI[0, 1] + Fst[2, k] * _TI[0, 2] \
            - mr * W[0, k]
        acc = 0j
        for i in range(3):
            acc += Fst[i, k] * complex(_TI[1, i], _TI[2, i])
        rc[k] = acc - mc * complex(W[1, k], W[2, k])


def _transform(A, X, Y):
    """Y = A X for the 3 x 3 ``A`` and X (3, n)."""
    for k in range(X.shape[1]):
        x0, x1, x2 = X[0, k], X[1, k], X[2, k]
        for i in range(3):
            Y[i, k] = A[i, 0] * x0 + A[i, 1] * x1 + A[i, 2] * x2


def _finite(a):
    for r in range(a.shape[0]):
        for k in range(a.shape[1]):
            if not np.isfinite(a[r, k]):
                return False
    return True


# ---------------------------------------------------------------- compiled core (calls the RHS)
# Python compiles a call with more than 30 arguments into one that numba cannot inline, so the
# right-hand side's arguments travel as the tuple kx = (mode, model, mult, par, arrs, ws), the
# Newton arrays as nwt = (Z, W, dW, Fst), the linear algebra as lin = (J, Mr, pr, ur, Mc, pc, uc,
# rc, dc) and the work vectors as wk = (yq, fq, scale, err, e2, rr, dr).
def _jacobian(t, y, f, lin, n2, nz, atol, rtol, yq, fq, out, kx):
    """Forward-difference columns of J = df/dy for x, v and z (the quadrature columns are 0 and
    the rows of x' = v are known), or with the structured Newton matrix what it keeps of the
    state; returns the RHS evaluations made."""
    mode, model, mult, par, arrs, ws = kx
    J = lin[0]
    if lin[10][0]:
        _rhs(t, y, mode, model, mult, par, arrs, ws, fq, out)
        _nt_store(y, par, arrs, ws[0], out, lin[9][0])
        return 1
    ny = y.shape[0]
    ncol = 2 * n2 + nz
    _put(yq, y)
    for j in range(ncol):
        d = _SQRT_EPS * max(abs(y[j]), atol[j] / rtol)
        if d == 0.0:
            d = _SQRT_EPS
        yq[j] = y[j] + d
        d = yq[j] - y[j]
        _rhs(t, yq, mode, model, mult, par, arrs, ws, fq, out)
        yq[j] = y[j]
        for i in range(ny):
            J[i, j] = (fq[i] - f[i]) / d
    for i in range(ny):
        for j in range(ncol, ny):
            J[i, j] = 0.0
    return ncol


def _newton(t, y, h, nwt, wk, tol, lin, n2, nz, G, watch, out, kx, epar, eoff):
    """scipy's ``solve_collocation_system``: simplified Newton iterations on the stage
    increments Z (3, ny) from their starting values.  Returns (converged, iterations, rate,
    RHS evaluations); the event values at the interior stages go to G when ``watch``."""
    mode, model, mult, par, arrs, ws = kx
    Z, W, dW, Fst = nwt
    rc, dc = lin[7], lin[8]
    yq, scale, rr, dr = wk[0], wk[2], wk[5], wk[6]
    _transform(_TI, Z, W)
    dw_old = -1.0
    rate = -1.0
    converged = False
    it = 0
    n_rhs = 0
    while it < NEWTON_MAXITER:
        for i in range(3):
            for k in range(y.shape[0]):
                yq[k] = y[k] + Z[i, k]
            _rhs(t + C[i] * h, yq, mode, model, mult, par, arrs, ws, Fst[i], out)
            if watch and i < 2:
                _event_values_into(out, epar, eoff, G[i])
        n_rhs += 3
        it += 1
        if not _finite(Fst):
            break
        _newton_rhs(Fst, W, h, rr, rc)
        _solve_real(lin, n2, nz, MU_REAL / h, rr, dr, arrs)
        _solve_complex(lin, n2, nz, complex(MU_RE, MU_IM) / h, rc, dc, arrs)
        for k in range(y.shape[0]):
            dW[0, k] = dr[k]
            dW[1, k] = dc[k].real
            dW[2, k] = dc[k].imag
        dw = _rms(dW, scale)
        if dw_old >= 0.0:
            rate = dw / dw_old
        if rate >= 0.0 and (rate >= 1.0 or rate ** (NEWTON_MAXITER - it + 1) / (1.0 - rate) * dw
                            > tol):
            break
        for r in range(3):
            for k in range(y.shape[0]):
                W[r, k] += dW[r, k]
        _transform(_T, W, Z)
        if dw == 0.0 or (rate >= 0.0 and rate / (1.0 - rate) * dw < tol):
            converged = True
            break
        dw_old = dw
    return converged, it, rate, n_rhs


def _error_norm(t, y, y_new, f, Z, h, lin, n2, nz, second, atol, rtol, wk, out, kx):
    """scipy's Radau error estimate (I - h gamma0 J)^-1 (f + Z^T E / h), scaled; with
    ``second`` and an estimate above 1, the second estimate through f(t, y + err).  Returns
    (error norm, RHS evaluations)."""
    mode, model, mult, par, arrs, ws = kx
    yq, fq, err, e2, rr = wk[0], wk[1], wk[3], wk[4], wk[5]
    ny = y.shape[0]
    lam = MU_REAL / h
    for k in range(ny):
        e2[k] = (Z[0, k] * _E[0] + Z[1, k] * _E[1] + Z[2, k] * _E[2]) / h
        rr[k] = f[k] + e2[k]
        fq[k] = atol[k] + max(abs(y[k]), abs(y_new[k])) * rtol
    _solve_real(lin, n2, nz, lam, rr, err, arrs)
    norm = _rms1(err, fq)
    if not (second and norm > 1.0):
        return norm, 0
    for k in range(ny):
        yq[k] = y[k] + err[k]
    _rhs(t, yq, mode, model, mult, par, arrs, ws, rr, out)
    for k in range(ny):
        rr[k] += e2[k]
        e2[k] = fq[k]
    _solve_real(lin, n2, nz, lam, rr, err, arrs)
    return _rms1(err, e2), 1


def _attempt_step(t, t_end, y, f, y_new, ctl, cnt, min_step, nwt, wk, tol, lin, n2, nz, G, watch,
                  out, atol, rtol, prev, kx, epar, eoff):
    """One accepted step from (t, y) (scipy's ``Radau._step_impl``): Newton on the stages with
    the Jacobian refreshed once if it fails, the step halved if it fails with a fresh one, the
    step shrunk by the controller while the error norm exceeds 1.  Returns (t_new, h, error
    norm, Newton iterations, rate, code): code OK, or the reason the step fell below
    ``min_step`` (NEWTON_FAILURE, NON_FINITE, TOO_SMALL_STEP)."""
    Fp, yp, tp, hp, have_prev = prev
    Z = nwt[0]
    yq, fq, scale = wk[0], wk[1], wk[2]
    arrs = kx[4]
    h_abs = ctl[H_ABS]
    rejected = False
    newton_fail = False
    non_finite = False
    while True:
        if h_abs < min_step:
            code = NEWTON_FAILURE if newton_fail else (NON_FINITE if non_finite else TOO_SMALL_STEP)
            return t, 0.0, 0.0, 0, 0.0, code
        t_new = t + h_abs
        if t_new - t_end > 0.0:
            t_new = t_end
        h = t_new - t
        h_abs = abs(h)
        for k in range(y.shape[0]):
            scale[k] = atol[k] + abs(y[k]) * rtol
        converged = False
        n_iter = 0
        rate = -1.0
        while True:
            _predict(Fp, yp, tp, hp, t, h, y, Z, yq, have_prev)
            ok = ctl[H_LU] == h
            if not ok:
                ok = _factor_any(lin, n2, nz, h, arrs)
                cnt[N_LU] += 2
                ctl[H_LU] = h if ok else -1.0
            if ok:
                converged, n_iter, rate, nr = _newton(t, y, h, nwt, wk, tol, lin, n2, nz, G, watch,
                                                      out, kx, epar, eoff)
                cnt[N_RHS] += nr
            if converged or ctl[CUR_JAC] != 0.0:
                break
            cnt[N_RHS] += _jacobian(t, y, f, lin, n2, nz, atol, rtol, yq, fq, out, kx)
            cnt[N_JAC] += 1
            ctl[CUR_JAC] = 1.0
            ctl[H_LU] = -1.0
        if not converged:
            h_abs *= 0.5
            ctl[H_LU] = -1.0
            newton_fail = True
            continue
        newton_fail = False
        for k in range(y.shape[0]):
            y_new[k] = y[k] + Z[2, k]
        second = rejected or ctl[FIRST] != 0.0
        norm, ne = _error_norm(t, y, y_new, f, Z, h, lin, n2, nz, second, atol, rtol, wk, out, kx)
        cnt[N_RHS] += ne
        if norm <= 1.0:
            return t_new, h, norm, n_iter, rate, OK
        if norm != norm:
            non_finite = True
            h_abs *= MIN_FACTOR
        else:
            safety = 0.9 * (2 * NEWTON_MAXITER + 1) / (2 * NEWTON_MAXITER + n_iter)
            factor = _predict_factor(h_abs, ctl[H_OLD], norm, ctl[ERR_OLD])
            h_abs *= max(MIN_FACTOR, safety * factor)
        ctl[H_LU] = -1.0
        rejected = True
        cnt[N_REJ] += 1


def _next_step(ctl, h_abs, norm, n_iter, rate):
    """The step-size control after an accepted step of size ``h_abs``: the predictive
    controller's factor, kept at 1 (with the factorizations) within [KEEP_LO, KEEP_HI] unless
    the Jacobian is to be refreshed.  Updates ``ctl``; returns whether to refresh it."""
    refresh = n_iter > 2 and rate > SLOW_RATE
    safety = 0.9 * (2 * NEWTON_MAXITER + 1) / (2 * NEWTON_MAXITER + n_iter)
    factor = min(MAX_FACTOR, safety * _predict_factor(h_abs, ctl[H_OLD], norm, ctl[ERR_OLD]))
    if not refresh and KEEP_LO <= factor <= KEEP_HI:
        factor = 1.0
    ctl[H_OLD] = h_abs
    ctl[ERR_OLD] = max(1e-2, norm)          # RADAU5's ERRACC
    ctl[H_ABS] = h_abs * factor
    ctl[FIRST] = 0.0
    return refresh


def _radau_buffers(y0, arrs, cap, n2, nz):
    """Every buffer of a phase's step loop, allocated once: the storage (step times, sizes,
    states, dense coefficients; grown as needed), the Newton arrays (Z, W, dW, stage
    derivatives), the vectors (yq, fq, scale, err, e2, rr, dr, y, y_new, f, f_new), the
    Jacobian, the reduced real and complex matrices with their pivots and work vectors, and
    the event arrays (stage values, flags, roots, brackets, values at both ends, the outputs,
    Brent's scratch and the event state).  y and y_new are rows 7 and 8 of the vectors, f and
    f_new rows 9 and 10, the event values at both ends the two rows of one array: the step loop
    swaps each pair by an index."""
    ny = y0.shape[0]
    m = n2 + nz
    y_event = np.empty(ny)
    for k in range(ny):
        y_event[k] = np.nan
    store = (np.empty(cap), np.empty(cap), np.empty((cap, ny)), np.zeros((cap, 3, ny)))
    newton = (np.zeros((3, ny)), np.zeros((3, ny)), np.zeros((3, ny)), np.zeros((3, ny)))
    vec = np.zeros((11, ny))
    lin = (np.zeros((ny, ny)), np.zeros((m, m)), np.zeros(m, dtype=np.int64), np.zeros(m),
           np.zeros((m, m), dtype=np.complex128), np.zeros(m, dtype=np.int64),
           np.zeros(m, dtype=np.complex128), np.zeros(ny, dtype=np.complex128),
           np.zeros(ny, dtype=np.complex128), _nt_arrays(arrs), np.zeros(1, dtype=np.bool_))
    ev = (np.zeros((2, _NEV)), np.zeros(_NEV, dtype=np.bool_), np.empty(_NEV), np.empty(_NEV),
          np.empty((2, _NEV)), np.empty(_NOUT),
          (np.empty(ny), np.empty(_NOUT), np.empty(_NEV)), y_event, _work_arrays(arrs))
    return store, newton, vec, lin, ev


def _start_phase(t0, y0, t_end, rtol, atol, max_step, first_step, n2, nz, y, f, yq, fq, ts, ys, g,
                 out, lin, ctl, cnt, kx, epar, eoff, order):
    """The start of an implicit phase (this module's and :mod:`flexlib.solver.genalpha`'s): y and
    f = dy/dt at t0, the first stored point, the event values ``g`` there, the first step (for an
    error estimate of ``order``) into ``ctl[H_ABS]`` and a fresh Jacobian (``ctl``'s H_LU, CUR_JAC
    and ``cnt``'s counters set).  False if the phase is empty (t_end <= t0): nothing else done."""
    mode, model, mult, par, arrs, ws = kx
    _put(y, y0)
    ts[0] = t0
    _put(ys[0], y0)
    _rhs(t0, y, mode, model, mult, par, arrs, ws, f, out)
    cnt[N_RHS] = 1
    if not t_end > t0:
        return False
    _event_values_into(out, epar, eoff, g)
    if first_step > 0.0:
        ctl[H_ABS] = min(first_step, t_end - t0)
    else:
        ctl[H_ABS] = _initial_step(t0, y, f, t_end - t0, rtol, atol, max_step, mode, model, mult,
                                   par, arrs, ws, yq, fq, out, order)
        cnt[N_RHS] += 1
    cnt[N_RHS] += _jacobian(t0, y, f, lin, n2, nz, atol, rtol, yq, fq, out, kx)
    cnt[N_JAC] = 1
    ctl[CUR_JAC] = 1.0
    ctl[H_LU] = -1.0
    return True


def integrate_phase(t0, y0, t_end, mode, model, mult, par, arrs, rtol, atol, max_step, first_step,
                    active, direction, epar, eoff, max_steps, dense, n2, nz):
    """Integrate dy/dt = phase_eval(t, y, ...)[0] from t0 to t_end with Radau IIA.

    The arguments are those of :func:`flexlib.solver.integrator.integrate_phase` (``dense`` is
    ignored: every step keeps its collocation polynomial) and the state's structure (module
    docstring): y[:n2]' = y[n2:2 n2] exactly, ``nz`` coupled first-order states follow, the
    rest are quadratures.  Returns the tuple of the DOP853 path, ``(status, code, ts, hs, ys,
    Fs, ev_mask, t_event, y_event, n_rhs, n_evt, n_rej)``, followed by ``n_jac`` (Jacobians)
    and ``n_lu`` (LU factorizations); ``n_rhs`` counts every evaluation of the right-hand side
    but those of the event location (``n_evt``), the Jacobians' difference columns included."""
    cap = 64
    store, newton, vec, lin, ev = _radau_buffers(y0, arrs, cap, n2, nz)
    ts, hs, ys, Fs = store
    yq, fq = vec[0], vec[1]
    y, f = vec[7], vec[9]
    lin[10][0] = _nt_usable(par, arrs)
    G, hit, roots, xb, G2, out, scr, y_event, ws = ev
    kx = (mode, model, mult, par, arrs, ws)
    ctl = np.zeros(6)
    cnt = np.zeros(4, dtype=np.int64)
    if not _start_phase(t0, y0, t_end, rtol, atol, max_step, first_step, n2, nz, y, f, yq, fq,
                        ts, ys, G2[0], out, lin, ctl, cnt, kx, epar, eoff, 3):
        return 0, OK, ts[:1], hs[:0], ys[:1], Fs[:0], 0, np.nan, \
            y_event, cnt[N_RHS], 0, 0, 0, 0
    ctl[FIRST] = 1.0
    ctl[H_OLD] = ctl[ERR_OLD] = -1.0
    tol = max(10.0 * np.finfo(np.float64).eps / rtol, min(0.03, rtol ** 0.5))
    st = np.empty(3)                    # t, -, the event time (S_*)
    ct = np.zeros(6, dtype=np.int64)    # steps, -, event evaluations, -, the events' mask, the row (C_*)
    st[S_T] = t0
    st[S_TEV] = np.nan
    while True:
        # the step loop, compiled without reference counting (integrator.integrate_phase says why)
        status, code = _steps(t_end, mode, model, mult, par, arrs, rtol, atol, max_step, active,
                              direction, epar, eoff, max_steps, n2, nz, tol,
                              (ts, hs, ys, Fs), newton, vec, lin, ev, ctl, cnt, st, ct)
        if status != GROW:
            break
        ts, hs, ys, Fs = _grown(ts, hs, ys, Fs)
    return _phase_result(status, code, ts, hs, ys, Fs, st, ct, cnt, y_event)


def _phase_result(status, code, ts, hs, ys, Fs, st, ct, cnt, y_event):
    """What an implicit integrator's ``integrate_phase`` returns (the fourteen entries that
    :class:`~flexlib.solver.integrator.PhaseSolution` reads) from its step loop's state: views of
    the step storage, not copies (a copy would double a long phase's memory at its end; the
    buffers' unused capacity was never written, so it holds no memory)."""
    n = ct[C_N]
    return status, code, ts[:n + 1], hs[:n], ys[:n + 1], Fs[:n], \
        ct[C_MASK], st[S_TEV], y_event, cnt[N_RHS], ct[C_EVT], cnt[N_REJ], cnt[N_JAC], \
        cnt[N_LU]


def _steps(t_end, mode, model, mult, par, arrs, rtol, atol, max_step, active, direction, epar,
           eoff, max_steps, n2, nz, tol, store, newton, vec, lin, ev, ctl, cnt, st, ct):
    """The accepted steps of :func:`integrate_phase` from its state (``st``: t, the event time;
    ``ct``: steps n, event evaluations, the events' bit mask, the row pair of ``vec`` and
    ``G2`` holding y, f and the event values at t; ``ctl`` and ``cnt`` the step control and
    the counters).  Returns (status, code) as integrate_phase, or (GROW, OK) when the storage
    has no room for another step.  Allocation-free."""
    ts, hs, ys, Fs = store
    cap = ts.shape[0]
    yq, fq = vec[0], vec[1]
    wk = (vec[0], vec[1], vec[2], vec[3], vec[4], vec[5], vec[6])
    G, hit, roots, xb, G2, out, scr, y_event, ws = ev
    kx = (mode, model, mult, par, arrs, ws)
    Z = newton[0]
    watch = False
    for i in range(_NEV):
        watch = watch or active[i]
    t = st[S_T]
    n = ct[C_N]
    r = ct[C_ROW]
    y, y_new, f, f_new = vec[7 + r], vec[8 - r], vec[9 + r], vec[10 - r]
    g, g_new = G2[r], G2[1 - r]
    status, code = 0, OK
    while True:
        status, code = _loop_stop(n, ts, cap, max_steps)
        if status != 0:
            break
        min_step = 10.0 * abs(np.nextafter(t, np.inf) - t)
        if ctl[H_ABS] > max_step or ctl[H_ABS] < min_step:
            ctl[H_ABS] = max_step if ctl[H_ABS] > max_step else min_step
            ctl[H_OLD] = ctl[ERR_OLD] = -1.0
        p = max(n - 1, 0)
        hp = hs[p] if n > 0 else 1.0
        have_prev = n > 0
        prev = (Fs[p], ys[p], ts[p], hp, have_prev)
        t_new, h, norm, n_iter, rate, code = _attempt_step(
            t, t_end, y, f, y_new, ctl, cnt, min_step, newton, wk, tol, lin, n2, nz, G, watch, out,
            atol, rtol, prev, kx, epar, eoff)
        if code != OK:
            status = -1
            break
        refresh = _next_step(ctl, abs(h), norm, n_iter, rate)
        _rhs(t_new, y_new, mode, model, mult, par, arrs, ws, f_new, out)
        cnt[N_RHS] += 1
        _event_values_into(out, epar, eoff, g_new)
        if refresh:
            cnt[N_RHS] += _jacobian(t_new, y_new, f_new, lin, n2, nz, atol, rtol, yq, fq, scr[1],
                                    kx)
            cnt[N_JAC] += 1
            ctl[H_LU] = -1.0
        ctl[CUR_JAC] = 1.0 if refresh else 0.0
        # ---- events: as the DOP853 path (integrator.integrate_phase)
        any_hit = _active_events(g, g_new, active, direction, hit, xb, t_new)
        Fn = Fs[n]
        _dense_cubic(Z, Fn)
        if watch and not any_hit:
            ct[C_EVT] += _confirm_interior(t, h, Fn, y, yq, G, _CI, g, active, direction, hit,
                                            xb, mode, model, mult, par, arrs, epar, eoff, ws,
                                            scr)
        n, stop = _end_step(t, t_new, h, Fn, y, y_new, yq, hit, xb, roots, mode, model, mult, par,
                            arrs, epar, eoff, ws, scr, store, n, y_event, st, ct)
        if stop:
            status, code = 1, EVENT
            break
        t = t_new
        r = 1 - r
        y, y_new, f, f_new, g, g_new = y_new, y, f_new, f, g_new, g
        if t_new - t_end >= 0.0:
            break
    st[S_T] = t
    ct[C_N] = n
    ct[C_ROW] = r
    return status, code


# the right-hand side: set in the copy of these functions that specialize() compiles around one
_phase_eval_into = _event_values_into = _work_arrays = None
# the structured Newton matrix of the right-hand side (specialize's ``newton``), or none
_nt_arrays = _nt_usable = _nt_store = _nt_factor = _nt_solve = None
_NOUT = _NEV = 0
# allocation-free and kernel-free: compiled once here, without reference counting
_HOT = ("_build", "_factor", "_solve_sys", "_rms1", "_rms",
        "_dense_cubic", "_predict", "_predict_factor", "_newton_rhs", "_transform", "_finite",
        "_next_step")
# inlined into integrate_phase: the functions that evaluate the right-hand side (see
# integrator) and the one that hands back the phase (its views of the step storage)
_INLINED = _ig.SHARED + ("_initial_step", "_start_phase", "_phase_result", "_factor_any", "_solve_real", "_solve_complex", "_jacobian", "_newton", "_error_norm", "_attempt_step",
                         "_radau_buffers")
if COMPILED:
    import numba as _nb
    from .. import _jit
    for _name in _HOT:
        globals()[_name] = _nb.njit(cache=True, **_jit.NO_REFCOUNT)(globals()[_name])

_SPECIALIZED = {}


def specialize(kern, cache=True, newton=None):
    """:func:`integrate_phase` compiled around the right-hand side ``kern`` (a module as for
    :func:`flexlib.solver.integrator.specialize`), built once per right-hand side and cached on
    disk unless ``cache`` is False (for a second right-hand side whose arrays have the same
    types as a cached one's: numba keys its disk cache on the function and the argument types,
    not on the kernel compiled in).  ``newton``: a module with the right-hand side's structured
    Newton matrix (``newton_arrays(arrs)``, ``newton_usable(par, arrs)``, ``newton_store(y,
    par, arrs, ws, out, store)``, ``newton_factor(store, f, lam, arrs)``, ``newton_solve(store,
    f, arrs, lam, r, d, nz)``: :mod:`flexlib.multibody.newton`), used in the phases where it
    says it is usable instead of the difference Jacobian; None: always the difference
    Jacobian."""
    key = (id(kern), bool(cache), id(newton))
    if key not in _SPECIALIZED:
        base = {**vars(_ig), **globals()}
        for name in _ig.SHARED + ("_initial_step",):
            base[name] = getattr(_ig, name)
        nt = newton if newton is not None else _NO_NEWTON
        base.update(_nt_arrays=nt.newton_arrays, _nt_usable=nt.newton_usable,
                    _nt_store=nt.newton_store, _nt_factor=nt.newton_factor,
                    _nt_solve=nt.newton_solve)
        g = _ig.compile_around(kern, base, _INLINED + ("_steps", "integrate_phase"), _INLINED,
                               ("_steps",),
                               "radau.kernel-sha256", cache, "" if newton is None else "_newton")
        _SPECIALIZED[key] = (kern, newton, g["integrate_phase"])
    return _SPECIALIZED[key][2]


def _no_arrays(arrs):
    return np.zeros(1)


def _no_usable(par, arrs):
    return False


def _no_store(y, par, arrs, ws, out, st):
    pass


def _no_factor(st, f, lam, arrs):
    return False


def _no_solve(st, f, arrs, lam, r, d, nz):
    pass


if COMPILED:
    for _name in ("_no_arrays", "_no_usable", "_no_store", "_no_factor", "_no_solve"):
        globals()[_name] = _nb.njit(cache=True)(globals()[_name])
# the hooks of a right-hand side without a structured Newton matrix (never used)
_NO_NEWTON = SimpleNamespace(newton_arrays=_no_arrays, newton_usable=_no_usable,
                             newton_store=_no_store, newton_factor=_no_factor,
                             newton_solve=_no_solve)
