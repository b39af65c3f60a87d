"""Checks of the beam's bases (flexlib.bodies.basis_fe, flexlib.bodies.basis_partition, flexlib.bodies.bases).

Expected values come from theory: the textbook Hermite element matrices (Przemieniecki 1968),
the one-element cantilever frequencies 3.533 and 34.81 sqrt(EI/(rho S L^4)) of the consistent
element (Petyt, Introduction to Finite Element Vibration Analysis, ch. 3), the exact clamped-free
frequencies lambda_i^2 sqrt(EI/(rho S L^4)), the convergence order h^4 of the frequencies of
cubic elements (Strang and Fix 1973), the Rayleigh-Ritz bounds of nested bases, and the limits of
the partitioned basis (modal at local length 0, finite-element at local length L).
"""
import math

import numpy as np
import pytest

import reference
from flexlib.bodies.bases import basis_of
from flexlib.bodies.basis_fe import FiniteElementBasis
from flexlib.bodies.basis_partition import PartitionBasis
from flexlib.bodies.beam import BeamModel
from flexlib.bodies.modes import cantilever_roots
from flexlib.params import BeamParams

B0 = BeamParams()
UNIT = math.sqrt(B0.E * B0.I / (B0.rho * B0.S * B0.L**4))      # rad/s
EXACT = cantilever_roots(8) ** 2 * UNIT                           # clamped-free, rad/s


def model(**kw) -> BeamModel:
    return BeamModel(BeamParams(**kw))


# ---------------------------------------------------------------- the finite-element basis
def test_one_element_matrices_are_the_textbook_ones():
    """One element, root clamped: K2 = EI/L^3 [[12, -6L], [-6L, 4L^2]] and
    M2 = rho S L/420 [[156, -22L], [-22L, 4L^2]] for (w_L, theta_L)."""
    b = BeamParams(basis="fe", elements=1, L=1.3)
    m = BeamModel(b)
    EI, rS, L = b.E * b.I, b.rho * b.S, b.L
    K = EI / L**3 * np.array([[12.0, -6.0 * L], [-6.0 * L, 4.0 * L**2]])
    M = rS * L / 420.0 * np.array([[156.0, -22.0 * L], [-22.0 * L, 4.0 * L**2]])
    np.testing.assert_allclose(m.mi.K2, K, rtol=1e-13)
    np.testing.assert_allclose(m.mi.M2, M, rtol=1e-13)
    w = m.natural_frequencies() / UNIT * L**2       # the same units for any L
    np.testing.assert_allclose(w, [3.533, 34.81], rtol=2e-4)


def test_fe_functions_are_C1_and_clamped():
    fe = FiniteElementBasis(1.0, 5)
    phi, dphi, _ = fe.shapes([0.0])
    assert np.all(phi == 0.0) and np.all(dphi == 0.0)
    nodes = np.arange(1, 5) / 5.0
    eps = 1e-9
    pl, dl, cl = fe.shapes(nodes - eps)
    pr, dr, cr = fe.shapes(nodes + eps)
    # across 2 eps, Phi differs by ~2 eps Phi' and Phi' by ~2 eps Phi'' if continuous
    curv = max(np.abs(cl).max(), np.abs(cr).max())
    np.testing.assert_allclose(pl, pr, rtol=0, atol=3 * eps * np.abs(dl).max())
    np.testing.assert_allclose(dl, dr, rtol=0, atol=3 * eps * curv)
    # the nodal coordinates are the deflection and slope at the nodes
    p, d, _ = fe.shapes(np.arange(1, 6) / 5.0)
    np.testing.assert_allclose(p, np.eye(10)[0::2], atol=1e-14)
    np.testing.assert_allclose(d, np.eye(10)[1::2], atol=1e-13)


@pytest.mark.parametrize("make", [lambda: FiniteElementBasis(1.0, 3),
                                  lambda: PartitionBasis(1.0, 3, 0.3, 3),
                                  lambda: PartitionBasis(1.0, 2, 0.3, 3, local_modes=2, rho_S=0.87,
                                                         EI=541.3)])
