"""Tests of the multibody systems (flexlib.multibody, flexlib.cases): the assembled equations
against the single hinged beam, finite differences and Lagrange's equations; conservation in free
motion; the rigid limits against the textbook references of tests/reference_multibody.py
(written without flexlib); the convergence of the flexible double pendulum's first impact in the
number of modes; the energy books of every contact model; and the checks of bad input.

The rigid references: Lagrange's equations of two uniform rods with a Hertz stop (Johnson,
*Contact Mechanics*), and the event-driven rigid rod with Newton's impact law at several points
(Pfeiffer and Glocker, *Multibody Dynamics with Unilateral Contacts*)."""
import itertools
import math
from dataclasses import replace

import numpy as np
import pytest

import reference_multibody as ref
from flexlib.bodies.beam import BeamModel
from flexlib.cases import build, simulate
from flexlib.multibody import (MODELS, Body, ContactPoint, FreeJoint, GroundHinge, HalfPlane,
                               System, SystemSimulationError, SystemSimulator, laws_for)
from flexlib.multibody import kernel as K
from flexlib.multibody.assembly import contact_rows_into, mass_forces_into
from flexlib.multibody.kernel import work_arrays
from flexlib.params import BeamParams, SolverSettings

G0 = 9.81


# ====================================================================== helpers
class Evaluator:
    """M, Q and the rows of every contact point of ``system`` at (q, q') by the assembly code."""

    def __init__(self, system):
        self.system = system
        self.S = system.arrays()
        self.ws = work_arrays(self.S)[0]
        self.nq = self.S.nq

    def mass_forces(self, q, qd):
        M = np.zeros((self.nq, self.nq))
        Q = np.zeros(self.nq)
        mass_forces_into(np.array(q, float), np.array(qd, float), self.S, self.ws, M, Q, True)
        return M, Q

    def contact(self, c, q, qd):
        """(Wn, Wt, (gap, v_n, v_t, s, a_n, a_t)) of contact point ``c``."""
        q, qd = np.array(q, float), np.array(qd, float)
        self.mass_forces(q, qd)                      # the velocity transformation for (q, q')
        Wn = np.zeros(self.nq)
        Wt = np.zeros(self.nq)
        out = contact_rows_into(c, q, qd, self.S, self.ws, Wn, Wt)
        return Wn, Wt, np.array(out)


def pendulum_with_point_on_b2(**params):
    """The flexible double pendulum with a second contact point C on the lower link B2 against an
    oblique wall (normal (0.6, 0.8)), so that both components of n and t are exercised."""
    system, solver = build("double-pendulum", model="frictionless", **params)
    laws = system.contacts[0].laws
    wall = HalfPlane("wall", (0.3, -0.2), (0.6, 0.8))
    system = replace(system, obstacles=system.obstacles + (wall,),
                     contacts=system.contacts + (ContactPoint("C", "B2", 0.35, "wall", laws),))
    return system, solver


def random_state(system, rng, defl=0.02):
    names, offs = system.coordinates()
    q = rng.normal(size=len(names)) * defl
    qd = rng.normal(size=len(names))
    for (ir, ith, nf) in offs:
        q[ith] = rng.uniform(-math.pi, math.pi)
    return q, qd


def point_states(system, seed, n=2):
    """(contact index, q, q') for ``n`` random states and every contact point."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        q, qd = random_state(system, rng)
        for c in range(len(system.contacts)):
            yield c, q, qd


# ====================================================================== 1. single body
@pytest.mark.parametrize("beam", [BeamParams(n_modes=3), BeamParams(n_modes=3, axial_modes=1),
                                  BeamParams(basis="fe", elements=4)],
                         ids=["modal", "modal+axial", "fe"])
def test_single_ground_hinged_body_is_the_hinged_beam(beam):
    """A system of one body on a ground hinge at the origin has the hinged beam's M and Q,
    bit for bit (the velocity transformation of a ground hinge is the identity)."""
    system = System(bodies=(Body("b", beam, GroundHinge((0.0, 0.0))),))
    ev = Evaluator(system)
    model = BeamModel(beam)
    assert ev.nq == model.ndof
    rng = np.random.default_rng(11)
    for _ in range(4):
        q, qd = random_state(system, rng, defl=0.05)
        M, Q = ev.mass_forces(q, qd)
        M0, Q0 = model.mass_and_forces(q, qd, tau_d=0.0)
        assert np.array_equal(M, M0)
        assert np.array_equal(Q, Q0)


# ====================================================================== 2. finite differences
@pytest.fixture(scope="module")
def flexible_pendulum():
    system, _ = pendulum_with_point_on_b2(n_modes=3, axial_modes=1)
    return system, Evaluator(system)


def test_contact_rows_are_the_gradients_of_gap_and_tangential_position(flexible_pendulum):
    """W_n = d(gap)/dq and W_t = d(s)/dq by central differences (h = 1e-6; measured agreement
    1e-10 on rows of size 2-4) at B (on B1) and at C (on B2, oblique wall); v_n = W_n q',
    v_t = W_t q'."""
    system, ev = flexible_pendulum
    h = 1e-6
    for c, q, qd in point_states(system, seed=5):
        Wn, Wt, out = ev.contact(c, q, qd)
        gn = np.zeros(ev.nq)
        gs = np.zeros(ev.nq)
        for j in range(ev.nq):
            e = np.zeros(ev.nq)
            e[j] = h
            op = ev.contact(c, q + e, qd)[2]
            om = ev.contact(c, q - e, qd)[2]
            gn[j] = (op[0] - om[0]) / (2 * h)
            gs[j] = (op[3] - om[3]) / (2 * h)
        assert np.abs(gn - Wn).max() <= 1e-8 * max(1.0, np.abs(Wn).max())
        assert np.abs(gs - Wt).max() <= 1e-8 * max(1.0, np.abs(Wt).max())
        assert out[1] == pytest.approx(Wn @ qd, abs=1e-13)
        assert out[2] == pytest.approx(Wt @ qd, abs=1e-13)


