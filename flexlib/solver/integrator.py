"""A compiled Dormand-Prince 8(5,3) integrator for one phase of an event-driven simulation.

The same method as :class:`scipy.integrate.DOP853` (Hairer, Norsett & Wanner, Sec. II.4 and the
Fortran DOP853), written as one ``numba.njit(cache=True)`` loop around a right-hand side that it
is given (:func:`specialize`: a module with ``phase_eval_into``, ``event_values_into``,
``work_arrays``, ``NOUT`` and ``NEV``, such as :mod:`flexlib.multibody.kernel`; the integrator
knows no body, contact or case), so that a step costs the right-hand side evaluations and
little else (scipy's Python overhead is ~150 us per step).  The step loop allocates nothing: its
buffers are made once per phase, and the stages of one step attempt (:func:`_rk_stages`: 11
stages and the new state) are one call compiled without reference counting, to which the kernel
arrays are handed once per step rather than once per stage.  It reproduces scipy's algorithm:

* the same Butcher tableau, 5th/3rd order error estimators and error norm, SAFETY 0.9,
  MIN_FACTOR 0.2, MAX_FACTOR 10, ``select_initial_step``, ``max_step`` and the minimum step
  ``10 * ulp(t)``;
* the same 7th-order dense output (3 extra stages per step, as ``dense_output=True``);
* the same event logic as ``solve_ivp`` with terminal events: after each accepted step the event
  functions (``event_values_into`` of the ``out`` vector of the right-hand side) are
  compared with their values at the previous step (``find_active_events``: g <= 0 <= g_new for
  direction +1, g >= 0 >= g_new for -1, either for 0), every active event is located by Brent's
  method (scipy's ``brentq``, xtol = rtol = 4 eps) on the dense interpolant, and the phase stops
  at the earliest root.  Unlike ``solve_ivp`` all events whose root lies within ``EVENT_TIE`` of
  the earliest are reported (bit mask), so the caller can apply its priority rule.

Results agree with ``solve_ivp(method="DOP853")`` to within the tolerances, not bit for bit:
the error estimate is a small difference of large stage sums, so round-off in its summation
order (scipy sums with BLAS) moves step sizes by ~1e-6 relative and the step sequences drift
apart slowly (same step counts; event times typically agree to 1e-12..1e-15 s).

Entry points: :func:`specialize` (the compiled ``integrate_phase`` of a right-hand side),
:func:`dense_eval` (compiled) and :class:`PhaseSolution`, which wraps a phase's result like the
``OdeResult`` of ``solve_ivp(..., dense_output=True)`` (``t``, ``y``, ``sol``, ``status``,
``message``).

Without numba (``FLEXLIB_NO_NUMBA=1``) the same code runs as plain Python: correct, but slow.
"""
from __future__ import annotations

import os
import types

import numpy as np

from .. import _jit

__all__ = ["specialize", "dense_eval", "dense_point", "PhaseSolution", "ScipyPhase", "MESSAGES",
           "EVENT_TIE", "COMPILED"]

EVENT_TIE = 1e-15           # s: events whose roots are this close to the earliest fire together
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
ERR_EXP = -1.0 / 8.0        # -1 / (error estimator order 7 + 1)
BRENT_TOL = 4.0 * np.finfo(float).eps
BRENT_MAXITER = 100

# message codes (second return value of integrate_phase)
OK, EVENT, TOO_SMALL_STEP, NON_FINITE, MAX_STEPS, STEP_COLLAPSE = 0, 1, 2, 3, 4, 5
NEWTON_FAILURE = 6          # the implicit integrator (flexlib.solver.radau)
MESSAGES = {
    OK: "The solver successfully reached the end of the integration interval.",
    EVENT: "A termination event occurred.",
    TOO_SMALL_STEP: "Required step size is less than spacing between numbers.",
    NON_FINITE: "Required step size is less than spacing between numbers (non-finite values in "
                "the right-hand side or its error estimate).",
    MAX_STEPS: "The maximum number of steps was exceeded.",
    STEP_COLLAPSE: "The step size collapsed: the mean of the last 20000 accepted steps fell "
                   "below 1e-9 s (an extremely stiff right-hand side).",
    NEWTON_FAILURE: "The Newton iteration of the implicit stages did not converge, even with a "
                    "fresh Jacobian, before the step was halved below the spacing between "
                    "numbers (a right-hand side that is not smooth within the step, or "
                    "non-finite values).",
}

# Step-collapse guard.  Every step's dense output is stored (~1-2 kB per step), so an explicit
# integrator whose step shrinks to ~1e-11 s (e.g. the LuGre bristle equation with g(v) -> 0)
# would fill the memory long before the step budget ends.  A phase whose last COLLAPSE_WINDOW
# accepted steps cover less than COLLAPSE_WINDOW * COLLAPSE_STEP of time fails with
# STEP_COLLAPSE.  Legitimate phases of this model take steps of 1e-7..1e-3 s (the kHz axial
# modes included; LuGre with sigma0 = 1e6 1/m and mu_d = 1e-3 at 1 m/s needs ~3e-9 s), above
# COLLAPSE_STEP.  The step budget of a phase (``max_steps`` of :func:`integrate_phase`, 2e6 steps,
# at most ~3 GB of dense output at N = 8) bounds what the guard cannot see.
COLLAPSE_WINDOW = 20_000
COLLAPSE_STEP = 1e-9        # s

# ---------------------------------------------------------------- DOP853 coefficients
# Identical doubles to scipy/integrate/_ivp/dop853_coefficients.py (BSD-3-Clause, from
# E. Hairer's DOP853), stored sparsely.
_C = np.array([0.0, 0.05260015195876773, 0.0789002279381516, 0.1183503419072274, 0.2816496580927726,
               0.3333333333333333, 0.25, 0.3076923076923077, 0.6512820512820513, 0.6,
               0.8571428571428571, 1.0, 1.0, 0.1, 0.2, 0.7777777777777778])
