"""Independent checks of flexlib.bodies.beam (docs/model.md sections 3, 4.3, 5, 6.2-6.3; checks E1-E8 below).

The reference model below (`Ref`) is a second, independent implementation of the
paper's closed-form eqs (13)-(22), corrected as in docs/model.md sections 5.2 and 15
(S_y with the factor x in eq (20), and the corrected terms of eqs (16)-(17)), written
from the model's description: own Gauss-Legendre rule, own mode
shapes (stable form), own H(x) by nested quadrature, own roots (Newton), and
different node counts from flexlib.  Numerical targets are the values documented in
docs/model.md (sections 3, 4.2, 5.2) or closed-form theory (pinned-free frequencies, modal
series of the static sag).
"""
import math

import numpy as np
import pytest

import reference
from flexlib.bodies.beam import BeamModel
from flexlib.params import BeamParams
from reference import kernel_point

ROOTS_TABLE = np.array([1.875104068712, 4.694091132974, 7.854757438238, 10.995540734875,
                        14.137168391046, 17.278759532088, 20.420352251041, 23.561944901806])
IT = np.array([[0.0, -1.0], [1.0, 0.0]])


# =========================================================================== reference
def gauss_legendre(n):
    """Own n-point Gauss-Legendre rule on [-1, 1] (Newton on the Legendre recurrence)."""
    k = np.arange(1, n + 1)
    x = np.cos(np.pi * (k - 0.25) / (n + 0.5))

    def legendre(x):
        p0, p1 = np.ones_like(x), x.copy()
        for j in range(2, n + 1):
            p0, p1 = p1, ((2 * j - 1) * x * p1 - (j - 1) * p0) / j
        return p1, n * (x * p1 - p0) / (x * x - 1.0)

    for _ in range(100):
        p, dp = legendre(x)
        dx = p / dp
        x = x - dx
        if np.max(np.abs(dx)) < 1e-16:
            break
    _, dp = legendre(x)
    w = 2.0 / ((1.0 - x * x) * dp * dp)
    o = np.argsort(x)
    return x[o], w[o]


def own_roots(n):
    """beta_i L by Newton on cos(l) + sech(l) = 0 from the table values."""
    out = []
    for l in ROOTS_TABLE[:n]:
        for _ in range(5):
            f = math.cos(l) + 1.0 / math.cosh(l)
            df = -math.sin(l) - math.tanh(l) / math.cosh(l)
            l -= f / df
        out.append(l)
    return np.array(out)


def own_modes(x, L, lam):
    """Phi, Phi', Phi'' (len(x), N), stable form of docs/model.md section 4.1 written independently."""
    x = np.atleast_1d(np.asarray(x, float))
    N = len(lam)
    P, D1, D2 = (np.empty((x.size, N)) for _ in range(3))
    for i, l in enumerate(lam):
        b = l / L
        a = b * x
        e = math.exp(-l)
        den = 0.5 * (1.0 - e * e) + e * math.sin(l)          # e^-l (sinh l + sin l)
        c1 = (math.sin(l) - math.cos(l) - e) / den          # (1 - sigma) e^l
        sig = 1.0 - c1 * e
        ep = c1 * np.exp(a - l)                              # (1 - sigma) e^a
        em = (1.0 + sig) * np.exp(-a)
        ch = 0.5 * (ep + em)                                 # cosh a - sigma sinh a
        sh = 0.5 * (ep - em)                                 # sinh a - sigma cosh a
        P[:, i] = ch - np.cos(a) + sig * np.sin(a)
        D1[:, i] = b * (sh + np.sin(a) + sig * np.cos(a))
        D2[:, i] = b * b * (ch + np.cos(a) - sig * np.sin(a))
    return P, D1, D2


