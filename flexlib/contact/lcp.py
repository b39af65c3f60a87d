"""Linear complementarity problems of multi-contact mechanics: solver, impacts, mode selection.

The linear complementarity problem (LCP) of a symmetric positive semi-definite k x k matrix A and
a vector b asks for x with

    w = A x + b,   x >= 0,   w >= 0,   x^T w = 0

(Cottle, Pang & Stone 1992, *The Linear Complementarity Problem*).  In multi-contact
mechanics A = W^T M^-1 W is the Delassus matrix of the contact points (W the normal directions in
generalised coordinates, M the mass matrix), x the normal impulses or forces and w the normal
velocities or accelerations (Pfeiffer & Glocker 1996, *Multibody Dynamics with Unilateral
Contacts*; Brogliato, *Nonsmooth Mechanics*).

* :func:`solve_lcp` enumerates the 2^k index sets for k <= 8 (every feasible one, so that the
  uniqueness of the solution is known) and runs Lemke's complementary pivoting method with the
  covering vector d = 1 and a lexicographic ratio test for larger k (Cottle, Pang & Stone 1992,
  ch. 4; the lexicographic rule keeps degenerate pivots from cycling).  A is rank deficient when
  contacts are redundant (two coincident points, a four-legged table): the normal velocities w are
  still unique but the impulses x are not, and the least-norm x is returned.
* :func:`newton_impact` is Newton's impact law at several contact points, written as an LCP
  (Pfeiffer & Glocker 1996).
* :func:`contact_lcp` is the frictionless acceleration-level contact problem.
* :func:`select_modes` enumerates the combinations of candidate contact modes (free, stick, slip)
  of several frictional contacts and keeps the consistent ones (Pfeiffer & Glocker 1996).

Pure NumPy; nothing here is compiled.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Sequence

import numpy as np

__all__ = ["LCPSolution", "LCPError", "solve_lcp", "ImpactSolution", "newton_impact",
           "contact_lcp", "Selection", "InconsistentContacts", "select_modes",
           "ENUMERATION_MAX_K", "MAX_COMBINATIONS"]

ENUMERATION_MAX_K = 8          # solve_lcp enumerates the index sets up to this size, else Lemke
_FORCED_ENUMERATION_MAX_K = 16  # method="enumeration" refuses larger problems (2^16 index sets)
MAX_COMBINATIONS = 4 ** 6      # select_modes refuses more mode combinations than this
_EPS = np.finfo(float).eps


class LCPError(ValueError):
    """The LCP has no solution (or the solver found none)."""


@dataclass(frozen=True)
class LCPSolution:
    """A solution of w = A x + b, x >= 0, w >= 0, x^T w = 0.

    ``active`` marks the points of the chosen index set (w_i = 0 imposed) or with x_i > 0;
    ``unique`` says that exactly one solution x was found (enumeration) or that A is positive
    definite (Lemke); ``redundant`` that A is rank deficient; ``n_solutions`` counts the distinct
    solutions x of the feasible index sets (1 for Lemke)."""
    x: np.ndarray
    w: np.ndarray
    active: np.ndarray
    unique: bool
    redundant: bool
    method: str
    n_solutions: int


def _validated(A, b) -> tuple[np.ndarray, np.ndarray]:
    """A and b as float arrays, after checking the shapes, finiteness and symmetry."""
    A = np.atleast_2d(np.asarray(A, dtype=float))
    b = np.atleast_1d(np.asarray(b, dtype=float)).ravel()
    k = b.size
    if A.shape != (k, k):
        raise ValueError(f"A must be {k} x {k} to match b, got shape {A.shape}")
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))):
        raise ValueError("A and b must be finite")
    scale = max(float(np.abs(A).max(initial=0.0)), np.finfo(float).tiny)
    if np.abs(A - A.T).max(initial=0.0) > 1e-10 * scale:
        raise ValueError("A must be symmetric (a Delassus matrix W^T M^-1 W is)")
    return 0.5 * (A + A.T), b


def _residual(A, b, x) -> tuple[float, float]:
    """(r, s): the largest violation r = max_i |min(||A|| x_i, w_i)| of the LCP conditions by x
    (zero exactly for a solution; it measures x < 0, w < 0 and x_i w_i != 0 at once, in the units
    of w) and the scale s of w it is to be compared with."""
    w = A @ x + b
    nA = float(np.abs(A).max(initial=0.0))
    s = max(float(np.abs(b).max(initial=0.0)), nA * float(np.abs(x).max(initial=0.0)),
            np.finfo(float).tiny)
    r = float(np.abs(np.minimum(nA * x, w)).max(initial=0.0))
    return r, s


def _on_set(A, b, alpha, rcond) -> np.ndarray:
    """x with w_alpha = 0 by the least-norm (pseudo-inverse, singular values below rcond times
    the largest cut) solution of A_aa x_a = -b_a, and x zero off alpha.  ``rcond=None`` says that
    A is positive definite: then so is A_aa (its eigenvalues interlace A's), and it is solved
    directly, ten times faster."""
    x = np.zeros(b.size)
    if alpha.any():
        Aaa = A[np.ix_(alpha, alpha)]
        x[alpha] = (np.linalg.solve(Aaa, -b[alpha]) if rcond is None else
                    np.linalg.pinv(Aaa, rcond=rcond, hermitian=True) @ -b[alpha])
    return x


def _error(A, b, x, eig_min, why) -> LCPError:
    r, s = _residual(A, b, x)
    return LCPError(
        f"no solution of the LCP with k = {b.size} contact points ({why}): the smallest eigenvalue "
        f"of A is {eig_min:.6g} and the best candidate's largest complementarity violation "
        f"max_i |min(||A|| x_i, w_i)| is {r:.6g} (scale of w {s:.3g})")


def _enumerate(A, b, tol, rcond, eig_min) -> tuple[list, list]:
    """All feasible (x, alpha) of the 2^k index sets, least-norm x first; LCPError if none."""
    k = b.size
    found, best = [], (math.inf, np.zeros(k))
    for bits in itertools.product((False, True), repeat=k):
        alpha = np.array(bits, dtype=bool)
        x = _on_set(A, b, alpha, rcond)
        r, s = _residual(A, b, x)
        if r <= tol * s:
            found.append((np.maximum(x, 0.0), alpha))
        elif r / s < best[0]:
            best = (r / s, x)
    if not found:
        raise _error(A, b, best[1], eig_min, "none of the 2^k index sets is feasible")
    found.sort(key=lambda f: float(f[0] @ f[0]))
    same = math.sqrt(tol) * max(max(float(np.abs(x).max(initial=0.0)) for x, _ in found),
                                np.finfo(float).tiny)
    distinct = []
    for x, _ in found:
        if all(np.abs(x - y).max(initial=0.0) > same for y in distinct):
            distinct.append(x)
    return found, distinct


def _lex_argmin(T, rows, col, prefer=None) -> int:
    """The leaving row of the lexicographic minimum-ratio test: among ``rows`` the least
    (q_i, B^-1_i) / col_i, compared column by column with a relative tie tolerance; the row
    ``prefer`` (the artificial variable's) wins a tie in q_i / col_i."""
    cand = np.asarray(rows)
    for j, c in enumerate([T.shape[1] - 1, *range(T.shape[0])]):
        ratio = T[cand, c] / col[cand]
        lo = ratio.min()
        cand = cand[ratio <= lo + 1e-11 * max(1.0, abs(lo))]
        if j == 0 and prefer is not None and prefer in cand:
            return int(prefer)
        if cand.size == 1:
            break
    return int(cand[0])


def _lemke(A, b, *, max_pivots=None) -> np.ndarray:
    """x of the LCP by Lemke's method (covering vector 1, lexicographic ratio test; Cottle, Pang
    & Stone 1992, ch. 4).  Raises LCPError on ray termination or too many pivots."""
    k = b.size
    if np.all(b >= 0.0):
        return np.zeros(k)
    alpha = max(float(np.abs(A).max(initial=0.0)), np.finfo(float).tiny)
    beta = float(np.abs(b).max())
    An, bn = A / alpha, b / beta                      # x' = alpha x / beta solves (An, bn)
    # Columns: w_0..w_k-1, x_0..x_k-1, z0, rhs.  The w columns hold B^-1 for the lexicographic test.
    T = np.hstack([np.eye(k), -An, -np.ones((k, 1)), bn[:, None]])
    basis = list(range(k))
    z0 = 2 * k
    r = _lex_argmin(T, range(k), np.ones(k))          # most negative (q_i, e_i): z0 enters here
    entering = z0
    for _ in range(max_pivots or max(1000, 50 * k)):
        T[r] /= T[r, entering]
        for i in range(k):
            if i != r and T[i, entering] != 0.0:
                T[i] -= T[i, entering] * T[r]
        leaving, basis[r] = basis[r], entering
        if leaving == z0:
            x = np.zeros(k)
            for i, v in enumerate(basis):
                if k <= v < 2 * k:
                    x[v - k] = T[i, -1]
            return np.maximum(x, 0.0) * beta / alpha
        entering = leaving + k if leaving < k else leaving - k
        col = T[:, entering]
        rows = np.flatnonzero(col > 1e-11 * max(1.0, np.abs(col).max()))
        if rows.size == 0:
            raise _ray(A, b, T, basis, beta / alpha)
        r = _lex_argmin(T, rows, col, prefer=basis.index(z0))
    raise _ray(A, b, T, basis, beta / alpha, why="Lemke's method did not end within its pivots")


def _ray(A, b, T, basis, unit, why="Lemke's method ended on a ray") -> LCPError:
    k = b.size
    x = np.zeros(k)
    for i, v in enumerate(basis):
        if k <= v < 2 * k:
            x[v - k] = T[i, -1] * unit
    return _error(A, b, x, float(np.linalg.eigvalsh(A)[0]), why)


def _lemke_least_norm(A, b, tol, rcond, eig_min, redundant) -> np.ndarray:
    """Lemke's x, refined on its support (pseudo-inverse on the active set; with a rank-deficient
    A the support of the Lemke solution of the regularised A + delta I, which tends to the
    least-norm solution as delta -> 0, is tried too), the least-norm feasible one."""
    cands = [_lemke(A, b)]
    if redundant:
        delta = math.sqrt(tol) * max(float(np.abs(A).max(initial=0.0)), np.finfo(float).tiny)
        try:
            cands.append(_lemke(A + delta * np.eye(b.size), b))
        except LCPError:
            pass
    feasible = []
    for x in list(cands):
        cands.append(_on_set(A, b, x > 0.0, rcond))
    for x in cands:
        r, s = _residual(A, b, x)
        if r <= tol * s:
            feasible.append(np.maximum(x, 0.0))
    if not feasible:
        raise _error(A, b, cands[0], eig_min, "Lemke's solution fails the tolerance")
    return min(feasible, key=lambda x: float(x @ x))


def solve_lcp(A, b, *, tol: float = 1e-12, method: str = "auto") -> LCPSolution:
    """Solve w = A x + b, x >= 0, w >= 0, x^T w = 0 for a symmetric positive semi-definite A.

    ``method``: "auto" (enumeration for k <= ENUMERATION_MAX_K, else Lemke), "enumeration"
    (every index set alpha: w_alpha = 0 by the pseudo-inverse of A_alpha,alpha, x = 0 off alpha;
    up to k = 16) or "lemke".  ``tol`` is the relative tolerance of the LCP conditions
    (max_i |min(||A|| x_i, w_i)| <= tol * scale of w) and of the rank of A (eigenvalues below
    tol * the largest count as zero); solutions closer than sqrt(tol) (relative) count as one.

    With a rank-deficient A (``redundant``) the least-norm x is returned.  By enumeration this is
    exact: the least-norm solution is the pseudo-inverse solution on its own support, one of the
    index sets (for a positive semi-definite A the null spaces of A_PP and A_:P agree).  Raises
    LCPError (a ValueError) when no solution is found."""
    A, b = _validated(A, b)
    k = b.size
    if method not in ("auto", "enumeration", "lemke"):
        raise ValueError(f"method must be 'auto', 'enumeration' or 'lemke', not {method!r}")
    if method == "auto":
        method = "enumeration" if k <= ENUMERATION_MAX_K else "lemke"
    if method == "enumeration" and k > _FORCED_ENUMERATION_MAX_K:
        raise ValueError(f"enumeration of 2^{k} index sets refused (at most k = "
                         f"{_FORCED_ENUMERATION_MAX_K}); use method='lemke'")
    eig = np.linalg.eigvalsh(A) if k else np.zeros(1)
    eig_min, eig_max = float(eig[0]), float(eig[-1])
    if eig_min < -1e-10 * max(abs(eig_max), np.finfo(float).tiny):
        raise ValueError(f"A must be positive semi-definite; its smallest eigenvalue is "
                         f"{eig_min:.6g}")
    redundant = bool(k) and eig_min <= tol * max(eig_max, np.finfo(float).tiny)
    if method == "enumeration":
        found, distinct = _enumerate(A, b, tol, tol if redundant else None, eig_min)
        x, alpha = found[0]
        n, unique = len(distinct), len(distinct) == 1
    else:
        x = _lemke_least_norm(A, b, tol, tol if redundant else None, eig_min, redundant)
        alpha, n, unique = x > 0.0, 1, not redundant
    w = A @ x + b
    return LCPSolution(x=x, w=w, active=np.asarray(alpha | (x > 0.0)), unique=bool(unique),
                       redundant=bool(redundant), method=method, n_solutions=int(n))


def contact_lcp(G, b, *, tol: float = 1e-12, method: str = "auto"):
    """The frictionless contact problem a = G lambda + b, lambda >= 0, a >= 0, lambda^T a = 0
    (Pfeiffer & Glocker 1996: G the Delassus matrix, b the normal accelerations
    without contact forces); returns (lambda, a, the LCPSolution)."""
    sol = solve_lcp(G, b, tol=tol, method=method)
    return sol.x, sol.w, sol


@dataclass(frozen=True)
class ImpactSolution:
    """Newton's impact at several points: impulses ``Lambda``, normal velocities after ``v_plus``,
    the LCP solved (``lcp``) and ``closing``: the points whose v_plus is zero (within
    max(tol, 64 k eps) times the velocity scale), which stay in contact."""
    Lambda: np.ndarray
    v_plus: np.ndarray
    lcp: LCPSolution
    closing: np.ndarray


def newton_impact(G, vn_minus, e, closed=None, *, tol: float = 1e-12,
                  method: str = "auto") -> ImpactSolution:
    """Newton's impact law at k contact points (Pfeiffer & Glocker 1996; Brogliato,
    *Nonsmooth Mechanics*): v+ = v- + G Lambda, Lambda >= 0, complementary to
    v+_i + e_i v-_i >= 0 at the approaching points (v-_i < 0) and to v+_i >= 0 at the closed ones
    (``closed[i]``, persistent contacts with v-_i ~ 0) and at any point with v-_i >= 0, which take
    e_i = 0.  ``G`` = W^T M^-1 W, ``e`` a scalar or one coefficient per point in [0, 1].

    As an LCP: w = v+ + e v- = G Lambda + (1 + e) v-.  With a rank-deficient G (redundant
    points) the least-norm Lambda is returned; v+ is unique anyway."""
    vm = np.atleast_1d(np.asarray(vn_minus, dtype=float)).ravel()
    k = vm.size
    e = np.broadcast_to(np.asarray(e, dtype=float), (k,)).copy()
    closed = np.broadcast_to(np.asarray(False if closed is None else closed, bool), (k,))
    if np.any((e < 0.0) | (e > 1.0)) or not np.all(np.isfinite(e)):
        raise ValueError(f"restitution coefficients must lie in [0, 1], got {e}")
    e_eff = np.where(closed | (vm >= 0.0), 0.0, e)
    G, b = _validated(G, (1.0 + e_eff) * vm)
    sol = solve_lcp(G, b, tol=tol, method=method)
    v_plus = vm + G @ sol.x
    scale = max(float(np.abs(vm).max(initial=0.0)),
                float(np.abs(G).max(initial=0.0) * np.abs(sol.x).max(initial=0.0)),
                np.finfo(float).tiny)
    return ImpactSolution(Lambda=sol.x, v_plus=v_plus, lcp=sol,
                          closing=np.abs(v_plus) <= max(tol, 64 * k * _EPS) * scale)


@dataclass(frozen=True)
class Selection:
    """The chosen mode combination (one mode per contact), its ``result``, how many combinations
    were consistent, whether that was more than one (``ambiguous``), and all consistent ones."""
    combo: tuple
    result: Any
    n_consistent: int
    ambiguous: bool
    consistent_combos: tuple


class InconsistentContacts(ValueError):
    """No combination of contact modes is consistent (a Painleve-type situation)."""

    def __init__(self, message, combo=(), failed=()):
        super().__init__(message)
        self.combo, self.failed = tuple(combo), tuple(failed)


def select_modes(candidates: Sequence[Sequence[Hashable]], solve: Callable[[tuple], Any],
                 consistent: Callable[[tuple, Any], Sequence[bool]], *,
                 priority: Sequence[Hashable] | None = None,
                 max_combinations: int = MAX_COMBINATIONS) -> Selection:
    """The consistent combination of contact modes of several contacts (Pfeiffer & Glocker 1996:
    every combination of, e.g., "FREE", "STICK", "SLIP+", "SLIP-" is solved and its
    inequalities checked).

    ``candidates[i]`` lists the modes of contact i; ``solve(combo)`` solves one combination (a
    tuple, one mode per contact); ``consistent(combo, result)`` gives one bool per contact.  All
    combinations are tried (a ValueError beyond ``max_combinations``).  Among several consistent
    ones the choice goes contact by contact (lexicographic over the contacts) by ``priority``, one
    order of modes for every contact (modes it does not list come after, in candidate order);
    by default each contact's candidate order (first listed wins).  None consistent raises
    InconsistentContacts naming the contacts that fail in the combination with fewest failures."""
    cands = [list(c) for c in candidates]
    if not cands or any(not c for c in cands):
        raise ValueError("every contact needs at least one candidate mode")
    n = math.prod(len(c) for c in cands)
    if n > max_combinations:
        raise ValueError(f"{n} mode combinations of {len(cands)} contacts exceed the cap of "
                         f"{max_combinations}; fewer contacts or candidates per call")
    prio = list(priority) if priority is not None else []

    def rank(i, mode):
        return (prio.index(mode) if mode in prio else len(prio), cands[i].index(mode))

    good, best = [], None
    for combo in itertools.product(*cands):
        result = solve(combo)
        ok = [bool(f) for f in consistent(combo, result)]
        if len(ok) != len(cands):
            raise ValueError(f"consistent() returned {len(ok)} flags for {len(cands)} contacts")
        if all(ok):
            good.append((combo, result))
        elif best is None or ok.count(False) < best[1].count(False):
            best = (combo, ok)
    if not good:
        failed = [i for i, f in enumerate(best[1]) if not f]
        raise InconsistentContacts(
            f"no consistent mode combination of {len(cands)} contacts among {n}; the best, "
            f"{best[0]}, fails at contact(s) {failed}", combo=best[0], failed=failed)
    combo, result = min(good, key=lambda g: [rank(i, m) for i, m in enumerate(g[0])])
    return Selection(combo=tuple(combo), result=result, n_consistent=len(good),
                     ambiguous=len(good) > 1, consistent_combos=tuple(g[0] for g in good))
