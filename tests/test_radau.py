"""The compiled Radau IIA phase integrator (flexlib.solver.radau) on small ODEs with known answers.

Against scipy's ``solve_ivp(method="Radau")`` (the same algorithm, Hairer & Wanner's RADAU5) and
against exact solutions: a stiff pair of oscillators, Van der Pol with mu = 1000, the order of the
step and of the collocation polynomial, an event at a known root and a failing right-hand side.
The toy right-hand side (tests/_toy_kernel.py) is compiled without the disk cache: its arrays have
the types of no flexlib kernel, but the integrator's cache is keyed on types only.
"""
import os
import sys

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import flexlib  # noqa: F401  (numerics settings before NumPy work)
from flexlib.solver import integrator, radau

sys.path.insert(0, os.path.dirname(__file__))
import _toy_kernel as toy  # noqa: E402

INTEG = radau.specialize(toy, cache=False)


def run(y0, t_end, model=0, par=(0.0,), A=None, *, rtol=1e-6, atol=1e-6, n2=0, nz=None,
        event=False, max_step=np.inf, first_step=0.0):
    y0 = np.asarray(y0, float)
    A = np.zeros((len(y0), len(y0))) if A is None else np.asarray(A, float)
    nz = len(y0) - 2 * n2 if nz is None else nz
    res = INTEG(0.0, y0, float(t_end), 0, model, 0, np.asarray(par, float), A, rtol,
                np.full(len(y0), atol), max_step, first_step, np.array([event]), np.array([-1.0]),
                np.zeros(1), np.zeros(1), 1_000_000, False, n2, nz)
    return integrator.PhaseSolution(res)


def oscillators(w=(1.0, 1e5), zeta=(0.0, 0.01)):
    """x_i'' = -w_i^2 x_i - 2 zeta_i w_i x_i' as y = [x1, x2, v1, v2]."""
    A = np.zeros((4, 4))
    A[0, 2] = A[1, 3] = 1.0
    for i in range(2):
        A[2 + i, i] = -w[i] ** 2
        A[2 + i, 2 + i] = -2.0 * zeta[i] * w[i]
    return A


Y0 = [1.0, 1e-3, 0.0, 0.0]


@pytest.mark.slow         # ~40 s
def test_stiff_oscillators_accuracy_and_steps():
    """The slow oscillator is followed to the tolerance's accuracy class of scipy's Radau.  The
    fast one (1e-3 m, decaying at zeta w = 1000 1/s) holds the step near 1e-6 s while it rings
    above the tolerance, then the step grows with the slow mode (to ~0.1 s); DOP853's step
    stays bounded by its stability at w = 1e5: more than ten times as many steps."""
    A = oscillators()
    t_end = 10.0
    sol = run(Y0, t_end, A=A, rtol=1e-6, atol=1e-9, n2=2)
    ref = solve_ivp(lambda t, y: A @ y, (0, t_end), Y0, method="Radau", rtol=1e-6, atol=1e-9)
    exact = np.cos(t_end)
    ours, theirs = abs(sol.y[0, -1] - exact), abs(ref.y[0, -1] - exact)
    assert sol.status == 0
    assert ours < 1e-4 and ours < 10.0 * theirs + 1e-7
    assert 0.5 < sol.n_steps / (len(ref.t) - 1) < 2.0
    explicit = solve_ivp(lambda t, y: A @ y, (0, t_end), Y0, method="DOP853", rtol=1e-6,
                         atol=1e-9)
    assert sol.n_steps * 10 < len(explicit.t) - 1