_A = np.zeros((16, 16))
for _i, _j, _v in (
        (1, 0, 0.05260015195876773), (2, 0, 0.0197250569845379), (2, 1, 0.0591751709536137),
        (3, 0, 0.02958758547680685), (3, 2, 0.08876275643042054), (4, 0, 0.2413651341592667),
        (4, 2, -0.8845494793282861), (4, 3, 0.924834003261792), (5, 0, 0.037037037037037035),
        (5, 3, 0.17082860872947386), (5, 4, 0.12546768756682242), (6, 0, 0.037109375),
        (6, 3, 0.17025221101954405), (6, 4, 0.06021653898045596), (6, 5, -0.017578125),
        (7, 0, 0.03709200011850479), (7, 3, 0.17038392571223998), (7, 4, 0.10726203044637328),
        (7, 5, -0.015319437748624402), (7, 6, 0.008273789163814023), (8, 0, 0.6241109587160757),
        (8, 3, -3.3608926294469414), (8, 4, -0.868219346841726), (8, 5, 27.59209969944671),
        (8, 6, 20.154067550477894), (8, 7, -43.48988418106996), (9, 0, 0.47766253643826434),
        (9, 3, -2.4881146199716677), (9, 4, -0.590290826836843), (9, 5, 21.230051448181193),
        (9, 6, 15.279233632882423), (9, 7, -33.28821096898486), (9, 8, -0.020331201708508627),
        (10, 0, -0.9371424300859873), (10, 3, 5.186372428844064), (10, 4, 1.0914373489967295),
        (10, 5, -8.149787010746927), (10, 6, -18.52006565999696), (10, 7, 22.739487099350505),
        (10, 8, 2.4936055526796523), (10, 9, -3.0467644718982196), (11, 0, 2.273310147516538),
        (11, 3, -10.53449546673725), (11, 4, -2.0008720582248625), (11, 5, -17.9589318631188),
        (11, 6, 27.94888452941996), (11, 7, -2.8589982771350235), (11, 8, -8.87285693353063),
        (11, 9, 12.360567175794303), (11, 10, 0.6433927460157636), (12, 0, 0.054293734116568765),
        (12, 5, 4.450312892752409), (12, 6, 1.8915178993145003), (12, 7, -5.801203960010585),
        (12, 8, 0.3111643669578199), (12, 9, -0.1521609496625161), (12, 10, 0.20136540080403034),
        (12, 11, 0.04471061572777259), (13, 0, 0.056167502283047954), (13, 6, 0.25350021021662483),
        (13, 7, -0.2462390374708025), (13, 8, -0.12419142326381637), (13, 9, 0.15329179827876568),
        (13, 10, 0.00820105229563469), (13, 11, 0.007567897660545699), (13, 12, -0.008298),
        (14, 0, 0.03183464816350214), (14, 5, 0.028300909672366776), (14, 6, 0.053541988307438566),
        (14, 7, -0.05492374857139099), (14, 10, -0.00010834732869724932),
        (14, 11, 0.0003825710908356584), (14, 12, -0.00034046500868740456),
        (14, 13, 0.1413124436746325), (15, 0, -0.42889630158379194),
        (15, 5, -4.697621415361164), (15, 6, 7.683421196062599), (15, 7, 4.06898981839711),
        (15, 8, 0.3567271874552811), (15, 12, -0.0013990241651590145), (15, 13, 2.9475147891527724),
        (15, 14, -9.15095847217987),
):
    _A[_i, _j] = _v
_B = _A[12, :12].copy()
_E3 = np.array([-0.18980075407240762, 0.0, 0.0, 0.0, 0.0, 4.450312892752409, 1.8915178993145003,
                -5.801203960010585, -0.4226823213237919, -0.1521609496625161, 0.20136540080403034,
                0.02265179219836082, 0.0])
_E5 = np.array([0.01312004499419488, 0.0, 0.0, 0.0, 0.0, -1.2251564463762044, -0.4957589496572502,
                1.6643771824549864, -0.35032884874997366, 0.3341791187130175, 0.08192320648511571,
                -0.022355307863886294, 0.0])
_D = np.zeros((4, 16))
for _i, _j, _v in (
        (0, 0, -8.428938276109013), (0, 5, 0.5667149535193777), (0, 6, -3.0689499459498917),
        (0, 7, 2.38466765651207), (0, 8, 2.117034582445028), (0, 9, -0.871391583777973),
        (0, 10, 2.2404374302607883), (0, 11, 0.6315787787694688), (0, 12, -0.08899033645133331),
        (0, 13, 18.148505520854727), (0, 14, -9.194632392478356), (0, 15, -4.436036387594894),
        (1, 0, 10.427508642579134), (1, 5, 242.28349177525817), (1, 6, 165.20045171727028),
        (1, 7, -374.5467547226902), (1, 8, -22.113666853125306), (1, 9, 7.733432668472264),
        (1, 10, -30.674084731089398), (1, 11, -9.332130526430229), (1, 12, 15.697238121770845),
        (1, 13, -31.139403219565178), (1, 14, -9.35292435884448), (1, 15, 35.81684148639408),
        (2, 0, 19.985053242002433), (2, 5, -387.0373087493518), (2, 6, -189.17813819516758),
        (2, 7, 527.8081592054236), (2, 8, -11.57390253995963), (2, 9, 6.8812326946963),
        (2, 10, -1.0006050966910838), (2, 11, 0.7777137798053443), (2, 12, -2.778205752353508),
        (2, 13, -60.19669523126412), (2, 14, 84.32040550667716), (2, 15, 11.99229113618279),
        (3, 0, -25.69393346270375), (3, 5, -154.18974869023643), (3, 6, -231.5293791760455),
        (3, 7, 357.6391179106141), (3, 8, 93.40532418362432), (3, 9, -37.45832313645163),
        (3, 10, 104.0996495089623), (3, 11, 29.8402934266605), (3, 12, -43.53345659001114),
        (3, 13, 96.32455395918828), (3, 14, -39.17726167561544), (3, 15, -149.72683625798564),
):
    _D[_i, _j] = _v


# ---------------------------------------------------------------- compiled core
def _rhs(t, y, mode, model, mult, par, arrs, ws, dy, out):
    """dy/dt into ``dy`` and the phase outputs into ``out`` (``ws``: the kernel's work arrays)."""
    _phase_eval_into(t, y, mode, model, mult, par, arrs, ws[0], ws[1], ws[2], dy, out, False)


def _put(dst, src):
    """dst[:] = src for 1-D arrays (an explicit loop: numba's slice assignment compiles a
    costly shape-mismatch error path for every array type)."""
    for k in range(src.shape[0]):
        dst[k] = src[k]


