"""Self-tests of tests/reference_multibody.py: the textbook references of the multibody cases
(rigid double pendulum with a Hertz stop, falling rigid rod with impacts) are checked against
theory, finite differences, conservation laws and independently written solutions, so that
the library's multibody tests can trust them.  Nothing here imports flexlib."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.linalg import eigh
from scipy.optimize import nnls
from scipy.special import beta

import reference_multibody as ref

G0 = 9.81


# ====================================================================== parameters
def test_hertz_stiffness_and_masses_of_the_case():
    """K = (4/3) sqrt(R) E*, steel stop on the aluminium rod, R = 0.01 m: K = 7.69e9 N/m^1.5."""
    E_star = 1.0 / ((1 - 0.3**2) / 206e9 + (1 - 0.33**2) / 68.952e9)
    K = 4.0 / 3.0 * math.sqrt(0.01) * E_star
    assert ref.hertz_stiffness() == pytest.approx(K, rel=1e-14)
    assert ref.hertz_stiffness() == pytest.approx(7.69e9, rel=2e-4)        # 7.6889e9
    p = ref.double_pendulum_case()
    assert p.m1 == pytest.approx(2766.67 * 3.14e-4 * 1.0, rel=1e-14)       # 0.868734 kg
    assert p.m2 == pytest.approx(0.5 * p.m1, rel=1e-14)
    assert p.x_B == pytest.approx(0.8)
    assert ref.falling_rod_case().m == pytest.approx(0.86873438, rel=1e-8)


# ====================================================================== double pendulum
def _kinetic_energy_by_quadrature(p, th, thd, n=8):
    """T = sum over both rods of int 1/2 (m/L) |v(x)|^2 dx (Gauss-Legendre, exact for the
    quadratic integrand), from the point velocities only."""
    xg, wg = np.polynomial.legendre.leggauss(n)
    T = 0.0
    for rod, m, L in ((1, p.m1, p.L1), (2, p.m2, p.L2)):
        for xi, wi in zip(0.5 * L * (xg + 1), 0.5 * L * wg):
            v = ref.double_pendulum_point(p, rod, xi, th[0], th[1], thd[0], thd[1])[1]
            T += 0.5 * (m / L) * wi * (v @ v)
    return T


def _potential_energy_by_quadrature(p, th, n=8):
    xg, wg = np.polynomial.legendre.leggauss(n)
    V = 0.0
    for rod, m, L in ((1, p.m1, p.L1), (2, p.m2, p.L2)):
        for xi, wi in zip(0.5 * L * (xg + 1), 0.5 * L * wg):
            V += p.g0 * (m / L) * wi * ref.double_pendulum_point(p, rod, xi, th[0], th[1])[0][1]
    return V


def _random_states(rng, n):
    return [(rng.uniform(-np.pi, np.pi, 2), rng.uniform(-5, 5, 2)) for _ in range(n)]


def test_point_velocity_is_the_time_derivative_of_the_position():
    p = ref.double_pendulum_case()
    rng = np.random.default_rng(1)
    h = 1e-6
    for th, thd in _random_states(rng, 5):
        for rod, x in ((1, 0.3), (1, p.x_B), (2, 0.0), (2, 0.41)):
            r_plus = ref.double_pendulum_point(p, rod, x, *(th + h * thd))[0]
            r_minus = ref.double_pendulum_point(p, rod, x, *(th - h * thd))[0]
            v = ref.double_pendulum_point(p, rod, x, *th, *thd)[1]
            np.testing.assert_allclose(v, (r_plus - r_minus) / (2 * h),
                                       atol=1e-8 * (1 + np.abs(v).max()))
            J = ref.double_pendulum_point_jacobian(p, rod, x, *th)
            np.testing.assert_allclose(J @ thd, v, rtol=1e-14, atol=1e-14)


def test_mass_matrix_is_the_hessian_of_the_kinetic_energy():
    """d^2 T / d theta'^2 = M, with T integrated over the rods from the point velocities; T is
    quadratic in theta', so the central second difference is exact up to round-off."""
    p = ref.double_pendulum_case()
    rng = np.random.default_rng(2)
    h = 1.0
    I2 = np.eye(2)
    for th, thd in _random_states(rng, 6):
        H = np.empty((2, 2))
        for i in range(2):
            for j in range(2):
                def T(a, b):
                    return _kinetic_energy_by_quadrature(p, th, thd + a * h * I2[i] + b * h * I2[j])
                H[i, j] = (T(1, 1) - T(1, -1) - T(-1, 1) + T(-1, -1)) / (4 * h * h)
        M = ref.double_pendulum_mass_matrix(p, *th)
        np.testing.assert_allclose(M, H, rtol=1e-12, atol=1e-13)
        assert 0.5 * thd @ M @ thd == pytest.approx(_kinetic_energy_by_quadrature(p, th, thd), rel=1e-13)