def test_coupling_shape_is_the_integral_of_the_slopes(make):
    """dH/dx = Phi'(x)^T Phi'(x) by central differences (away from nodes), H(0) = 0."""
    basis = make()
    xs = np.array([0.11, 0.37, 0.5, 0.77, 0.93])
    h = 1e-6
    dH = (basis.coupling(xs + h) - basis.coupling(xs - h)) / (2 * h)
    _, d, _ = basis.shapes(xs)
    ref = np.einsum("mi,mj->mij", d, d)
    np.testing.assert_allclose(dH, ref, rtol=0, atol=1e-6 * np.abs(ref).max())
    assert np.all(basis.coupling([0.0]) == 0.0)


def test_fe_frequencies_are_upper_bounds_converging_as_h4():
    """Cubic elements: the error of omega_1..omega_3 falls as h^4 (log-log slope 4 +- 0.3)."""
    ne = np.array([4, 8, 16, 32])
    err = []
    for n in ne:
        w = model(basis="fe", elements=int(n)).natural_frequencies()[:3]
        assert np.all(w > EXACT[:3])
        err.append((w - EXACT[:3]) / EXACT[:3])
    err = np.array(err)
    for i in range(3):
        slope = np.polyfit(np.log(1.0 / ne), np.log(err[:, i]), 1)[0]
        assert abs(slope - 4.0) <= 0.3, (i, slope)


def test_every_route_agrees_with_the_quadrature_reference():
    """M, Q of the compiled code against the NumPy quadrature statement (tests/reference.py) for
    a basis on each route: the element route (fe, 4 and 6 elements), the tensor route (a
    partitioned basis of 6 coordinates: 3 far modes, 3 fixed-interface modes) and the quadrature
    route (a partitioned basis of 11 coordinates)."""
    rng = np.random.default_rng(3)
    cases = ((dict(basis="fe", elements=4), "element"), (dict(basis="fe", elements=6), "element"),
             (dict(basis="partition", local_length=0.25, elements=3, local_modes=3), "tensor"),
             (dict(basis="partition", local_length=0.25, elements=4, local_modes=0), "quadrature"))
    for kw, route in cases:
        m = model(zeta=0.01, **kw)
        a = m.kernel_arrays()
        found = ("element" if a.eA.shape[0] > 0 else
                 "tensor" if a.T4r.shape[0] > 0 and a.Psi_L.shape[0] == 0 else "quadrature")
        assert found == route, (kw, found)
        for _ in range(3):
            q = np.concatenate(([rng.uniform(-1, 1)], rng.normal(size=m.n) * 5e-3))
            qd = np.concatenate(([rng.uniform(-3, 3)], rng.normal(size=m.n) * 0.2))
            M, Q = m.mass_and_forces(q, qd)
            Mr = reference.mass_matrix_quadrature(m, q)
            Qr = reference.generalized_forces_quadrature(m, q, qd)
            np.testing.assert_allclose(M, Mr, rtol=0, atol=1e-12 * np.abs(Mr).max())
            np.testing.assert_allclose(Q, Qr, rtol=0, atol=1e-11 * np.abs(Qr).max())


def test_damping_gives_every_mode_the_damping_ratio():
    """C of a basis that is not modal: each eigenmode of M2 x'' + C x' + K2 x = 0 has damping
    ratio zeta (-Re s / |s| = zeta) at its undamped frequency (|s| = omega)."""
    zeta = 0.03
    m = model(basis="fe", elements=3, zeta=zeta)
    n = m.n
    A = np.block([[np.zeros((n, n)), np.eye(n)],
                  [-np.linalg.solve(m.mi.M2, m.mi.K2), -np.linalg.solve(m.mi.M2, m.mi.C)]])
    s = np.linalg.eigvals(A)
    s = s[s.imag > 0]
    np.testing.assert_allclose(np.sort(-s.real / np.abs(s)), zeta, rtol=1e-8)
    np.testing.assert_allclose(np.sort(np.abs(s)), m.natural_frequencies(), rtol=1e-8)


