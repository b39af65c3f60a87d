"""The LDL^T solve of the mass matrix (``linalg.ldlt_solve_into``) and its use by the kernel.

The solve must agree with NumPy's LU solve on random symmetric positive definite matrices to a
relative error bounded by the condition number times the unit round-off, solve only the first
``m`` columns, and turn an indefinite or NaN matrix into NaN (the integrator rejects such a
step) without raising.  The kernel uses it from ``kernel.LDLT_MIN_NQ`` coordinates on:
the falling beam with 16 finite elements (nq = 35) must move as it does with Gaussian
elimination, computed here with the threshold moved above its nq.
"""
import numpy as np
import pytest

from flexlib.cases import simulate
from flexlib.multibody import kernel as K
from flexlib.solver import linalg

EPS = np.finfo(float).eps


def _spd(rng, n, cond):
    """A random symmetric positive definite n x n matrix of condition number ``cond``."""
    Qm, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return (Qm * np.geomspace(1.0, 1.0 / cond, n)) @ Qm.T


@pytest.mark.parametrize("n", [1, 2, 5, 11, 35, 67])
@pytest.mark.parametrize("cond", [1e1, 1e4, 1e8])
def test_ldlt_solve_agrees_with_numpy(n, cond):
    rng = np.random.default_rng(n)
    A = _spd(rng, n, cond)
    A = 0.5 * (A + A.T)                                  # exactly symmetric, as M is
    X = rng.normal(size=(n, 5))
    ref = np.linalg.solve(A, X[:, :4])
    M, Xw = A.copy(), X.copy()
    linalg.ldlt_solve_into(M, Xw, 4)
    # forward error of a backward-stable solve: a small multiple of n cond(A) eps
    err = np.linalg.norm(Xw[:, :4] - ref, axis=0) / np.linalg.norm(ref, axis=0)
    assert err.max() <= 10 * n * np.linalg.cond(A) * EPS, (err, np.linalg.cond(A))
    np.testing.assert_array_equal(Xw[:, 4], X[:, 4])     # the columns past m are left alone
    # M is now D L^T in its upper triangle: A = (D L^T)^T D^-1 (D L^T)
    U = np.triu(M)
    np.testing.assert_allclose(U.T @ (U / np.diag(U)[:, None]), A, rtol=0,
                               atol=1e2 * n * EPS * np.abs(A).max())


def test_ldlt_solve_reads_only_the_upper_triangle():
    rng = np.random.default_rng(4)
    A = _spd(rng, 9, 1e3)
    A = 0.5 * (A + A.T)
    b = rng.normal(size=(9, 1))
    M, x = A.copy(), b.copy()
    M[np.tril_indices(9, -1)] = np.nan
    linalg.ldlt_solve_into(M, x, 1)
    np.testing.assert_allclose(x[:, 0], np.linalg.solve(A, b[:, 0]), rtol=1e-10)


def _ldlt_row_by_row(A):
    """D L^T row by row, written here in plain Python floats: Gaussian elimination without
    pivoting on the upper triangle, row i -= (A_ki / A_kk) row k for i > k."""
    n = A.shape[0]
    U = [[float(A[i, j]) for j in range(n)] for i in range(n)]
    for k in range(n):
        for i in range(k + 1, n):
            f = U[k][i] / U[k][k]
            for j in range(i, n):
                U[i][j] -= f * U[k][j]
    return np.triu(np.array(U))


@pytest.mark.parametrize("n", [1, 3, 4, 5, 8, 13, 18])
def test_ldlt_factor_by_panels_has_the_bits_of_the_row_by_row_factor(n):
    """The panels of 4 rows change the order of the loops, not the operations each entry
    receives: the factor is the row-by-row one bit for bit (sizes with and without a partial
    last panel)."""
    rng = np.random.default_rng(100 + n)
    A = _spd(rng, n, 1e3)
    A = 0.5 * (A + A.T)
    M = A.copy()
    assert linalg.ldlt_solve_into(M, np.zeros((n, 1)), 1)
    np.testing.assert_array_equal(np.triu(M), _ldlt_row_by_row(A))


@pytest.mark.parametrize("bad", ["indefinite", "singular", "nan"])
def test_ldlt_solve_gives_nan_for_a_matrix_that_is_not_positive_definite(bad):
    rng = np.random.default_rng(7)
    n = 12
    A = _spd(rng, n, 1e2)
    A = 0.5 * (A + A.T)
    if bad == "indefinite":                 # one negative eigenvalue
        w, V = np.linalg.eigh(A)
        w[n // 2] = -0.3
        A = (V * w) @ V.T
    elif bad == "singular":                 # a zero row and column
        A[5, :] = A[:, 5] = 0.0
    else:                                   # an overflowed trial state
        A[3, 3] = np.nan
    X = rng.normal(size=(n, 3))
    M, Xw = A.copy(), X.copy()
    assert not linalg.ldlt_solve_into(M, Xw, 2)    # no exception
    assert np.all(np.isnan(Xw[:, :2]))
    np.testing.assert_array_equal(Xw[:, 2], X[:, 2])


def _falling_beam():
    res = simulate("falling-beam", "continuous", 0.16, basis="fe", elements=16, theta0=0.1)
    mm = res.mean_motion(res.sample([0.16]))
    return (mm["beam.v_cm"][0][1], mm["beam.omega_mean"][0],
            sum(float(i["normal_impulse"]) for i in res.impacts), len(res.impacts))


def test_falling_beam_with_ldlt_moves_as_with_gaussian_elimination(monkeypatch):
    """fe 16 (nq = 35) is solved by LDL^T; with the threshold above 35 the same run is solved
    by Gaussian elimination.  The two differ by round-off in every solve, which can move the
    step sequence through the stiff penalty contacts (then the runs agree only to the
    integrator's tolerance, 1e-8: so at fe 4); here v_cm_y and omega_mean at 0.16 s and the
    total normal impulse of the landing agree to 1e-9 (measured: 3e-11, 5e-11, 7e-11)."""
    assert K.use_ldlt(35)
    v, om, imp, n = _falling_beam()
    monkeypatch.setattr(K, "LDLT_MIN_NQ", 10 ** 6)
    assert not K.use_ldlt(35)
    v_ge, om_ge, imp_ge, n_ge = _falling_beam()
    assert n == n_ge >= 1
    assert abs(v - v_ge) <= 1e-9 * abs(v_ge), (v, v_ge)
    assert abs(om - om_ge) <= 1e-9 * abs(om_ge), (om, om_ge)
    assert abs(imp - imp_ge) <= 1e-9 * abs(imp_ge), (imp, imp_ge)