def _grow(a, cap):
    """A copy of the C-contiguous array ``a`` with the first axis enlarged to ``cap``."""
    b = np.empty((cap,) + a.shape[1:])
    af = a.reshape(-1)
    bf = b.reshape(-1)
    for k in range(af.shape[0]):
        bf[k] = af[k]
    return b


def _grown(ts, hs, ys, Fs):
    """The step storage of a phase (times, sizes, states, interpolants) with twice the room:
    what every step loop's ``integrate_phase`` does when its ``_steps`` returns ``GROW``."""
    cap = 2 * ts.shape[0]
    return _grow(ts, cap), _grow(hs, cap), _grow(ys, cap), _grow(Fs, cap)


def _stage(K, s, y, h, dst):
    """dst = y + h * sum_j A[s, j] K[j] (the argument of stage s; s = 12 gives y_new)."""
    for k in range(y.shape[0]):
        acc = 0.0
        for j in range(s):
            acc += K[j, k] * _A[s, j]
        dst[k] = y[k] + acc * h


def _rms2(v, scale):
    s = 0.0
    for k in range(v.shape[0]):
        w = v[k] / scale[k]
        s += w * w
    return s


def dense_point(F, y_old, x, yq):
    """scipy's Dop853DenseOutput at x = (t - t_old) / h, written into yq: y_old + x (F0 + (1 - x)
    (F1 + x (F2 + ...))) over F's rows (7 for DOP853, 3 for Radau's cubic)."""
    r = F.shape[0]
    for k in range(y_old.shape[0]):
        v = 0.0
        for j in range(r - 1, -1, -1):
            v += F[j, k]
            if j % 2 == 0:
                v *= x
            else:
                v *= 1.0 - x
        yq[k] = v + y_old[k]


def _stage_events(G, s, out, epar, eoff):
    """G[s] = the event values at stage s's state (offsets subtracted)."""
    _event_values_into(out, epar, eoff, G[s])


def _flips(g0, v, direction):
    """True if an event function that was g0 at the step start has crossed zero to v in the
    event's direction (strictly: a value of exactly 0 at either end is handled at the ends)."""
    if direction < 0.0:
        return g0 > 0.0 and v < 0.0
    if direction > 0.0:
        return g0 < 0.0 and v > 0.0
    return (g0 > 0.0 and v < 0.0) or (g0 < 0.0 and v > 0.0)


def _stage_flip(G, C, s_lo, s_hi, i, g0, direction):
    """The smallest stage time c in (0, 1) among stages s_lo..s_hi-1 (stage s at time C[s] of
    the step; c < 1 only) whose event value i has flipped sign from g0 in the event's
    direction; 1.0 if none."""
    best = 1.0
    for s in range(s_lo, s_hi):
        c = C[s]
        if c < best and _flips(g0, G[s, i], direction):
            best = c
    return best


def _stage_flip_after(G, C, lo, i, g0, direction):
    """As :func:`_stage_flip` over every stage whose time c lies in (lo, 1) (for DOP853 the
    stages 1..10 and the dense stages 13..15: stage 0 is at c = 0, stages 11 and 12 at c = 1)."""
    best = 1.0
    for s in range(C.shape[0]):
        c = C[s]
        if lo < c < best and _flips(g0, G[s, i], direction):
            best = c
    return best


def _event_at(tq, i, t_old, h, F, y_old, yq, mode, model, mult, par, arrs, epar, eoff, ws, scr):
    """Event function i on the interpolant at tq (``scr``: scratch (dy, out, ev) arrays)."""
    dense_point(F, y_old, (tq - t_old) / h, yq)
    _rhs(tq, yq, mode, model, mult, par, arrs, ws, scr[0], scr[1])
    _event_values_into(scr[1], epar, eoff, scr[2])
    return scr[2][i]


def _brentq(i, xa, xb, t_old, h, F, y_old, yq, mode, model, mult, par, arrs, epar, eoff, ws, scr):
    """Root of event i on [xa, xb]: scipy's brentq (zeros.c) with xtol = rtol = 4 eps.
    Returns (root, number of event evaluations)."""
    xpre, xcur = xa, xb
    xblk, fblk, spre, scur = 0.0, 0.0, 0.0, 0.0
    fpre = _event_at(xpre, i, t_old, h, F, y_old, yq, mode, model, mult, par, arrs, epar, eoff,
                     ws, scr)
    fcur = _event_at(xcur, i, t_old, h, F, y_old, yq, mode, model, mult, par, arrs, epar, eoff,
                     ws, scr)
    nev = 2
    if fpre == 0.0:
        return xpre, nev
    if fcur == 0.0:
        return xcur, nev
    if (fpre < 0.0) == (fcur < 0.0):
        # the interpolated end values do not bracket (round-off between y_new and the
        # interpolant at t_new): the crossing is at the end with the smaller |g|
        return (xpre if abs(fpre) < abs(fcur) else xcur), nev
    for _ in range(BRENT_MAXITER):
        if fpre != 0.0 and fcur != 0.0 and (fpre < 0.0) != (fcur < 0.0):
            xblk = xpre
            fblk = fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (BRENT_TOL + BRENT_TOL * abs(xcur)) / 2.0
        sbis = (xblk - xcur) / 2.0
        if fcur == 0.0 or abs(sbis) < delta:
            return xcur, nev
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2.0 * abs(stry) < min(abs(spre), 3.0 * abs(sbis) - delta):
                spre = scur
                scur = stry
            else:
                spre = sbis
                scur = sbis
        else:
            spre = sbis
            scur = sbis
        xpre = xcur
        fpre = fcur
        if abs(scur) > delta:
            xcur += scur
        else:
            xcur += delta if sbis > 0.0 else -delta
        fcur = _event_at(xcur, i, t_old, h, F, y_old, yq, mode, model, mult, par, arrs, epar,
                         eoff, ws, scr)
        nev += 1
    return xcur, nev