# ---------------------------------------------------------------- the partitioned basis
def test_partition_functions_are_C1_at_the_interface():
    p = PartitionBasis(1.0, 3, 0.25, 4)
    a, eps = 0.75, 1e-9
    pl, dl, cl = p.shapes([a - eps])
    pr, dr, cr = p.shapes([a + eps])
    # across 2 eps, Phi differs by ~2 eps Phi' and Phi' by ~2 eps Phi'' if continuous
    curv = max(np.abs(cl).max(), np.abs(cr).max())
    np.testing.assert_allclose(pl, pr, rtol=0, atol=3 * eps * np.abs(dl).max())
    np.testing.assert_allclose(dl, dr, rtol=0, atol=3 * eps * curv)
    # the far functions vanish beyond the first local element without Craig-Bampton reduction
    phi, dphi, _ = p.shapes([a + 0.0625 + 1e-3, 0.9, 1.0])
    assert np.all(phi[:, :3] == 0.0) and np.all(dphi[:, :3] == 0.0)


def test_partition_at_local_length_zero_is_the_modal_beam():
    a = model().kernel_arrays()
    b = model(basis="partition", local_length=0.0, elements=5, local_modes=3).kernel_arrays()
    for name, x, y in zip(a._fields, a, b):
        assert x.shape == y.shape, name
        np.testing.assert_allclose(y, x, rtol=0, atol=1e-14 * max(np.abs(x).max(initial=0), 1), err_msg=name)


@pytest.mark.parametrize("k", [0, 6])
def test_partition_over_the_whole_beam_is_the_fe_beam(k):
    fe = model(basis="fe", elements=6)
    part = model(basis="partition", local_length=B0.L, elements=6, local_modes=k, n_modes=4)
    assert part.n == (12 if k == 0 else k)
    np.testing.assert_allclose(part.natural_frequencies(), fe.natural_frequencies()[:part.n],
                               rtol=1e-11)


def test_full_craig_bampton_reduction_spans_the_unreduced_basis():
    """k = 2 n_e fixed-interface modes: the same frequencies as the unreduced partition; fewer
    modes: a subspace, so every frequency is at or above (Rayleigh-Ritz), and all above the
    exact ones."""
    kw = dict(basis="partition", n_modes=3, local_length=0.3, elements=3)
    full = model(**kw).natural_frequencies()
    np.testing.assert_allclose(model(local_modes=6, **kw).natural_frequencies(), full, rtol=1e-10)
    assert np.all(full > cantilever_roots(len(full))**2 * UNIT)
    for k in (1, 3, 5):
        red = model(local_modes=k, **kw).natural_frequencies()
        assert np.all(red >= full[:len(red)] * (1 - 1e-12))
        assert np.all(red > cantilever_roots(len(red))**2 * UNIT)


def test_partition_frequencies_fall_with_more_far_modes():
    """Nested far bases (the first N modes of the far beam): omega_1 never rises with N."""
    w1 = [model(basis="partition", n_modes=n, local_length=0.2, elements=2)
          .natural_frequencies()[0] for n in (1, 2, 4, 8)]
    assert np.all(np.diff(w1) <= 1e-12 * w1[0]) and w1[-1] > EXACT[0]


def test_basis_of_names_its_basis():
    assert basis_of(BeamParams()).name == "modal"
    assert basis_of(BeamParams(basis="fe")).n == 16
    assert basis_of(BeamParams(basis="partition", local_modes=2, elements=4)).n == 5


# ---------------------------------------------------------------- parameters
@pytest.mark.parametrize("kw, words", [
    (dict(basis="fe", elements=-2), ["'elements' = -2", "[1, 256]"]),
    (dict(basis="partition", local_length=1.5), ["'local_length' = 1.5", "[0, L = 1.0] m"]),
    (dict(basis="partition", elements=3, local_modes=7), ["'local_modes' = 7", "[0, 6]"]),
    (dict(basis="fe", axial_modes=1), ["'axial_modes' = 1", "basis 'fe'", "valid range is 0"]),
    (dict(basis="beam"), ["'basis' = 'beam'", "'modal', 'fe', 'partition'"]),
])
def test_bad_basis_parameters_are_refused(kw, words):
    with pytest.raises(ValueError) as err:
        BeamParams(**kw)
    for w in words:
        assert w in str(err.value)