class Ref:
    """Closed-form eqs (13)-(22) corrected (docs/model.md section 5.2), own quadrature throughout."""

    def __init__(self, N=3, L=1.0, S=3.14e-4, rho=2766.67, E=68.952e9, I=7.85e-9, g0=9.81,
                 n_out=None, n_in=None, foreshortening=True, zeta=0.0):
        self.N, self.L, self.g0 = N, L, g0
        self.rhoS, self.EI = rho * S, E * I
        n_out = n_out or (72 if N <= 3 else 120)
        n_in = n_in or (56 if N <= 3 else 110)
        self.lam = own_roots(N)
        xi, wi = gauss_legendre(n_out)
        self.x, self.w = 0.5 * L * (xi + 1), 0.5 * L * wi
        self.Phi, _, self.ddPhi = own_modes(self.x, L, self.lam)
        ti, tw = gauss_legendre(n_in)
        self._ti, self._tw = ti, tw
        self.H = np.array([self._H(xk) for xk in self.x]) if foreshortening \
            else np.zeros((n_out, N, N))
        self.H_L = self._H(L) if foreshortening else np.zeros((N, N))
        self.Phi_L = own_modes([L], L, self.lam)[0][0]
        ws = self.w * self.rhoS
        self.ws = ws
        self.J_ob = ws @ self.x**2
        self.M2 = np.einsum("k,ki,kj->ij", ws, self.Phi, self.Phi)
        self.D = np.einsum("k,k,kij->ij", ws, self.x, self.H)
        self.K2 = self.EI * np.einsum("k,ki,kj->ij", self.w, self.ddPhi, self.ddPhi)
        self.S_y = np.einsum("k,k,ki->i", ws, self.x, self.Phi)     # with the factor x (corrected eq (20))
        omega = self.lam**2 * math.sqrt(self.EI / (self.rhoS * L**4))
        self.C = np.diag(2.0 * zeta * omega * self.rhoS * L)

    def _H(self, xk):
        pts, wts = 0.5 * xk * (self._ti + 1), 0.5 * xk * self._tw
        _, d1, _ = own_modes(pts, self.L, self.lam)
        return np.einsum("k,ki,kj->ij", wts, d1, d1)

    # ---- per-node building blocks
    def _nodes(self, B):
        HB = self.H @ B                       # (K, N)
        BHB = HB @ B                          # (K,)
        PB = self.Phi @ B                     # (K,)
        return HB, BHB, PB

    def mass_matrix(self, q):
        B = np.asarray(q[1:], float)
        ws, Phi = self.ws, self.Phi
        HB, BHB, PB = self._nodes(B)
        N = self.N
        M = np.zeros((N + 1, N + 1))
        M[0, 0] = self.J_ob + B @ self.M2 @ B - B @ self.D @ B + 0.25 * ws @ BHB**2     # (13)
        M21 = self.S_y + ws @ (HB * PB[:, None]) - 0.5 * ws @ (Phi * BHB[:, None])      # (14)
        M[1:, 0] = M21
        M[0, 1:] = M21
        M[1:, 1:] = self.M2 + np.einsum("k,ki,kj->ij", ws, HB, HB)                      # (15)
        return M

    def force_terms(self, q, qd, tau_d=0.0):
        """The terms of eqs (16)-(17) corrected, as a list of (N+1)-vectors (sum = Q)."""
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        th, B, thd, Bd = q[0], q[1:], qd[0], qd[1:]
        ws, Phi, N = self.ws, self.Phi, self.N
        HB, BHB, PB = self._nodes(B)
        HBd = self.H @ Bd
        BHBd = HBd @ B
        BdHBd = HBd @ Bd
        PBd = Phi @ Bd
        # R and dR/dB (eq (10))
        R = np.array([ws @ (self.x - 0.5 * BHB), ws @ PB])
        dR = np.vstack([-(ws @ HB), ws @ Phi])             # 2 x N
        g = np.array([0.0, -self.g0])
        W = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
        terms = []

        def th_term(v):
            t = np.zeros(N + 1)
            t[0] = v
            terms.append(t)

        def b_term(v):
            t = np.zeros(N + 1)
            t[1:] = v
            terms.append(t)

        # the terms of eqs (16)-(17) as corrected in docs/model.md section 5.2: B^T D B' (D is
        # constant), the missing or misplaced dots (on B, never on H), rho S for rho A, theta'^2 for theta'
        th_term(tau_d)
        th_term(-2.0 * thd * (B @ self.M2 @ Bd - B @ self.D @ Bd))                        # eq (16)
        th_term(-thd * ws @ (BHB * BHBd))                                                  # eq (16)
        th_term(-ws @ (BdHBd * PB))                                                        # eq (16)
        th_term(g @ (W @ IT) @ R)                                                          # dW/dth = W I~
        b_term(thd**2 * (self.M2 - self.D) @ B)                                            # eq (17)
        b_term(-self.K2 @ B)
        b_term(0.5 * thd**2 * ws @ (BHB[:, None] * HB))                                   # eq (17)
        b_term(-ws @ (HB * BdHBd[:, None]))                                                # eq (17)
        b_term(2.0 * thd * (ws @ (Phi * BHBd[:, None]) - ws @ (HB * PBd[:, None])))       # eq (17)
        b_term((g @ W @ dR))
        b_term(-self.C @ Bd)
        return terms

    def forces(self, q, qd, tau_d=0.0):
        return np.sum(self.force_terms(q, qd, tau_d), axis=0)

    def positions(self, q, x):
        B = np.asarray(q[1:], float)
        phi = own_modes(x, self.L, self.lam)[0]
        H = np.array([self._H(xx) for xx in np.atleast_1d(x)])
        p = np.stack([np.atleast_1d(x) - 0.5 * np.einsum("i,kij,j->k", B, H, B), phi @ B], -1)
        W = np.array([[math.cos(q[0]), -math.sin(q[0])], [math.sin(q[0]), math.cos(q[0])]])
        return p @ W.T

    def kinetic_energy(self, q, qd):
        """1/2 int rho S |r'|^2 dx, with r' = W (I~ p th' + p') (docs/model.md section 4.3)."""
        B, thd, Bd = np.asarray(q[1:], float), qd[0], np.asarray(qd[1:], float)
        HB, BHB, PB = self._nodes(B)
        p = np.stack([self.x - 0.5 * BHB, PB], -1)
        pd = np.stack([-(HB @ Bd), self.Phi @ Bd], -1)
        v = thd * (p @ IT.T) + pd          # floating components (|W v| = |v|)
        return 0.5 * self.ws @ np.sum(v * v, axis=1)

    def elastic_energy(self, q):
        B = np.asarray(q[1:], float)
        return 0.5 * self.EI * self.w @ (self.ddPhi @ B) ** 2

    def gravitational_energy(self, q):
        """g0 * int rho S Y dx, Y measured from the hinge."""
        B = np.asarray(q[1:], float)
        _, BHB, PB = self._nodes(B)
        Y = math.sin(q[0]) * (self.x - 0.5 * BHB) + math.cos(q[0]) * PB
        return self.g0 * self.ws @ Y


