"""Dense linear algebra for the compiled physics, written as loops that allocate nothing.

Gaussian elimination with partial pivoting in place (:func:`solve_into`; :func:`solve` is the
allocating form; :func:`lu_factor`, :func:`lu_solve` keep the factors, real or complex, for
many right-hand sides), its banded form for matrices whose entries lie within a band
(:func:`band_lu_factor`, :func:`band_lu_solve`: O(n kl^2) instead of O(n^3)), the square-root-free Cholesky solve in place for symmetric positive definite
systems (:func:`ldlt_solve_into`), a rank-revealing solve of the constraint rows
(:func:`solve_rank_into`), and dot products and quadratic forms over a slice of the state vector
(:func:`dot_at`, :func:`mv_at`, :func:`quad_at`, :func:`quad_flat`) without making the slice.
The physics solves its mass matrix with them: a few entries for the modal bases
(nq = 3 + N <= ~10), where such loops are faster than BLAS calls (no dispatch, no temporaries),
up to nq ~ 100-200 for the finite-element bases, where the LDL^T solve does half the work of
the elimination.  Their order of summation is fixed, so the runs are reproducible to the bit.
"""
from __future__ import annotations

import math

from .. import _jit
from .._jit import compiled, hot

__all__ = ["solve_into", "lu_factor", "lu_solve", "band_lu_factor", "band_lu_solve", "ldlt_solve_into", "solve_rank_into", "solve", "dot_at", "mv_at", "quad_at",
           "quad_flat"]


@hot
def solve_into(M, X, m):
    """Gaussian elimination with partial pivoting, in place: ``M`` (n x n) is destroyed and the
    first ``m`` columns of ``X`` (n x >= m) are overwritten with M^-1 X.  A zero pivot (a
    singular M, or the overflowed state of a trial step far too long) gives NaN, not a
    division error: the integrator then rejects the step and shortens it."""
    n = M.shape[0]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(M[i, k]) > abs(M[p, k]):
                p = i
        if M[p, k] == 0.0:
            for i in range(n):
                for j in range(m):
                    X[i, j] = math.nan
            return
        if p != k:
            for j in range(n):
                M[k, j], M[p, j] = M[p, j], M[k, j]
            for j in range(m):
                X[k, j], X[p, j] = X[p, j], X[k, j]
        for i in range(k + 1, n):
            f = M[i, k] / M[k, k]
            for j in range(k, n):
                M[i, j] -= f * M[k, j]
            for j in range(m):
                X[i, j] -= f * X[k, j]
    for k in range(n - 1, -1, -1):
        for j in range(m):
            v = X[k, j]
            for i in range(k + 1, n):
                v -= M[k, i] * X[i, j]
            X[k, j] = v / M[k, k]


@hot
def lu_factor(M, piv):
    """LU factorization with partial pivoting of the square ``M`` in place (real or complex);
    False for a zero pivot.

    By panels of 4 columns: each panel is eliminated column by column (pivot search, full-row
    interchange, multipliers, the panel's own columns), then the panel's rows right of it from
    the rows above them, then every row below from the panel's 4 multipliers in one pass (one
    sweep over the trailing matrix per panel instead of per column: about 2x faster for real and
    1.3x for complex matrices of 67-258 rows).  Every entry receives the same subtractions in the
    same order as in the column-by-column elimination (a row interchanged before the panel's
    updates reach its right part carries its multipliers along), so the factors are the same
    bits (a zero multiplier subtracts an exact zero, which the column-by-column form skipped)."""
    n = M.shape[0]
    for k0 in range(0, n, 4):
        k1 = min(k0 + 4, n)
        for k in range(k0, k1):
            p = k
            big = abs(M[k, k])
            for i in range(k + 1, n):
                if abs(M[i, k]) > big:
                    p = i
                    big = abs(M[i, k])
            piv[k] = p
            if big == 0.0 or big != big:
                return False
            if p != k:
                for j in range(n):
                    M[k, j], M[p, j] = M[p, j], M[k, j]
            inv = 1.0 / M[k, k]
            for i in range(k + 1, n):
                f = M[i, k] * inv
                M[i, k] = f
                for j in range(k + 1, k1):
                    M[i, j] -= f * M[k, j]
        for k in range(k0 + 1, k1):             # the panel's rows right of it
            for p in range(k0, k):
                f = M[k, p]
                for j in range(k1, n):
                    M[k, j] -= f * M[p, j]
        if k1 - k0 == 4:                        # the rows below, from the 4 multipliers at once
            for i in range(k1, n):
                f0, f1, f2, f3 = M[i, k0], M[i, k0 + 1], M[i, k0 + 2], M[i, k0 + 3]
                for j in range(k1, n):
                    M[i, j] = (((M[i, j] - f0 * M[k0, j]) - f1 * M[k0 + 1, j])
                               - f2 * M[k0 + 2, j]) - f3 * M[k0 + 3, j]
    return True