# ---------------------------------------------------------------- runs in every basis
RUN_BASES = {
    "modal": {},
    "fe": dict(basis="fe", elements=4),
    "partition": dict(basis="partition", n_modes=3, local_length=0.2, elements=2),
    "partition-reduced": dict(basis="partition", n_modes=3, local_length=0.2, elements=4,
                              local_modes=2),
}
TIGHT = dict(rtol=1e-10, atol=1e-12)
_FREE = {}


def free_flight(name, **kw):
    """Case 3.2 with no slope, 0-0.3 s, at tight tolerances (one run per basis and session)."""
    key = (name, tuple(sorted(kw.items())))
    if key not in _FREE:
        import flexlib as fl
        _FREE[key] = fl.simulate("3.2", "free", 0.3, **TIGHT, **kw)
    return _FREE[key]


@pytest.mark.parametrize("name", RUN_BASES)
def test_free_flight_conserves_energy_in_every_basis(name):
    r = free_flight(name, **RUN_BASES[name])
    assert np.abs(r.E - r.E0).max() <= 1e-8 * r.E0
    assert abs(r.E0 - 3.013082) < 1e-6          # m g0 (L/2) sin(theta0): the beam starts straight


def _theta_error_bound(kw, amplitude, T=0.3):
    """A bound on |theta_basis(t) - theta_exact(t)| over [0, T] from the basis's pinned-free
    frequency errors: the beam's flexible part of theta, of size ``amplitude`` [rad], is a sum of
    modes whose share falls as (omega_1 / omega_i)^2 (a load applied at release excites mode i
    in inverse proportion to its stiffness); a mode whose frequency is off by eps_i drifts in phase
    by omega_i T eps_i, so it contributes at most its share times min(2, omega_i T eps_i), and a
    mode the basis does not have contributes twice its share."""
    unit = math.sqrt(B0.E * B0.I / (B0.rho * B0.S * B0.L**4))
    # exact pinned-free roots: tan(lambda) = tanh(lambda); (4i + 1) pi / 4 to 1e-7 from i = 4
    lam = np.array([3.926602312047919, 7.068582745628732, 10.210176122813031]
                   + [(4 * i + 1) * math.pi / 4 for i in range(4, 60)])
    w_exact = lam**2 * unit
    w = BeamModel(BeamParams(**kw)).pinned_free_frequencies()[1:]
    eps = np.full(len(w_exact), np.inf)
    eps[:len(w)] = (w - w_exact[:len(w)]) / w_exact[:len(w)]
    assert np.all(eps[:len(w)] > -1e-9)                 # Rayleigh-Ritz: from above
    share = (w_exact[0] / w_exact) ** 2
    return amplitude * np.sum(share * np.minimum(2.0, w_exact * T * eps))


@pytest.mark.parametrize("kw", [dict(basis="fe", elements=4),
                                pytest.param(dict(basis="fe", elements=8), marks=pytest.mark.slow),
                                dict(basis="partition", n_modes=3, local_length=0.2, elements=4,
                                     local_modes=2)],
                         ids=["fe4", "fe8", "partition-reduced"])
