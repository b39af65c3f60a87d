"""Axial flexibility (docs/model.md section 16): an extension beyond the paper's model.

axial_modes = Na adds the fixed-free bar modes Psi_j(x) = sqrt(2) sin((2j-1) pi x / (2L)):
q = [theta, B_1..B_N, C_1..C_Na], p(x) = (x + Psi C - 1/2 B^T H B, Phi B), V_A = 1/2 C^T K_A C.
Checks: axial frequencies, the compiled M, Q and the system engine's free-flight
accelerations against the numpy quadrature route, Lagrange consistency of the
velocity and potential forces, tip Jacobians and velocity products against finite differences,
free-flight energy, Na = 0 reproducing the previous results, and the friction runs of case 3.2.

``pytest tests/test_axial.py -s --runslow`` prints the stick table (Na = 0..3).
"""
import math

import numpy as np
import pytest

import reference
from flexlib.bodies import beam
from flexlib.studies.axial import run_axial, run_checks, stick_rows
from flexlib.bodies.beam import BeamModel
from flexlib.contact.slope import Slope, tip_contact
from flexlib.layout import CONTACT, FREE, O_GAP, O_S, O_VN, O_VT, STICK
from flexlib.paper import BeamRun, PhaseState, simulate
from flexlib.params import BeamParams, paper_case
from reference import kernel_point

E_DEF, RHO_DEF, L_DEF = BeamParams().E, BeamParams().rho, BeamParams().L


def _model(na, n=3, **kw):
    return BeamModel(BeamParams(axial_modes=na, n_modes=n, **kw))


def _state(m, rng):
    n, na = m.n, m.na
    q = np.concatenate(([rng.uniform(-0.6, 0.6)], rng.uniform(-0.03, 0.03, n) / np.arange(1, n + 1),
                        rng.uniform(-1e-4, 1e-4, na)))
    qd = np.concatenate(([rng.uniform(-5, 5)], rng.uniform(-0.5, 0.5, n), rng.uniform(-0.05, 0.05, na)))
    return q, qd


# ============================================================================ frequencies
@pytest.mark.parametrize("na", [1, 2, 3, 4])
def test_axial_frequencies_exact(na):
    w = _model(na).axial_frequencies()
    exact = (2 * np.arange(1, na + 1) - 1) * (math.pi / 2) * math.sqrt(E_DEF / RHO_DEF) / L_DEF
    np.testing.assert_allclose(w, exact, rtol=1e-6)


def test_axial_frequencies_default_values():
    w = _model(2).axial_frequencies()
    assert w[0] == pytest.approx(7841.8, abs=0.05)
    assert w[1] == pytest.approx(23525.0, abs=0.5)
    assert len(_model(0).axial_frequencies()) == 0


def test_bending_frequencies_unchanged_and_pinned_free_gains_axial():
    m0, m2 = _model(0), _model(2)
    np.testing.assert_array_equal(m2.natural_frequencies(), m0.natural_frequencies())
    pf0, pf2 = m0.pinned_free_frequencies(), m2.pinned_free_frequencies()
    # at B = C = 0 the axial columns of J~ are orthogonal to the others: the spectrum is the union
    np.testing.assert_allclose(np.sort(pf2), np.sort(np.concatenate((pf0, m2.axial_frequencies()))),
                               rtol=1e-9, atol=1e-6)


def test_axial_shapes_normalised():
    m = _model(3)
    mi = m.mi
    np.testing.assert_allclose(mi.M_A, mi.rhoS * mi.L * np.eye(3), atol=1e-12 * mi.rhoS)
    np.testing.assert_allclose(mi.Psi_L, math.sqrt(2) * np.array([1, -1, 1]), rtol=1e-14)
    assert mi.K_A.shape == (3, 3) and np.allclose(mi.K_A, np.diag(np.diag(mi.K_A)), atol=1e-9 * mi.K_A.max())


