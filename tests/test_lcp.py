"""The LCP solver, Newton's multi-point impact law and the mode-combination enumeration
(flexlib.contact.lcp).

The references are independent of the module: the LCP conditions are checked directly; for a
positive definite A = L L^T the LCP is the optimality condition of min 1/2 x^T A x + b^T x over
x >= 0, i.e. the non-negative least-squares problem min ||L^T x + L^-1 b|| (Lawson & Hanson's
active-set method, scipy.optimize.nnls); the 2 x 2 case, the coincident points and the rods are
worked out by hand here (rod: G = W^T M^-1 W with M = diag(m, m, J), J = m L^2 / 12).
"""
import math
import re

import numpy as np
import pytest
from scipy.optimize import nnls

from flexlib.contact import lcp
from flexlib.contact.lcp import (InconsistentContacts, LCPError, contact_lcp, newton_impact, select_modes,
                         solve_lcp)


def random_pd(rng, k):
    B = rng.standard_normal((k, k))
    return B @ B.T + 0.1 * k * np.eye(k)


def nnls_reference(A, b):
    """x of the LCP of a positive definite A, as min ||L^T x + L^-1 b||, x >= 0."""
    L = np.linalg.cholesky(A)
    x, _ = nnls(L.T, -np.linalg.solve(L, b), maxiter=50 * len(b))
    return x


def assert_lcp(A, b, x, w, tol=1e-10):
    s = max(np.abs(b).max(), np.abs(A).max() * np.abs(x).max(), 1.0)
    assert np.allclose(w, A @ x + b, rtol=0, atol=tol * s)
    assert x.min() >= -tol * s
    assert w.min() >= -tol * s
    assert np.abs(x * w).max() <= tol * s * max(1.0, np.abs(x).max())


def random_problems(seed, k, n):
    """n random LCPs (positive definite A, standard normal b), each with the library's solution,
    which must satisfy the LCP conditions, be unique and agree with the NNLS reference."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        A, b = random_pd(rng, k), rng.standard_normal(k)
        sol = solve_lcp(A, b)
        assert sol.unique and sol.n_solutions == 1 and not sol.redundant
        assert_lcp(A, b, sol.x, sol.w)
        np.testing.assert_allclose(sol.x, nnls_reference(A, b), rtol=1e-8, atol=1e-9)
        yield A, b, sol


@pytest.mark.parametrize("k", range(1, 9))
def test_random_pd_by_enumeration_is_unique_and_agrees_with_lemke_and_nnls(k):
    for A, b, sol in random_problems(100 + k, k, 10):
        assert sol.method == "enumeration"
        np.testing.assert_allclose(sol.x, lcp._lemke(A, b), rtol=1e-9, atol=1e-10)
        np.testing.assert_allclose(sol.x, solve_lcp(A, b, method="lemke").x, rtol=1e-9, atol=1e-10)
        assert np.all(sol.x[~sol.active] == 0)


@pytest.mark.parametrize("k", range(10, 21))
def test_random_pd_by_lemke(k):
    for _, _, sol in random_problems(200 + k, k, 5):
        assert sol.method == "lemke"


def test_lemke_on_degenerate_problems():
    """Degenerate pivots (zero and tied entries of b, repeated ratios) end at a solution."""
    rng = np.random.default_rng(7)
    for k in (3, 6, 12):
        A = random_pd(rng, k)
        for b in (np.zeros(k), -np.ones(k), np.r_[np.zeros(k // 2), -np.ones(k - k // 2)],
                  -A @ np.r_[np.ones(k // 2), np.zeros(k - k // 2)]):
            x = lcp._lemke(A, b)
            assert_lcp(A, b, x, A @ x + b)
            np.testing.assert_allclose(x, nnls_reference(A, b), atol=1e-9)


def test_lexicographic_ratio_test_breaks_ties_by_the_rows_of_the_inverse_basis():
    """Tableau [B^-1 | q]: ratios q_i / c_i tie for rows 0 and 1 (both 1); the first column of
    B^-1 / c ties too (0 and 0), the second decides (1 > -1 / 2): row 1.  The artificial
    variable's row wins a tie of the first ratio."""
    T = np.array([[0.0, 1.0, 0.0, 1.0],
                  [0.0, -1.0, 0.0, 2.0],
                  [1.0, 0.0, 0.0, 2.0]])
    col = np.array([1.0, 2.0, 1.0])
    assert lcp._lex_argmin(T, [0, 1, 2], col) == 1
    assert lcp._lex_argmin(T, [0, 1, 2], col, prefer=0) == 0
    assert lcp._lex_argmin(T, [0, 1, 2], col, prefer=2) == 1     # row 2 (ratio 2) is no tie
    assert lcp._lex_argmin(T, [0, 2], col) == 0