def test_forces_follow_from_lagranges_equations():
    """F = dL/dtheta - (d/dtheta (dT/dtheta')) theta' with L = T - V, all by finite differences of
    the quadrature energies (the part of d/dt dT/dtheta' without theta'' is the second term)."""
    p = ref.double_pendulum_case()
    rng = np.random.default_rng(3)
    h = 1e-5
    I2 = np.eye(2)

    def momentum(th, thd):
        return np.array([(_kinetic_energy_by_quadrature(p, th, thd + I2[i]) -
                          _kinetic_energy_by_quadrature(p, th, thd - I2[i])) / 2 for i in range(2)])

    def lagrangian(th, thd):
        return _kinetic_energy_by_quadrature(p, th, thd) - _potential_energy_by_quadrature(p, th)

    for th, thd in _random_states(rng, 5):
        dL = np.array([(lagrangian(th + h * I2[i], thd) - lagrangian(th - h * I2[i], thd)) / (2 * h)
                       for i in range(2)])
        dp = (momentum(th + h * thd, thd) - momentum(th - h * thd, thd)) / (2 * h)
        F = ref.double_pendulum_forces(p, *th, *thd)
        np.testing.assert_allclose(F, dL - dp, atol=1e-7 * (1 + np.abs(F).max()))


def test_contact_force_does_the_virtual_work_of_N_at_B():
    """Q_contact . dtheta = N n . dr_B, and N = K delta^1.5 with delta = -X_B."""
    p = ref.double_pendulum_case()
    for th1 in (-np.pi / 2 - 1e-5, -np.pi / 2 - 3e-5, np.pi / 2 + 2e-5):
        delta, N, Q = ref.double_pendulum_contact(p, th1, 0.3)
        X_B = ref.double_pendulum_point(p, 1, p.x_B, th1, 0.3)[0][0]
        assert delta == pytest.approx(-X_B, rel=1e-12)
        assert N == pytest.approx(p.K * (-X_B) ** 1.5, rel=1e-12)
        J = ref.double_pendulum_point_jacobian(p, 1, p.x_B, th1, 0.3)
        np.testing.assert_allclose(Q, J.T @ np.array([N, 0.0]), rtol=1e-14)
    assert ref.double_pendulum_contact(p, -np.pi / 2 + 1e-3, 0.0)[1] == 0.0


def _energy_scale(p):
    """The potential energy released from both rods horizontal to both hanging, J."""
    return p.g0 * ((0.5 * p.m1 + p.m2) * p.L1 + 0.5 * p.m2 * p.L2)


def test_free_swing_conserves_energy():
    p = ref.double_pendulum_case()
    run = ref.simulate_double_pendulum(1.5, contact=False, rtol=1e-12, atol=1e-13)
    E = run.energy.sum(axis=1)
    assert run.message == "reached t_end" and run.t[-1] == pytest.approx(1.5)
    assert np.ptp(run.th1) > 2.0                              # a large swing, not a rest state
    assert np.abs(E - E[0]).max() <= 1e-9 * _energy_scale(p)