def test_velocity_products_are_the_rate_of_the_rows(flexible_pendulum):
    """a_n = (d/dt W_n(q + t q')) q' and a_t likewise (central differences along q', h = 1e-5;
    measured agreement 2e-9 relative)."""
    system, ev = flexible_pendulum
    h = 1e-5
    for c, q, qd in point_states(system, seed=6):
        out = ev.contact(c, q, qd)[2]
        Wnp, Wtp, _ = ev.contact(c, q + h * qd, qd)
        Wnm, Wtm, _ = ev.contact(c, q - h * qd, qd)
        assert out[4] == pytest.approx((Wnp - Wnm) @ qd / (2 * h), rel=1e-7, abs=1e-8)
        assert out[5] == pytest.approx((Wtp - Wtm) @ qd / (2 * h), rel=1e-7, abs=1e-8)


def test_contact_point_on_the_lower_link_is_the_composed_beam_position(flexible_pendulum):
    """The gap of C is n . (r_C - o) with r_C = (tip of B1) + (point 0.35 m of B2), each from
    the single beam's material-point positions (flexlib.bodies.beam.BeamModel.positions)."""
    system, ev = flexible_pendulum
    names, offs = system.coordinates()
    m1, m2 = system.model("B1"), system.model("B2")
    rng = np.random.default_rng(7)
    for _ in range(3):
        q, qd = random_state(system, rng)
        (_, i1, n1), (_, i2, n2) = offs
        tip = m1.positions(q[i1:i1 + 1 + n1], m1.station_data([1.0]))[0]
        rC = tip + m2.positions(q[i2:i2 + 1 + n2], m2.station_data([0.35]))[0]
        n = np.array([0.6, 0.8])
        t = np.array([n[1], -n[0]])
        out = ev.contact(1, q, qd)[2]
        assert out[0] == pytest.approx(n @ (rC - (0.3, -0.2)), abs=1e-14)
        assert out[3] == pytest.approx(t @ (rC - (0.3, -0.2)), abs=1e-14)


def test_mass_matrix_symmetric_positive_definite_and_q_obeys_lagrange(flexible_pendulum):
    """M is symmetric (to rounding) positive definite; Q's velocity terms are Lagrange's -M' q' + dT/dq from
    central differences of M (Christoffel symbols), and Q(q, 0) = -dV/dq with V = V_E + V_G the
    potential the simulator reports (measured agreement 5e-10 on terms of size 80, and
    4e-6 on elastic forces of size 2e6)."""
    system, ev = flexible_pendulum
    sim = SystemSimulator(system, 1.0, SolverSettings())
    rng = np.random.default_rng(8)
    h = 1e-6
    nq = ev.nq

    def V(q):
        y = np.zeros(2 * nq + 3 * len(system.contacts) + 1)
        y[:nq] = q
        out = sim.evaluate(0.0, y, np.zeros(4 * len(system.contacts)))[1]
        return out[K.O_VE] + out[K.O_VG]

    for _ in range(2):
        q, qd = random_state(system, rng)
        M, Q = ev.mass_forces(q, qd)
        assert np.abs(M - M.T).max() <= 1e-15 * np.abs(M).max()    # C^T M_b C in rounding
        assert np.linalg.eigvalsh(M).min() > 0.0
        _, Q0 = ev.mass_forces(q, np.zeros(nq))
        dM = np.array([(ev.mass_forces(q + h * e, qd)[0] - ev.mass_forces(q - h * e, qd)[0]) / (2 * h)
                       for e in np.eye(nq)])
        Qv = -np.einsum("jab,j,b->a", dM, qd, qd) + 0.5 * np.einsum("jab,a,b->j", dM, qd, qd)
        assert np.abs((Q - Q0) - Qv).max() <= 1e-8 * max(1.0, np.abs(Q - Q0).max())
        gV = np.array([(V(q + h * e) - V(q - h * e)) / (2 * h) for e in np.eye(nq)])
        assert np.abs(Q0 + gV).max() <= 1e-10 * np.abs(gV).max()