# ============================================================================ M and Q
@pytest.mark.parametrize("na", [1, 2, 3])
def test_kernel_quadrature_matches_beam_model(na):
    sim = BeamRun(paper_case("3.2").with_(axial_modes=na), "hybrid_coulomb", 1.0)
    m = sim.beam
    rng = np.random.default_rng(10 + na)
    for _ in range(5):
        q, qd = _state(m, rng)
        M, Q = beam.mass_forces_any(q, qd, m.kernel_params(), m.kernel_arrays())
        np.testing.assert_allclose(M, reference.mass_matrix_quadrature(m, q), rtol=1e-12, atol=1e-13)
        Qr = reference.generalized_forces_quadrature(m, q, qd)
        np.testing.assert_allclose(Q, Qr, rtol=1e-11, atol=1e-11 * np.abs(Qr).max())
        assert np.array_equal(M, M.T)
        np.linalg.cholesky(M)
        # and the free-flight accelerations of the system engine's right-hand side
        y = np.concatenate((q, qd, np.zeros(5)))
        dy, _ = sim.evaluate(0.0, y, PhaseState(FREE))
        np.testing.assert_allclose(dy[m.ndof:2 * m.ndof], m.accelerations(q, qd), rtol=1e-8,
                                   atol=1e-8 * np.abs(dy).max())