@hot
def lu_solve(M, piv, b):
    """b := M^-1 b for the factorization of :func:`lu_factor`."""
    n = M.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            b[k], b[p] = b[p], b[k]
    for i in range(n):
        acc = b[i]
        for j in range(i):
            acc -= M[i, j] * b[j]
        b[i] = acc
    for i in range(n - 1, -1, -1):
        acc = b[i]
        for j in range(i + 1, n):
            acc -= M[i, j] * b[j]
        b[i] = acc / M[i, i]


@hot
def band_lu_factor(AB, n, kl, piv):
    """LU factorization with partial pivoting, in place, of the n x n matrix A whose entries lie
    within kl diagonals of the main one (|i - j| <= kl), stored by rows: A[i, j] at
    ``AB[i, j - i + kl]`` (``AB``: n x >= 3 kl + 1; the columns beyond 2 kl must be zero: the
    row interchanges fill up to 2 kl diagonals above the main one).  On return ``AB`` holds U
    (rows k, columns k..k + 2 kl) and the multipliers of step k in column k of the rows below it
    (not interchanged afterwards: :func:`band_lu_solve` applies the interchanges step by step,
    as LAPACK's ``gbtrf``/``gbtrs``), ``piv[k]`` the row interchanged with row k.  O(n kl^2).
    Returns False for a zero (or NaN) pivot."""
    w = 2 * kl
    for k in range(n):
        p = k
        big = abs(AB[k, kl])
        for i in range(k + 1, min(n, k + kl + 1)):
            v = abs(AB[i, k - i + kl])
            if v > big:
                p = i
                big = v
        piv[k] = p
        if big == 0.0 or big != big:
            return False
        if p != k:
            for j in range(k, min(n, k + w + 1)):
                a = AB[k, j - k + kl]
                AB[k, j - k + kl] = AB[p, j - p + kl]
                AB[p, j - p + kl] = a
        inv = 1.0 / AB[k, kl]
        for i in range(k + 1, min(n, k + kl + 1)):
            f = AB[i, k - i + kl] * inv
            AB[i, k - i + kl] = f
            if f != 0.0:
                for j in range(k + 1, min(n, k + w + 1)):
                    AB[i, j - i + kl] -= f * AB[k, j - k + kl]
    return True


@hot
def band_lu_solve(AB, n, kl, piv, x):
    """x := A^-1 x for the factorization of :func:`band_lu_factor`."""
    for k in range(n):
        p = piv[k]
        if p != k:
            a = x[k]
            x[k] = x[p]
            x[p] = a
        xk = x[k]
        for i in range(k + 1, min(n, k + kl + 1)):
            x[i] -= AB[i, k - i + kl] * xk
    for k in range(n - 1, -1, -1):
        v = x[k]
        for j in range(k + 1, min(n, k + 2 * kl + 1)):
            v -= AB[k, j - k + kl] * x[j]
        x[k] = v / AB[k, kl]


@hot
def ldlt_solve_into(M, X, m):
    """The square-root-free Cholesky solve (M = L D L^T) in place, for a symmetric positive
    definite ``M`` (n x n, its upper triangle read): ``M`` is destroyed (its upper triangle
    becomes D L^T) and the first ``m`` columns of ``X`` (n x >= m) are overwritten with M^-1 X.
    It is Gaussian elimination without pivoting (the multipliers f = M[k, i] / M[k, k]) that
    updates the upper triangle only: n^3/3 multiply-adds against :func:`solve_into`'s 2 n^3/3,
    and no pivot search.  A pivot that is not positive (an indefinite M, or NaN from the
    overflowed state of a trial step far too long) gives NaN, not an exception: the integrator
    then rejects the step and shortens it.  Returns whether the pivots were positive.

    The rows are eliminated by panels of 4: each row of the panel from the rows above it, then
    the trailing upper triangle from the 4 rows at once, every inner loop along a row (one pass
    over the trailing matrix per panel rather than per row: 1.4-3x faster at n = 19-131).  Each
    entry receives the same operations in the same order as row by row, so the bits do not
    depend on the panel width.  (The form with square roots, M = U^T U, is as fast, but every
    entry of U carries the rounding of a square root: the falling beam dropped flat with 4
    elements lost its symmetry, mean angular velocity up to 8e-4 rad/s over 0-0.2 s, against
    2e-10 with this form and 2e-12 with the elimination.)"""
    n = M.shape[0]
    for k0 in range(0, n, 4):
        kb = min(4, n - k0)
        for k in range(k0, k0 + kb):         # the panel's rows, each from the ones above it
            for p in range(k0, k):
                f = M[p, k] / M[p, p]
                for j in range(k, n):
                    M[k, j] -= f * M[p, j]
            if not M[k, k] > 0.0:
                for i in range(n):
                    for j in range(m):
                        X[i, j] = math.nan
                return False
        if kb == 4:                          # the trailing triangle from the panel's rows
            d0, d1, d2, d3 = M[k0, k0], M[k0 + 1, k0 + 1], M[k0 + 2, k0 + 2], M[k0 + 3, k0 + 3]
            for i in range(k0 + 4, n):
                f0, f1 = M[k0, i] / d0, M[k0 + 1, i] / d1
                f2, f3 = M[k0 + 2, i] / d2, M[k0 + 3, i] / d3
                for j in range(i, n):
                    M[i, j] = (((M[i, j] - f0 * M[k0, j]) - f1 * M[k0 + 1, j])
                               - f2 * M[k0 + 2, j]) - f3 * M[k0 + 3, j]
    for k in range(n):                       # L Y = X with the same multipliers
        for i in range(k + 1, n):
            f = M[k, i] / M[k, k]
            for j in range(m):
                X[i, j] -= f * X[k, j]
    for k in range(n - 1, -1, -1):           # D L^T X = Y
        for j in range(m):
            v = X[k, j]
            for i in range(k + 1, n):
                v -= M[k, i] * X[i, j]
            X[k, j] = v / M[k, k]
    return True