def test_two_by_two_by_hand():
    """A = [[2, 1], [1, 2]], b = [-4, 1]: x1 = 2, x2 = 0 (w1 = 0, w2 = 1*2 + 1 = 3)."""
    A, b = np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-4.0, 1.0])
    sol = solve_lcp(A, b)
    np.testing.assert_allclose(sol.x, [2.0, 0.0], atol=1e-14)
    np.testing.assert_allclose(sol.w, [0.0, 3.0], atol=1e-14)
    assert sol.active.tolist() == [True, False] and sol.unique
    # b = [-4, -5]: both active, x = A^-1 [4, 5] = [1, 2]
    sol = solve_lcp(A, [-4.0, -5.0])
    np.testing.assert_allclose(sol.x, [1.0, 2.0], atol=1e-14)
    assert sol.active.all()
    np.testing.assert_allclose(solve_lcp(A, [-4.0, -5.0], method="lemke").x, [1.0, 2.0], atol=1e-14)


def test_coincident_points_share_the_impulse_equally():
    """Two coincident points on a mass m: A = [[1/m, 1/m], [1/m, 1/m]], b = [-v, -v]: any
    x1 + x2 = m v is a solution, the least-norm one is x1 = x2 = m v / 2."""
    m, v = 2.0, 3.0
    A = np.full((2, 2), 1 / m)
    sol = solve_lcp(A, [-v, -v])
    np.testing.assert_allclose(sol.x, [m * v / 2, m * v / 2], rtol=1e-12)
    np.testing.assert_allclose(sol.w, [0.0, 0.0], atol=1e-12)
    assert sol.redundant and not sol.unique and sol.n_solutions == 3   # (mv,0), (0,mv), (mv/2,mv/2)


def test_redundant_lemke_returns_the_least_norm_solution():
    """k = 10 with points 0, 1 and 2 coincident: Lemke's vertex is refined to the least-norm
    solution, the one the exact enumeration of the 2^10 index sets finds."""
    rng = np.random.default_rng(0)
    W = rng.standard_normal((10, 10))
    W[:, 1] = W[:, 0]
    W[:, 2] = W[:, 0]
    A, b = W.T @ W, W.T @ rng.standard_normal(10)
    b[:3] -= 3.0                                   # the three coincident points are pressed
    ref = solve_lcp(A, b, method="enumeration")
    sol = solve_lcp(A, b)
    assert sol.method == "lemke" and sol.redundant and ref.redundant and not ref.unique
    assert ref.n_solutions == 7                    # the impulse on any non-empty subset of 0, 1, 2
    vertex = lcp._lemke(A, b)
    assert_lcp(A, b, vertex, A @ vertex + b)
    assert np.linalg.norm(vertex) > np.linalg.norm(ref.x) + 0.1
    assert_lcp(A, b, sol.x, sol.w)
    np.testing.assert_allclose(sol.w, ref.w, atol=1e-10)
    np.testing.assert_allclose(sol.x, ref.x, atol=1e-9)
    np.testing.assert_allclose(sol.x[:3], sol.x[0], atol=1e-9)     # shared equally


def test_lcp_error_names_k_the_smallest_eigenvalue_and_the_violation():
    """A = [[1, -1], [-1, 1]], b = [-1, -1]: w1 + w2 = -2 for every x, no solution.  Eigenvalues
    0 and 2; the best candidate (x = 0, w = b) violates w >= 0 by 1."""
    A, b = np.array([[1.0, -1.0], [-1.0, 1.0]]), np.array([-1.0, -1.0])
    for method in ("enumeration", "lemke"):
        with pytest.raises(LCPError) as info:
            solve_lcp(A, b, method=method)
        msg = str(info.value)
        assert isinstance(info.value, ValueError)
        assert "k = 2" in msg
        eig = float(re.search(r"smallest eigenvalue of A is (\S+)", msg).group(1))
        assert abs(eig) < 1e-12
        viol = float(re.search(r"violation .* is (\S+) ", msg).group(1))
        assert viol == pytest.approx(1.0, rel=1e-9) if method == "enumeration" else viol >= 1.0


