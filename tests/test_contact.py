"""Independent checks of flexlib.contact.slope and the engine's contact solves (docs/model.md 6-8, 13).

Expected values come from theory or from code written here from the model's description:

* the gap Psi(q) and the tangential coordinate s(q) are re-implemented below from docs/model.md
  section 6.1 (p_P = (L - 1/2 B^T H_L B, Phi_L B), r_P = W p_P) and differentiated by central
  differences (checks C-J1, C-J2; docs/model.md sections 6.2-6.3);
* the Jacobians and their time derivatives are written out as printed in the paper's
  eqs (28)-(31) (and (54)-(57) with n -> t), with the missing dot of the printed eq (30)
  restored (check C-J3);
* the rigid-beam geometry and the rigid rod's fall time are closed forms (docs/model.md 6.1);
* the impulse jump is checked against the momentum balance (docs/model.md 7.1) and the energy
  formula of the jump (docs/model.md 13);
* the multiplier solves of the system engine's right-hand side (read through
  :meth:`flexlib.paper.BeamRun.evaluate`) are checked against the equations they claim to solve
  (docs/model.md 8.2, 8.3);
* the frictionless 2 s run is checked against the contact, sign and energy requirements of
  docs/model.md sections 6-11 and 13.
"""
import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

from flexlib.bodies.beam import BeamModel
from flexlib.contact.slope import Slope, tip_contact
from flexlib.contact.lcp import newton_impact
from flexlib.layout import (CONTACT, O_F, O_GAP, O_MARGIN, O_MU, O_N, O_S, O_VN, O_VT, O_ZDOT,
                            SLIP, STICK)
from flexlib.paper import BeamRun, PhaseState, simulate
from flexlib.params import BeamParams, SlopeParams, paper_case
from reference import impulse_jump as reference_impulse_jump
from reference import tip_contact as reference_tip_contact

ALPHA = math.pi / 10
THETA0 = math.pi / 4
G0 = 9.81
H_L_REF_N3 = np.array([[4.64778, -7.37988, 3.94152], [-7.37988, 32.41740, -22.35244],
                       [3.94152, -22.35244, 77.29889]])


# =========================================================================== helpers
def impulse_jump(M, D_n, v_n_minus, e):
    """The engine's velocity jump at one point, Newton's law as the LCP of
    flexlib.contact.lcp.newton_impact with the Delassus number w = D_n M^-1 D_n: (dq', I, dT), the
    kinetic-energy change from the impulse's work, dT = I (v_n^- + v_n^+) / 2."""
    X = np.linalg.solve(M, D_n)
    w = D_n @ X
    imp = newton_impact(np.array([[w]]), np.array([v_n_minus]), np.array([e]))
    I = float(imp.Lambda[0])
    return X * I, I, 0.5 * I * (2.0 * v_n_minus + w * I)



def own_phi_L(N):
    """Phi_i(L) = 2 (-1)^(i+1) (docs/model.md section 4.1)."""
    return np.array([2.0 * (-1) ** i for i in range(N)])


def beam_of(N, **kw):
    return BeamModel(BeamParams(n_modes=N, **kw))


def slope_of(X1=0.5, alpha=ALPHA):
    return Slope.from_params(SlopeParams(X1=X1, alpha=alpha))


def own_tip(q, L, H_L, Phi_L):
    """r_P = W(theta) p_P, docs/model.md sections 4.3 and 6.1, written out."""
    th, B = q[0], np.asarray(q[1:])
    px = L - 0.5 * B @ H_L @ B
    py = Phi_L @ B
    c, s = math.cos(th), math.sin(th)
    return np.array([c * px - s * py, s * px + c * py])


def own_gap_s(q, L, H_L, Phi_L, X1, alpha):
    """(Psi, s) = (n . (r_P - r_O1), t . (r_P - r_O1)) with n = (-sin a, cos a), t = (cos a, sin a)."""
    d = own_tip(q, L, H_L, Phi_L) - np.array([X1, 0.0])
    return (-math.sin(alpha) * d[0] + math.cos(alpha) * d[1],
            math.cos(alpha) * d[0] + math.sin(alpha) * d[1])