def test_reduced_and_full_newton_systems_agree():
    """The second-order reduction (n2 = 2) and the full system (n2 = 0) are the same Newton
    iteration up to round-off: over the first 20 steps the same step sizes to 1e-9 (later the
    round-off moves the step sequences apart, as between any two summation orders)."""
    A = oscillators()
    red = run(Y0, 2.0, A=A, rtol=1e-6, atol=1e-9, n2=2)
    full = run(Y0, 2.0, A=A, rtol=1e-6, atol=1e-9, n2=0)
    assert np.allclose(red.t[:21], full.t[:21], rtol=1e-9, atol=0)
    assert np.allclose(red.y[:, :21], full.y[:, :21], rtol=1e-8, atol=1e-14)
    assert abs(red.n_steps / full.n_steps - 1.0) < 0.01


def test_van_der_pol_mu_1000_like_scipy():
    mu, t_end = 1000.0, 3000.0

    def f(t, y):
        return [y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]]

    tight = solve_ivp(f, (0, t_end), [2.0, 0.0], method="Radau", rtol=1e-12, atol=1e-12)
    ref = solve_ivp(f, (0, t_end), [2.0, 0.0], method="Radau", rtol=1e-6, atol=1e-6)
    sol = run([2.0, 0.0], t_end, model=1, par=[mu], rtol=1e-6, atol=1e-6, n2=1)
    assert sol.status == 0
    ours = np.abs(sol.y[:, -1] - tight.y[:, -1]).max()
    theirs = np.abs(ref.y[:, -1] - tight.y[:, -1]).max()
    assert ours < 10.0 * theirs + 1e-8
    assert 0.8 < sol.n_steps / (len(ref.t) - 1) < 1.25


def _fixed_step_errors(h, t_end=1.0):
    """End and midpoint errors on x'' = -x with the step held at h (max_step = first_step = h,
    tolerances loose enough never to reject)."""
    A = oscillators(w=(1.0, 1.0), zeta=(0.0, 0.0))
    sol = run([1.0, 0.0, 0.0, 1.0], t_end, A=A, rtol=1e-3, atol=1e-3, n2=2, max_step=h,
              first_step=h)
    assert np.allclose(np.diff(sol.t), h, rtol=1e-9)
    mid = sol.t[:-1] + 0.5 * h
    end_err = abs(sol.y[0, -1] - np.cos(t_end))
    mid_err = np.abs(sol(mid)[0] - np.cos(mid)).max()
    return end_err, mid_err


def test_order_five_and_cubic_interpolant():
    """Radau IIA is of order 2s - 1 = 5 at the step points (halving h divides the error by ~32)
    and its collocation polynomial of order 3 in between (local error O(h^4): by ~16)."""
    e1, m1 = _fixed_step_errors(0.125)      # binary fractions: the steps add up exactly
    e2, m2 = _fixed_step_errors(0.0625)
    assert 24.0 < e1 / e2 < 40.0
    assert 12.0 < m1 / m2 < 20.0


def test_interpolant_is_continuous_and_exact_at_step_points():
    A = oscillators()
    sol = run(Y0, 1.0, A=A, rtol=1e-6, atol=1e-9, n2=2)
    # up to the round-off of summing the cubic's coefficients (~eps times the largest value)
    assert np.allclose(sol(sol.t), sol.y, rtol=0, atol=1e-13 * np.abs(sol.y).max())


def test_interpolant_keeps_three_rows_and_reads_as_the_seven_row_format():
    """Each step stores its cubic as three rows; read through the integrator's 7-row format
    with the other four rows zero (how DOP853's coefficients are read) it is the same to the bit,
    so a Radau step costs 4 ny stored numbers instead of 8 ny."""
    sol = run(Y0, 0.3, A=oscillators(), rtol=1e-6, atol=1e-9, n2=2)
    assert sol.F.shape == (len(sol.hs), 3, len(Y0))
    padded = np.concatenate([sol.F, np.zeros((len(sol.hs), 4, len(Y0)))], axis=1)
    tq = np.linspace(0.0, 0.3, 257)
    three = integrator.dense_eval(sol.t, sol.hs, sol._ys, sol.F, tq)
    seven = integrator.dense_eval(sol.t, sol.hs, sol._ys, np.ascontiguousarray(padded), tq)
    assert np.array_equal(three, seven)
    # and it is the slow oscillator's cos t between the step points too
    assert np.abs(three[0] - np.cos(tq)).max() < 1e-5