def _rk_stages(t, h, y, K, yq, y_new, out, G, watch, s_lo, s_hi, mode, model, mult, par, arrs,
               ws, epar, eoff):
    """DOP853 stages s_lo..s_hi-1 of the step from (t, y) (K[0] = f(t, y) given): their
    derivatives into K, and their event values into G when ``watch`` (stages 1..10 and 13..15,
    the states that :func:`_stage_flip` screens).  Stage 12 is the new state: y_new = y(t + h)
    and K[12] = f(t + h, y_new).  One compiled call without reference counting for stages 1..12
    of a step attempt and one for the dense stages 13..15, so that the kernel arrays are handed
    over once per call rather than once per stage; the right-hand side is inlined here (its only
    call site in the stage loop), since handing the kernel's arrays to a separately compiled
    function costs about a third of a small system's evaluation (case 3.2: 1.01 -> 0.66 us)."""
    for s in range(s_lo, s_hi):
        dst = y_new if s == 12 else yq
        _stage(K, s, y, h, dst)             # row 12 of A is B
        _phase_eval_inline(t + _C[s] * h, dst, mode, model, mult, par, arrs, ws[0], ws[1], ws[2],
                           K[s], out, False)
        if watch and s != 11 and s != 12:
            _stage_events(G, s, out, epar, eoff)


def _error_norm(K, y, y_new, atol, rtol, h_abs):
    """scipy's DOP853 error norm of the step from y to y_new (stages K): the 5th-order
    estimate, corrected by the 3rd-order one (Hairer's err5 / sqrt(err5 + 0.01 err3))."""
    ny = y.shape[0]
    e5 = 0.0
    e3 = 0.0
    for k in range(ny):
        sc = atol[k] + max(abs(y[k]), abs(y_new[k])) * rtol
        a5 = 0.0
        a3 = 0.0
        for j in range(13):
            a5 += K[j, k] * _E5[j]
            a3 += K[j, k] * _E3[j]
        e5 += (a5 / sc) ** 2
        e3 += (a3 / sc) ** 2
    if e5 == 0.0 and e3 == 0.0:
        return 0.0
    return h_abs * e5 / np.sqrt((e5 + 0.01 * e3) * ny)


def _active_events(g, g_new, active, direction, hit, xb, t_new):
    """solve_ivp's find_active_events: ``hit[i]`` = event i changed sign between the step's
    ends (g -> g_new) in its direction; returns whether any did.  Every event's bracket ends
    ``xb[i]`` are set to the step's end ``t_new`` (an interior check may narrow them)."""
    any_hit = False
    for i in range(g.shape[0]):
        xb[i] = t_new
        up = g[i] <= 0.0 and g_new[i] >= 0.0
        down = g[i] >= 0.0 and g_new[i] <= 0.0
        hit[i] = active[i] and ((up and direction[i] > 0.0) or (down and direction[i] < 0.0)
                                or ((up or down) and direction[i] == 0.0))
        any_hit = any_hit or hit[i]
    return any_hit


def _dense_coefficients(K, y, y_new, f_new, h, full, Fn):
    """The dense-output coefficients of the step (scipy DOP853._dense_output_impl) into ``Fn``
    (7, ny): the cubic Hermite part, and the 7th-order part only if ``full`` (else 0)."""
    for k in range(y.shape[0]):
        dlt = y_new[k] - y[k]
        Fn[0, k] = dlt
        Fn[1, k] = h * K[0, k] - dlt
        Fn[2, k] = 2.0 * dlt - h * (f_new[k] + K[0, k])
        for r in range(4):
            acc = 0.0
            if full:
                for j in range(16):
                    acc += _D[r, j] * K[j, k]
            Fn[3 + r, k] = h * acc


# integrate_phase is longer than the rest of the library's functions on purpose: the parts that
# evaluate the right-hand side (initial step, stages, interior-event confirmation, Brent's
# method) stay in this one compiled loop, because every separately compiled function that
# calls the kernel re-optimizes the whole inlined right-hand side (~2 s of LLVM each on a cold
# cache); the pure arithmetic (error norm, event sign changes, dense coefficients) is split out.
def _phase_buffers(y0, arrs, cap):
    """Every buffer of a phase's step loop, allocated once: the step times, sizes, states and
    dense coefficients (``cap`` rows, grown as needed), the stages, the event flags, roots,
    stage values and brackets, the state and its derivative at the step's start and end
    (swapped after each accepted step), the outputs of the latest RHS evaluation, the event
    values at both ends, the kernel's work arrays, the scratch of :func:`_event_at` and the
    event state (NaN until an event)."""
    ny = y0.shape[0]
    y_event = np.empty(ny)
    for k in range(ny):
        y_event[k] = np.nan
    Y2 = np.empty((2, ny))
    _put(Y2[0], y0)
    return (np.empty(cap), np.empty(cap), np.empty((cap, ny)), np.empty((cap, 7, ny)),
            np.empty((16, ny)), np.empty(ny), np.zeros(_NEV, dtype=np.bool_), np.empty(_NEV),
            np.zeros((16, _NEV)), np.empty(_NEV), Y2, np.empty((2, ny)), np.empty(_NOUT),
            np.empty((2, _NEV)), _work_arrays(arrs), (np.empty(ny), np.empty(_NOUT),
                                                     np.empty(_NEV)), y_event)


def _interior_candidate(G, C, s_lo, s_hi, g, active, direction):
    """Whether an active event's value at a stage s_lo..s_hi-1 of the step (at the times C) has
    left the sign it had at the step's start (a sign change inside the step that its ends do
    not show)."""
    for i in range(g.shape[0]):
        if active[i] and _stage_flip(G, C, s_lo, s_hi, i, g[i], direction[i]) < 1.0:
            return True
    return False


def _initial_step(t0, y0, f, interval, rtol, atol, max_step, mode, model, mult, par, arrs, ws,
                  yq, f1, out, order):
    """The first step size (scipy's ``select_initial_step`` for an error estimator of ``order``:
    7 for DOP853, 3 for Radau IIA); costs one RHS evaluation (into ``f1``, ``out``)."""
    ny = y0.shape[0]
    scale = np.empty(ny)
    for k in range(ny):
        scale[k] = atol[k] + abs(y0[k]) * rtol
    d0 = np.sqrt(_rms2(y0, scale) / ny)
    d1 = np.sqrt(_rms2(f, scale) / ny)
    h0 = 1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1
    h0 = min(h0, interval)
    for k in range(ny):
        yq[k] = y0[k] + h0 * f[k]
    _rhs(t0 + h0, yq, mode, model, mult, par, arrs, ws, f1, out)
    for k in range(ny):
        f1[k] -= f[k]
    d2 = np.sqrt(_rms2(f1, scale) / ny) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / max(d1, d2)) ** (1.0 / (order + 1.0))
    return min(100.0 * h0, h1, interval, max_step)