_REFS = {}


def ref(N, **kw):
    key = (N, tuple(sorted(kw.items())))
    if key not in _REFS:
        _REFS[key] = Ref(N, **kw)
    return _REFS[key]


_MODELS = {}


def model(**kw):
    key = tuple(sorted(kw.items()))
    if key not in _MODELS:
        _MODELS[key] = BeamModel(BeamParams(**kw))
    return _MODELS[key]


def random_state(rng, N, bmax=0.05, thdmax=5.0, bdmax=1.0):
    q = np.concatenate([[rng.uniform(-math.pi, math.pi)], rng.uniform(-bmax, bmax, N)])
    qd = np.concatenate([[rng.uniform(-thdmax, thdmax)], rng.uniform(-bdmax, bdmax, N)])
    return q, qd


def rel_err(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return np.max(np.abs(a - b)) / np.max(np.abs(b))


def test_reference_model_self_checks():
    """The reference itself reproduces theory (so its agreement with flexlib means something)."""
    r = ref(3)
    rhoS, L = r.rhoS, r.L
    np.testing.assert_allclose(r.M2, rhoS * L * np.eye(3), atol=1e-13)
    np.testing.assert_allclose(np.diag(r.K2), r.EI * ROOTS_TABLE[:3] ** 4, rtol=1e-11)
    np.testing.assert_allclose(r.Phi_L, [2, -2, 2], atol=1e-12)
    np.testing.assert_allclose(r.H_L, [[4.64778, -7.37988, 3.94152],
                                       [-7.37988, 32.41740, -22.35244],
                                       [3.94152, -22.35244, 77.29889]], atol=1e-5)
    assert r.J_ob == pytest.approx(rhoS * L**3 / 3, rel=1e-14)
    np.testing.assert_allclose(r.S_y, [0.494158, 0.078852, 0.028161], atol=1e-6)
    assert r.D[0, 0] / (rhoS * L) == pytest.approx(1.19334, abs=5e-6)
    # eq (13)-(15) against the generic J~^T J~ route of 4.3 at a random state
    rng = np.random.default_rng(0)
    q, _ = random_state(rng, 3)
    B = q[1:]
    HB = r.H @ B
    p = np.stack([r.x - 0.5 * HB @ B, r.Phi @ B], -1)
    J = np.zeros((r.x.size, 2, 4))
    J[:, :, 0] = p @ IT.T
    J[:, 0, 1:] = -HB
    J[:, 1, 1:] = r.Phi
    Mg = np.einsum("k,kai,kaj->ij", r.ws, J, J)
    assert rel_err(r.mass_matrix(q), Mg) < 1e-13


# =========================================================================== E1, E2
@pytest.mark.parametrize("N", range(1, 9))
def test_E1_mass_matrix_symmetric_positive_definite(N):
    m = model(n_modes=N)
    rng = np.random.default_rng(100 + N)
    for _ in range(50):
        q, _ = random_state(rng, N)
        M = m.mass_matrix(q)
        assert M.shape == (N + 1, N + 1)
        assert np.max(np.abs(M - M.T)) <= 1e-14 * np.max(np.abs(M))
        np.linalg.cholesky(M)          # raises LinAlgError if not positive definite


def test_E2_mass_matrix_at_B0_spec_values():
    m = model(n_modes=3)
    M = m.mass_matrix(np.zeros(4))
    assert M[0, 0] == pytest.approx(0.289578, abs=1e-6)
    np.testing.assert_allclose(M[1:, 0], [0.494158, 0.078852, 0.028161], rtol=0, atol=1e-6)
    np.testing.assert_allclose(M[0, 1:], [0.494158, 0.078852, 0.028161], rtol=0, atol=1e-6)
    np.testing.assert_allclose(M[1:, 1:], 0.868734 * np.eye(3), rtol=0, atol=1e-6)
    # and against the independent reference to quadrature accuracy; theta does not enter M
    r = ref(3)
    assert rel_err(M, r.mass_matrix(np.zeros(4))) < 1e-12
    assert rel_err(m.mass_matrix([1.234, 0, 0, 0]), M) == 0.0


# =========================================================================== E3
E3_CASES = [(1, {}), (2, {}), (3, {}), (5, {}), (8, {}),
            (3, {"L": 1.7, "rho": 7800.0, "S": 2e-4, "g0": 3.0}),
            (3, {"E": 1e3}),                         # soft beam: velocity terms dominate Q
            (8, {"E": 1e3})]


@pytest.mark.parametrize("N,kw", E3_CASES)
def test_E3_closed_form_against_independent_reference(N, kw):
    m = model(n_modes=N, **kw)
    r = ref(N, **kw)
    rng = np.random.default_rng(7 * N + len(kw))
    tau = 0.37
    for trial in range(6):
        q, qd = random_state(rng, N, thdmax=6.0, bdmax=2.0)
        Mref = r.mass_matrix(q)
        for M in (m.mass_matrix(q), reference.mass_matrix_quadrature(m, q)):
            assert rel_err(M, Mref) < 1e-10
        terms = r.force_terms(q, qd, tau)
        Qref = np.sum(terms, axis=0)
        scale = np.sum(np.abs(terms), axis=0)          # floating-point scale per component
        for Q in (m.generalized_forces(q, qd, tau_d=tau),
                  reference.generalized_forces_quadrature(m, q, qd, tau_d=tau)):
            assert np.all(np.abs(Q - Qref) <= 1e-10 * scale), (Q, Qref)
        # the non-elastic, non-drive part alone (velocity + gravity), also to 1e-10 of its size
        nonel = np.sum([t for i, t in enumerate(terms) if i not in (0, 6)], axis=0)
        Qn = m.generalized_forces(q, qd, tau_d=0.0) + np.concatenate([[0.0], r.K2 @ q[1:]])
        tol = 1e-10 * np.max(np.abs(nonel)) + 4e-16 * np.max(np.abs(r.K2 @ q[1:]))
        assert np.max(np.abs(Qn - nonel)) <= tol


def test_E3_drive_torque_from_params_and_argument():
    N = 3
    m0 = model(n_modes=N)
    mt = model(n_modes=N, tau_d=2.5)
    rng = np.random.default_rng(3)
    q, qd = random_state(rng, N)
    Q0 = m0.generalized_forces(q, qd)
    e0 = np.zeros(N + 1)
    e0[0] = 2.5
    np.testing.assert_allclose(mt.generalized_forces(q, qd), Q0 + e0, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(m0.generalized_forces(q, qd, tau_d=2.5), Q0 + e0, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(mt.generalized_forces(q, qd, tau_d=0.0), Q0, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(reference.generalized_forces_quadrature(mt, q, qd), Q0 + e0, rtol=1e-12,
                               atol=1e-9)


@pytest.mark.parametrize("N", [1, 3, 8])
def test_modal_damping(N):
    zeta = 0.02
    md = model(n_modes=N, zeta=zeta, L=1.3)
    m0 = model(n_modes=N, L=1.3)
    rd = ref(N, zeta=zeta, L=1.3)
    rng = np.random.default_rng(11)
    q, qd = random_state(rng, N)
    lam = ROOTS_TABLE[:N]
    b = md.params
    omega = lam**2 * math.sqrt(b.E * b.I / (b.rho * b.S * b.L**4))
    CBd = 2 * zeta * omega * b.rho * b.S * b.L * qd[1:]
    diff = md.generalized_forces(q, qd) - m0.generalized_forces(q, qd)
    scale = np.abs(m0.mi.K2 @ q[1:]).max()
    assert abs(diff[0]) <= 1e-15 * scale
    np.testing.assert_allclose(diff[1:], -CBd, rtol=0, atol=1e-15 * scale + 1e-12 * np.abs(CBd).max())
    dq = (reference.generalized_forces_quadrature(md, q, qd)
          - reference.generalized_forces_quadrature(m0, q, qd))
    np.testing.assert_allclose(dq[1:], -CBd, rtol=0, atol=1e-15 * scale + 1e-12 * np.abs(CBd).max())
    np.testing.assert_allclose(rd.C, np.diag(2 * zeta * omega * b.rho * b.S * b.L), rtol=1e-12)


def test_accelerations_solve_M_qdd_eq_Q():
    m = model(n_modes=3)
    rng = np.random.default_rng(5)
    q, qd = random_state(rng, 3)
    a = m.accelerations(q, qd)
    M, Q = m.mass_matrix(q), m.generalized_forces(q, qd)
    np.testing.assert_allclose(M @ a, Q, rtol=0, atol=1e-12 * np.abs(Q).max() * 1e3)


# =========================================================================== E4
def _qdot_M_qdot_grad(m, q, qd, h=1e-5):
    g = np.zeros(q.size)
    for j in range(q.size):
        e = np.zeros(q.size)
        e[j] = h * max(1.0, abs(q[j]))
        g[j] = (qd @ m.mass_matrix(q + e) @ qd - qd @ m.mass_matrix(q - e) @ qd) / (2 * e[j])
    return g


@pytest.mark.parametrize("N", [1, 2, 3, 8])
@pytest.mark.parametrize("fs", [True, False])
def test_E4_velocity_terms_are_lagrangian(N, fs):
    """Q(q, q') - Q(q, 0) = -M' q' + 1/2 d(q'^T M q')/dq (Lagrange with T = 1/2 q'^T M q')."""
    m = model(n_modes=N, foreshortening=fs)
    rng = np.random.default_rng(40 + N)
    for _ in range(5):
        q, qd = random_state(rng, N, thdmax=6.0, bdmax=1.5)
        h = 1e-5
        Mdot = (m.mass_matrix(q + h * qd) - m.mass_matrix(q - h * qd)) / (2 * h)
        lag = -Mdot @ qd + 0.5 * _qdot_M_qdot_grad(m, q, qd)
        vel = m.generalized_forces(q, qd) - m.generalized_forces(q, np.zeros(N + 1))
        assert np.max(np.abs(vel - lag)) <= 1e-7 * np.max(np.abs(lag)), (vel, lag)
        velq = (reference.generalized_forces_quadrature(m, q, qd)
                - reference.generalized_forces_quadrature(m, q, np.zeros(N + 1)))
        assert np.max(np.abs(velq - lag)) <= 1e-7 * np.max(np.abs(lag))


def _grad(f, q, h=1e-6):
    g = np.zeros(q.size)
    for j in range(q.size):
        e = np.zeros(q.size)
        e[j] = h * max(1.0, abs(q[j]))
        g[j] = (f(q + e) - f(q - e)) / (2 * e[j])
    return g


@pytest.mark.parametrize("N", [1, 3, 8])
def test_gravity_part_is_minus_grad_VG(N):
    mg = model(n_modes=N)
    m0 = model(n_modes=N, g0=0.0)
    rng = np.random.default_rng(60 + N)
    for _ in range(5):
        q, _ = random_state(rng, N)
        z = np.zeros(N + 1)
        Qg = mg.generalized_forces(q, z, tau_d=0.0) - m0.generalized_forces(q, z, tau_d=0.0)
        fd = -_grad(lambda x: kernel_point(mg, x)["V_G"], q)
        assert np.max(np.abs(Qg - fd)) <= 1e-7 * np.max(np.abs(fd))
        assert kernel_point(m0, q)["V_G"] == 0.0


@pytest.mark.parametrize("N", [1, 3, 8])
def test_elastic_part_is_minus_grad_VE(N):
    m0 = model(n_modes=N, g0=0.0)
    r = ref(N, g0=0.0)
    rng = np.random.default_rng(80 + N)
    for _ in range(5):
        q, _ = random_state(rng, N)
        z = np.zeros(N + 1)
        Qe = m0.generalized_forces(q, z, tau_d=0.0)
        fd = -_grad(lambda x: kernel_point(m0, x)["V_E"], q)
        assert np.max(np.abs(Qe - fd)) <= 1e-7 * np.max(np.abs(fd))
        assert kernel_point(m0, q)["V_E"] == pytest.approx(r.elastic_energy(q), rel=1e-10)
        assert kernel_point(m0, q)["V_E"] == pytest.approx(reference.elastic_energy(m0, q),
                                                          rel=1e-13)


# =========================================================================== E5, E6
C0 = math.sqrt(68.952e9 * 7.85e-9 / (2766.67 * 3.14e-4))


@pytest.mark.parametrize("N", range(1, 9))
def test_E5_clamped_frequencies(N):
    w = model(n_modes=N).natural_frequencies()
    np.testing.assert_allclose(w, ROOTS_TABLE[:N] ** 2 * C0, rtol=1e-6)


def test_E5_clamped_frequencies_N3_printed():
    np.testing.assert_allclose(model(n_modes=3).natural_frequencies(), [87.764, 550.006, 1540.034],
                               rtol=0, atol=1e-3)


def test_E5_other_geometry():
    b = dict(L=2.0, E=2e11, rho=7800.0, S=1e-4, I=1e-9)
    w = model(n_modes=4, **b).natural_frequencies()
    c = math.sqrt(b["E"] * b["I"] / (b["rho"] * b["S"] * b["L"] ** 4))
    np.testing.assert_allclose(w, ROOTS_TABLE[:4] ** 2 * c, rtol=1e-6)


def _pinned_free_exact(k):
    """The first k nonzero pinned-free roots: tan l = tanh l, l in ((j + 1/4) pi +- 0.3)."""
    from scipy.optimize import brentq
    return np.array([brentq(lambda l: math.tan(l) - math.tanh(l), (j + 0.25) * math.pi - 0.3,
                            (j + 0.25) * math.pi + 0.3, xtol=1e-14) for j in range(1, k + 1)])


def test_E6_pinned_free_exact_values_from_theory():
    w = _pinned_free_exact(3) ** 2 * C0
    np.testing.assert_allclose(w, [384.856, 1247.18, 2602.14], rtol=0, atol=6e-3)


def test_E6_pinned_free_N3():
    w = model(n_modes=3).pinned_free_frequencies()
    assert w.shape == (4,)
    assert w[0] < 1e-3 * w[1]
    assert w[1] == pytest.approx(384.886, abs=1e-3)
    assert w[2] == pytest.approx(1251.24, abs=1e-2)


def test_E6_pinned_free_converges_from_above():
    exact = _pinned_free_exact(3) ** 2 * C0
    second = []
    for N in range(1, 9):
        w = model(n_modes=N).pinned_free_frequencies()
        assert w.shape == (N + 1,)
        assert w[0] < 1e-3 * w[1]
        k = min(N, 3)
        assert np.all(w[1:1 + k] >= exact[:k] * (1 - 1e-12))     # Rayleigh-Ritz upper bounds
        second.append(w[1])
    assert np.all(np.diff(second) < 0)                              # monotone decrease with N
    assert abs(second[-1] / exact[0] - 1) <= 1e-3
    w8 = model(n_modes=8).pinned_free_frequencies()
    assert abs(w8[2] / exact[1] - 1) <= 1e-2


# =========================================================================== E7
def _dQB_dB(m, Omega, h=1e-6):
    N = m.n
    qd = np.zeros(N + 1)
    qd[0] = Omega
    J = np.zeros((N, N))
    for j in range(N):
        e = np.zeros(N + 1)
        e[1 + j] = h
        J[:, j] = (m.generalized_forces(e, qd)[1:] - m.generalized_forces(-e, qd)[1:]) / (2 * h)
    return J


@pytest.mark.parametrize("Omega", [5.0, 20.0, 60.0])
def test_E7_dynamic_stiffening_single_mode(Omega):
    m = model(n_modes=1, g0=0.0)
    mass = m.mass_matrix(np.zeros(2))[1, 1]
    K_Om = -_dQB_dB(m, Omega)[0, 0]
    K_0 = -_dQB_dB(m, 0.0)[0, 0]
    w1 = ROOTS_TABLE[0] ** 2 * C0
    assert K_0 / mass == pytest.approx(w1**2, rel=1e-9)
    coeff = (K_Om - K_0) / (mass * Omega**2)
    assert coeff == pytest.approx(0.19334, abs=5e-6)


@pytest.mark.parametrize("Omega", [5.0, 60.0])
def test_E7_without_foreshortening_spurious_softening(Omega):
    m = model(n_modes=1, g0=0.0, foreshortening=False)
    mass = m.mass_matrix(np.zeros(2))[1, 1]
    coeff = (-_dQB_dB(m, Omega)[0, 0] + _dQB_dB(m, 0.0)[0, 0]) / (mass * Omega**2)
    assert coeff == pytest.approx(-1.0, abs=1e-7)


def test_E7_stiffness_matrix_N3_against_reference():
    """-dQ_B/dB at B = 0, theta' = Omega equals K2 + Omega^2 (D - M2) with the reference D, M2."""
    Omega = 30.0
    m = model(n_modes=3, g0=0.0)
    r = ref(3, g0=0.0)
    K = -_dQB_dB(m, Omega)
    Kref = r.K2 + Omega**2 * (r.D - r.M2)
    assert rel_err(K, Kref) < 1e-8
    dK = -_dQB_dB(m, Omega) + _dQB_dB(m, 0.0)
    assert rel_err(dK, Omega**2 * (r.D - r.M2)) < 1e-6


# =========================================================================== E8
def _static_sag_modal_series(N, rhoS, g0, EI, L):
    tot = 0.0
    for i, l in enumerate(ROOTS_TABLE[:N]):
        sig = (math.cosh(l) + math.cos(l)) / (math.sinh(l) + math.sin(l))
        load = -rhoS * g0 * 2 * sig * L / l          # int rho S g . Phi_i (theta = 0)
        tot += 2 * (-1) ** i * load / (EI * l**4 / L**3)
    return tot


def _static_sag(m):
    N = m.n
    z = np.zeros(N + 1)
    QB = m.generalized_forces(z, z, tau_d=0.0)[1:]
    K = -_dQB_dB(m, 0.0)          # at theta = 0 gravity adds no stiffness to the B-equation
    B = np.linalg.solve(K, QB)
    return kernel_point(m, np.concatenate([[0.0], B]))["tip_deflection"]


def test_E8_static_sag_N3():
    assert _static_sag(model(n_modes=3)) == pytest.approx(-1.96842e-3, rel=3e-6)


def test_E8_static_sag_converges_to_beam_theory():
    rhoS, EI = 2766.67 * 3.14e-4, 68.952e9 * 7.85e-9
    exact = -rhoS * 9.81 / (8 * EI)
    assert exact == pytest.approx(-1.96811e-3, rel=3e-6)
    errs = []
    for N in range(1, 9):
        u = _static_sag(model(n_modes=N))
        assert u == pytest.approx(_static_sag_modal_series(N, rhoS, 9.81, EI, 1.0), rel=1e-9)
        errs.append(abs(u - exact))
    assert np.all(np.diff(errs) < 0)
    assert errs[-1] <= 2e-6 * abs(exact)


# =========================================================================== tip kinematics
def _kernel_tip(m, q):
    """The library's inertial tip position (X, Y) [m]: the compiled kernel's."""
    k = kernel_point(m, np.asarray(q, float))
    return np.array([k["tip_X"], k["tip_Y"]])


@pytest.mark.parametrize("N", [1, 3, 8])
@pytest.mark.parametrize("fs", [True, False])
def test_tip_jacobian_finite_differences(N, fs):
    m = model(n_modes=N, foreshortening=fs)
    rng = np.random.default_rng(200 + N)
    for _ in range(5):
        q, _ = random_state(rng, N)
        J = reference.tip_jacobian(m, q)
        assert J.shape == (2, N + 1)
        fd = np.zeros_like(J)
        fd_ref = np.zeros_like(J)
        for j in range(N + 1):
            e = np.zeros(N + 1)
            e[j] = 1e-6 * max(1.0, abs(q[j]))
            fd[:, j] = (_kernel_tip(m, q + e) - _kernel_tip(m, q - e)) / (2 * e[j])
            fd_ref[:, j] = (reference.tip_position(m, q + e)
                            - reference.tip_position(m, q - e)) / (2 * e[j])
        # the library's (kernel's) tip position and the reference Jacobian
        assert np.max(np.abs(J - fd)) <= 1e-7 * np.max(np.abs(J))
        assert np.max(np.abs(J - fd_ref)) <= 1e-7 * np.max(np.abs(J))


@pytest.mark.parametrize("N", [1, 3, 8])
def test_tip_velocity_product_finite_difference_along_motion(N):
    m = model(n_modes=N)
    rng = np.random.default_rng(300 + N)
    for _ in range(5):
        q, qd = random_state(rng, N, thdmax=6.0, bdmax=1.5)
        h = 1e-6
        fd = (reference.tip_jacobian(m, q + h * qd) - reference.tip_jacobian(m, q - h * qd)) @ qd / (2 * h)
        a = reference.tip_velocity_product(m, q, qd)
        assert np.max(np.abs(a - fd)) <= 1e-7 * np.max(np.abs(fd))
        v = reference.tip_velocity(m, q, qd)
        np.testing.assert_allclose(v, reference.tip_jacobian(m, q) @ qd, rtol=1e-14, atol=1e-14)
        # the library's (kernel's) tip velocity against the reference J q'
        k = kernel_point(m, q, qd)
        np.testing.assert_allclose([k["tip_Xdot"], k["tip_Ydot"]], v, rtol=1e-13,
                                   atol=1e-14 * np.max(np.abs(v)))


def test_tip_position_closed_form_and_deflection():
    N = 3
    m = model(n_modes=N)
    r = ref(N)
    rng = np.random.default_rng(9)
    for _ in range(5):
        q, _ = random_state(rng, N)
        B = q[1:]
        k = kernel_point(m, q)
        assert k["tip_deflection"] == pytest.approx(2 * (B[0] - B[1] + B[2]), rel=1e-12, abs=1e-15)
        assert reference.tip_deflection(m, q) == pytest.approx(k["tip_deflection"], rel=1e-14,
                                                               abs=1e-16)
        p = np.array([1.0 - 0.5 * B @ r.H_L @ B, r.Phi_L @ B])
        W = np.array([[math.cos(q[0]), -math.sin(q[0])], [math.sin(q[0]), math.cos(q[0])]])
        np.testing.assert_allclose(_kernel_tip(m, q), W @ p, rtol=0, atol=1e-13)
        np.testing.assert_allclose(reference.tip_position(m, q), W @ p, rtol=0, atol=1e-13)
    # undeformed: tip at (L cos theta, L sin theta)
    np.testing.assert_allclose(_kernel_tip(m, [0.3, 0, 0, 0]), [math.cos(0.3), math.sin(0.3)],
                               rtol=0, atol=1e-15)


@pytest.mark.parametrize("N", [1, 3, 8])
def test_positions_stations(N):
    m = model(n_modes=N)
    r = ref(N)
    rng = np.random.default_rng(400 + N)
    xs = np.array([0.0, 0.25, 0.6, 1.0])
    st = m.station_data(xs)
    for _ in range(3):
        q, _ = random_state(rng, N)
        P = m.positions(q, st)
        assert P.shape == (4, 2)
        np.testing.assert_allclose(P[-1], _kernel_tip(m, q), rtol=0, atol=1e-13)
        np.testing.assert_allclose(P[0], [0.0, 0.0], rtol=0, atol=1e-15)
        np.testing.assert_allclose(P, r.positions(q, xs), rtol=0, atol=1e-11)


# =========================================================================== energies
@pytest.mark.parametrize("N", [1, 3, 8])
def test_kinetic_energy_against_own_quadrature(N):
    m = model(n_modes=N)
    r = ref(N)
    rng = np.random.default_rng(500 + N)
    for _ in range(5):
        q, qd = random_state(rng, N)
        T = kernel_point(m, q, qd)["T"]          # the library's T (the kernel's right-hand side)
        assert T == pytest.approx(r.kinetic_energy(q, qd), rel=1e-10)
        assert T == pytest.approx(reference.kinetic_energy(m, q, qd), rel=1e-13)
    # rigid rotation: T = 1/2 J_ob theta'^2
    assert kernel_point(m, np.zeros(N + 1), np.r_[2.0, np.zeros(N)])["T"] == pytest.approx(
        0.5 * 0.289578127 * 4.0, rel=1e-8)


@pytest.mark.parametrize("N", [1, 3, 8])
def test_gravitational_energy(N):
    m = model(n_modes=N)
    r = ref(N)
    q0 = np.r_[math.pi / 4, np.zeros(N)]
    assert kernel_point(m, q0)["V_G"] == pytest.approx(3.013082, abs=1e-6)
    assert m.mi.m == pytest.approx(0.868734, abs=1e-6)
    rng = np.random.default_rng(600 + N)
    for _ in range(5):
        q, _ = random_state(rng, N)
        VG = kernel_point(m, q)["V_G"]
        assert VG == pytest.approx(r.gravitational_energy(q), rel=1e-10, abs=1e-12)
        assert VG == pytest.approx(reference.gravitational_energy(m, q), rel=1e-13, abs=1e-15)
    # the library's energies at one state against the reference's (T, V_E, V_G)
    k = kernel_point(m, q, np.ones(N + 1))
    np.testing.assert_allclose([k["T"], k["V_E"], k["V_G"]], reference.energies(m, q, np.ones(N + 1)),
                               rtol=1e-13, atol=1e-15)
    assert k["V_A"] == 0.0