@hot
def solve_rank_into(A, x, perm, tol):
    """A x = b for a square ``A`` that may be singular (redundant constraints), in place:
    Gaussian elimination with complete pivoting; ``x`` holds b and then a basic solution, the
    unknowns of the pivots below ``tol`` times the largest one set to 0 (``perm``: int work array
    >= n).  Returns the rank found."""
    n = A.shape[0]
    for i in range(n):
        perm[i] = i
    big = 0.0
    rank = n
    for k in range(n):
        p, r = k, k
        amax = 0.0
        for i in range(k, n):
            for j in range(k, n):
                if abs(A[i, j]) > amax:
                    amax, p, r = abs(A[i, j]), i, j
        if k == 0:
            big = amax
        if amax <= tol * big or amax == 0.0:
            rank = k
            break
        if p != k:
            for j in range(n):
                A[k, j], A[p, j] = A[p, j], A[k, j]
            x[k], x[p] = x[p], x[k]
        if r != k:
            for i in range(n):
                A[i, k], A[i, r] = A[i, r], A[i, k]
            perm[k], perm[r] = perm[r], perm[k]
        for i in range(k + 1, n):
            f = A[i, k] / A[k, k]
            for j in range(k, n):
                A[i, j] -= f * A[k, j]
            x[i] -= f * x[k]
    for k in range(rank, n):
        x[k] = 0.0
    for k in range(rank - 1, -1, -1):
        v = x[k]
        for i in range(k + 1, rank):
            v -= A[k, i] * x[i]
        x[k] = v / A[k, k]
    for k in range(n):             # undo the column permutation: unknown perm[k] is x[k]
        A[0, k] = x[k]
    for k in range(n):
        x[perm[k]] = A[0, k]
    return rank


@compiled
def solve(A, b):
    """Gaussian elimination with partial pivoting; b 1-D or 2-D (A and b are not changed)."""
    n = A.shape[0]
    M = A.copy()
    if b.ndim == 1:
        X = b.copy().reshape(n, 1)
    else:
        X = b.copy()
    solve_into(M, X, X.shape[1])
    return X


@hot
def dot_at(a, y, off):
    """sum_i a[i] y[off + i] (a dot product with a slice of y, without the slice)."""
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * y[off + i]
    return acc


@hot
def mv_at(A, y, off, n, dst):
    """dst[:m] = A[:, :n] y[off:off+n] (m = A.shape[0])."""
    for i in range(A.shape[0]):
        acc = 0.0
        for j in range(n):
            acc += A[i, j] * y[off + j]
        dst[i] = acc


@hot
def quad_at(A, y, off, n):
    """x^T A x with x = y[off:off+n] (summed row by row: sum_i x_i (sum_j A_ij x_j))."""
    acc = 0.0
    for i in range(n):
        r = 0.0
        for j in range(n):
            r += A[i, j] * y[off + j]
        acc += y[off + i] * r
    return acc


@hot
def quad_flat(A, y, off, n):
    """x^T A x with x = y[off:off+n], summed term by term in row-major order, (x_i A_ij) x_j:
    the order of ``np.einsum("i,ij,j->", x, A, x)`` (the energies' quadratic forms keep the
    bits they had when the histories computed them with einsum)."""
    acc = 0.0
    for i in range(n):
        for j in range(n):
            acc += y[off + i] * A[i, j] * y[off + j]
    return acc


_jit.flush_module(__name__)
