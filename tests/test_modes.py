"""Independent checks of flexlib.bodies.modes (docs/model.md sections 4.1, 4.2, 5.2; n_gauss of section 3).

Expected values come from reference tables (printed to fewer digits in docs/model.md
sections 4.1 and 4.2), from closed-form theory, or from
quadratures written in this file (own Gauss-Legendre rule by Newton iteration on
the Legendre recurrence, own mode shapes from the plain textbook formula).  No
expected value was copied from running flexlib.
"""
import math

import numpy as np
import pytest

from flexlib.bodies.modes import cantilever_roots, coupling_shape, mode_shapes, modal_integrals
from flexlib.params import BeamParams

# the roots beta_i L of 1 + cos(l) cosh(l) = 0 (docs/model.md section 4.1)
ROOTS_TABLE = np.array([1.875104068712, 4.694091132974, 7.854757438238, 10.995540734875,
                        14.137168391046, 17.278759532088, 20.420352251041, 23.561944901806])

# H(L) for L = 1, N = 3 (docs/model.md section 4.2)
H_L_REF = np.array([[4.64778, -7.37988, 3.94152],
                    [-7.37988, 32.41740, -22.35244],
                    [3.94152, -22.35244, 77.29889]])


# ---------------------------------------------------------------- own helpers
def gauss_legendre(n):
    """Own n-point Gauss-Legendre rule on [-1, 1] (Newton on the three-term recurrence)."""
    k = np.arange(1, n + 1)
    x = np.cos(np.pi * (k - 0.25) / (n + 0.5))
    for _ in range(100):
        p0, p1 = np.ones_like(x), x.copy()
        for j in range(2, n + 1):
            p0, p1 = p1, ((2 * j - 1) * x * p1 - (j - 1) * p0) / j
        dp = n * (x * p1 - p0) / (x * x - 1.0)
        dx = p1 / dp
        x = x - dx
        if np.max(np.abs(dx)) < 1e-16:
            break
    p0, p1 = np.ones_like(x), x.copy()
    for j in range(2, n + 1):
        p0, p1 = p1, ((2 * j - 1) * x * p1 - (j - 1) * p0) / j
    dp = n * (x * p1 - p0) / (x * x - 1.0)
    w = 2.0 / ((1.0 - x * x) * dp * dp)
    order = np.argsort(x)
    return x[order], w[order]


def gauss_on(a, b, n):
    xi, wi = gauss_legendre(n)
    return 0.5 * (b - a) * xi + 0.5 * (a + b), 0.5 * (b - a) * wi


def plain_modes(x, L, lam):
    """Textbook (non-stable) cantilever modes; fine in float64 for lambda <= ~11."""
    x = np.atleast_1d(np.asarray(x, float))
    out = []
    for l in lam:
        b = l / L
        s = (math.cosh(l) + math.cos(l)) / (math.sinh(l) + math.sin(l))
        a = b * x
        phi = np.cosh(a) - np.cos(a) - s * (np.sinh(a) - np.sin(a))
        d1 = b * (np.sinh(a) + np.sin(a) - s * (np.cosh(a) - np.cos(a)))
        d2 = b * b * (np.cosh(a) + np.cos(a) - s * (np.sinh(a) + np.sin(a)))
        out.append((phi, d1, d2))
    return tuple(np.stack([o[k] for o in out], axis=-1) for k in range(3))


def test_own_gauss_rule_is_exact_for_polynomials():
    x, w = gauss_legendre(30)
    assert abs(w.sum() - 2.0) < 1e-14
    for p in range(0, 59, 7):
        exact = (1.0 - (-1.0) ** (p + 1)) / (p + 1)
        assert abs(w @ x**p - exact) < 1e-14


XQ, WQ = gauss_on(0.0, 1.0, 200)        # own 200-point rule on [0, 1]

# ---------------------------------------------------------------- roots
def test_roots_against_table():
    r = cantilever_roots(8)
    assert r.shape == (8,)
    np.testing.assert_allclose(r, ROOTS_TABLE, rtol=0, atol=1e-11)
    # frequency equation, scaled by cosh so it does not overflow
    assert np.all(np.abs(np.cos(r) + 1.0 / np.cosh(r)) < 1e-14)