def _attempt_step(t, t_end, h_abs, min_step, y, f, K, yq, y_new, f_new, out, G, watch, atol, rtol,
                  mode, model, mult, par, arrs, ws, epar, eoff):
    """One accepted step from (t, y) (scipy's ``RungeKutta._step_impl``): tries steps, shrinking
    after each rejection, until the error norm is below 1.  Returns ``(t_new, h, h_abs, tries,
    failed, non_finite)``: ``h_abs`` the next step's size, ``tries`` the attempts made (each 12
    RHS evaluations), ``failed`` when the step fell below ``min_step``."""
    rejected = False
    non_finite = False
    tries = 0
    t_new = t
    h = 0.0
    while True:
        if h_abs < min_step:
            return t_new, h, h_abs, tries, True, non_finite
        t_new = t + h_abs
        if t_new - t_end > 0.0:
            t_new = t_end
        h = t_new - t
        h_abs = abs(h)
        _put(K[0], f)
        _rk_stages(t, h, y, K, yq, y_new, out, G, watch, 1, 13, mode, model, mult, par, arrs,
                   ws, epar, eoff)
        _put(f_new, K[12])
        tries += 1
        err = _error_norm(K, y, y_new, atol, rtol, h_abs)
        if err < 1.0:
            factor = MAX_FACTOR if err == 0.0 else min(MAX_FACTOR, SAFETY * err ** ERR_EXP)
            if rejected:
                factor = min(1.0, factor)
            return t_new, h, h_abs * factor, tries, False, non_finite
        if err != err:              # NaN: scipy's max(0.2, nan) is 0.2
            non_finite = True
            h_abs *= MIN_FACTOR
        else:
            h_abs *= max(MIN_FACTOR, SAFETY * err ** ERR_EXP)
        rejected = True


def _confirm_interior(t, h, Fn, y, yq, G, C, g, active, direction, hit, xb, mode, model, mult,
                      par, arrs, epar, eoff, ws, scr):
    """Confirm the interior candidates on the step's interpolant: for each active event, the
    earliest stage time c (of the stage times C, values G) at which it has left the sign it had
    at t, checked in the event's direction (sets ``hit`` and the bracket end ``xb``); returns
    the event evaluations made."""
    n_evt = 0
    for i in range(_NEV):
        if not active[i]:
            continue
        lo = 0.0
        while True:
            c = _stage_flip_after(G, C, lo, i, g[i], direction[i])
            if c >= 1.0:
                break
            v = _event_at(t + c * h, i, t, h, Fn, y, yq, mode, model, mult, par, arrs, epar, eoff,
                          ws, scr)
            n_evt += 1
            if _flips(g[i], v, direction[i]):
                hit[i] = True
                xb[i] = t + c * h
                break
            lo = c
    return n_evt


def _locate_events(t, h, Fn, y, yq, hit, xb, roots, mode, model, mult, par, arrs, epar, eoff, ws,
                   scr):
    """Brent's method on the interpolant for every event that ``hit`` in [t, xb]: the roots into
    ``roots`` (inf for the others); returns (earliest root or inf, event evaluations made, bit
    mask of the events whose root lies within EVENT_TIE of the earliest)."""
    t_hit = np.inf
    n_evt = 0
    for i in range(_NEV):
        roots[i] = np.inf
        if hit[i]:
            r, ne = _brentq(i, t, xb[i], t, h, Fn, y, yq, mode, model, mult, par, arrs, epar, eoff,
                            ws, scr)
            n_evt += ne
            roots[i] = r
            t_hit = min(t_hit, r)
    mask = 0
    if t_hit < np.inf:
        for i in range(_NEV):
            if roots[i] <= t_hit + EVENT_TIE:
                mask |= 1 << i
    return t_hit, n_evt, mask


def integrate_phase(t0, y0, t_end, mode, model, mult, par, arrs, rtol, atol, max_step, first_step,
                    active, direction, epar, eoff, max_steps, dense):
    """Integrate dy/dt = phase_eval(t, y, mode, model, mult, par, arrs)[0] from t0 to t_end.

    ``arrs`` is the right-hand side's data (for :mod:`flexlib.multibody.kernel`: the system's
    arrays); ``atol`` an array (ny,); ``first_step <= 0`` selects the initial step like scipy;
    ``active`` (bool, NEV) and ``direction`` (float, NEV) choose the terminal events among the
    right-hand side's event functions; ``epar`` is their parameter vector and ``eoff`` (NEV)
    offsets subtracted from their values (event i watches ``event_values(out, epar)[i] = eoff[i]``,
    e.g. a contact at gap = floor < 0); ``max_steps`` bounds the accepted steps; ``dense=True``
    computes scipy's 7th-order interpolant on every step (3 extra RHS evaluations),
    ``dense=False`` only on the step that locates an event (the others keep the cubic Hermite
    interpolant of y, f at both ends: F[3:] = 0).

    Returns ``(status, code, ts, hs, ys, Fs, ev_mask, t_event, y_event, n_rhs, n_evt, n_rej)``:
    status 0 (t_end reached), 1 (event) or -1 (failure, ``MESSAGES[code]``); ``ts`` (n+1) step
    times, ``ys`` (n+1, ny) states (the last ones are the event time/state after an event),
    ``hs`` (n) and ``Fs`` (n, 7, ny) the step sizes and dense coefficients of the n
    interpolants (``hs[-1]`` is the full step even when the event truncated it); ``ev_mask``
    the bit mask of the events located at ``t_event`` (within EVENT_TIE); ``n_rhs`` the RHS
    evaluations of the steps, ``n_evt`` those of the event location, ``n_rej`` rejected steps.
    """
    cap = 64
    (ts, hs, ys, Fs, K, yq, hit, roots, G, xb, Y2, F2, out, G2, ws, scr,
     y_event) = _phase_buffers(y0, arrs, cap)
    ts[0] = t0
    _put(ys[0], y0)
    _rhs(t0, Y2[0], mode, model, mult, par, arrs, ws, F2[0], out)
    if not t_end > t0:
        return 0, OK, ts[:1], hs[:0], ys[:1], Fs[:0], 0, np.nan, y_event, 1, 0, 0
    _event_values_into(out, epar, eoff, G2[0])
    st = np.empty(3)                    # t, the next step's size, the event time
    ct = np.zeros(6, dtype=np.int64)    # steps, RHS and event evaluations, rejections, mask, row
    st[S_T] = t0
    st[S_TEV] = np.nan
    ct[C_RHS] = 1
    if first_step > 0.0:
        st[S_H] = min(first_step, t_end - t0)
    else:
        st[S_H] = _initial_step(t0, Y2[0], F2[0], t_end - t0, rtol, atol, max_step, mode, model,
                                mult, par, arrs, ws, yq, scr[0], out, 7)
        ct[C_RHS] += 1
    while True:
        # the step loop, compiled without reference counting (handing the kernel's arrays from
        # one inlined call to the next in reference-counted code costs an atomic increment and
        # decrement of each of them: several microseconds per step); it returns for more room
        status, code = _steps(t_end, mode, model, mult, par, arrs, rtol, atol, max_step, active,
                              direction, epar, eoff, max_steps, dense,
                              (ts, hs, ys, Fs, K, yq, hit, roots, G, xb, Y2, F2, out, G2, ws, scr,
                               y_event), st, ct)
        if status != GROW:
            break
        ts, hs, ys, Fs = _grown(ts, hs, ys, Fs)
    n = ct[C_N]
    # views, not copies: a copy would double a long phase's memory at its end (the buffers'
    # unused capacity was never written, so it holds no memory)
    return status, code, ts[:n + 1], hs[:n], ys[:n + 1], Fs[:n], \
        ct[C_MASK], st[S_TEV], y_event, ct[C_RHS], ct[C_EVT], ct[C_REJ]