def test_small_oscillation_frequencies_match_the_linearised_pendulum():
    """About the hanging rest state th1 = th2 = -pi/2, with phi_i = th_i + pi/2, the points move
    horizontally at first order: rod 1 at x with x phi1', rod 2 at x with L1 phi1' + x phi2'.
    Integrating (m/L) over the rods gives M0; the heights -x cos phi1 and -L1 cos phi1 - x cos phi2
    give the stiffness K0 = diag(g0 (m1/2 + m2) L1, g0 m2 L2/2).  omega^2 are the eigenvalues of
    (K0, M0).  The reference starts in each mode with a 1e-5 rad amplitude, and the period is
    measured from the zero crossings of the modal coordinate."""
    p = ref.double_pendulum_case()
    m1, L1, m2, L2 = p.m1, p.L1, p.m2, p.L2
    M0 = np.array([[m1 * L1**2 / 3 + m2 * L1**2, m2 * L1 * L2 / 2],
                   [m2 * L1 * L2 / 2, m2 * L2**2 / 3]])
    K0 = np.diag([G0 * (m1 / 2 + m2) * L1, G0 * m2 * L2 / 2])
    w2, modes = eigh(K0, M0)
    omega = np.sqrt(w2)
    assert omega[0] < omega[1]
    for k in range(2):
        u = modes[:, k]
        a = 1e-5 / np.abs(u).max()
        y0 = np.concatenate((-np.pi / 2 + a * u, [0.0, 0.0]))

        def modal(t, y, *_):
            return u @ M0 @ (y[:2] + np.pi / 2)
        T_lin = 2 * np.pi / omega[k]
        sol = solve_ivp(ref.double_pendulum_rhs, (0, 4.2 * T_lin), y0, method="DOP853",
                        rtol=1e-12, atol=1e-16, args=(p, False), events=modal)
        crossings = sol.t_events[0]
        assert len(crossings) == 8
        period = 2 * (crossings[-1] - crossings[0]) / (len(crossings) - 1)
        assert period == pytest.approx(T_lin, rel=1e-6), (k, period, T_lin)


def test_stop_impact_happens_when_the_upper_rod_reaches_the_vertical():
    p = ref.double_pendulum_case()
    run = ref.simulate_double_pendulum(0.65)
    assert len(run.contacts) == 1
    t_on, t_off = run.contacts[0]
    i_on = np.flatnonzero(run.t == t_on)[0]
    i_off = np.flatnonzero(run.t == t_off)[0]
    # B (on the upper rod, through O) is at X = 0 exactly when rod 1 points straight down
    assert run.th1[i_on] == pytest.approx(-np.pi / 2, abs=1e-12)
    assert p.x_B * math.cos(run.th1[i_off]) == pytest.approx(0.0, abs=1e-12)
    assert run.om1[i_on] < 0 < run.om1[i_off]                        # the stop turns rod 1 back
    assert 0.5 < t_on < 0.65 and 0 < t_off - t_on < 1e-3
    assert (run.N >= 0).all() and run.N.max() > 1e3
    outside = (run.t < t_on) | (run.t > t_off)
    assert (run.N[outside] == 0).all()
    E = run.energy.sum(axis=1)
    assert np.abs(E - E[0]).max() <= 1e-7 * _energy_scale(p)


def _effective_mass_at_B(p, th):
    J = ref.double_pendulum_point_jacobian(p, 1, p.x_B, *th)[0]
    return 1.0 / (J @ np.linalg.solve(ref.double_pendulum_mass_matrix(p, *th), J))


# m x'' = -K x^1.5 from x' = v0: x' = v0 sqrt(1 - (x/x_max)^2.5), so the contact lasts
# 2 (x_max/v0) int_0^1 (1 - u^2.5)^(-1/2) du = (4/5) B(2/5, 1/2) x_max/v0 = 2.9432 x_max/v0
HERTZ_TIME_FACTOR = 0.8 * beta(0.4, 0.5)


def test_contact_duration_scales_like_hertz_theory():
    """t_c = 2.9432 (5 m v^2/(4 K))^(2/5) / v (Johnson; the factor from the Beta function above):
    a factor 10^(2/5) between K and 10 K, and the value itself with the effective mass of the
    pendulum at B and the approach speed (the contact, 0.1-0.3 ms, is too short for gravity or
    the motion of the rods to matter)."""
    durations = []
    for factor in (1.0, 10.0):
        base = ref.double_pendulum_case()
        p = ref.DoublePendulum(base.m1, base.L1, base.m2, base.L2, base.x_B, factor * base.K)
        run = ref.simulate_double_pendulum(0.61, p=p)
        t_on, t_off = run.contacts[0]
        i_on = np.flatnonzero(run.t == t_on)[0]
        th = np.array([run.th1[i_on], run.th2[i_on]])
        v0 = abs(p.x_B * run.om1[i_on])                        # |X_B'| at th1 = -pi/2
        t_hertz = HERTZ_TIME_FACTOR * (1.25 * _effective_mass_at_B(p, th) * v0**2 / p.K) ** 0.4 / v0
        assert t_off - t_on == pytest.approx(t_hertz, rel=0.005)
        durations.append(t_off - t_on)
    assert durations[0] / durations[1] == pytest.approx(10**0.4, rel=0.005)