def test_rigid_pendulum_equations_are_the_textbook_ones():
    """With no deformation coordinates, M and Q (gravity and velocity terms) are those of two
    uniform rods by Lagrange's equations (reference_multibody)."""
    system, _ = build("double-pendulum", model="free", n_modes=0)
    ev = Evaluator(system)
    p = ref.double_pendulum_case()
    rng = np.random.default_rng(9)
    for _ in range(5):
        th = rng.uniform(-math.pi, math.pi, 2)
        om = rng.uniform(-5, 5, 2)
        M, Q = ev.mass_forces(th, om)
        np.testing.assert_allclose(M, ref.double_pendulum_mass_matrix(p, *th), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(Q, ref.double_pendulum_forces(p, *th, *om), rtol=1e-12, atol=1e-12)


# ====================================================================== 3. free motion
def _energy_drift(case, t_end, **params):
    r = simulate(case, model="free", t_end=t_end, **params)
    h = r.history(np.linspace(0.0, t_end, 201))
    scale = max(abs(h["E"][0]), np.abs(h["T"]).max())
    return np.abs(h["E"] - h["E"][0]).max() / scale


def test_free_flexible_pendulum_conserves_energy_over_one_second():
    """The flexible double pendulum (N = 3) swinging freely for 1 s at rtol 1e-11 keeps
    E = T + V_E + V_G to 1e-8 of its scale (measured 1.3e-13 J on a scale of 9.45 J; ~4 s)."""
    assert _energy_drift("double-pendulum", 1.0, n_modes=3, rtol=1e-11, atol=1e-12) <= 1e-8


def test_free_flexible_beam_centre_of_mass_falls_at_g_and_keeps_its_angular_momentum():
    """A spinning, translating free beam (N = 3, axial mode on) in flight: its centre of mass
    (by quadrature of the material points' positions) follows the parabola of its initial
    velocity under g, and its angular momentum about the centre of mass (point velocities by
    differences of the interpolant) stays m L^2/12 theta'0, while the beam deforms."""
    L, th0, om0 = 1.0, 0.3, 6.0
    R0, V0 = np.array([0.0, 1.0]), np.array([0.5, 2.0])
    beam = BeamParams(L=L, n_modes=3, axial_modes=1)
    system = System(bodies=(Body("beam", beam, FreeJoint(), theta0=th0, theta_dot0=om0,
                                 origin=tuple(R0), origin_rate=tuple(V0)),))
    t_end = 0.3
    res = SystemSimulator(system, t_end, SolverSettings(rtol=1e-11, atol=1e-12)).run()
    m = BeamModel(beam).mi.m
    axis = np.array([math.cos(th0), math.sin(th0)])
    c0 = R0 + 0.5 * L * axis
    v0 = V0 + om0 * 0.5 * L * np.array([-axis[1], axis[0]])
    xg, wg = np.polynomial.legendre.leggauss(40)
    xs, ws = 0.5 * L * (xg + 1.0), 0.5 * wg            # weights sum to 1 (uniform rho S)
    ts = np.linspace(0.01, t_end - 0.01, 15)
    dt = 1e-6
    P = res.points("beam", xs, res.sample(ts))
    Pp = res.points("beam", xs, res.sample(ts + dt))
    Pm = res.points("beam", xs, res.sample(ts - dt))
    com = np.einsum("kpi,p->ki", P, ws)
    expect = c0 + np.outer(ts, v0) - 0.5 * G0 * np.outer(ts ** 2, [0.0, 1.0])
    np.testing.assert_allclose(com, expect, rtol=0, atol=1e-12)
    V = (Pp - Pm) / (2 * dt)
    vc = np.einsum("kpi,p->ki", V, ws)
    rel, vrel = P - com[:, None], V - vc[:, None]
    H = m * np.einsum("kp,p->k", rel[..., 0] * vrel[..., 1] - rel[..., 1] * vrel[..., 0], ws)
    np.testing.assert_allclose(H, m * L ** 2 / 12.0 * om0, rtol=1e-7)
    # the beam did deform (it only stretches: a free beam spinning rigidly is a solution; measured
    # 8.4e-8 with the frame at the centre's tangent, above 1e-7 with the frame at the end)
    assert np.abs(res.history(ts)["beam.q"]).max() > 1e-8


# ====================================================================== 4. rigid double pendulum
@pytest.mark.parametrize("contact", [False, True], ids=["free", "hertz-stop"])
def test_rigid_double_pendulum_follows_the_reference(contact):
    """n_modes = 0 against Lagrange's equations of two rods (with the same Hertz stop K): angles
    to 1e-8 rad over 1 s (measured 5e-12 free, 2e-11 with the stop), contact intervals to
    1e-10 s (measured 1e-14)."""
    run = ref.simulate_double_pendulum(1.0, contact=contact, rtol=1e-12, atol=1e-13)
    r = simulate("double-pendulum", model="continuous" if contact else "free", t_end=1.0,
                 n_modes=0, rtol=1e-12, atol=1e-13)
    h = r.history(run.t)
    assert np.abs(h["B1.theta"] - run.th1).max() <= 1e-8
    assert np.abs(h["B2.theta"] - run.th2).max() <= 1e-8
    if contact:
        assert len(run.contacts) == 2 and len(r.impacts) == 2
        for (t_on, t_off), im in zip(run.contacts, r.impacts):
            assert im["t_start"] == pytest.approx(t_on, abs=1e-10)
            assert im["t_end"] == pytest.approx(t_off, abs=1e-10)


def test_rigid_double_pendulum_peak_stop_force_is_the_reference():
    """The first impact's peak Hertz force (both sampled at 1e-7 s through the impact; measured
    37766.5 N in both, agreeing to 1e-9): the reference restarted 1 ms before the impact."""
    base = ref.simulate_double_pendulum(0.607, contact=True, rtol=1e-12, atol=1e-13)
    k = int(np.searchsorted(base.t, 0.606))
    t0 = base.t[k]
    y0 = (base.th1[k], base.th2[k], base.om1[k], base.om2[k])
    run = ref.simulate_double_pendulum(1.5e-3, contact=True, rtol=1e-12, atol=1e-13, y0=y0,
                                       dt_out=1e-7)
    peak_ref = run.N.max()
    r = simulate("double-pendulum", model="continuous", t_end=0.61, n_modes=0, rtol=1e-12,
                 atol=1e-13)
    im = r.impacts[0]
    h = r.history(np.arange(im["t_start"], im["t_end"], 1e-7))
    assert t0 + run.contacts[0][0] == pytest.approx(im["t_start"], abs=1e-10)
    assert h["B.N"].max() == pytest.approx(peak_ref, rel=1e-6)
    # the impact's own peak, sampled at the steps and their interior points
    assert im["peak_normal_force"] == pytest.approx(peak_ref, rel=1e-2)


# ====================================================================== 6. falling rigid beam
ROD = ref.falling_rod_case()
# A free point is taken to land when it is the re-contact tolerance DELTA below its obstacle; the
# Baumgarte constraint (beta = 1000 1/s, chi = 10 1/s) then lifts it back with speeds up to about
# beta DELTA and a force up to about m beta^2 DELTA on top of the weight.
DELTA, BETA = 1e-12, 1000.0
REST_SPEED = 2.0 * BETA * DELTA
REST_FORCE = 2.0 * ROD.m * BETA ** 2 * DELTA


def _rigid_drop(e=0.0, **params):
    return simulate("falling-beam", model="frictionless", n_modes=0, h0=0.1, e=e, **params)


def test_flat_rigid_drop_lands_on_both_ends_and_rests():
    """Flat, e = 0: both ends land at sqrt(2 h0/g) with m v-/2 each, then rest on both.  A
    free point is taken to land when it is the re-contact tolerance delta (1e-12 m) below its
    obstacle, so the drop is h0 + delta."""
    r = _rigid_drop(t_end=0.3)
    t_land = math.sqrt(2 * (0.1 + 1e-12) / G0)
    (j,) = r.log.jumps
    assert j.t == pytest.approx(t_land, abs=1e-12)
    assert j.points == ["P1", "P2"]
    np.testing.assert_allclose(j.impulses, 0.5 * ROD.m * G0 * t_land, rtol=1e-12)
    h = r.history([0.2, 0.3])
    # at rest up to the Baumgarte recovery of the landing depth delta: speeds ~ beta delta
    assert np.abs(h["beam.R_dot"]).max() <= REST_SPEED
    assert np.abs(h["beam.theta_dot"]).max() <= REST_SPEED / ROD.L
    np.testing.assert_allclose(h["P1.N"] + h["P2.N"], ROD.m * G0, rtol=0, atol=REST_FORCE)


@pytest.mark.parametrize("model", ["hybrid_coulomb", "hybrid_lugre"])
def test_flat_rigid_drop_with_friction_rests_without_chattering(model):
    """Flat, e = 0, with stick/slip friction: the same single two-point jump, then both ends
    stick (a redundant pair of tangential constraints) with no friction force and no further
    event: N1 + N2 = mg, F_t = 0, the rod at rest.  (Before, one end was made to "slip" at rest,
    held at its friction limit by the other, and the rod chattered: 162 jumps in 0.4 s.)"""
    r = simulate("falling-beam", model=model, n_modes=0, h0=0.1, t_end=0.4)
    (j,) = r.log.jumps
    assert j.t == pytest.approx(math.sqrt(2 * (0.1 + DELTA) / G0), abs=1e-12)
    assert len(r.log.phases) == 2
    h = r.history(np.linspace(0.15, 0.4, 6))
    assert set(h["P1.mode"]) == set(h["P2.mode"]) == {K.STICK}
    np.testing.assert_allclose(h["P1.N"] + h["P2.N"], ROD.m * G0, rtol=0, atol=REST_FORCE)
    assert np.abs(h["P1.F_t"]).max() <= 1e-9 and np.abs(h["P2.F_t"]).max() <= 1e-9
    assert np.abs(h["beam.R_dot"]).max() <= REST_SPEED
    assert np.abs(h["beam.theta_dot"]).max() <= REST_SPEED / ROD.L


def test_event_cap_counts_the_events_of_one_cluster():
    """The cap on events bounds one cluster of events (closer than t_cluster to each other), as
    in the single-beam solver, not the whole run: the rigid rod bouncing with e = 0.5 (bounces
    0.02-0.05 s apart) runs with a cap of 10 per point, the flexible beam chattering on its
    two ends (micro-impacts microseconds apart) stops, naming the cluster's start."""
    r = _rigid_drop(t_end=0.6, theta0=0.1, e=0.5, event_cap=10)
    assert len(r.log.events) > 2 * 10 and r.t_end == pytest.approx(0.6)
    system, solver = _root_clamped("frictionless", n_modes=3, h0=0.1, event_cap=10)
    with pytest.raises(SystemSimulationError, match=r"one cluster of events from t = 0\.14") as exc:
        SystemSimulator(system, 0.3, solver).run()
    assert exc.value.points == ["P1", "P2"] and exc.value.result is not None


def _root_clamped(model, **params):
    """The falling beam with its basis clamped at the end x = 0 (``Body(clamp="root")``), not at
    its centre as a free body's is by default: the basis that prefers one end."""
    system, solver = build("falling-beam", model, **params)
    return replace(system, bodies=(replace(system.bodies[0], clamp="root"),)), solver


def _end_coupling(n_modes, clamp="centre"):
    if clamp == "root":
        system, solver = _root_clamped("frictionless", n_modes=n_modes, h0=0.0)
    else:
        system, solver = build("falling-beam", "frictionless", n_modes=n_modes, h0=0.0)
    sim = SystemSimulator(system, 0.1, solver)
    return sim.delassus(system.initial_state(), [0, 1])[1]


def test_end_to_end_impact_coupling_of_the_rigid_rod_is_the_textbook_one():
    """A unit impulse at one end of a free uniform rod gives that end 1/m + (L/2)^2/(m L^2/12)
    = 4/m and the other end 1/m - 3/m = -2/m (it presses the other end down)."""
    G = _end_coupling(0)
    np.testing.assert_allclose(G, np.array([[4.0, -2.0], [-2.0, 4.0]]) / ROD.m, rtol=1e-12)


def test_end_to_end_impact_coupling_of_the_flexible_beam_alternates_with_the_modes():
    """Basis clamped at the end x = 0 (the frame and N clamped-free modes of the whole beam: with
    the frame's rigid motions they give N free-free bending modes): each mode adds
    phi_k(0) phi_k(L) / m_k to the coupling of the two ends, with the sign of the mode's symmetry:
    an impulse at one end lifts the other for N = 1, 3, 5 and presses it down for N = 0, 2, 4, 6;
    the end's own mobility G_11 grows with every mode (the point mobility of an Euler-Bernoulli
    beam has no finite limit)."""
    G = {n: _end_coupling(n, "root") for n in range(7)}
    assert [bool(G[n][0, 1] > 0) for n in range(7)] == [False, True, False, True, False, True,
                                                          False]
    assert all(G[n + 1][0, 0] > G[n][0, 0] + 5.0 / ROD.m for n in range(6))


def test_end_to_end_impact_coupling_of_the_centre_clamped_beam_stays_negative():
    """The free body's default basis (N clamped-free modes on each half from the centre): each
    mode moves one end only, so an impulse at one end presses the other down for every N, less
    and less as G_11 grows (measured m G_12 = -2, -1.11, -0.80, -0.59, -0.47, -0.38, -0.32 for
    N = 0-6), and G_11 grows with every pair of modes as above; the two ends' mobilities are
    equal."""
    G = {n: _end_coupling(n) for n in range(7)}
    assert all(G[n][0, 1] < 0.0 for n in range(7))
    assert all(abs(G[n + 1][0, 1]) < abs(G[n][0, 1]) for n in range(6))
    assert all(G[n + 1][0, 0] > G[n][0, 0] + 5.0 / ROD.m for n in range(6))
    assert all(G[n][0, 0] == pytest.approx(G[n][1, 1], rel=1e-12) for n in range(7))


def test_micro_impact_trains_follow_the_sign_of_the_end_coupling():
    """The flat flexible landing on both ends, frictionless, e = 0, to 0.16 s.  Basis clamped at
    the end x = 0: with N = 3 (an impulse at one end lifts the other) the ends take turns in a
    train of micro-impacts whose intervals shrink (3.8 us, 0.9 us, 84 ns, 38 ns, ...): an
    accumulation that a point watched 1e-12 m below its obstacle does not leave, so the run
    reaches the event cap and stops, naming the points, the time and the cap.  With N = 4 (it
    presses the other down) there are few jumps (measured 14).  The free body's default basis,
    clamped at the centre (G_12 < 0 for every N), lands with few jumps for N = 3 and 4
    (measured 9 and 11)."""
    system, solver = _root_clamped("frictionless", n_modes=3, h0=0.1)
    with pytest.raises(SystemSimulationError, match=r"more than 300 events per contact point in "
                       r"one cluster of events from t = 0\.1427\d+ s .*points \['P1', 'P2'\]"):
        SystemSimulator(system, 0.16, replace(solver, event_cap=300)).run()
    system, solver = _root_clamped("frictionless", n_modes=4, h0=0.1)
    assert len(SystemSimulator(system, 0.16, solver).run().log.jumps) < 50
    c = {N: len(simulate("falling-beam", model="frictionless", n_modes=N, h0=0.1,
                         t_end=0.16).log.jumps) for N in (3, 4)}
    assert c[3] < 50 and c[4] < 50, c


def test_tilted_rigid_drop_pivots_then_lands_on_the_other_end():
    """theta0 = 0.1, e = 0, frictionless: the first impact's velocities are the closed form
    (centre of mass v_y+ = v_y- 3cos^2/(1 + 3cos^2), omega+ = 6 v_y- cos/(L(1 + 3cos^2)));
    the rod then pivots and slides on the closed end P1 (gap 0, N > 0) until P2 lands in a jump
    at both points, then rests; times and impulses as the event-driven reference."""
    th0 = 0.1
    r = _rigid_drop(t_end=0.4, theta0=th0)
    rr = ref.simulate_rigid_rod(ROD, 0.1, th0, 0.4, e=0.0)
    j1, j2 = r.log.jumps
    assert j1.points == ["P1"] and j2.points == ["P1", "P2"]
    vy_minus = -G0 * j1.t
    vy_plus, om_plus, lam = ref.tilted_landing(ROD, vy_minus, th0)
    h = r.history([j1.t])
    th, om = h["beam.theta"][0], h["beam.theta_dot"][0]
    v_com = h["beam.R_dot"][0] + om * 0.5 * ROD.L * np.array([-math.sin(th), math.cos(th)])
    assert v_com[1] == pytest.approx(vy_plus, rel=1e-12)
    assert v_com[0] == pytest.approx(0.0, abs=1e-12)
    assert om == pytest.approx(om_plus, rel=1e-12)
    assert j1.impulses[0] == pytest.approx(lam, rel=1e-12)
    tt = np.linspace(j1.t, j2.t, 40)[1:-1]
    hp = r.history(tt)
    assert set(hp["P1.mode"]) == {K.CONTACT} and set(hp["P2.mode"]) == {K.FREE}
    assert np.abs(hp["P1.gap"]).max() <= 1e-12
    assert hp["P1.N"].min() > 0.0
    assert np.ptp(hp["beam.R"][:, 0]) > 1e-3                # it slides
    assert [im.points for im in rr.impacts] == [(0,), (0, 1)]
    for j, im in zip((j1, j2), rr.impacts):
        assert j.t == pytest.approx(im.t, abs=1e-10)
        np.testing.assert_allclose(j.impulses, im.impulses, rtol=1e-8)
    h = r.history([0.3, 0.4])
    assert np.abs(h["beam.theta_dot"]).max() <= REST_SPEED / ROD.L
    assert np.abs(h["beam.R_dot"]).max() <= REST_SPEED


def _bounces(e, t_end=0.6):
    r = _rigid_drop(t_end=t_end, theta0=0.1, e=e, rtol=1e-12, atol=1e-13)
    rr = ref.simulate_rigid_rod(ROD, 0.1, 0.1, t_end, e=e)
    return r, rr


def test_bouncing_rigid_rod_follows_the_reference():
    """theta0 = 0.1, e = 0.5: the sequence of single-point impacts (which end, when, impulse) is
    the event-driven reference's up to the first approach slower than 2 v_zeno (the library
    takes approaches slower than v_zeno as plastic, the reference does not); measured: all 9
    agree to 2e-15 s, impulses to 3e-13, including the 5th, where P2 lands again right after
    its own rebound.  A point that left its obstacle is taken to land DELTA below it, so each
    landing may come DELTA / |v_n| later (measured 5.5e-13 s at the 5th)."""
    r, rr = _bounces(0.5)
    refs = list(itertools.takewhile(lambda im: abs(im.v_minus).max() >= 2e-2, rr.impacts))
    assert len(refs) == 9
    assert r.log.jumps[4].points == ["P2"] and refs[4].points == (1,) == refs[3].points
    late = 0.0          # the landings' lateness adds up along the sequence
    for j, im in zip(r.log.jumps, refs):
        assert [int(p[1]) - 1 for p in j.points] == list(im.points)
        late += DELTA / abs(im.v_minus).min()
        assert j.t == pytest.approx(im.t, abs=1e-13 + late)
        # and a landing that late meets the ground faster by about g * late
        np.testing.assert_allclose(j.impulses, im.impulses,
                                   rtol=1e-11 + G0 * late / abs(im.v_minus).min())


def test_rigid_penalty_drop_is_the_reference_penalty_rod():
    """The continuous (Hertz penalty, K = 1e9 N/m^1.5) tilted drop with n_modes = 0 against the
    reference rod with the same penalty law: contact intervals to 1e-9 s (measured 1e-10),
    centre of mass and angle to 1e-8 (measured 3e-10)."""
    K_, n_ = 1e9, 1.5
    r = simulate("falling-beam", model="continuous", n_modes=0, t_end=0.3, h0=0.1, theta0=0.1,
                 contact_stiffness=K_, contact_exponent=n_, rtol=1e-10, atol=1e-12)
    pr = ref.simulate_penalty_rod(ROD, 0.1, 0.1, 0.3, stiffness=K_, exponent=n_)
    got = [(im["contact"], im["t_start"], im["t_end"]) for im in r.impacts]
    want = [(f"P{c[0] + 1}", c[1], c[2]) for c in pr.contacts]
    assert [g[0] for g in got] == [w[0] for w in want]
    np.testing.assert_allclose([g[1:] for g in got], [w[1:] for w in want], atol=1e-9)
    h = r.history(pr.t)
    th = h["beam.theta"]
    com = h["beam.R"] + 0.5 * ROD.L * np.c_[np.cos(th), np.sin(th)]
    assert np.abs(com - pr.q[:, :2]).max() <= 1e-8
    assert np.abs(th - pr.q[:, 2]).max() <= 1e-8


# ====================================================================== 7. energy books
def _audit_closes(case, model, **params):
    a = simulate(case, model=model, n_modes=3, **params).audit()
    assert a["max_residual"] <= 1e-6 * a["scale"], a


@pytest.mark.parametrize("model", list(MODELS))
def test_audit_closes_on_the_falling_beam_with_five_points(model):
    """Flexible beam (N = 3), theta0 = 0.05, points at 0, 1/4, 1/2, 3/4, 1, 0.4 s: E(t) - E(0)
    equals the works and the jumps' losses to 1e-6 of the energy scale (measured <= 1.4e-7,
    the continuous models; <= 1e-8 the constraint ones)."""
    _audit_closes("falling-beam", model, t_end=0.4, theta0=0.05,
                  contact_points="0,0.25,0.5,0.75,1")


def test_a_lugre_landing_while_sliding_fast_stops_at_the_painleve_point():
    """The tilted five-point landing under unified LuGre: the first end lands sliding at
    0.13 m/s.  LuGre starts every contact with its bristles at rest (z = 0), so its friction
    ratio is sigma1 v_t ~ 14, far above the 1/k that the slip solve's denominator allows (its
    Painleve margin 1 + c S12/S11 < 0): the normal force does not follow from the state.  The
    run stops there with that diagnosis, naming the point, and carries what it computed."""
    with pytest.raises(SystemSimulationError, match=r"Painleve singularity at the contact onset "
                       r"of point 'P1'.*margin") as err:
        simulate("falling-beam", model="lugre", t_end=0.6, theta0=0.1,
                 contact_points="0,0.25,0.5,0.75,1")
    res = err.value.result
    assert err.value.t == pytest.approx(res.log.jumps[-1].t, abs=0) and err.value.t < 0.2
    a = res.audit()
    assert a["max_residual"] <= 1e-6 * a["scale"], a


def test_elimination_of_a_singular_matrix_gives_nan():
    from flexlib.solver.linalg import solve_into
    M = np.array([[0.0, 1.0], [0.0, 2.0]])
    X = np.array([[1.0], [1.0]])
    solve_into(M, X, 1)
    assert np.isnan(X).all()
    M = np.array([[2.0, 1.0], [1.0, 3.0]])
    X = np.array([[3.0], [4.0]])
    solve_into(M, X, 1)
    assert np.allclose(X[:, 0], [1.0, 1.0], rtol=0, atol=1e-15)


@pytest.mark.slow
@pytest.mark.parametrize("model", [m for m in MODELS if m != "continuous"])
def test_audit_closes_on_the_falling_beam_with_two_points(model):
    """Flat flexible beam (N = 3) on its two ends, 0.4 s (measured <= 1.1e-7 of the scale; the
    constraint models make 13-15 jumps with the free body's centre-clamped basis, where the
    end-clamped basis made ~1500 as the beam chattered on the ground)."""
    _audit_closes("falling-beam", model, t_end=0.4, contact_points="0,1")


@pytest.mark.slow
def test_hertz_separations_open_the_books_at_the_default_tolerance_and_the_run_says_so():
    """The flat beam bouncing on two Hertz springs (K = 1e9 N/m^1.5, n = 1.5), 0.4 s: at the
    default rtol 1e-8 the audit reaches 3.3e-6 of its scale, and 99.8 % of it accrues in the last
    5 steps before the 19 separations (95 of 4348 steps).  There the force K delta^1.5 has
    unbounded higher derivatives (delta -> 0) and the explicit step's error estimate falls short;
    the run flags itself (success False, the audit's warning), and at rtol 1e-9 the books close
    (4.8e-9)."""
    res = simulate("falling-beam", model="continuous", n_modes=3, t_end=0.4, contact_points="0,1")
    a, h = res.audit(), res.steps()
    t = h["t"]
    W = h["W_N"].sum(axis=1) + h["W_F"].sum(axis=1) + h["W_d"] + h["W_tau"] + h["W_jump"]
    resid = h["E"] - h["E"][0] - W
    assert a["max_residual"] > 1e-6 * a["scale"]
    assert not res.success and any("energy audit" in w for w in res.warnings)
    near = np.zeros(len(t) - 1, bool)
    for (te, point, kind, _) in res.log.events:
        k = int(np.searchsorted(t, te, side="left"))
        if kind == "gap" and h[f"{point}.gap"][max(k - 2, 0)] < 0.0:      # a separation
            near[max(k - 5, 0):k] = True
    share = np.diff(resid)[near].sum() / resid[-1]
    assert share > 0.95 and near.sum() < 0.05 * len(near), (share, near.sum())
    tight = simulate("falling-beam", model="continuous", n_modes=3, t_end=0.4,
                     contact_points="0,1", rtol=1e-9, atol=1e-11).audit()
    assert tight["max_residual"] <= 1e-6 * tight["scale"], tight


@pytest.mark.parametrize("model", [m if m in ("frictionless", "continuous") else
                                   pytest.param(m, marks=pytest.mark.slow) for m in MODELS])
def test_audit_closes_on_the_double_pendulum(model):
    """Flexible double pendulum (N = 3) over 1 s (measured <= 4.2e-9 of the scale; ~4 s each)."""
    _audit_closes("double-pendulum", model, t_end=1.0)


# ====================================================================== 8. bad input
@pytest.mark.parametrize("case, params, words", [
    ("double-pendulum", dict(stiffness=1.0), ["'stiffness'"]),
    ("falling-beam", dict(contact_points="0,1.5"), ["'contact_points'", "[0, 1]"]),
    ("falling-beam", dict(contact_points=(-0.1, 1.0)), ["'contact_points'", "[0, 1]"]),
    ("double-pendulum", dict(contact_at=1.2), ["'contact_at'", "[0, 1]"]),
    ("double-pendulum", dict(n_modes=13), ["'n_modes'", "12"]),
    ("falling-beam", dict(n_modes=-1), ["'n_modes'", "12"]),
], ids=["unknown-option", "points-string", "points-tuple", "contact_at", "n_modes-13", "n_modes-neg"])
def test_bad_input_names_the_parameter_and_its_range(case, params, words):
    with pytest.raises(ValueError) as exc:
        build(case, **params)
    for w in words:
        assert w in str(exc.value)


def test_contact_point_outside_its_body_is_refused():
    body = Body("b", BeamParams(L=0.5), GroundHinge((0.0, 0.0)))
    with pytest.raises(ValueError, match=r"'x' = 0.6 .*\[0, 0.5\] m"):
        System(bodies=(body,), obstacles=(HalfPlane("g"),),
               contacts=(ContactPoint("P", "b", 0.6, "g"),))


# ====================================================================== 5. convergence in N
@pytest.mark.slow
def test_first_impact_of_the_flexible_pendulum_converges_in_the_number_of_modes():
    """The first contact episode of the flexible double pendulum on the Hertz stop (continuous
    model, default K) with N = 3, 4, 6 modes.  Measured (peak force from 1e-7 s sampling):

        N   peak N [N]   duration [s]   impulse [N s]   start [s]
        0     37766      2.555e-4         5.244        0.6068643
        3     20580      1.713e-4         1.911        0.6068766
        4     15980      1.448e-4         1.254        0.6068774
        6     14411      1.349e-4         1.055        0.6068790

    Peak, duration and impulse decrease monotonically and their successive differences shrink
    (4600 -> 1570 N, 2.6e-5 -> 1.0e-5 s, 0.66 -> 0.20 N s).  What does not converge at these N
    is what follows: the stop is struck again 1-4 times within 5 ms (2 episodes with N = 3,
    5 with N = 4 and 6, at different times), and the frame rates right after the first episode
    (theta1' = 40.6, -14.8, -13.9 rad/s; theta2' = -4.05, -3.44, -6.24 rad/s at t_end + 1e-4 s)
    are dominated by the links' vibration; so they are not asserted."""
    rows = []
    for n in (3, 4, 6):
        r = simulate("double-pendulum", model="continuous", t_end=0.6075, n_modes=n)
        im = r.impacts[0]
        h = r.history(np.arange(im["t_start"], im["t_end"], 1e-7))
        rows.append((h["B.N"].max(), im["duration"], im["normal_impulse"], im["t_start"]))
    peak, dur, imp, start = np.array(rows).T
    for x in (peak, dur, imp):
        assert x[0] > x[1] > x[2]
        assert abs(x[2] - x[1]) < 0.5 * abs(x[1] - x[0])
    np.testing.assert_allclose(peak, [20580, 15980, 14411], rtol=2e-3)
    np.testing.assert_allclose(dur, [1.713e-4, 1.448e-4, 1.349e-4], rtol=2e-3)
    # every flexible start is within 3e-5 s of the rigid one (the stop is reached by the
    # link's rigid swing; the modes shift it by microseconds)
    assert np.abs(start - 0.6068643).max() < 3e-5


# ====================================================================== 9. stick/slip with LuGre
@pytest.mark.parametrize("model", ["hybrid_lugre", "hybrid_coulomb", "lugre"])
def test_a_sliding_rod_stops_and_sticks_under_the_hybrid_models(model):
    """A rigid rod lying on the ground on both ends, pushed along it at v0 = 0.2 m/s: friction
    mu N with N1 + N2 = m g decelerates it at mu g, so it stops at v0 / (mu g), between
    v0 / (mu_s g) and v0 / (mu_d g) with the Stribeck curve of LuGre (mu_d = 0.3, mu_s = 0.4),
    and a hybrid model then sticks on both points (the slip-stop is watched for LuGre too, once
    the point slides faster than Dv).  Unified LuGre has no stick state: its bristles hold the
    rod in CONTACT."""
    from flexlib.params import CoulombParams
    mu_d, mu_s, v0, g = 0.3, 0.4, 0.2, 9.81
    laws = laws_for(model, contact_stiffness=1e9, coulomb=CoulombParams(mu_d=mu_d, mu_s=mu_s))
    beam = BeamParams(n_modes=0)
    system = System(bodies=(Body("rod", beam, FreeJoint(), origin_rate=(v0, 0.0)),),
                    obstacles=(HalfPlane("ground"),),
                    contacts=(ContactPoint("P1", "rod", 0.0, "ground", laws),
                              ContactPoint("P2", "rod", beam.L, "ground", laws)))
    res = SystemSimulator(system, 0.15, SolverSettings()).run()
    ts = np.linspace(0.0, 0.15, 3001)
    h = res.history(ts)
    moving = np.abs(h["rod.R_dot"][:, 0]) > 1e-3
    t_stop = ts[np.flatnonzero(moving)[-1]]
    assert v0 / (mu_s * g) - 2e-3 <= t_stop <= v0 / (mu_d * g) + 2e-3
    end = {c: int(h[f"{c}.mode"][-1]) for c in ("P1", "P2")}
    assert end == ({"P1": K.CONTACT, "P2": K.CONTACT} if model == "lugre"
                   else {"P1": K.STICK, "P2": K.STICK})
    assert abs(h["rod.R_dot"][-1, 0]) < 1e-6
    a = res.audit()
    assert a["max_residual"] <= 1e-6 * a["scale"]


def test_a_pickled_run_reuses_this_processs_compiled_integrators():
    """A result sent to another process (a panel's background run sends its result back) keeps
    its interpolants, and its simulator takes the receiving process's compiled integrators instead
    of carrying them by value (numba would compile them again there: 60-90 s measured)."""
    import pickle
    from flexlib.multibody import kernel as K
    from flexlib.solver import integrator
    r = simulate("double-pendulum", model="continuous", t_end=0.3)
    back = pickle.loads(pickle.dumps(r))
    assert back.sim._integrate is integrator.specialize(K)
    times = np.linspace(0.01, 0.29, 7)                  # flight: steps completed on demand
    assert np.array_equal(back.sample(times), r.sample(times))


def test_a_free_point_that_reaches_its_floor_while_leaving_does_not_land():
    """A free constraint point whose gap event fires while it moves away from its obstacle
    (v_n > VN_TOL: a graze, or an interpolated velocity ahead of the interpolated position; met
    by the tilted falling beam with 32 elements under Radau) takes no impact and stays free,
    re-armed at its present gap: no mode is left without candidates."""
    from flexlib.multibody.simulate import RunLog, SystemSimulator as Sim, VN_TOL
    system, solver = build("falling-beam", "hybrid_coulomb", theta0=0.1)
    sim = Sim(system, 0.2, solver)
    nq = sim.nq
    y = system.initial_state()
    y[1] = -1e-11                 # R_y: end P1 (x = 0) just below its obstacle ...
    y[nq + 1] = 100 * VN_TOL      # ... and leaving it
    y[nq + 2] = 0.0
    disc = np.zeros(4 * sim.nc)
    sim.armed = np.zeros(sim.nc, dtype=bool)
    sim.last_sep = np.full(sim.nc, 0.1)
    sim.floor = np.array([-1e-11, math.nan])
    _, out = sim.evaluate(0.15, y, disc)
    v = sim.contact_values(out, 0)
    assert v["gap"] == pytest.approx(-1e-11, abs=1e-15) and v["v_n"] > VN_TOL
    sim._watched = sim._events(0.15, out, disc)[:3]          # as the phase ending here had
    log = RunLog()
    y2, d2 = sim._handle(0.15, y, disc, 1 << (K.NEK * 0 + K.EV_GAP), log, 0.0)
    assert int(d2[K.D_MODE]) == K.FREE and not log.jumps
    np.testing.assert_array_equal(y2[:2 * nq], y[:2 * nq])
    assert sim.last_sep[0] == 0.15 and math.isnan(sim.floor[0])


def test_a_rule_that_finds_no_way_on_ends_with_a_named_stop(monkeypatch):
    """An exception inside the event rules (here forced into the mode selection) ends the run
    with a SystemSimulationError that names the time, the events, the contact modes and the
    points, and carries the partial result, not with a traceback or a "bad input" error."""
    from flexlib.multibody.simulate import SystemSimulationError, SystemSimulator as Sim

    def broken(self, *args, **kw):
        raise ValueError("no candidate")
    monkeypatch.setattr(Sim, "_choose", broken)
    system, solver = build("falling-beam", "hybrid_coulomb", theta0=0.1)
    with pytest.raises(SystemSimulationError) as err:
        Sim(system, 0.3, solver).run()
    msg = str(err.value)
    assert "no way on at t = 0.14" in msg and "gap at 'P1'" in msg and "no candidate" in msg
    assert err.value.points == ["P1"] and err.value.modes == {"P1": "FREE", "P2": "FREE"}
    res = err.value.result
    assert res is not None and not res.success and res.t_end == pytest.approx(err.value.t)


def test_a_run_that_outgrows_its_memory_budget_ends_with_a_named_stop(monkeypatch):
    """A run keeps every accepted step until its summary; when the steps would take more than
    its memory budget (a fraction of the memory available at its start) the run stops with a
    SystemSimulationError that names the budget, with the partial result, instead of being
    killed by the operating system with nothing.  Here the machine "has" 12 MB, a budget of
    6 MB: the tilted landing (8 elements, ny = 46; its flight with Radau, 1 488 bytes a step,
    then DOP853, 2 960, each counted twice) stops with between 6 MB / 5 920 B and
    6 MB / 2 976 B steps stored, before its 0.16 s; the same run with the real memory reaches
    0.16 s."""
    from flexlib.multibody import simulate as engine

    monkeypatch.setattr(engine, "available_memory", lambda: 12_000_000)
    with pytest.raises(engine.SystemSimulationError) as err:
        simulate("falling-beam", "continuous", 0.16, basis="fe", elements=8, theta0=0.1)
    msg = str(err.value)
    assert "memory budget at t = 0.1" in msg and "coarser basis" in msg
    res = err.value.result
    assert res is not None and not res.success and 0.1 < res.t_end < 0.16
    ny = 2 * res.sim.nq + 3 * 2 + 2
    assert (engine.step_bytes("DOP853", ny), engine.step_bytes("Radau", ny)) == (2960, 1488)
    assert 6_000_000 // 5920 - 1 <= res.stats["n_steps"] <= 6_000_000 // 2976
    monkeypatch.undo()
    assert simulate("falling-beam", "continuous", 0.16, basis="fe", elements=8,
                    theta0=0.1).success