# integrate_phase's step loop state: st (floats) and ct (integers)
S_T, S_H, S_TEV = 0, 1, 2
C_N, C_RHS, C_EVT, C_REJ, C_MASK, C_ROW = 0, 1, 2, 3, 4, 5
GROW = 2                    # _steps' status when the storage is full


def _loop_stop(n, ts, cap, max_steps):
    """Whether a step loop (this module's and :mod:`flexlib.solver.radau`'s) stops before its
    next step, having taken ``n`` steps (times ``ts``, storage for ``cap``): (-1, MAX_STEPS) at
    the step budget, (-1, STEP_COLLAPSE) when the last COLLAPSE_WINDOW steps cover less than
    COLLAPSE_WINDOW * COLLAPSE_STEP, (GROW, OK) when the storage has no room for this step and
    an event point after it, else (0, OK)."""
    if n >= max_steps:
        return -1, MAX_STEPS
    if n >= COLLAPSE_WINDOW and ts[n] - ts[n - COLLAPSE_WINDOW] < COLLAPSE_WINDOW * COLLAPSE_STEP:
        return -1, STEP_COLLAPSE
    if n + 2 >= cap:
        return GROW, OK
    return 0, OK


def _steps(t_end, mode, model, mult, par, arrs, rtol, atol, max_step, active, direction, epar,
           eoff, max_steps, dense, bufs, st, ct):
    """The accepted steps of :func:`integrate_phase` from its state (``st``: t, the next step's
    size, the event time; ``ct``: steps n, RHS evaluations, event evaluations, rejections, the
    events' bit mask, the row of ``Y2``, ``F2``, ``G2`` that holds y, f and the event values at
    t).  Returns (status, code) as integrate_phase, or (GROW, OK) when the storage has no room
    for another step (the caller enlarges it and calls again).  Allocation-free."""
    ts, hs, ys, Fs, K, yq, hit, roots, G, xb, Y2, F2, out, G2, ws, scr, y_event = bufs
    cap = ts.shape[0]
    watch = False
    for i in range(_NEV):
        watch = watch or active[i]
    t = st[S_T]
    h_abs = st[S_H]
    n = ct[C_N]
    r = ct[C_ROW]
    y, y_new, f, f_new, g, g_new = Y2[r], Y2[1 - r], F2[r], F2[1 - r], G2[r], G2[1 - r]
    status, code = 0, OK
    while True:
        status, code = _loop_stop(n, ts, cap, max_steps)
        if status != 0:
            break
        # ---- one accepted step (scipy RungeKutta._step_impl)
        min_step = 10.0 * abs(np.nextafter(t, np.inf) - t)
        if h_abs > max_step:
            h_abs = max_step
        elif h_abs < min_step:
            h_abs = min_step
        t_new, h, h_abs, tries, failed, non_finite = _attempt_step(
            t, t_end, h_abs, min_step, y, f, K, yq, y_new, f_new, out, G, watch, atol, rtol, mode,
            model, mult, par, arrs, ws, epar, eoff)
        ct[C_RHS] += 12 * tries
        ct[C_REJ] += tries - 1 if not failed else tries
        if failed:
            status, code = -1, (NON_FINITE if non_finite else TOO_SMALL_STEP)
            break
        # ---- events (solve_ivp find_active_events): which active events changed sign
        _event_values_into(out, epar, eoff, g_new)
        any_hit = _active_events(g, g_new, active, direction, hit, xb, t_new)
        # ---- interior sign changes (e.g. N below 0 for less than a step), invisible at the
        # step's ends: screened at the stage states, confirmed on the interpolant below
        interior = watch and not any_hit and _interior_candidate(G, _C, 1, 11, g, active, direction)
        # ---- dense output (scipy DOP853._dense_output_impl); without ``dense`` only for
        # steps that locate an event (or may hold an interior one), the others keep the cubic
        # Hermite part (F[3:] = 0)
        full = dense or any_hit or interior
        if full:
            _rk_stages(t, h, y, K, yq, y_new, out, G, watch, 13, 16, mode, model, mult, par, arrs,
                       ws, epar, eoff)
            ct[C_RHS] += 3
        Fn = Fs[n]
        _dense_coefficients(K, y, y_new, f_new, h, full, Fn)
        # ---- confirm interior candidates on the interpolant: the earliest stage time c at
        # which event i has left the sign it had at t, checked in the direction of the event
        if watch and not any_hit and full:
            ct[C_EVT] += _confirm_interior(t, h, Fn, y, yq, G, _C, g, active, direction, hit, xb,
                                           mode, model, mult, par, arrs, epar, eoff, ws, scr)
        # ---- event location (solve_ivp handle_events; all events are terminal), the step stored
        n, stop = _end_step(t, t_new, h, Fn, y, y_new, yq, hit, xb, roots, mode, model, mult, par,
                            arrs, epar, eoff, ws, scr, (ts, hs, ys, Fs), n, y_event, st, ct)
        if stop:
            status, code = 1, EVENT
            break
        t = t_new
        r = 1 - r
        y, y_new, f, f_new, g, g_new = y_new, y, f_new, f, g_new, g
        if t_new - t_end >= 0.0:
            break
    st[S_T] = t
    st[S_H] = h_abs
    ct[C_N] = n
    ct[C_ROW] = r
    return status, code