def test_event_of_a_falling_mass():
    """A mass released at 1 m under g = 9.81 m/s^2 reaches 0 at sqrt(2/g)."""
    g = 9.81
    sol = run([1.0, 0.0], 2.0, model=2, par=[g], rtol=1e-8, atol=1e-10, n2=1, event=True)
    assert sol.status == 1 and sol.events == [0]
    assert abs(sol.t_event - np.sqrt(2.0 / g)) < 1e-10
    assert abs(sol.y_event[0]) < 1e-12


def test_failing_right_hand_side_ends_with_a_named_failure():
    """NaN from t = 0.5 on: Newton cannot converge, the step is halved to the minimum step and
    the phase fails (no hang) with the Newton failure's message, at t <= 0.5."""
    sol = run([1.0], 1.0, model=3, par=[0.5], rtol=1e-6, atol=1e-9)
    assert sol.status == -1
    assert sol.code == integrator.NEWTON_FAILURE
    assert "Newton" in sol.message
    assert sol.t[-1] <= 0.5


def test_a_collapsing_step_ends_with_a_named_failure():
    """An undamped oscillation at 1e12 rad/s with unit amplitude rings far above the tolerance,
    so the error control holds the step near 1e-13 s: the step-collapse guard ends the phase
    after its window of accepted steps (no hang, no run through the step budget) with the
    collapse's message, at a time far below t_end."""
    w = 1e12
    A = [[0.0, 1.0], [-w * w, 0.0]]
    sol = run([1.0, 0.0], 1.0, A=A, rtol=1e-6, atol=1e-9, n2=1)
    assert sol.status == -1
    assert sol.code == integrator.STEP_COLLAPSE
    assert "collapsed" in sol.message
    assert integrator.COLLAPSE_WINDOW <= sol.n_steps < 2 * integrator.COLLAPSE_WINDOW
    assert sol.t[-1] < integrator.COLLAPSE_WINDOW * integrator.COLLAPSE_STEP


def _column_lu(M, piv):
    """LU with partial pivoting column by column (written here, the textbook order)."""
    n = M.shape[0]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(M[i, k]) > abs(M[p, k]):
                p = i
        piv[k] = p
        for j in range(n):
            M[k, j], M[p, j] = M[p, j], M[k, j]
        for i in range(k + 1, n):
            f = M[i, k] * (1.0 / M[k, k])
            M[i, k] = f
            if f != 0.0:
                for j in range(k + 1, n):
                    M[i, j] -= f * M[k, j]


if radau.COMPILED:          # the same complex arithmetic as the compiled code under test
    import numba
    _column_lu = numba.njit(_column_lu)


@pytest.mark.parametrize("n", [1, 3, 4, 5, 8, 9, 35])
@pytest.mark.parametrize("dtype", [float, complex])
def test_lu_by_panels_is_the_column_by_column_lu_to_the_bit(n, dtype):
    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, n)) + (1j * rng.normal(size=(n, n)) if dtype is complex else 0.0)
    A = A.astype(dtype)
    A[0] *= 1e-3                                   # forces interchanges
    if n > 2:
        A[n // 2, 0] = 0.0                         # and a zero multiplier
    M1, M2 = A.copy(), A.copy()
    p1, p2 = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    _column_lu(M1, p1)
    assert radau._lu_factor(M2, p2)
    np.testing.assert_array_equal(p2, p1)
    np.testing.assert_array_equal(M2, M1)
    b = rng.normal(size=n).astype(dtype)
    x = b.copy()
    radau._lu_solve(M2, p2, x)
    np.testing.assert_allclose(A @ x, b, rtol=0, atol=1e-10 * np.abs(b).max())