def printed_jacobian(q, H_L, Phi_L, L, d):
    """Eqs (28)-(29) (d = n) or (54)-(55) (d = t) as printed, Phi_y B read as Phi(L) B."""
    th, B = q[0], np.asarray(q[1:])
    nx, ny = d
    s, c = math.sin(th), math.cos(th)
    row = np.empty(len(q))
    row[0] = (-nx * s + ny * c) * (L - 0.5 * B @ H_L @ B) + (-nx * c - ny * s) * (Phi_L @ B)
    for i in range(len(B)):
        row[1 + i] = (nx * c + ny * s) * (-(H_L[i] @ B)) + (-nx * s + ny * c) * Phi_L[i]
    return row


def printed_jacobian_dot(q, qd, H_L, Phi_L, L, d):
    """Eqs (30)-(31) (or (56)-(57)) as printed, with the missing dot of eq (30) restored:
    (-n_x sin + n_y cos)(-B'^T H(x_P) B)."""
    th, B = q[0], np.asarray(q[1:])
    thd, Bd = qd[0], np.asarray(qd[1:])
    nx, ny = d
    s, c = math.sin(th), math.cos(th)
    row = np.empty(len(q))
    row[0] = (((-nx * c - ny * s) * (L - 0.5 * B @ H_L @ B) + (nx * s - ny * c) * (Phi_L @ B)) * thd
              + (-nx * s + ny * c) * (-(Bd @ H_L @ B))
              + (-nx * c - ny * s) * (Phi_L @ Bd))
    for i in range(len(B)):
        row[1 + i] = (((-nx * s + ny * c) * (-(H_L[i] @ B)) + (-nx * c - ny * s) * Phi_L[i]) * thd
                      + (nx * c + ny * s) * (-(H_L[i] @ Bd)))
    return row


def random_state(rng, N, theta=(0.05, 0.35), Bmax=0.05, thd=(-6.0, 6.0), Bdmax=1.0):
    q = np.concatenate(([rng.uniform(*theta)], rng.uniform(-Bmax, Bmax, N) / np.arange(1, N + 1)))
    qd = np.concatenate(([rng.uniform(*thd)], rng.uniform(-Bdmax, Bdmax, N)))
    return q, qd


def cdiff(f, q, j, rel=1e-6):
    h = rel * max(1.0, abs(q[j]))
    qp, qm = q.copy(), q.copy()
    qp[j] += h
    qm[j] -= h
    return (f(qp) - f(qm)) / (2.0 * h)


# =========================================================================== contact kinematics
def test_H_L_is_the_spec_reference_N3():
    """The H_L used in the independent gap below is the reference of docs/model.md section 4.2."""
    np.testing.assert_allclose(beam_of(3).mi.H_L, H_L_REF_N3, rtol=2e-6, atol=2e-5)
    np.testing.assert_allclose(beam_of(3).mi.Phi_L, own_phi_L(3), rtol=1e-12)