# ====================================================================== falling rod: impact law
def test_tilted_landing_closed_form_is_the_single_point_lcp():
    rod = ref.falling_rod_case()
    v = -1.4
    for theta in (0.1, -0.1, 0.7):
        d = ref.rod_offsets(rod, [0.0 if theta > 0 else 1.0])
        q = np.array([0.0, 0.3, theta])
        jump = ref.newton_impact(rod.mass_matrix(), ref.rod_normal_jacobian(q, d), [0.0, v, 0.0], 0.0)
        vy, om, lam = ref.tilted_landing(rod, v, theta)
        np.testing.assert_allclose(jump.qd_plus, [0.0, vy, om], rtol=1e-13, atol=1e-15)
        assert jump.impulses[0] == pytest.approx(lam, rel=1e-13)
        assert abs(jump.v_plus[0]) < 1e-14
        assert np.sign(om) == -np.sign(theta)          # the raised end keeps falling


def _random_impact(rng, k, n=4):
    A = rng.standard_normal((n, n))
    M = A @ A.T + n * np.eye(n)
    W = rng.standard_normal((k, n))
    qd = rng.standard_normal(n)
    return M, W, qd


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_newton_lcp_is_complementary_and_dissipative(k):
    """Check each solution on its own terms (Lambda >= 0, v+ + e v- >= 0, Lambda . (v+ + e v-) = 0),
    against an independent solution (the convex QP min 1/2 L^T G L + q^T L, L >= 0, whose
    optimality conditions are the LCP, with q = (1 + e) v-) and the energy balance dT <= 0 for
    e <= 1, dT = 0 for e = 1."""
    rng = np.random.default_rng(10 + k)
    for _ in range(20):
        M, W, qd = _random_impact(rng, k)
        for e in (0.0, 0.4, 1.0):
            jump = ref.newton_impact(M, W, qd, e)
            lam = jump.impulses
            v_minus = W @ qd
            v_plus = W @ (qd + np.linalg.solve(M, W.T @ lam))
            w = v_plus + e * v_minus
            scale = np.abs(v_minus).max()
            assert lam.min() >= 0.0
            assert w.min() >= -1e-10 * scale
            assert abs(lam @ w) <= 1e-10 * scale * max(lam.max(), 1e-300)
            np.testing.assert_allclose(jump.v_plus, v_plus, atol=1e-12 * scale)
            G = W @ np.linalg.solve(M, W.T)
            # the QP is 1/2 |C^T L + C^-1 q|^2 + const with G = C C^T: a non-negative least-squares
            # problem, solved by Lawson and Hanson's active-set method
            C = np.linalg.cholesky(G)
            lam_qp = nnls(C.T, -np.linalg.solve(C, (1 + e) * v_minus))[0]
            np.testing.assert_allclose(lam, lam_qp, rtol=1e-9, atol=1e-12 * np.abs(lam_qp).max())
            dT = 0.5 * (qd + np.linalg.solve(M, W.T @ lam)) @ M @ (qd + np.linalg.solve(M, W.T @ lam)) \
                - 0.5 * qd @ M @ qd
            assert jump.dT == pytest.approx(dT, abs=1e-12 * (qd @ M @ qd))
            assert dT <= 1e-12 * (qd @ M @ qd)
            assert dT == pytest.approx(-(1 - e) / (2 * (1 + e)) * lam @ G @ lam,
                                       abs=1e-11 * (qd @ M @ qd))