def _end_step(t, t_new, h, Fn, y, y_new, yq, hit, xb, roots, mode, model, mult, par, arrs,
              epar, eoff, ws, scr, store, n, y_event, st, ct):
    """The end of the phase's n-th accepted step, from t to t_new = t + h with the interpolant
    ``Fn``, in every step loop: its size into ``hs[n]`` (``store`` = (ts, hs, ys, ...)); the events
    that ``hit`` in it located (:func:`_locate_events`, their evaluations counted in
    ``ct[C_EVT]``); at the earliest root (its time into ``st[S_TEV]``, the events there into
    ``ct[C_MASK]``) the state (into ``y_event``) becomes the phase's last point, unless the root
    is the step's start, which solve_ivp drops; without a root y_new becomes point n + 1.
    Returns (the index of the phase's last point, whether the phase stops at an event)."""
    ts, hs, ys = store[0], store[1], store[2]
    hs[n] = h
    t_hit, ne, mask = _locate_events(t, h, Fn, y, yq, hit, xb, roots, mode, model, mult, par,
                                     arrs, epar, eoff, ws, scr)
    ct[C_EVT] += ne
    if t_hit < np.inf:
        ct[C_MASK] |= mask
        st[S_TEV] = t_hit
        dense_point(Fn, y, (t_hit - t) / h, y_event)
        if t_hit != t:
            ts[n + 1] = t_hit
            _put(ys[n + 1], y_event)
            n += 1
        return n, True
    n += 1
    ts[n] = t_new
    _put(ys[n], y_new)
    return n, False


def dense_eval(ts, hs, ys, Fs, tq):
    """States (ny, len(tq)) of the piecewise dense output at the times ``tq``, choosing the
    interpolant like scipy's ``OdeSolution`` (``searchsorted(..., side='left')``, clipped)."""
    ny = ys.shape[1]
    nseg = hs.shape[0]
    res = np.empty((ny, tq.shape[0]))
    yq = np.empty(ny)
    for m in range(tq.shape[0]):
        if nseg == 0:
            for k in range(ny):
                res[k, m] = ys[0, k]
            continue
        i = np.searchsorted(ts, tq[m]) - 1
        i = min(max(i, 0), nseg - 1)
        dense_point(Fs[i], ys[i], (tq[m] - ts[i]) / hs[i], yq)
        for k in range(ny):
            res[k, m] = yq[k]
    return res


# the right-hand side: set in the copy of these functions that specialize() compiles around one
_phase_eval_into = _phase_eval_inline = _event_values_into = _work_arrays = None
_NOUT = _NEV = 0
COMPILED = bool(_jit.COMPILED)
_INLINED = ("_rhs", "_event_at", "_brentq", "_phase_buffers", "_initial_step", "_end_step",
            "_attempt_step", "_confirm_interior", "_locate_events")
# allocation-free, so compiled without reference counting (see _jit.NO_REFCOUNT)
_HOT = ("_loop_stop", "_put", "_stage", "_rms2", "dense_point", "_stage_events", "_flips",
        "_stage_flip", "_interior_candidate", "_stage_flip_after", "_rk_stages", "_error_norm",
        "_active_events", "_dense_coefficients", "_steps")
# the functions that call no right-hand side, compiled here once
_KERNEL_FREE = tuple(n for n in _HOT if n not in ("_stage_events", "_rk_stages", "_steps"))
_JITTED = _KERNEL_FREE + ("_grow", "_grown", "dense_eval")
if COMPILED:
    import numba as _nb
    # the functions that evaluate the RHS are inlined into integrate_phase at the numba IR
    # level: every separately compiled function that calls phase_eval re-optimizes its code
    # (~2 s of LLVM each on a cold cache)
    for _name in _JITTED:
        globals()[_name] = _nb.njit(cache=True, **(_jit.NO_REFCOUNT if _name in _HOT else {}))(
            globals()[_name])


# ---------------------------------------------------------------- Python side
class PhaseSolution:
    """One integrated phase, shaped like the ``OdeResult`` of ``solve_ivp(dense_output=True)``.

    ``t`` (n+1,), ``y`` (ny, n+1), ``sol`` (= the object itself; ``sol(t)`` gives (ny,) for a
    scalar and (ny, m) for an array, like scipy's ``OdeSolution``), ``status`` (0 t_end,
    1 event, -1 failure), ``message``, ``success``; event data in the right-hand side's numbering
    of its event functions: ``event_mask`` (bits), ``events`` (indices, ascending), ``t_event``,
    ``y_event``; counters ``nfev`` (= ``n_rhs``: RHS evaluations of the steps),
    ``n_event_evals``, ``n_rejected``, and for an implicit integrator (whose result carries them
    after the twelve entries of :func:`integrate_phase`) ``n_jac`` and ``n_lu``, the Jacobians
    and LU factorizations (0 for DOP853).
    """

    def __init__(self, res):
        (status, code, ts, hs, ys, Fs, mask, t_ev, y_ev, n_rhs, n_evt, n_rej) = res[:12]
        self.n_jac = int(res[12]) if len(res) > 12 else 0
        self.n_lu = int(res[13]) if len(res) > 13 else 0
        self.status = int(status)
        self.code = int(code)
        self.message = MESSAGES[self.code]
        self.success = self.status >= 0
        self.t = ts
        self.hs = hs
        self.F = Fs
        self._ys = ys
        self.y = ys.T
        self.event_mask = int(mask)
        self.t_event = float(t_ev) if mask else None
        self.y_event = y_ev if mask else None
        self.nfev = self.n_rhs = int(n_rhs)
        self.n_event_evals = int(n_evt)
        self.n_rejected = int(n_rej)
        self.n_steps = len(hs)

    @property
    def sol(self):
        """The dense output: the object itself (a property, not an attribute, so that a phase
        solution is no reference cycle and is freed as soon as it is dropped)."""
        return self

    @property
    def events(self):
        """Indices of the events located at ``t_event``, ascending."""
        return [i for i in range(self.event_mask.bit_length()) if (self.event_mask >> i) & 1]

    def __call__(self, t):
        t = np.asarray(t, dtype=float)
        if t.ndim == 0:
            return dense_eval(self.t, self.hs, self._ys, self.F, t.reshape(1))[:, 0]
        return dense_eval(self.t, self.hs, self._ys, self.F, np.ascontiguousarray(t.ravel()))

    def __repr__(self):
        return (f"PhaseSolution(status={self.status}, t=[{self.t[0]:.9g}, {self.t[-1]:.9g}], "
                f"steps={self.n_steps}, events={self.events}, nfev={self.nfev})")


