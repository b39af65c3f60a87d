"""Checks of the element route of M(q) and Q(q, q') (flexlib.bodies.beam.mass_forces_elem_into).

The finite-element bases (root- and centre-clamped) evaluate M and Q by prefix sums over their
elements.  Expected values come from independent computations: the NumPy quadrature statement of
tests/reference.py and the compiled quadrature route (the same sums taken node by node with the
dense coupling shapes), Lagrange's equations with M alone (the velocity terms of Q are
-M' q' + 1/2 d(q'^T M q')/dq, by finite differences of M) and the potential energy (the
gravity and elastic terms of Q are -dV/dq), and whole runs of the falling beam repeated with
every body forced onto the quadrature route.
"""
import math

import numpy as np
import pytest

import reference
from flexlib.bodies.beam import BeamModel, mass_forces_quad, mean_motion, potential_energies
from flexlib.cases import falling_beam
from flexlib.multibody.simulate import SystemSimulator
from flexlib.params import BeamParams, SolverSettings

ROOT = (1, 2, 5, 8)          # elements of the root-clamped basis
CENTRE = (2, 4, 8, 16)       # of the centre-clamped one (an even number: a node at the centre)
CASES = [("root", n) for n in ROOT] + [("centre", n) for n in CENTRE]


def beam(clamp, elements, foreshortening=True, zeta=0.01, **kw):
    return BeamModel(BeamParams(basis="fe", elements=elements, zeta=zeta,
                                foreshortening=foreshortening, **kw), clamp)


def state(m, rng, scale=5e-2):
    q = np.concatenate(([rng.uniform(-math.pi, math.pi)], rng.normal(size=m.n) * scale))
    qd = np.concatenate(([rng.uniform(-5, 5)], rng.normal(size=m.n) * 0.5))
    return q, qd


def dense_H(m):
    """H(x_k) at the quadrature nodes, (K, N*N), from the basis's own coupling shape: what the
    quadrature route reads (a model on the element route keeps H only by element)."""
    mi = m.mi
    return np.ascontiguousarray(mi.basis.coupling(mi.x).reshape(len(mi.x), -1))


def quadrature(m, q, qd):
    """M, Q by the compiled quadrature route on the same model."""
    a = m.kernel_arrays()
    return mass_forces_quad(q, qd, m.kernel_params(0.3), m.n, a.K2, a.C, a.xk, a.wk, a.Phik,
                            dense_H(m), a.Psik, a.KA)