def test_redundant_points_give_the_least_norm_impulses():
    """A flat rod landing on three points (ends and middle): G has rank 2, the impulses are not
    unique (e.g. m v/2 at the ends and 0 in the middle is a solution), and the least-norm one is
    m |v| / 3 at each point."""
    rod = ref.falling_rod_case()
    d = ref.rod_offsets(rod, [0.0, 0.5, 1.0])
    q = np.array([0.5, 0.0, 0.0])
    W = ref.rod_normal_jacobian(q, d)
    v = -1.4
    jump = ref.newton_impact(rod.mass_matrix(), W, [0.0, v, 0.0], 0.0)
    assert np.linalg.matrix_rank(jump.G) == 2
    assert jump.n_solutions >= 2
    np.testing.assert_allclose(jump.impulses, rod.m * abs(v) / 3 * np.ones(3), rtol=1e-12)
    np.testing.assert_allclose(jump.qd_plus, 0.0, atol=1e-14)
    other = np.array([0.5, 0.0, 0.5]) * rod.m * abs(v)
    np.testing.assert_allclose(jump.v_minus + jump.G @ other, 0.0, atol=1e-14)    # also a solution
    assert np.linalg.norm(jump.impulses) < np.linalg.norm(other)


# ====================================================================== falling rod: runs
def test_flat_drop_stops_dead_with_equal_impulses():
    rod = ref.falling_rod_case()
    h0 = 0.1
    run = ref.simulate_rigid_rod(rod, h0, 0.0, 0.5, e=0.0)
    t_hit = math.sqrt(2 * h0 / G0)
    assert len(run.impacts) == 1
    imp = run.impacts[0]
    assert imp.points == (0, 1)
    assert imp.t == pytest.approx(t_hit, rel=1e-13)
    np.testing.assert_allclose(imp.impulses, rod.m * math.sqrt(2 * G0 * h0) / 2, rtol=1e-12)
    np.testing.assert_allclose(imp.qd_plus, 0.0, atol=1e-13)
    assert imp.energy_lost == pytest.approx(rod.m * G0 * h0, rel=1e-12)
    assert run.t_rest == imp.t and run.message == "at rest"
    after = run.t > t_hit
    np.testing.assert_allclose(run.q[after, 1], 0.0, atol=1e-14)


def test_pivot_equations_are_the_sliding_rod_on_a_frictionless_floor():
    """With the end at d on the ground, y = -d sin theta and x' = const; Lagrange's equation in
    theta alone (T = 1/2 m (x'^2 + d^2 cos^2 theta theta'^2) + 1/2 J theta'^2, V = -m g0 d sin theta):
    (J + m d^2 cos^2 theta) theta'' - m d^2 cos theta sin theta theta'^2 = m g0 d cos theta,
    and N = m (y'' + g0)."""
    rod = ref.falling_rod_case()
    rng = np.random.default_rng(4)
    for d in (-rod.L / 2, rod.L / 2, 0.2):
        for _ in range(5):
            th, om, vx = rng.uniform(-1.2, 1.2), rng.uniform(-4, 4), rng.uniform(-1, 1)
            q = np.array([0.3, -d * math.sin(th), th])
            qd = np.array([vx, -d * math.cos(th) * om, om])
            qdd, N = ref.rod_pivot_acceleration(rod, q, qd, d)
            c, s = math.cos(th), math.sin(th)
            thdd = (rod.m * G0 * d * c + rod.m * d**2 * c * s * om**2) / (rod.J + rod.m * d**2 * c**2)
            ydd = d * s * om**2 - d * c * thdd
            np.testing.assert_allclose(qdd, [0.0, ydd, thdd], rtol=1e-12, atol=1e-12)
            assert N == pytest.approx(rod.m * (ydd + G0), rel=1e-12, abs=1e-12)


def test_rigid_rod_refuses_a_start_below_the_ground():
    with pytest.raises(ValueError, match="theta0 = -0.4"):
        ref.simulate_rigid_rod(ref.falling_rod_case(), 0.1, -0.4, 1.0)