_SPECIALIZED = {}


def specialize(kern):
    """:func:`integrate_phase` compiled around the right-hand side ``kern`` (a module with
    ``phase_eval_into``, ``work_arrays``, ``event_values_into``, ``NOUT`` and ``NEV``, such as
    :mod:`flexlib.multibody.kernel`), built once per right-hand side and cached on disk."""
    key = id(kern)
    if key not in _SPECIALIZED:
        names = ("_stage_events", "_rhs", "_event_at", "_brentq", "_rk_stages", "_phase_buffers",
                 "_initial_step", "_attempt_step", "_confirm_interior", "_locate_events",
                 "_end_step", "_steps", "integrate_phase")
        g = compile_around(kern, globals(), names, _INLINED, _HOT, "integrator.kernel-sha256")
        _SPECIALIZED[key] = (kern, g["integrate_phase"])
    return _SPECIALIZED[key][1]


# the functions that evaluate the right-hand side or its events, shared by every integrator
# compiled around a kernel (inlined into its step loop): the event location and screening
SHARED = ("_rhs", "_event_at", "_brentq", "_confirm_interior", "_locate_events", "_end_step")


def compile_around(kern, base, names, inlined, hot, stamp_file, cache=True, tag=""):
    """A namespace: ``base`` (a module's globals) with the right-hand side ``kern`` bound to
    ``_phase_eval_into`` (and, inlined into its callers, ``_phase_eval_inline``), ``_work_arrays``,
    ``_event_values_into``, ``_NOUT``, ``_NEV`` and fresh
    copies of the functions ``names`` that see it (compiled when numba is on: those in
    ``inlined`` inlined into their callers, the others cached on disk unless ``cache`` is
    False, without reference counting if in ``hot``).  ``tag`` is appended to the compiled
    functions' qualified names: numba keys its disk cache on the name and the argument types, so
    two variants of one right-hand side need two tags."""
    g = dict(base)
    pe = kern.phase_eval_into
    g.update(_phase_eval_into=pe, _phase_eval_inline=pe, _work_arrays=kern.work_arrays,
             _event_values_into=kern.event_values_into, _NOUT=kern.NOUT, _NEV=kern.NEV)
    if COMPILED and hasattr(pe, "py_func"):
        g["_phase_eval_inline"] = _nb.njit(inline="always", **_jit.NO_REFCOUNT)(pe.py_func)
    compiled = []
    for name in names:
        f = g[name]
        py = getattr(f, "py_func", f)
        new = types.FunctionType(py.__code__, g, name, py.__defaults__, py.__closure__)
        if tag:
            new.__qualname__ = py.__qualname__ + tag
        if COMPILED:
            if name in inlined:
                new = _nb.njit(inline="always")(new)
            else:
                new = _nb.njit(cache=cache, **(_jit.NO_REFCOUNT if name in hot else {}))(new)
                compiled.append(new)
        g[name] = new
    if compiled and cache:
        # numba does not invalidate a cached function when the code it compiles in changes
        _jit.flush_stale_cache(compiled, stamp_file, _jit.SOURCE_STAMP)
    return g


class ScipyPhase:
    """One phase integrated by :func:`scipy.integrate.solve_ivp` (``method`` "RK45", "BDF",
    "LSODA", "DOP853-scipy" or "Radau-scipy"), shaped like a :class:`PhaseSolution`: ``t``, ``y``,
    ``status`` (0 t_end, 1 event, -1 failure), ``message``, ``event_mask``, ``nfev`` and the
    dense output ``sol(t)`` (scipy's ``OdeSolution``).  ``rhs(t, y)`` gives (dy/dt, out) and
    ``events(out)`` the event functions (their offsets subtracted); ``active`` and ``direction``
    choose the terminal events, as for the compiled integrator."""

    def __init__(self, rhs, events, t0, y0, t_end, method, *, rtol, atol, max_step, active,
                 direction):
        from scipy.integrate import solve_ivp
        cache = {}

        def evaluate(t, y):
            key = (t, y.tobytes())
            if key not in cache:
                cache.clear()
                cache[key] = rhs(t, y)
            return cache[key]

        idx = [int(i) for i in np.flatnonzero(active)]
        funcs = []
        for i in idx:
            def g(t, y, i=i):
                return float(events(evaluate(t, y)[1])[i])
            g.terminal, g.direction = True, float(direction[i])
            funcs.append(g)
        name = method[:-len("-scipy")] if method.endswith("-scipy") else method
        sol = solve_ivp(lambda t, y: evaluate(t, y)[0], (t0, t_end), y0, method=name, rtol=rtol,
                        atol=atol, max_step=max_step, events=funcs or None, dense_output=True)
        self.t, self.y, self.message = sol.t, sol.y, sol.message
        self.status = -1 if sol.status < 0 else int(sol.status)
        self.success = self.status >= 0
        self.nfev = self.n_rhs = int(sol.nfev)
        self.n_steps = len(sol.t) - 1
        self.event_mask = 0
        if sol.status == 1:
            t_hit = min(te[0] for te in sol.t_events if len(te))
            for k, te in enumerate(sol.t_events):
                if len(te) and abs(te[0] - t_hit) <= EVENT_TIE:
                    self.event_mask |= 1 << idx[k]
            self.t_event, self.y_event = t_hit, sol.y[:, -1]
        self._dense = sol.sol

    @property
    def events(self):
        """Indices of the events located at the phase's end, ascending."""
        return [i for i in range(self.event_mask.bit_length()) if (self.event_mask >> i) & 1]

    @property
    def sol(self):
        """The dense output: the object itself, as for :class:`PhaseSolution`."""
        return self

    def __call__(self, t):
        """The state(s) at ``t`` from scipy's dense output."""
        return self._dense(t)