@pytest.mark.parametrize("clamp, elements", CASES)
@pytest.mark.parametrize("foreshortening", [True, False])
def test_element_route_equals_the_quadrature_route(clamp, elements, foreshortening):
    """At random states (nonzero theta', a drive torque, damping) M and Q agree with the
    compiled quadrature route and with the NumPy reference to round-off."""
    m = beam(clamp, elements, foreshortening)
    assert m.kernel_arrays().eA.shape[0] == elements            # the element route is taken
    rng = np.random.default_rng(elements + 100 * foreshortening)
    for _ in range(4):
        q, qd = state(m, rng)
        M, Q = m.mass_and_forces(q, qd, tau_d=0.3)
        Mq, Qq = quadrature(m, q, qd)
        Mr = reference.mass_matrix_quadrature(m, q)
        Qr = reference.generalized_forces_quadrature(m, q, qd, tau_d=0.3)
        for ref in (Mq, Mr):
            np.testing.assert_allclose(M, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
        for ref in (Qq, Qr):
            np.testing.assert_allclose(Q, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
        # the velocity terms alone, Q(q, q') - Q(q, 0) (the elastic force dominates Q: the
        # difference is exact to round-off of Q's largest terms, not of its own)
        dQ = Q - m.mass_and_forces(q, np.zeros_like(qd), tau_d=0.3)[1]
        dQr = Qr - reference.generalized_forces_quadrature(m, q, np.zeros_like(qd), tau_d=0.3)
        np.testing.assert_allclose(dQ, dQr, rtol=0, atol=1e-12 * np.abs(Qr).max())
        assert np.abs(dQr).max() > 1e-6 * np.abs(Qr).max()      # and they are not negligible


@pytest.mark.parametrize("clamp, elements", [("root", 3), ("centre", 4)])
def test_velocity_terms_follow_from_the_mass_matrix(clamp, elements):
    """Lagrange's equations with T = 1/2 q'^T M(q) q': without damping, Q(q, q') - Q(q, 0) =
    -M'(q; q') q' + 1/2 d(q'^T M q')/dq, both by central differences of M alone."""
    m = beam(clamp, elements, zeta=0.0)
    rng = np.random.default_rng(7)
    q, qd = state(m, rng, scale=0.1)
    h = 1e-6
    dMdt = (m.mass_matrix(q + h * qd) - m.mass_matrix(q - h * qd)) / (2 * h)
    dT = np.empty(m.ndof)
    for i in range(m.ndof):
        e = np.zeros(m.ndof)
        e[i] = h
        dT[i] = 0.5 * (qd @ m.mass_matrix(q + e) @ qd - qd @ m.mass_matrix(q - e) @ qd) / (2 * h)
    expected = -dMdt @ qd + dT
    got = m.generalized_forces(q, qd) - m.generalized_forces(q, np.zeros_like(qd))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-7 * np.abs(expected).max())


@pytest.mark.parametrize("clamp, elements", [("root", 3), ("centre", 4)])
def test_static_forces_are_minus_the_gradient_of_the_potential(clamp, elements):
    """Q(q, 0) with no drive = -d(V_E + V_G)/dq (finite differences of the potential energies)."""
    m = beam(clamp, elements, zeta=0.0)
    rng = np.random.default_rng(11)
    q, _ = state(m, rng, scale=0.1)
    par, a = m.kernel_params(0.0), m.kernel_arrays()
    V = lambda x: sum(potential_energies(x, par, a, len(x), len(x)))
    h = 1e-6
    grad = np.array([(V(q + h * e) - V(q - h * e)) / (2 * h) for e in np.eye(m.ndof)])
    Q = m.generalized_forces(q, np.zeros(m.ndof), tau_d=0.0)
    np.testing.assert_allclose(Q, -grad, rtol=0, atol=1e-6 * np.abs(grad).max())


def _smooth_state(m, elements):
    """A bent beam: nodal deflections of millimetres and their slopes, at rest."""
    x = np.arange(1, elements + 1) / elements
    B = np.empty(2 * elements)
    B[0::2] = 1e-3 * np.sin(np.pi * x / 2) + 2e-3 * x**2
    B[1::2] = 1e-3 * np.pi / 2 * np.cos(np.pi * x / 2) + 4e-3 * x
    return np.concatenate(([0.3], B)), np.zeros(2 * elements + 1)


@pytest.mark.parametrize("elements", [64, pytest.param(256, marks=pytest.mark.slow)])  # 256: ~40 s
def test_the_elastic_force_has_the_round_off_of_the_slopes_not_of_the_displacements(elements):
    """Perturbed by 1e-15 of itself, a bent fine mesh's Q changes by K2 times the perturbation
    (the forces are linear in it at this size) plus round-off.  The product K2 B, written here
    with NumPy, sums terms 12 EI w / h^3 that cancel, so its round-off grows like h^-3 (1e-8 N at
    256 elements per metre); the element route's must stay below a thousandth of it."""
    from flexlib.bodies.beam import mass_forces_elem
    m = beam("root", elements, zeta=0.0)
    a, par = m.kernel_arrays(), m.kernel_params(0.0)
    q, qd = _smooth_state(m, elements)
    rng = np.random.default_rng(elements)
    ours, product = [], []
    for _ in range(5):
        q2 = q.copy()
        q2[1:] *= 1.0 + 1e-15 * rng.standard_normal(m.n)
        lin = a.K2 @ (q2[1:] - q[1:])
        Q1, Q2 = mass_forces_elem(q, qd, par, a)[1], mass_forces_elem(q2, qd, par, a)[1]
        ours.append(np.sqrt(np.mean((Q2[1:] - Q1[1:] + lin) ** 2)))
        product.append(np.sqrt(np.mean((a.K2 @ q2[1:] - a.K2 @ q[1:] - lin) ** 2)))
    assert np.median(product) > 1e-11                 # the cancellation is there to be avoided
    assert np.median(ours) < 1e-3 * np.median(product)


def test_elements_that_do_not_assemble_to_the_stiffness_are_refused():
    """The element route's elastic force is built from the Hermite element stiffness; a basis
    whose stiffness K2 it does not reproduce is refused when its data are built."""
    from flexlib.bodies.modes import element_integrals
    m = beam("root", 4)
    with pytest.raises(ValueError, match="do not assemble to K2|does not assemble to K2"):
        element_integrals(m.mi.basis, m.mi.rhoS, m.mi.EI, 1.01 * m.mi.K2)


@pytest.mark.parametrize("clamp, elements", [("root", 5), ("centre", 8)])
def test_mean_motion_by_elements_equals_the_quadrature_route(clamp, elements):
    """The centre of mass, its velocity and the mean angular velocity at random deformed,
    moving states: summed element by element (prefix sums of B^T A B, linear in the mesh) they
    are the sums over the nodes with the dense H(x_k) (the quadrature route), to round-off."""
    m = beam(clamp, elements)
    a = m.kernel_arrays()
    assert a.eA.shape[0] == elements and a.Hk.shape[0] == 0      # the element route, no dense H
    dense = a._replace(eA=a.eA[:0], Hk=dense_H(m))
    rng = np.random.default_rng(3 + elements)
    Q = np.array([state(m, rng, scale=0.05)[0] for _ in range(5)])
    Qd = np.array([state(m, rng)[1] for _ in range(5)])
    R, Rd = rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    got = mean_motion(Q, Qd, R, Rd, a)
    ref = mean_motion(Q, Qd, R, Rd, dense)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12 * np.abs(ref).max())
    # the deformation matters: the undeformed beam's values differ
    flat = mean_motion(Q * np.r_[1.0, np.zeros(m.n)], Qd, R, Rd, a)
    assert np.abs(flat - got).max() > 1e-6