def test_tilted_drop_lands_pivots_slides_and_stops_on_a_two_point_impact():
    rod = ref.falling_rod_case()
    h0, th0 = 0.1, 0.1
    run = ref.simulate_rigid_rod(rod, h0, th0, 0.5, e=0.0)
    assert [imp.points for imp in run.impacts] == [(0,), (0, 1)]
    first, second = run.impacts
    # first impact: the lower end, at sqrt(2 h0/g), the closed form
    assert first.t == pytest.approx(math.sqrt(2 * h0 / G0), rel=1e-13)
    v_minus = -math.sqrt(2 * G0 * h0)
    vy, om, lam = ref.tilted_landing(rod, v_minus, th0)
    assert first.qd_minus[1] == pytest.approx(v_minus, rel=1e-13)
    np.testing.assert_allclose(first.qd_plus, [0.0, vy, om], rtol=1e-12, atol=1e-15)
    assert first.impulses[0] == pytest.approx(lam, rel=1e-12)
    # then it pivots on that end while it slides; the closed end stays on the ground
    pivot = np.array([ph == "pivot 0" for ph in run.phase])
    assert pivot.sum() > 10
    assert run.drift < 1e-9
    d = ref.rod_offsets(rod, [0.0, 1.0])
    q_piv, qd_piv = run.q[pivot], run.qd[pivot]
    np.testing.assert_allclose(q_piv[:, 1] + d[0] * np.sin(q_piv[:, 2]), 0.0, atol=1e-9)
    np.testing.assert_allclose(q_piv[:, 0], run.q[0, 0], atol=1e-12)      # no horizontal force
    end_x = q_piv[:, 0] + d[0] * np.cos(q_piv[:, 2])
    assert np.ptp(end_x) > 1e-3                                            # the end slides
    N = [ref.rod_pivot_acceleration(rod, a, b, d[0])[1] for a, b in zip(q_piv, qd_piv)]
    assert min(N) > 0
    E = np.array([sum(ref.rod_energy(rod, a, b)) for a, b in zip(q_piv, qd_piv)])
    assert np.ptp(E) < 1e-10                                               # frictionless, workless
    # the second end lands with the first one still closed; rest after
    assert abs(second.v_minus[0]) < 1e-8 and second.v_minus[1] < -0.5
    assert second.q[2] == pytest.approx(0.0, abs=1e-9)
    assert (second.impulses >= 0).all()
    np.testing.assert_allclose(second.qd_plus, 0.0, atol=1e-12)
    assert run.t_rest == second.t and run.message == "at rest"


def test_rod_with_interior_points_lands_on_all_of_them_at_once():
    """Five points (ends, quarters, middle), tilted 0.05 rad, e = 0: the lower end lands first, the
    rod pivots on it, and the other four land together while it is closed.  G then has rank 2
    (only y and theta are constrained), and the least-norm impulses are affine in the position
    along the rod (the minimum-norm solution lies in the range of W, spanned by 1 and d_i);
    the rod is at rest after."""
    rod = ref.falling_rod_case()
    fractions = [0.0, 0.25, 0.5, 0.75, 1.0]
    run = ref.simulate_rigid_rod(rod, 0.1, 0.05, 0.5, e=0.0, fractions=fractions)
    assert [imp.points for imp in run.impacts] == [(0,), (0, 1, 2, 3, 4)]
    last = run.impacts[1]
    assert np.linalg.matrix_rank(ref.rod_normal_jacobian(last.q, ref.rod_offsets(rod, fractions))) == 2
    assert (last.impulses > 0).all()
    np.testing.assert_allclose(np.diff(last.impulses, 2), 0.0, atol=1e-12)
    np.testing.assert_allclose(last.qd_plus, 0.0, atol=1e-12)
    assert run.message == "at rest"


def test_energy_at_the_impacts_of_a_bouncing_rod():
    """e = 1 single-point impacts keep the kinetic energy; with e = 0.5 no impact adds energy; the
    flights between them conserve T + V_G (closed form)."""
    rod = ref.falling_rod_case()
    elastic = ref.simulate_rigid_rod(rod, 0.1, 0.1, 0.6, e=1.0)
    assert len(elastic.impacts) >= 4
    for imp in elastic.impacts:
        assert len(imp.points) == 1
        T = 0.5 * imp.qd_minus @ rod.mass_matrix() @ imp.qd_minus
        assert abs(imp.energy_lost) <= 1e-13 * T
        np.testing.assert_allclose(imp.v_plus, -imp.v_minus, rtol=1e-12)
    E = np.array([sum(ref.rod_energy(rod, a, b)) for a, b in zip(elastic.q, elastic.qd)])
    assert np.ptp(E) <= 1e-12 * rod.m * G0 * 0.1
    lossy = ref.simulate_rigid_rod(rod, 0.1, 0.1, 0.6, e=0.5)
    assert len(lossy.impacts) >= 4
    assert all(imp.energy_lost >= 0 for imp in lossy.impacts)
    assert all(imp.energy_lost > 0 for imp in lossy.impacts if (imp.v_minus < -1e-3).any())
    E = np.array([sum(ref.rod_energy(rod, a, b)) for a, b in zip(lossy.q, lossy.qd)])
    assert (np.diff(E) <= 1e-12).all()