@pytest.mark.parametrize("n", range(1, 9))
def test_roots_prefix_consistent(n):
    np.testing.assert_allclose(cantilever_roots(n), ROOTS_TABLE[:n], rtol=0, atol=1e-11)


# ---------------------------------------------------------------- mode properties
@pytest.mark.parametrize("N", range(1, 9))
@pytest.mark.parametrize("L", [1.0, 2.5])
def test_boundary_conditions_and_tip_value(N, L):
    lam = cantilever_roots(N)
    beta = lam / L
    phi, d1, d2 = mode_shapes(np.array([0.0, L]), L, N)
    assert phi.shape == d1.shape == d2.shape == (2, N)
    assert np.all(np.abs(phi[0]) < 1e-13)
    assert np.all(np.abs(d1[0]) < 1e-13 * beta)
    assert np.all(np.abs(d2[1]) < 1e-12 * beta**2)          # Phi''(L) = 0 (no tip moment)
    expected_tip = 2.0 * (-1.0) ** (np.arange(1, N + 1) + 1)
    np.testing.assert_allclose(phi[1], expected_tip, rtol=0, atol=1e-12)


@pytest.mark.parametrize("N", range(1, 9))
@pytest.mark.parametrize("L", [1.0, 0.7])
def test_orthonormality_own_quadrature(N, L):
    lam = cantilever_roots(N)
    beta = lam / L
    x, w = L * XQ, L * WQ
    phi, _, d2 = mode_shapes(x, L, N)
    G = (w * phi.T) @ phi
    np.testing.assert_allclose(G, L * np.eye(N), rtol=0, atol=1e-12 * L)
    K = (w * d2.T) @ d2
    scale = np.outer(beta**2, beta**2) * L
    np.testing.assert_allclose(K / scale, np.eye(N), rtol=0, atol=1e-12)


@pytest.mark.parametrize("N", [1, 2, 3, 4])
def test_matches_plain_textbook_formula_at_small_i(N):
    L = 1.3
    x = np.linspace(0.0, L, 57)
    lam = ROOTS_TABLE[:N]
    p_ref, d1_ref, d2_ref = plain_modes(x, L, lam)
    phi, d1, d2 = mode_shapes(x, L, N)
    beta = lam / L
    # the plain form loses ~eps*exp(lambda) to cancellation: 6e-12 at i = 4
    np.testing.assert_allclose(phi, p_ref, rtol=0, atol=1e-9)
    np.testing.assert_allclose(d1 / beta, d1_ref / beta, rtol=0, atol=1e-9)
    np.testing.assert_allclose(d2 / beta**2, d2_ref / beta**2, rtol=0, atol=1e-9)


@pytest.mark.parametrize("N", [1, 3, 8])
def test_derivatives_against_finite_differences(N):
    L = 1.0
    lam = cantilever_roots(N)
    beta = lam / L
    x = np.linspace(0.02, 0.98, 41)
    h = 1e-5
    pp, dp, _ = mode_shapes(x + h, L, N)
    pm, dm, _ = mode_shapes(x - h, L, N)
    _, d1, d2 = mode_shapes(x, L, N)
    fd1 = (pp - pm) / (2 * h)
    fd2 = (dp - dm) / (2 * h)
    # truncation ~ h^2 beta^3 / 6 relative to beta: <= 1e-7 at i = 8
    np.testing.assert_allclose(fd1 / beta, d1 / beta, rtol=0, atol=2e-7)
    np.testing.assert_allclose(fd2 / beta**2, d2 / beta**2, rtol=0, atol=2e-7)


# ---------------------------------------------------------------- H(x)
def test_H_L_reference_values_N3():
    mi = modal_integrals(BeamParams(n_modes=3))
    np.testing.assert_allclose(mi.H_L, H_L_REF, rtol=0, atol=1e-5)
    np.testing.assert_allclose(mi.H_L, mi.H_L.T, rtol=0, atol=1e-14 * np.abs(mi.H_L).max())