def test_free_flight_theta_agrees_with_the_modal_beam(kw):
    """theta(t) of a basis against the modal beam with N = 8 (the reference), 0-0.3 s, within the
    sum of both bases' bounds of :func:`_theta_error_bound`; the flexible part of theta is measured
    as the modal beam's distance from the rigid pendulum theta'' = -(3 g / 2 L) cos(theta)."""
    from scipy.integrate import solve_ivp
    ts = np.linspace(0.0, 0.3, 301)
    ref = free_flight("modal8", n_modes=8).sample(ts, "theta")
    rigid = solve_ivp(lambda t, y: [y[1], -1.5 * B0.g0 / B0.L * math.cos(y[0])], (0, 0.3),
                      [B0.theta0, 0.0], rtol=1e-12, atol=1e-13, dense_output=True).sol(ts)[0]
    amplitude = np.abs(ref - rigid).max()
    assert 1e-5 < amplitude < 2e-3 * abs(rigid[-1] - rigid[0])      # the beam bends, a little
    tol = _theta_error_bound(kw, amplitude) + _theta_error_bound(dict(n_modes=8), amplitude)
    th = free_flight(str(kw), **kw).sample(ts, "theta")
    assert np.abs(th - ref).max() <= tol
    assert tol < 0.5 * amplitude or kw["basis"] == "partition"     # a bound that means something


def test_partition_at_local_length_zero_runs_as_the_modal_beam():
    import flexlib as fl
    a = fl.simulate("3.2", "hybrid_coulomb", 0.36)
    b = fl.simulate("3.2", "hybrid_coulomb", 0.36, basis="partition", local_length=0.0)
    assert len(a.impacts) == len(b.impacts) >= 1
    for key in ("theta", "theta_dot", "tip_Y", "tip_deflection", "E", "N"):
        x, y = np.asarray(a.h[key]), np.asarray(b.h[key])
        assert x.shape == y.shape, key
        assert np.nanmax(np.abs(x - y)) <= 1e-12 * max(np.nanmax(np.abs(x)), 1e-300), key


@pytest.mark.parametrize("model, extra", [("hybrid_coulomb", {}),
                                          ("continuous_coulomb", dict(e=0.5))])
@pytest.mark.parametrize("name", [n for n in RUN_BASES if n != "modal"])
def test_energy_audit_closes_through_the_first_impact(name, model, extra):
    """Case 3.2, 0-0.36 s (first contact at ~0.333 s): the audit E(t) + dissipated work - E0
    stays within 1e-6 E0 in every basis, for the constraint method and the continuous one."""
    import flexlib as fl
    r = fl.simulate("3.2", model, 0.36, **RUN_BASES[name], **extra)
    assert r.success and len(r.impacts) >= 1
    assert 0.330 < r.impacts[0]["t_start"] < 0.336
    assert r.audit_residual_max <= 1e-6 * r.E0


@pytest.mark.parametrize("name", RUN_BASES)
def test_material_points_tip_and_energies_in_every_basis(name):
    """At a random state: the material point at x = L is the tip of the compiled kinematics;
    V_G = rho S g0 int Y(x) dx and V_E = 1/2 int EI (u_y'')^2 dx by an independent Gauss rule of
    200 points per element-sized piece over the material points and the basis's curvature."""
    from flexlib.bodies.basis_fe import gauss_rule
    from flexlib.bodies.beam import sample_kinematics
    m = model(**RUN_BASES[name])
    rng = np.random.default_rng(7)
    q = np.concatenate(([0.6], rng.normal(size=m.n) * 2e-3))
    qd = np.concatenate(([-1.0], rng.normal(size=m.n) * 0.1))
    out = sample_kinematics(np.concatenate((q, qd))[None, :], m.kernel_params(), m.kernel_arrays())
    tip = m.positions(q, m.station_data(np.array([B0.L])))[0]
    np.testing.assert_allclose(tip, out[:2, 0], rtol=0, atol=1e-15)
    pieces = np.linspace(0.0, B0.L, 41)          # 0.025 m: every element and the interface lie on it
    xs, ws = np.concatenate([gauss_rule(a, b, 12) for a, b in zip(pieces[:-1], pieces[1:])], axis=1)
    Y = m.positions(q, m.station_data(xs))[:, 1]
    V_G = B0.rho * B0.S * B0.g0 * ws @ Y
    curv = m.basis.shapes(xs)[2] @ q[1:]
    V_E = 0.5 * B0.E * B0.I * ws @ curv**2
    assert out[7, 0] == pytest.approx(V_G, rel=1e-12)
    assert out[5, 0] == pytest.approx(V_E, rel=1e-12)