def _falling_run(elements, quadrature_route, t_end=0.16):
    """The falling beam (continuous contact, theta0 = 0.1 rad) over 0-``t_end`` s: (its result,
    v_cm and omega_mean at ``t_end``)."""
    system = falling_beam.system("continuous", beam=BeamParams(basis="fe", elements=elements),
                                 theta0=0.1)
    sim = SystemSimulator(system, t_end)
    if quadrature_route:            # the same model with the element data (and tensors) removed
        Hk = dense_H(beam("centre", elements))
        bodies = tuple(b._replace(edof=b.edof[:0], estart=b.estart[:0], etail=b.etail[:0],
                                  eA=b.eA[:0], ew=b.ew[:0], ex=b.ex[:0], eN=b.eN[:0], eP=b.eP[:0],
                                  T3r=b.T3r[:0], T3tr=b.T3tr[:0], T4r=b.T4r[:0], T4pr=b.T4pr[:0],
                                  Hk=Hk)
                       for b in sim.S.bodies)
        sim.S = sim.S._replace(bodies=bodies)
    res = sim.run()
    mm = res.mean_motion(res.sample([t_end]))
    return res, mm["beam.v_cm"][0], mm["beam.omega_mean"][0]


@pytest.mark.parametrize("elements", [4, 8])
def test_falling_beam_runs_as_on_the_quadrature_route(elements):
    """Whole runs on both routes.  In free flight (0-0.12 s, before the end x = 0 lands at
    ~0.14 s) the centre of mass's velocity and the mean angular velocity agree to round-off.
    Through the landing (0-0.16 s: ten contact episodes of a stiff penalty contact) the
    round-off moves the step sequence (the runs take different numbers of steps), and the
    landing impulse and the motion at 0.16 s agree to the integrator's relative tolerance
    rtol = 1e-8 (each run is accurate to it; measured: a few 1e-9)."""
    for t_end, tol in ((0.12, 1e-12), (0.16, SolverSettings().rtol)):
        res, v, om = _falling_run(elements, False, t_end)
        resq, vq, omq = _falling_run(elements, True, t_end)
        assert abs(v[1] - vq[1]) <= tol * abs(vq[1]), (t_end, v, vq)
        assert abs(v[0] - vq[0]) <= tol * abs(vq[1]), (t_end, v, vq)      # v_x ~ 0: against |v_y|
        # omega_mean = 0 in free flight (gravity exerts no torque): against |v_y| / L, L = 1 m
        assert abs(om - omq) <= tol * max(abs(omq), abs(vq[1]) / 1.0), (t_end, om, omq)
    assert len(res.impacts) == len(resq.impacts) >= 2
    imp, impq = res.impacts[0]["normal_impulse"], resq.impacts[0]["normal_impulse"]
    assert abs(imp - impq) <= tol * impq, (imp, impq)


@pytest.mark.parametrize("name, kw", [("falling-beam", dict(basis="fe", elements=8, theta0=0.1)),
                                      ("double-pendulum", dict(basis="fe", elements=8)),
                                      ("falling-beam", dict(theta0=0.1))])
def test_points_use_the_band_of_their_foreshortening_matrix(name, kw):
    """A material point's H(x) B is summed over H's band only (``SystemArrays.pband``): the band
    holds every nonzero of H(x) and is tight (a nonzero on its edge), and the right-hand side and
    outputs are the same bits as with the band widened to the whole matrix."""
    from flexlib.cases import build
    from flexlib.multibody import kernel as K
    system, _ = build(name, "continuous", **kw)
    S = system.arrays()
    h0 = 1 + S.nmax
    for k in range(S.pflt.shape[0]):            # the contact points and the joints' points
        n = int(S.bint[S.pint[k], 6])
        H = S.pflt[k, h0:h0 + n * n].reshape(n, n)
        i, j = np.nonzero(H)
        assert np.all(np.abs(i - j) <= S.pband[k]) and np.any(np.abs(i - j) == S.pband[k])
    if kw.get("basis") == "fe":
        assert np.all(S.pband < S.nmax - 1)        # banded: the point of it
    rng = np.random.default_rng(3)
    y = system.initial_state().copy()
    y[:2 * S.nq] += 1e-2 * rng.standard_normal(2 * S.nq)
    par = np.zeros(4 * len(system.contacts))
    dy, out = K.phase_eval(0.0, y, par, S)
    dy_full, out_full = K.phase_eval(0.0, y, par, S._replace(pband=np.full_like(S.pband, S.nmax)))
    assert np.array_equal(dy, dy_full) and np.array_equal(out, out_full)