def test_penalty_rod_converges_to_the_rigid_impact():
    """The penalty rod's velocities at the release of its first contact tend to the event-driven
    rod's q'+ (e = 1, since an undamped spring returns the energy) as the stiffness grows; the error
    of a contact of duration ~ pi sqrt(m_eff/K) falls like K^(-1/2)."""
    rod = ref.falling_rod_case()
    rigid = ref.simulate_rigid_rod(rod, 0.1, 0.1, 0.15, e=1.0).impacts[0]
    errors = []
    for K in (1e5, 1e6, 1e7, 1e8):
        run = ref.simulate_penalty_rod(rod, 0.1, 0.1, 0.15, stiffness=K)
        point, t_on, t_off, qd_on, qd_off = run.contacts[0]
        assert point == 0 and t_on == pytest.approx(rigid.t, rel=1e-10)
        assert t_off is not None
        errors.append(np.abs(qd_off - rigid.qd_plus).max() / np.abs(rigid.qd_plus).max())
    assert all(b < a for a, b in zip(errors, errors[1:]))
    assert errors[0] / errors[-1] > 20                    # ~ 1000^(1/2) = 31.6
    assert errors[-1] < 1e-3


def test_penalty_hunt_crossley_damping_dissipates():
    """Hertz penalty law with Hunt-Crossley damping: the flat drop rebounds with less energy than it
    arrived with, and the undamped law keeps it."""
    rod = ref.falling_rod_case()
    K = ref.hertz_stiffness()
    energies = []
    for chi in (0.0, 0.5):
        run = ref.simulate_penalty_rod(rod, 0.1, 0.0, 0.16, stiffness=K, exponent=1.5, damping=chi)
        _, t_on, t_off, qd_on, qd_off = run.contacts[0]
        assert t_off is not None and (run.N >= 0).all()
        energies.append((qd_on @ qd_on, qd_off @ qd_off))
    assert energies[0][1] == pytest.approx(energies[0][0], rel=1e-3)
    assert energies[1][1] < 0.9 * energies[1][0]


def test_penalty_rod_rests_at_the_static_penetration():
    """A flat rod on two linear penalty springs is in equilibrium with each end pressed in by
    delta = m g0 / (2 K): started there at rest it stays there, carrying N = m g0 / 2 per end."""
    rod = ref.falling_rod_case()
    K = 1e5
    delta = rod.m * G0 / (2 * K)
    run = ref.simulate_penalty_rod(rod, -delta, 0.0, 0.05, stiffness=K)
    assert [c[:3] for c in run.contacts] == [(0, 0.0, None), (1, 0.0, None)]
    assert run.message == "reached t_end"
    np.testing.assert_allclose(run.q[:, 1], -delta, rtol=1e-9)
    np.testing.assert_allclose(run.qd, 0.0, atol=1e-9)
    np.testing.assert_allclose(run.N, rod.m * G0 / 2, rtol=1e-9)
    d = ref.rod_offsets(rod, [0.0, 1.0])
    q, qd = np.array([0.5, -1e-4, 0.01]), np.array([0.0, -0.2, 0.3])
    g = q[1] + d * np.sin(q[2])
    dg = qd[1] + d * np.cos(q[2]) * qd[2]
    N = ref.penalty_normal_forces(q, qd, d, 2e9, exponent=1.5, damping=0.4)
    np.testing.assert_allclose(N, np.where(g < 0, 2e9 * np.maximum(-g, 0) ** 1.5 * (1 - 0.4 * dg), 0.0),
                               rtol=1e-14)
    assert N[0] > 0 and N[1] == 0