def test_invalid_input_is_refused():
    with pytest.raises(ValueError, match="symmetric"):
        solve_lcp([[1.0, 2.0], [0.0, 1.0]], [1.0, 1.0])
    with pytest.raises(ValueError, match="positive semi-definite"):
        solve_lcp([[1.0, 0.0], [0.0, -1.0]], [1.0, 1.0])
    with pytest.raises(ValueError, match="2 x 2"):
        solve_lcp(np.eye(3), [1.0, 1.0])


# ------------------------------------------------------------------------------- impacts
def rod_G(m, L, dx):
    """G = W^T M^-1 W of a planar rigid body (x, y, theta), M = diag(m, m, J), J = m L^2 / 12, at
    points with horizontal lever arms dx and vertical normals: v_n = y' + theta' dx."""
    J = m * L ** 2 / 12
    W = np.array([[0.0, 1.0, d] for d in dx]).T
    return W.T @ np.diag([1 / m, 1 / m, 1 / J]) @ W, W, np.diag([m, m, J])


def test_point_mass_rebounds_with_minus_e_v():
    m, e, v = 3.0, 0.5, -2.0
    imp = newton_impact([[1 / m]], [v], e, [False])
    np.testing.assert_allclose(imp.v_plus, [-e * v], rtol=1e-14)
    np.testing.assert_allclose(imp.Lambda, [-(1 + e) * m * v], rtol=1e-14)
    assert not imp.closing[0]
    imp = newton_impact([[1 / m]], [v], 0.0, [False])
    assert imp.closing[0] and abs(imp.v_plus[0]) < 1e-14


def test_rod_landing_flat_on_both_ends():
    """e = 0: G = [[4, -2], [-2, 4]] / m, both impulses m |v-| / 2 and v+ = 0 at both ends."""
    m, L, v = 2.0, 1.5, -3.0
    G, _, _ = rod_G(m, L, [-L / 2, L / 2])
    np.testing.assert_allclose(G, np.array([[4.0, -2.0], [-2.0, 4.0]]) / m, rtol=1e-14)
    imp = newton_impact(G, [v, v], 0.0, [False, False])
    np.testing.assert_allclose(imp.Lambda, [m * abs(v) / 2] * 2, rtol=1e-12)
    np.testing.assert_allclose(imp.v_plus, [0.0, 0.0], atol=1e-12)
    assert imp.closing.all() and imp.lcp.unique


def test_tilted_rod_with_one_closed_end():
    """A rod at 0.3 rad resting on end 1 (v- = 0 there) and rotating so that end 2 (on a step)
    hits: with e = 0.5 end 2 leaves at -e v-_2, end 1 keeps v+ = 0 with an impulse >= 0 (the
    2 x 2 solve with both active gives it, G12 = (1 - 3 cos^2 phi) / m < 0)."""
    m, L, phi, e, omega = 1.2, 2.0, 0.3, 0.5, -1.7
    c = L / 2 * math.cos(phi)
    G, W, M = rod_G(m, L, [-c, c])
    u = np.array([0.4, -omega * -c, omega])          # y' = -omega dx_1: v_n = 0 at end 1
    vm = W.T @ u
    assert abs(vm[0]) < 1e-15 and vm[1] < 0
    imp = newton_impact(G, vm, e, [True, False])
    Lam_ref = np.linalg.solve(G, [0.0, -(1 + e) * vm[1]])
    assert Lam_ref.min() > 0
    np.testing.assert_allclose(imp.Lambda, Lam_ref, rtol=1e-12)
    assert imp.Lambda[0] >= 0 and imp.v_plus[0] >= -1e-14
    u_plus = u + np.linalg.solve(M, W @ imp.Lambda)   # the body's velocities after, independently
    np.testing.assert_allclose(imp.v_plus, W.T @ u_plus, atol=1e-14)
    np.testing.assert_allclose(imp.v_plus[1], -e * vm[1], rtol=1e-12)
    assert imp.closing.tolist() == [True, False]