@pytest.mark.parametrize("N", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("X1", [0.3, 0.5])
def test_CJ1_jacobians_against_central_differences(N, X1):
    bm, sl = beam_of(N), slope_of(X1)
    H_L, Phi_L = bm.mi.H_L, own_phi_L(N)
    rng = np.random.default_rng(100 + N)
    for _ in range(8):
        q, qd = random_state(rng, N)
        k = tip_contact(bm, sl, q, qd)
        gap, s = own_gap_s(q, 1.0, H_L, Phi_L, X1, ALPHA)
        assert k.gap == pytest.approx(gap, abs=1e-13)
        assert k.s == pytest.approx(s, abs=1e-13)
        Pfd = np.array([cdiff(lambda x: own_gap_s(x, 1.0, H_L, Phi_L, X1, ALPHA)[0], q, j)
                        for j in range(N + 1)])
        Gfd = np.array([cdiff(lambda x: own_gap_s(x, 1.0, H_L, Phi_L, X1, ALPHA)[1], q, j)
                        for j in range(N + 1)])
        assert np.linalg.norm(k.Psi_q - Pfd) <= 1e-7 * np.linalg.norm(Pfd)
        assert np.linalg.norm(k.Gamma_q - Gfd) <= 1e-7 * np.linalg.norm(Gfd)
        # v_n = Psi_q q', v_t = Gamma_q q' (5.2)
        assert k.v_n == pytest.approx(Pfd @ qd, rel=1e-7, abs=1e-7 * np.linalg.norm(Pfd) * np.linalg.norm(qd))
        assert k.v_t == pytest.approx(Gfd @ qd, rel=1e-7, abs=1e-7 * np.linalg.norm(Gfd) * np.linalg.norm(qd))


@pytest.mark.parametrize("N", [1, 2, 3, 4, 5])
def test_CJ2_velocity_products_against_difference_along_the_motion(N):
    bm, sl = beam_of(N), slope_of()
    rng = np.random.default_rng(200 + N)
    for _ in range(8):
        q, qd = random_state(rng, N)
        k = tip_contact(bm, sl, q, qd)
        h = 1e-6 / max(1.0, np.linalg.norm(qd))
        kp = tip_contact(bm, sl, q + h * qd, qd)
        km = tip_contact(bm, sl, q - h * qd, qd)
        gn_fd = -((kp.Psi_q - km.Psi_q) @ qd) / (2 * h)
        gt_fd = -((kp.Gamma_q - km.Gamma_q) @ qd) / (2 * h)
        scale = math.hypot(gn_fd, gt_fd)        # |a_vp|, rotation invariant
        assert abs(k.gamma_n - gn_fd) <= 1e-7 * scale
        assert abs(k.gamma_t - gt_fd) <= 1e-7 * scale


@pytest.mark.parametrize("N", [1, 2, 3, 4, 5])
def test_CJ3_printed_equations_28_to_31_and_54_to_57(N):
    bm, sl = beam_of(N), slope_of()
    H_L, Phi_L = bm.mi.H_L, own_phi_L(N)
    n = (-math.sin(ALPHA), math.cos(ALPHA))
    t = (math.cos(ALPHA), math.sin(ALPHA))
    rng = np.random.default_rng(300 + N)
    for _ in range(8):
        q, qd = random_state(rng, N)
        k = tip_contact(bm, sl, q, qd)
        Pp = printed_jacobian(q, H_L, Phi_L, 1.0, n)
        Gp = printed_jacobian(q, H_L, Phi_L, 1.0, t)
        np.testing.assert_allclose(k.Psi_q, Pp, rtol=1e-12, atol=1e-13 * np.linalg.norm(Pp))
        np.testing.assert_allclose(k.Gamma_q, Gp, rtol=1e-12, atol=1e-13 * np.linalg.norm(Gp))
        gn = -printed_jacobian_dot(q, qd, H_L, Phi_L, 1.0, n) @ qd       # eq (32)
        gt = -printed_jacobian_dot(q, qd, H_L, Phi_L, 1.0, t) @ qd       # eq (58)
        scale = math.hypot(gn, gt)
        assert abs(k.gamma_n - gn) <= 1e-11 * scale
        assert abs(k.gamma_t - gt) <= 1e-11 * scale


def test_CJ3_dot_fix_matters():
    """Eq (30) as printed (dot missing) gives a different gamma_n (the check can fail)."""
    bm, sl = beam_of(3), slope_of()
    H_L, Phi_L = bm.mi.H_L, own_phi_L(3)
    q, qd = random_state(np.random.default_rng(7), 3)
    n = (-math.sin(ALPHA), math.cos(ALPHA))
    row = printed_jacobian_dot(q, qd, H_L, Phi_L, 1.0, n)
    th, B, Bd = q[0], q[1:], qd[1:]
    fix = (-n[0] * math.sin(th) + n[1] * math.cos(th))
    row_typo = row.copy()
    row_typo[0] += fix * (Bd @ H_L @ B) - fix * (B @ H_L @ B)     # -B^T H B instead of -B'^T H B
    k = tip_contact(bm, sl, q, qd)
    assert abs(k.gamma_n - (-row_typo @ qd)) > 1e-6 * abs(k.gamma_n)


@pytest.mark.parametrize("N", [1, 2, 3, 4, 5])
def test_kernel_contact_outputs_agree_with_the_numpy_reference(N):
    """The system engine's contact outputs (BeamRun.evaluate) and flexlib.contact.slope.tip_contact
    (both compiled) against the NumPy statement of eqs (23)-(32) in tests/reference.py."""
    case = paper_case("3.2").with_(n_modes=N)
    sim = BeamRun(case, "frictionless", 1.0)
    rng = np.random.default_rng(400 + N)
    for mode in (0, 1):
        for _ in range(5):
            q, qd = random_state(rng, N)
            y = np.concatenate((q, qd, np.zeros(5)))
            _, out = sim.evaluate(0.0, y, PhaseState(mode))
            k = reference_tip_contact(sim.beam, sim.slope, q, qd)
            lib = tip_contact(sim.beam, sim.slope, q, qd)
            for name in ("gap", "s", "v_n", "v_t", "gamma_n", "gamma_t"):
                assert getattr(lib, name) == pytest.approx(getattr(k, name), rel=1e-12, abs=1e-13)
            np.testing.assert_allclose(lib.Psi_q, k.Psi_q, rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(lib.Gamma_q, k.Gamma_q, rtol=1e-12, atol=1e-14)
            assert out[O_GAP] == pytest.approx(k.gap, abs=1e-13)
            assert out[O_S] == pytest.approx(k.s, abs=1e-13)
            assert out[O_VN] == pytest.approx(k.v_n, rel=1e-12, abs=1e-13)
            assert out[O_VT] == pytest.approx(k.v_t, rel=1e-12, abs=1e-13)


# =========================================================================== rigid geometry
@pytest.mark.parametrize("X1", [0.3, 0.5])
def test_rigid_beam_gap_formula(X1):
    bm, sl = beam_of(3), slope_of(X1)
    for th in np.linspace(-0.5, 1.2, 18):
        q = np.array([th, 0.0, 0.0, 0.0])
        k = tip_contact(bm, sl, q, np.zeros(4))
        assert k.gap == pytest.approx(math.sin(th - ALPHA) + X1 * math.sin(ALPHA), abs=1e-14)
        assert k.s == pytest.approx(math.cos(th - ALPHA) - X1 * math.cos(ALPHA), abs=1e-14)


@pytest.mark.parametrize("X1, gap0, theta_c", [(0.3, 0.5467, 0.22132), (0.5, 0.6085, 0.15903)])
def test_rigid_initial_gaps_and_contact_angles(X1, gap0, theta_c):
    bm, sl = beam_of(3), slope_of(X1)
    z = np.zeros(3)
    k0 = tip_contact(bm, sl, np.concatenate(([THETA0], z)), np.zeros(4))
    assert k0.gap == pytest.approx(gap0, abs=5e-5)
    th_c = brentq(lambda th: tip_contact(bm, sl, np.concatenate(([th], z)), np.zeros(4)).gap,
                  0.0, THETA0, xtol=1e-15)
    assert th_c == pytest.approx(ALPHA - math.asin(X1 * math.sin(ALPHA)), abs=1e-12)
    assert th_c == pytest.approx(theta_c, abs=5e-6)


# =========================================================================== impulse jump
def _jump_states(N, count, seed):
    bm, sl = beam_of(N), slope_of()
    rng = np.random.default_rng(seed)
    for _ in range(count):
        q, qd = random_state(rng, N)
        k = tip_contact(bm, sl, q, qd)
        if k.v_n >= 0.0:           # approach the slope: reverse the motion
            qd = -qd
            k = tip_contact(bm, sl, q, qd)
        yield bm, q, qd, k


@pytest.mark.parametrize("N", [1, 2, 3, 4, 5])
def test_impulse_jump_properties(N):
    rng = np.random.default_rng(500 + N)
    for bm, q, qd, k in _jump_states(N, 10, 600 + N):
        M = bm.mass_matrix(q)
        D = k.Psi_q
        w = D @ np.linalg.solve(M, D)                       # D_n^T M^-1 D_n
        T_minus = 0.5 * qd @ M @ qd
        for e in (0.0, 1.0, rng.uniform(0, 1), rng.uniform(0, 1)):
            dqd, I, dT = impulse_jump(M, D, k.v_n, e)
            qp = qd + dqd
            vnp = D @ qp
            # momentum balance of eq (39): M dq' = D_n I
            np.testing.assert_allclose(M @ dqd, D * I, rtol=1e-9, atol=1e-10 * abs(I) * np.linalg.norm(D))
            assert vnp == pytest.approx(-e * k.v_n, abs=1e-10 * abs(k.v_n))
            assert I >= 0.0
            assert I == pytest.approx(-(1 + e) * k.v_n / w, rel=1e-9)
            T_plus = 0.5 * qp @ M @ qp
            dT_direct = T_plus - T_minus
            expected = -0.5 * (1 - e * e) * k.v_n**2 / w
            floor = 1e-13 * T_minus
            assert dT_direct <= floor                                   # never gains energy
            assert dT_direct == pytest.approx(expected, rel=1e-8, abs=floor)
            # dT from the impulse's work I (v- + v+) / 2: round-off of that work's size
            assert dT == pytest.approx(expected, rel=1e-10, abs=1e-14 * abs(I * k.v_n))
            if e == 1.0:
                assert abs(dT_direct) <= floor
            # the frictionless jump changes v_t by Gamma_q M^-1 D_n I (6)
            vtp = k.Gamma_q @ qp
            assert vtp - k.v_t == pytest.approx(k.Gamma_q @ np.linalg.solve(M, D) * I,
                                                rel=1e-8, abs=1e-12 * (abs(k.v_t) + abs(vtp)))


def test_impulse_jump_agrees_with_the_numpy_reference():
    """The engine's jump at one point (the LCP of flexlib.contact.lcp.newton_impact) against the
    Cholesky statement of eqs (39)-(48) in tests/reference.py."""
    for N in (1, 3, 5):
        for bm, q, qd, k in _jump_states(N, 5, 800 + N):
            M = bm.mass_matrix(q)
            for e in (0.0, 0.5, 1.0):
                a, b = impulse_jump(M, k.Psi_q, k.v_n, e), reference_impulse_jump(M, k.Psi_q, k.v_n, e)
                np.testing.assert_allclose(a[0], b[0], rtol=1e-10, atol=1e-14 * np.max(np.abs(b[0])))
                assert a[1] == pytest.approx(b[1], rel=1e-11)
                assert a[2] == pytest.approx(b[2], rel=1e-11, abs=1e-14 * abs(a[1] * k.v_n))


def test_impulse_jump_e0_gives_zero_normal_velocity_to_roundoff():
    for N in (1, 3, 5):
        for bm, q, qd, k in _jump_states(N, 10, 700 + N):
            M = bm.mass_matrix(q)
            dqd, I, _ = impulse_jump(M, k.Psi_q, k.v_n, 0.0)
            vnp = k.Psi_q @ (qd + dqd)
            # round-off of D (q' + dq'): a few eps times the sizes of the summands
            bound = 100 * np.finfo(float).eps * (np.abs(k.Psi_q) @ (np.abs(qd) + np.abs(dqd)))
            assert abs(vnp) <= bound


# =========================================================================== multipliers
CASE = paper_case("3.2")


def _phase(model, mode, y, *, dir_=0.0, s_star=0.0, N=3):
    """(run, dy, out) of the system engine's right-hand side at y in the phase (mode, dir, s*)."""
    sim = BeamRun(CASE.with_(n_modes=N), model, 1.0)
    dy, out = sim.evaluate(0.0, y, PhaseState(mode, dir=dir_, s_star=s_star))
    return sim, dy, out


def _contact_states(N, count, seed):
    """Random states near contact: theta near the contact angle, small gap."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        q, qd = random_state(rng, N, theta=(0.14, 0.18), Bmax=0.01, thd=(-5.0, 1.0), Bdmax=0.5)
        yield rng, q, qd


def _check_dynamics(bm, q, qd, qdd, N_, F_, k, tol=1e-9):
    """M q'' = Q + Psi_q^T N + Gamma_q^T F_t (sign convention of docs/model.md section 2)."""
    M, Q = bm.mass_and_forces(q, qd)
    lhs = M @ qdd
    rhs = Q + k.Psi_q * N_ + k.Gamma_q * F_
    scale = np.linalg.norm(Q) + np.linalg.norm(k.Psi_q) * abs(N_) + np.linalg.norm(k.Gamma_q) * abs(F_)
    assert np.linalg.norm(lhs - rhs) <= tol * scale


def _gstar(k, value, rate, gamma):
    chi, beta = CASE.slope.chi, CASE.slope.beta
    return gamma - 2 * chi * rate - beta**2 * value


def _residual_scale(row, qdd, gstar):
    return np.abs(row) @ np.abs(qdd) + abs(gstar)


@pytest.mark.parametrize("N", [1, 3, 5])
def test_frictionless_contact_solve(N):
    for rng, q, qd in _contact_states(N, 8, 800 + N):
        y = np.concatenate((q, qd, np.zeros(5)))
        sim, dy, out = _phase("frictionless", CONTACT, y, N=N)
        nd = N + 1
        qdd = dy[nd:2 * nd]
        k = tip_contact(sim.beam, sim.slope, q, qd)
        gn = _gstar(k, k.gap, k.v_n, k.gamma_n)
        assert abs(k.Psi_q @ qdd - gn) <= 1e-9 * _residual_scale(k.Psi_q, qdd, gn)
        assert out[O_F] == 0.0
        _check_dynamics(sim.beam, q, qd, qdd, out[O_N], 0.0, k)
        np.testing.assert_array_equal(dy[:nd], qd)
        # power of the normal force into W_N (docs/model.md section 13)
        assert dy[2 * nd + 1] == pytest.approx(out[O_N] * k.v_n, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("model", ["hybrid_coulomb", "hybrid_lugre"])
@pytest.mark.parametrize("N", [1, 3, 5])
def test_stick_solve_satisfies_both_constraints(model, N):
    for rng, q, qd in _contact_states(N, 8, 900 + N):
        y = np.concatenate((q, qd, np.zeros(5)))
        k = tip_contact(beam_of(N), slope_of(), q, qd)
        s_star = k.s + rng.uniform(-1e-5, 1e-5)          # Gamma = s - s* != 0 is tested too
        sim, dy, out = _phase(model, STICK, y, s_star=s_star, N=N)
        nd = N + 1
        qdd = dy[nd:2 * nd]
        N_, F_ = out[O_N], out[O_F]
        gn = _gstar(k, k.gap, k.v_n, k.gamma_n)
        gt = _gstar(k, k.s - s_star, k.v_t, k.gamma_t)
        M = sim.beam.mass_matrix(q)
        A = np.vstack((k.Psi_q, k.Gamma_q))
        S = A @ np.linalg.solve(M, A.T)
        condS = np.linalg.cond(S)
        tol = 1e-12 * max(condS, 1.0) + 1e-9
        assert abs(k.Psi_q @ qdd - gn) <= tol * _residual_scale(k.Psi_q, qdd, gn)
        assert abs(k.Gamma_q @ qdd - gt) <= tol * _residual_scale(k.Gamma_q, qdd, gt)
        _check_dynamics(sim.beam, q, qd, qdd, N_, F_, k, tol=1e-9 + 1e-13 * condS)
        if N_ != 0:
            assert out[O_MU] == pytest.approx(-F_ / N_, rel=1e-12)


@pytest.mark.parametrize("dir_", [-1.0, 1.0])
@pytest.mark.parametrize("N", [1, 3, 5])
def test_coulomb_slip_solve(dir_, N):
    mu_d = CASE.coulomb.mu_d
    for rng, q, qd in _contact_states(N, 8, 1000 + N):
        y = np.concatenate((q, qd, np.zeros(5)))
        sim, dy, out = _phase("hybrid_coulomb", SLIP, y, dir_=dir_, N=N)
        nd = N + 1
        qdd = dy[nd:2 * nd]
        k = tip_contact(sim.beam, sim.slope, q, qd)
        c = -dir_ * mu_d
        N_, F_ = out[O_N], out[O_F]
        assert F_ == pytest.approx(c * N_, rel=1e-14, abs=1e-300)
        gn = _gstar(k, k.gap, k.v_n, k.gamma_n)
        assert abs(k.Psi_q @ qdd - gn) <= 1e-9 * _residual_scale(k.Psi_q, qdd, gn)
        _check_dynamics(sim.beam, q, qd, qdd, N_, F_, k)
        M = sim.beam.mass_matrix(q)
        s11 = k.Psi_q @ np.linalg.solve(M, k.Psi_q)
        s12 = k.Psi_q @ np.linalg.solve(M, k.Gamma_q)
        assert out[O_MARGIN] == pytest.approx(1 + c * s12 / s11, rel=1e-9)
        assert out[O_MU] == pytest.approx(-c, rel=1e-14)
        assert dy[2 * nd + 2] == pytest.approx(F_ * k.v_t, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("model, mode", [("hybrid_lugre", SLIP), ("lugre", CONTACT)])
@pytest.mark.parametrize("N", [1, 3, 5])
def test_lugre_slip_solve(model, mode, N):
    lg, fr = CASE.lugre, CASE.coulomb
    for rng, q, qd in _contact_states(N, 8, 1100 + N):
        qd = qd.copy()
        qd[1:] *= 1e-2           # keep |v_t| moderate so that the Painleve margin stays positive
        z = rng.uniform(-1, 1) * fr.mu_s / lg.sigma0
        y = np.concatenate((q, qd, [z], np.zeros(4)))
        sim, dy, out = _phase(model, mode, y, N=N)
        nd = N + 1
        qdd = dy[nd:2 * nd]
        k = tip_contact(sim.beam, sim.slope, q, qd)
        vt = k.v_t
        g = fr.mu_d + (fr.mu_s - fr.mu_d) * math.exp(-(vt / lg.v_s) ** 2)
        zd = vt - lg.sigma0 * abs(vt) * z / g
        mu = lg.sigma0 * z + lg.sigma1 * zd + lg.sigma2 * vt
        assert dy[2 * nd] == pytest.approx(zd, rel=1e-10, abs=1e-14)
        assert out[O_ZDOT] == pytest.approx(zd, rel=1e-10, abs=1e-14)
        assert out[O_MU] == pytest.approx(mu, rel=1e-9, abs=1e-12)
        N_, F_ = out[O_N], out[O_F]
        assert F_ == pytest.approx(-out[O_MU] * N_, rel=1e-14, abs=1e-300)
        gn = _gstar(k, k.gap, k.v_n, k.gamma_n)
        assert abs(k.Psi_q @ qdd - gn) <= 1e-9 * _residual_scale(k.Psi_q, qdd, gn)
        _check_dynamics(sim.beam, q, qd, qdd, N_, F_, k)


# =========================================================================== stiff-beam limit
def rigid_rod_contact_time(X1, L=1.0, g0=G0, theta0=THETA0, alpha=ALPHA):
    """Time for the rigid rod to fall from rest at theta0 to the contact angle.

    theta'^2 = 3 g (sin theta0 - sin theta) / L; t = int dtheta / |theta'|.  The integrand has
    an integrable 1/sqrt singularity at theta0; the substitution theta = theta0 - u^2 removes it:
    t = int_0^sqrt(theta0 - theta_c) 2u du / sqrt(3 g (sin theta0 - sin(theta0 - u^2)) / L)."""
    th_c = alpha - math.asin(X1 * math.sin(alpha) / L)

    def f(u):
        if u == 0.0:
            return 2.0 / math.sqrt(3 * g0 * math.cos(theta0) / L)
        return 2 * u / math.sqrt(3 * g0 * (math.sin(theta0) - math.sin(theta0 - u * u)) / L)
    val, err = quad(f, 0.0, math.sqrt(theta0 - th_c), epsabs=1e-14, epsrel=1e-13)
    assert err < 1e-11
    return val


def test_rigid_rod_time_matches_spec_values():
    assert rigid_rod_contact_time(0.5) == pytest.approx(0.33293, abs=1e-5)
    assert rigid_rod_contact_time(0.3) == pytest.approx(0.31697, abs=1e-5)


@pytest.mark.parametrize("kw, tol", [({}, 1e-4), ({"E": 68.952e11}, 2e-6)])
def test_stiff_beam_first_contact_time(kw, tol):
    r = simulate("3.2", "frictionless", t_end=0.36 if not kw else 0.334, **kw)
    t_rigid = rigid_rod_contact_time(0.5)
    assert r.jumps, "no contact before 0.36 s"
    assert r.first_contact["t"] == r.jumps[0]["t"]
    assert abs(r.jumps[0]["t"] - t_rigid) <= tol


# =========================================================================== frictionless 2 s run
@pytest.fixture(scope="module")
def fl():
    return simulate("3.2", "frictionless", t_end=2.0)


def test_run_success(fl):
    assert fl.success
    assert fl.t[-1] == pytest.approx(2.0, abs=1e-12)
    assert len(fl.jumps) >= 1


def test_gap_closed_in_contact(fl):
    c = fl.mode > 0
    assert c.any()
    assert np.max(np.abs(fl.gap[c])) <= 1e-6


def test_no_penetration_in_flight(fl):
    """In flight the tip stays above the slope (up to the event location)."""
    f = fl.mode == 0
    assert np.min(fl.gap[f]) >= -1e-9


def test_normal_force_non_negative(fl):
    assert np.max(fl.N) > 0
    assert np.min(fl.N) >= -1e-6 * np.max(fl.N)
    assert np.all(fl.N[fl.mode == 0] == 0.0)
    assert np.all(fl.F_t == 0.0)


def test_no_interior_contact_warning(fl):
    bad = [w for w in fl.warnings if "interior" in w]
    assert not bad, bad


def test_energy_audit(fl):
    assert np.max(np.abs(fl.audit)) / fl.E0 <= 1e-6
    assert fl.E0 == pytest.approx(0.868734 * 9.81 * 0.5 * math.sin(THETA0), rel=1e-5)   # E(0) = 3.013082 J


def test_energy_never_rises(fl):
    """Frictionless, e = 0: E can only fall at the jumps (plus the tiny Baumgarte work W_N)."""
    assert np.max(np.diff(fl.E)) <= 1e-6 * fl.E0 + 0.0
    assert fl.E[-1] < fl.E0


def test_jump_energy_direct_equals_formula(fl):
    for j in fl.jumps:
        assert j["dE"] <= 0.0
        assert abs(j["dT_direct"] - j["dE"]) <= 1e-9 * abs(j["dE"]) + 1e-14 * fl.E0


def test_jumps_in_the_run(fl):
    """Positions unchanged, v_n+ = 0 (e = 0), I >= 0 and the v_t jump Gamma_q M^-1 D_n I, from
    the pre/post-jump sample pairs of the histories."""
    bm = BeamModel(BeamParams())
    sl = slope_of(0.5)
    for j in fl.jumps:
        assert j["impulse"] >= 0.0
        assert j["v_n_minus"] < 0.0
        assert abs(j["v_n_plus"]) <= 1e-12 * abs(j["v_n_minus"]) + 1e-15
        idx = np.nonzero(fl.t == j["t"])[0]
        assert len(idx) >= 2
        a, b = idx[0], idx[1]
        assert fl.theta[a] == fl.theta[b]
        np.testing.assert_array_equal(fl.B[a], fl.B[b])
        q = np.concatenate(([fl.theta[a]], fl.B[a]))
        qm = np.concatenate(([fl.theta_dot[a]], fl.B_dot[a]))
        qp = np.concatenate(([fl.theta_dot[b]], fl.B_dot[b]))
        km, kp = tip_contact(bm, sl, q, qm), tip_contact(bm, sl, q, qp)
        assert km.v_n == pytest.approx(j["v_n_minus"], rel=1e-9)
        M = bm.mass_matrix(q)
        np.testing.assert_allclose(M @ (qp - qm), km.Psi_q * j["impulse"], rtol=1e-7,
                                   atol=1e-9 * j["impulse"] * np.linalg.norm(km.Psi_q))
        dvt = km.Gamma_q @ np.linalg.solve(M, km.Psi_q) * j["impulse"]
        assert kp.v_t - km.v_t == pytest.approx(dvt, rel=1e-7, abs=1e-12)
        assert j["v_t_plus"] - j["v_t_minus"] == pytest.approx(dvt, rel=1e-7, abs=1e-12)


def test_impacts_are_separated_clusters(fl):
    imp = fl.impacts
    assert len(imp) >= 3
    tc = CASE.solver.t_cluster
    starts = [im["t_start"] for im in imp]
    assert all(b > a for a, b in zip(starts, starts[1:]))
    for a, b in zip(imp, imp[1:]):
        assert b["t_start"] - a["t_end"] > tc
    assert imp[0]["t_start"] == fl.jumps[0]["t"]
    assert sum(im["episodes"] for im in imp) == len(fl.jumps)