def test_axial_mass_matrix_at_rest():
    m = _model(2)
    M = m.mass_matrix(np.zeros(m.ndof))
    M0 = _model(0).mass_matrix(np.zeros(4))
    np.testing.assert_allclose(M[:4, :4], M0, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(M[4:, 4:], m.mi.M_A, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(M[:4, 4:], 0.0, atol=1e-15)


@pytest.mark.parametrize("na", [1, 3])
def test_velocity_forces_lagrange(na):
    """Q(q, q') - Q(q, 0) = -M' q' + 1/2 d(q'^T M q')/dq with axial modes, g = 0 (test_beam.py's E4)."""
    m = _model(na, g0=0.0, tau_d=0.0)
    rng = np.random.default_rng(3)
    q, qd = _state(m, rng)
    Qv = m.generalized_forces(q, qd) - m.generalized_forces(q, np.zeros_like(qd))
    h = 1e-6
    Mdot = (m.mass_matrix(q + h * qd) - m.mass_matrix(q - h * qd)) / (2 * h)
    dT = np.empty(m.ndof)
    for j in range(m.ndof):
        e = np.zeros(m.ndof)
        e[j] = h * max(1.0, abs(q[j]))
        dT[j] = 0.5 * (qd @ m.mass_matrix(q + e) @ qd - qd @ m.mass_matrix(q - e) @ qd) / (2 * e[j])
    ref = -Mdot @ qd + dT
    np.testing.assert_allclose(Qv, ref, rtol=1e-6, atol=1e-7 * np.abs(ref).max())


@pytest.mark.parametrize("na", [1, 2])
def test_potential_forces_are_gradients(na):
    """Q(q, 0) - tau = -d(V_E + V_A + V_G)/dq: checks K_A and the gravity term Psibar C."""
    m = _model(na, tau_d=0.0)
    rng = np.random.default_rng(5)
    q, _ = _state(m, rng)
    Q = m.generalized_forces(q, np.zeros(m.ndof))
    def V(x):                  # the library's (kernel's) potential energy
        k = kernel_point(m, x)
        return k["V_E"] + k["V_A"] + k["V_G"]
    g = np.empty(m.ndof)
    for j in range(m.ndof):
        e = np.zeros(m.ndof)
        e[j] = 1e-7 * max(1.0, abs(q[j])) if j <= m.n else 1e-9
        g[j] = (V(q + e) - V(q - e)) / (2 * e[j])
    np.testing.assert_allclose(Q, -g, rtol=1e-5, atol=1e-6 * np.abs(g).max())
    # and against the reference energies
    k = kernel_point(m, q)
    assert k["V_A"] > 0.0
    assert k["V_E"] + k["V_A"] == pytest.approx(reference.elastic_energy(m, q), rel=1e-13)
    assert k["V_G"] == pytest.approx(reference.gravitational_energy(m, q), rel=1e-13, abs=1e-15)


# ============================================================================ tip kinematics
def _kernel_tip(m, q):
    """The library's inertial tip position (X, Y) [m]: the compiled kernel's."""
    k = kernel_point(m, q)
    return np.array([k["tip_X"], k["tip_Y"]])


@pytest.mark.parametrize("na", [1, 2, 4])
def test_tip_jacobian_finite_differences(na):
    m = _model(na)
    rng = np.random.default_rng(7)
    for _ in range(3):
        q, _ = _state(m, rng)
        J = reference.tip_jacobian(m, q)
        Jfd = np.empty_like(J)
        for j in range(m.ndof):
            e = np.zeros(m.ndof)
            e[j] = 1e-6 * max(1.0, abs(q[j]))
            Jfd[:, j] = (_kernel_tip(m, q + e) - _kernel_tip(m, q - e)) / (2 * e[j])
        assert np.max(np.abs(J - Jfd)) <= 1e-7 * np.max(np.abs(J))
        # the axial columns are (Psi_j(L), 0) in the floating frame
        c, s = math.cos(q[0]), math.sin(q[0])
        np.testing.assert_allclose(J[:, 1 + m.n:], np.outer([c, s], m.mi.Psi_L), rtol=1e-14)


@pytest.mark.parametrize("na", [1, 3])
def test_tip_velocity_product_finite_differences(na):
    m = _model(na)
    rng = np.random.default_rng(8)
    for _ in range(3):
        q, qd = _state(m, rng)
        h = 1e-6
        ref = (reference.tip_jacobian(m, q + h * qd)
               - reference.tip_jacobian(m, q - h * qd)) @ qd / (2 * h)
        a = reference.tip_velocity_product(m, q, qd)
        assert np.max(np.abs(a - ref)) <= 1e-6 * np.max(np.abs(ref))
        # the library's (kernel's) tip velocity: J q' with the axial columns
        k = kernel_point(m, q, qd)
        v = reference.tip_jacobian(m, q) @ qd
        np.testing.assert_allclose([k["tip_Xdot"], k["tip_Ydot"]], v, rtol=1e-13,
                                   atol=1e-14 * np.max(np.abs(v)))


@pytest.mark.parametrize("na", [1, 2])
def test_contact_kinematics_and_kernel_outputs(na):
    case = paper_case("3.2").with_(axial_modes=na)
    sim = BeamRun(case, "frictionless", 1.0)
    m, slope = sim.beam, Slope.from_params(case.slope)
    rng = np.random.default_rng(9)
    q, qd = _state(m, rng)
    k = tip_contact(m, slope, q, qd)
    J = reference.tip_jacobian(m, q)
    a = reference.tip_velocity_product(m, q, qd)
    np.testing.assert_allclose(k.Psi_q, slope.n @ J, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(k.Gamma_q, slope.t @ J, rtol=1e-13, atol=1e-15)
    assert k.gap == pytest.approx(slope.n @ (reference.tip_position(m, q) - slope.origin), abs=1e-15)
    assert k.gamma_n == pytest.approx(-slope.n @ a, rel=1e-12, abs=1e-12)
    assert k.gamma_t == pytest.approx(-slope.t @ a, rel=1e-12, abs=1e-12)
    y = np.concatenate((q, qd, np.zeros(5)))
    _, out = sim.evaluate(0.0, y, PhaseState(CONTACT))
    np.testing.assert_allclose(out[[O_GAP, O_S, O_VN, O_VT]], [k.gap, k.s, k.v_n, k.v_t],
                               rtol=1e-12, atol=1e-14)
    # the contact solve satisfies the Baumgarte equation with the axial columns present
    dy, out = sim.evaluate(0.0, y, PhaseState(CONTACT))
    qdd = dy[m.ndof:2 * m.ndof]
    lhs = k.Psi_q @ qdd
    rhs = k.gamma_n - 2 * case.slope.chi * k.v_n - case.slope.beta ** 2 * k.gap
    assert lhs == pytest.approx(rhs, rel=1e-8, abs=1e-8)


def test_whole_beam_positions_include_axial():
    m = _model(2)
    rng = np.random.default_rng(11)
    q, _ = _state(m, rng)
    st = m.station_data(np.array([0.0, 0.5, m.mi.L]))
    P = m.positions(q, st)
    np.testing.assert_allclose(P[-1], _kernel_tip(m, q), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(P[-1], reference.tip_position(m, q), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(P[0], 0.0, atol=1e-15)


# ============================================================================ simulations
def test_free_flight_energy_axial():
    r = simulate("3.2", "free", 0.5, axial_modes=2, rtol=1e-10, atol=1e-12)
    assert r.success
    drift = np.max(np.abs(r.E - r.E[0])) / abs(r.E[0])
    assert drift <= 1e-8
    assert r.B.shape[1] == 3 and r.C.shape[1] == 2
    assert np.max(np.abs(r.h["V_A"])) > 0.0
    assert r.stats["axial_modes"] == 2


# Fingerprints of the code before the axial extension (Na did not exist), case 3.2 over 0.6 s with
# defaults.
PREVIOUS = {
    "frictionless": (5769, 0.3141646389172575, 2.4478227820691854, 441.9541640039215, 0.007478062291618421),
    "hybrid_coulomb": (5762, 0.3052272606378752, 2.4202114728204673, 464.9330795891148,
                       0.0073185753896922836),
}


# Of the n samples above, those in contact (mode > 0), counted with the sampling used before the
# speed work (see below).
CONTACT_SAMPLES = {"frictionless": 1025, "hybrid_coulomb": 1026}


@pytest.mark.parametrize("model", sorted(PREVIOUS))
def test_axial_modes_zero_reproduces_previous_results(model):
    r = simulate("3.2", model, 0.6)
    n, th, E, Nmax, B0 = PREVIOUS[model]
    # n counted the 0.5 ms flight grid too, which the speed work dropped (flight is sampled at the
    # compiled integrator's step points only); the contact samples of those n are unchanged
    assert int(np.sum(r.mode > 0)) == CONTACT_SAMPLES[model]
    assert "C" not in r.h
    # Bit-identical when the axial extension was added; later speed work (kernel, contact solves) changes the
    # round-off, so the fingerprint is kept to 1e-9 (the same steps, the same trajectory) ...
    for got, want in ((r.theta[-1], th), (r.E[-1], E), (r.N.max(), Nmax), (r.B[-1, 0], B0)):
        assert got == pytest.approx(want, rel=1e-9, abs=0)
    # ... and an explicit axial_modes = 0 is the default, bit for bit.
    r0 = simulate("3.2", model, 0.6, axial_modes=0)
    assert np.array_equal(r0.t, r.t) and np.array_equal(r0.h["N"], r.h["N"])
    assert np.array_equal(r0.B, r.B) and np.array_equal(r0.theta, r.theta)


def test_cli_axial_modes(capsys):
    from flexlib.cli import main
    assert main(["simulate", "--model", "frictionless", "--t-end", "0.05", "--axial-modes", "1",
                 "--quiet"]) == 0
    assert main(["simulate", "--model", "frictionless", "--t-end", "0.05", "--axial-modes", "5",
                 "--quiet"]) != 0


# ------------------------------------------------------------------ friction runs on case 3.2
_RUNS = {}


def _run(model, na, t_end=1.2):
    if (model, na, t_end) not in _RUNS:
        _RUNS[(model, na, t_end)] = run_axial(model, na, t_end)
    return _RUNS[(model, na, t_end)]


def _check_friction_run(model, na):
    """Energy audit, N >= 0, gap and the Coulomb bound in slip over 0-1.2 s, or a clean stop."""
    res, err = _run(model, na)
    if err is not None:                     # a clean stop is allowed; it must be a SimulationError
        assert res is not None and not res.success
        # the engine's message says when, in which contact modes and at which points it stopped
        assert " t = " in err and "contact modes" in err and "points" in err, err
        assert res.t[-1] > res.impacts[0]["t_start"], "the partial result must hold the first impact"
    c = run_checks(res)
    assert c["audit_rel"] <= 1e-6, c
    assert c["min_N"] >= -1e-6 * max(c["max_N"], 1.0), c
    assert c["max_gap"] <= 1e-6, c
    if model == "hybrid_coulomb":
        assert c["coulomb_excess_slip"] <= 1e-6 * c["max_N"], c
        assert c["coulomb_excess"] <= 1e-6 * c["max_N"], c
    assert res.B.shape[1] == res.case.beam.n_modes and res.C.shape[1] == na
    return res


FRICTION = ("hybrid_coulomb", "hybrid_lugre", "lugre")


@pytest.mark.parametrize("model", FRICTION)
def test_friction_runs_axial1(model):
    _check_friction_run(model, 1)


@pytest.mark.slow
@pytest.mark.parametrize("na", [2, 3])
@pytest.mark.parametrize("model", FRICTION)
def test_friction_runs_axial_more_modes(model, na):
    _check_friction_run(model, na)


def _check_stick_physics(model, na, res):
    """Number and total duration of stick intervals per impact against what the physics says.

    * bookkeeping: intervals ordered, disjoint, inside their impact; stick + slip time <= the
      impact's duration; ``stick_rows`` counts and sums them;
    * a stick interval is stick: s constant (the tangential constraint holds), |v_t| <= Dv and
      |F_t| <= mu_lim N (mu_d for hybrid Coulomb, mu_s for hybrid LuGre);
    * unified LuGre has no stick/slip states (its stick-like behaviour is in z);
    * Na = 0 (the paper's inextensible beam): no stick at all, and every stick test that ran asked
      for |F_t|/N of the order of 1/k, k = tan(alpha - theta) (the tangential constraint nearly redundant with the hinge): >= 0.5/k;
    * Na >= 1: stick is well posed and the hybrid models stick in the first impact (paper's Fig 12).
    """
    rows = stick_rows(res)
    assert len(rows) == len(res.impacts) >= 1
    h, case = res.h, res.case
    mu_lim = case.coulomb.mu_d if model == "hybrid_coulomb" else case.coulomb.mu_s
    for im, row in zip(res.impacts, rows):
        st, sl = im["stick_intervals"], im["slip_intervals"]
        assert row["n_stick"] == len(st) and row["n_slip"] == len(sl)
        assert row["stick_time"] == pytest.approx(sum(b - a for a, b in st), abs=1e-15)
        assert (row["stick_time"] > 0) == (row["n_stick"] > 0)
        ivs = sorted([(a, b) for a, b in st] + [(a, b) for a, b, _ in sl])
        for (a, b), (c, _) in zip(ivs, ivs[1:]):
            assert b <= c + 1e-12, "stick/slip intervals overlap"
        for a, b in ivs:
            assert im["t_start"] - 1e-12 <= a < b <= im["t_end"] + 1e-12
        assert row["stick_time"] + row["slip_time"] <= im["t_end"] - im["t_start"] + 1e-12
        for a, b in st:
            k = (h["t"] >= a) & (h["t"] <= b) & (h["mode"] == STICK)
            assert k.sum() >= 2
            assert np.ptp(h["s_all"][k]) <= 1e-9
            assert np.max(np.abs(h["v_t"][k])) <= case.coulomb.Dv
            assert np.all(np.abs(h["F_t"][k]) <= mu_lim * h["N"][k] * (1 + 1e-8) + 1e-9)
    n_stick = [r["n_stick"] for r in rows]
    if model == "lugre":
        assert all(r["n_stick"] == 0 and r["n_slip"] == 0 for r in rows)
    elif na == 0:
        assert sum(n_stick) == 0, "the inextensible beam stuck"
        tests = 0
        for im in res.impacts:
            # a stick trial is inconsistent either by N <= 0 (its ratio is NaN) or by asking for
            # |F_t|/N far above mu_lim; an impact whose trials all gave N <= 0 has a NaN maximum
            if im["n_stick_tests"] and math.isfinite(im["max_stick_ratio"]):
                tests += im["n_stick_tests"]
                th = np.interp(im["t_start"], res.t, res.theta)
                one_over_k = 1.0 / abs(math.tan(case.slope.alpha - th))
                assert im["max_stick_ratio"] >= max(0.5 * one_over_k, mu_lim), (im["t_start"], one_over_k)
        assert tests > 0, "no stick test with N > 0 ran: the check above is empty"
    else:
        assert n_stick[0] >= 1, f"{model}, Na = {na}: no stick in the first impact"
        assert rows[0]["stick_time"] > 1e-5          # more than a few steps of the stick phase
    return rows


@pytest.mark.parametrize("model", FRICTION)
@pytest.mark.parametrize("na,t_end", [(0, 0.8), (1, 1.2)])
def test_stick_per_impact(model, na, t_end):
    """Na = 0 over two impacts (0-0.8 s) and Na = 1 over 0-1.2 s; the slow test does Na = 0..3."""
    res, _ = _run(model, na, t_end)
    _check_stick_physics(model, na, res)


@pytest.mark.slow
def test_stick_per_impact_all_settings(capsys):
    """Case 3.2, 0-1.2 s, Na = 0..3, three models: the physics of _check_stick_physics for each
    setting; prints the table (number and total duration of stick and slip per impact)."""
    lines = [f"{'model':<15} {'Na':>2} {'impact':>6} {'t_start [s]':>11} {'n_stick':>7} "
             f"{'stick [ms]':>10} {'n_slip':>6} {'slip [ms]':>9}"]
    for model in FRICTION:
        for na in (0, 1, 2, 3):
            res, err = _run(model, na)
            for row in _check_stick_physics(model, na, res):
                lines.append(f"{model:<15} {na:>2} {row['impact']:>6} {row['t_start']:>11.4f} "
                             f"{row['n_stick']:>7} {1e3 * row['stick_time']:>10.3f} {row['n_slip']:>6} "
                             f"{1e3 * row['slip_time']:>9.3f}")
            if err:
                lines.append(f"{model:<15} {na:>2} stopped: {err[:90]}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