def test_closed_and_separating_points():
    """The flat rod (G12 = -2 / m < 0) hit at end 2 with e = 1: a closed end 1 (v- = 0) is pressed
    (both active: Lambda_1 = -G12 s / det > 0) and keeps v+ = 0; an end 1 that is separating
    (v- = 0.5 > 0) takes e = 0, so v+ >= 0 there rather than v+ >= -e v- (which would let it sink
    through the ground)."""
    m, L = 1.0, 1.0
    G, _, _ = rod_G(m, L, [-0.5, 0.5])
    imp = newton_impact(G, [0.0, -1.0], 1.0, [True, False])
    assert imp.Lambda[0] > 0 and abs(imp.v_plus[0]) < 1e-14
    # end 1 separating: b = [0.5, -2]; Lambda_1 = 0 would give w_1 = -0.5, so both are active:
    # [[4, -2], [-2, 4]] Lambda = [-0.5, 2], Lambda = [1/6, 7/12], v+ = [0, 1]
    imp = newton_impact(G, [0.5, -1.0], 1.0, [False, False])
    np.testing.assert_allclose(imp.Lambda, [1 / 6, 7 / 12], rtol=1e-13)
    np.testing.assert_allclose(imp.v_plus, [0.0, 1.0], atol=1e-14)
    assert imp.closing.tolist() == [True, False]


def test_contact_lcp_is_the_lcp():
    A, b = np.array([[2.0, 1.0], [1.0, 2.0]]), np.array([-4.0, 1.0])
    lam, a, sol = contact_lcp(A, b)
    np.testing.assert_allclose(lam, [2.0, 0.0], atol=1e-14)
    np.testing.assert_allclose(a, [0.0, 3.0], atol=1e-14)
    assert sol.method == "enumeration"


# ------------------------------------------------------------------------- mode selection
def toy(consistent_set):
    """A toy selection: combos in ``consistent_set`` are consistent; elsewhere a contact fails
    when its mode is not the one of the nearest consistent combo (or contact 1 always fails when
    the set is empty)."""
    calls = []

    def solve(combo):
        calls.append(combo)
        return {"combo": combo}

    def consistent(combo, result):
        assert result["combo"] == combo
        if combo in consistent_set:
            return [True] * len(combo)
        if not consistent_set:
            return [True, False, combo[2] != "SLIP+"]
        return [m == ref for m, ref in zip(combo, consistent_set[0])]

    return solve, consistent, calls


CANDS = [["FREE", "STICK"], ["FREE", "STICK", "SLIP+", "SLIP-"], ["STICK", "SLIP+"]]


def test_select_one_consistent_combination():
    solve, consistent, calls = toy([("STICK", "SLIP-", "SLIP+")])
    sel = select_modes(CANDS, solve, consistent)
    assert sel.combo == ("STICK", "SLIP-", "SLIP+") and sel.result == {"combo": sel.combo}
    assert sel.n_consistent == 1 and not sel.ambiguous
    assert len(calls) == 2 * 4 * 2 == len(set(calls))


def test_select_none_names_the_failing_contact():
    solve, consistent, _ = toy([])
    with pytest.raises(InconsistentContacts, match=r"contact\(s\) \[1\]") as info:
        select_modes(CANDS, solve, consistent)
    assert isinstance(info.value, ValueError)
    assert info.value.failed == (1,) and info.value.combo[2] == "STICK"


def test_select_two_is_ambiguous_and_priority_decides():
    good = [("STICK", "SLIP+", "STICK"), ("FREE", "SLIP-", "STICK")]
    solve, consistent, _ = toy(good)
    sel = select_modes(CANDS, solve, consistent)
    assert sel.ambiguous and sel.n_consistent == 2
    assert sel.combo == ("FREE", "SLIP-", "STICK")            # contact 0: FREE listed first
    assert set(sel.consistent_combos) == set(good)
    sel = select_modes(CANDS, solve, consistent, priority=["STICK", "SLIP+", "FREE"])
    assert sel.combo == ("STICK", "SLIP+", "STICK")


def test_select_refuses_too_many_combinations():
    calls = []
    with pytest.raises(ValueError, match="exceed the cap"):
        select_modes([["A", "B", "C", "D"]] * 7, calls.append, lambda c, r: [True] * 7)
    assert not calls