@pytest.mark.parametrize("N", range(1, 9))
def test_H_against_own_quadrature(N):
    L = 1.0
    mi = modal_integrals(BeamParams(n_modes=N))
    _, d1, _ = mode_shapes(XQ, L, N)
    H_L = (WQ * d1.T) @ d1
    np.testing.assert_allclose(mi.H_L, H_L, rtol=0, atol=1e-11 * np.abs(H_L).max())
    # interior points, each with its own 200-point rule on [0, x]
    xs = np.array([0.0, 0.13, 0.5, 0.871])
    Hx = coupling_shape(xs, L, N, mi.x.size)
    for j, xj in enumerate(xs):
        xn, wn = xj * XQ, xj * WQ
        _, d, _ = mode_shapes(xn, L, N)
        ref = (wn * d.T) @ d
        np.testing.assert_allclose(Hx[j], ref, rtol=0, atol=1e-11 * np.abs(H_L).max() + 1e-300)
    assert np.all(Hx[0] == 0.0)


def test_H_zero_without_foreshortening():
    mi = modal_integrals(BeamParams(n_modes=3, foreshortening=False))
    assert np.all(mi.H == 0.0) and np.all(mi.H_L == 0.0) and np.all(mi.D == 0.0)
    assert np.all(mi.T3 == 0.0) and np.all(mi.T4 == 0.0)


# ---------------------------------------------------------------- constant integrals vs theory
@pytest.mark.parametrize("N", [1, 3, 8])
def test_constant_integrals_against_theory(N):
    b = BeamParams(n_modes=N, L=1.4)
    mi = modal_integrals(b)
    rhoS, EI, L = b.rho * b.S, b.E * b.I, b.L
    lam = ROOTS_TABLE[:N]
    assert mi.m == pytest.approx(rhoS * L, rel=1e-14)
    assert mi.J_ob == pytest.approx(rhoS * L**3 / 3, rel=1e-13)
    assert mi.Rx0 == pytest.approx(rhoS * L**2 / 2, rel=1e-13)
    np.testing.assert_allclose(mi.M2, rhoS * L * np.eye(N), rtol=0, atol=1e-12 * rhoS * L)
    K2 = EI * np.diag(lam**4) / L**3
    np.testing.assert_allclose(mi.K2 / np.sqrt(np.outer(np.diag(K2), np.diag(K2))), np.eye(N),
                               rtol=0, atol=1e-11)
    # int_0^L Phi_i dx = 2 sigma_i L / lambda_i  (uses cosh*cos = -1)
    sig = np.array([(math.cosh(l) + math.cos(l)) / (math.sinh(l) + math.sin(l)) for l in lam])
    np.testing.assert_allclose(mi.Sbar, rhoS * 2 * sig * L / lam, rtol=1e-11)
    np.testing.assert_allclose(mi.Phi_L, 2.0 * (-1.0) ** np.arange(N), rtol=0, atol=1e-12)


# ---------------------------------------------------------------- quadrature convergence (n_gauss)
NAMES = ("J_ob", "M2", "D", "S_y", "K2", "T3", "T4", "H_L", "Hbar", "Sbar")


def _rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


@pytest.mark.parametrize("N", [1, 2, 3])
def test_doubling_n_gauss_N_le_3(N):
    a = modal_integrals(BeamParams(n_modes=N, n_gauss=40))
    b = modal_integrals(BeamParams(n_modes=N, n_gauss=80))
    for name in NAMES:
        assert _rel(getattr(a, name), getattr(b, name)) <= 1e-12, name


def test_default_n_gauss_is_40_for_N3():
    assert BeamParams(n_modes=3).gauss_points == 40
    assert modal_integrals(BeamParams(n_modes=3)).x.size == 40


def test_automatic_n_gauss_N8_against_double():
    auto = BeamParams(n_modes=8)
    assert auto.gauss_points >= 60
    a = modal_integrals(auto)
    b = modal_integrals(BeamParams(n_modes=8, n_gauss=2 * auto.gauss_points))
    for name in NAMES:
        assert _rel(getattr(a, name), getattr(b, name)) <= 1e-10, name
