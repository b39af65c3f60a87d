"""Radau's structured Newton matrix (``flexlib.multibody.newton``).

* The penalty law's force slopes agree with central differences of the force, and vanish where
  the force is clipped at zero.
* At a state of the tilted falling beam (32 elements) with one end in contact, the structured
  solve of (lam I - J~) d = r, for the real and the complex lam of Radau, agrees with a dense
  solve of the same matrix written here from its parts: the dense mass matrix, the bodies'
  stiffness and damping, and the contact's slopes by differences of the force.
* Against the exact Jacobian (forward differences of the right-hand side), the simplified
  Newton iteration with the structured matrix contracts at a rate far below 1 per iteration,
  frictionless and with modified Coulomb friction sliding.
* At a Hertz contact's onset (no stiffness yet) the matrix holds the contact stiffness at the
  penetration the step reaches: with it the iteration converges against the exact Jacobian at
  the step's end, with the slope at the step's start it diverges.
* It is used where it holds (finite-element bodies solved through their structure, penalty
  contacts without friction or with modified Coulomb friction) and nowhere else.
* With the structure forced on cheap meshes (4 elements per body), Radau with it and DOP853 give
  the same tilted drop (v_cm, omega_mean at 0.16 s, landing impulse, first episode) and the same
  first burst of the pendulum (impulse, episodes, first impulse and peak force) within 0.5 %.
* (slow) A whole Radau run with it and with the difference Jacobian lands the same way.
"""
import numpy as np
import pytest

from flexlib.cases import build, simulate
from flexlib.multibody import structured
from flexlib.contact.penalty import normal_force, normal_force_slopes
from flexlib.multibody import kernel as K
from flexlib.multibody import newton as N
from flexlib.multibody.simulate import SystemSimulator
from flexlib.solver.radau import MU_IM, MU_RE, MU_REAL


@pytest.mark.parametrize("gap,v_n,D,C", [(-1e-5, -0.3, 0.0, 0.0), (-2e-6, 0.4, 0.3, 0.0),
                                         (-3e-5, -0.1, 0.0, 50.0), (-1e-5, 2.0, 0.0, 5e5)])
def test_slopes_are_the_force_derivatives(gap, v_n, D, C):
    Kc, n, v_in = 1e9, 1.5, 0.8
    ng, nv = normal_force_slopes(gap, v_n, Kc, n, D, C, v_in)
    dg, dv = 1e-6 * abs(gap), 1e-6
    fd_g = (normal_force(gap + dg, v_n, Kc, n, D, C, v_in)[0]
            - normal_force(gap - dg, v_n, Kc, n, D, C, v_in)[0]) / (2 * dg)
    fd_v = (normal_force(gap, v_n + dv, Kc, n, D, C, v_in)[0]
            - normal_force(gap, v_n - dv, Kc, n, D, C, v_in)[0]) / (2 * dv)
    if normal_force(gap, v_n, Kc, n, D, C, v_in)[1] <= 0.0:        # clipped: no force, no slope
        assert (ng, nv) == (0.0, 0.0) and fd_g == 0.0 and fd_v == 0.0
    else:
        assert ng < 0.0
        assert ng == pytest.approx(fd_g, rel=1e-6)
        assert nv == pytest.approx(fd_v, rel=1e-6, abs=1e-6 * abs(fd_g) * 1e-6)
    assert normal_force_slopes(1e-6, -1.0, Kc, n, 0.0, 0.0, v_in) == (0.0, 0.0)


def _contact_state(model, elements=32):
    """(simulator, t, y, disc, h) at the middle step of the first phase of the tilted falling
    beam with a point in contact (Radau, rtol 1e-3)."""
    system, solver = build("falling-beam", model, basis="fe", elements=elements, rtol=1e-3,
                           method="Radau", theta0=0.1)
    sim = SystemSimulator(system, 0.1445, solver)
    res = sim.run(audit=False)
    for ph in res.phases:
        if any(int(ph.disc[4 * c]) != K.FREE for c in range(sim.nc)) and len(ph.sol.hs) > 4:
            k = len(ph.sol.hs) // 2
            return sim, ph.sol.t[k], ph.sol.y[:, k].copy(), ph.disc, ph.sol.hs[k]
    raise AssertionError("no contact phase")


def _stiffness_damping(sim):
    """The bodies' K2 and C as nq x nq matrices."""
    nq = sim.nq
    Kd, Cd = np.zeros((nq, nq)), np.zeros((nq, nq))
    for b in range(sim.S.bint.shape[0]):
        a, o, n = sim.S.bodies[b], sim.S.sith[b] + 1, sim.S.snel[b]
        Kd[o:o + n, o:o + n] = a.K2[:n, :n]
        Cd[o:o + n, o:o + n] = a.C[:n, :n]
    return Kd, Cd


def _factorized(sim, t, y, disc, h):
    st, fr, fc = N.newton_arrays(sim.S)
    _, out = sim.evaluate(t, y, disc)
    N.newton_store(y, disc, sim.S, sim.work[0], out, st)
    assert N.newton_factor(st, fr, MU_REAL / h, sim.S)
    assert N.newton_factor(st, fc, complex(MU_RE, MU_IM) / h, sim.S)
    return st, fr, fc, out


def test_structured_solve_agrees_with_the_dense_matrix():
    sim, t, y, disc, h = _contact_state("continuous")
    assert N.newton_usable(disc, sim.S)
    st, fr, fc, out = _factorized(sim, t, y, disc, h)
    nq, ny = sim.nq, len(y)
    M, Wn, _ = sim.rows(y)
    Kd, Cd = _stiffness_damping(sim)
    closed = 0
    for c in range(sim.nc):
        v = sim.contact_values(out, c)
        if int(disc[4 * c]) == K.FREE or v["N"] <= 0.0:
            continue
        row = sim.S.cflt[c]
        args = (row[K.C_K], row[K.C_N], row[K.C_D], row[K.C_C], disc[4 * c + K.D_VIN])
        dg, dv = 1e-7 * abs(v["gap"]), 1e-6
        ng = (normal_force(v["gap"] + dg, v["v_n"], *args)[0]
              - normal_force(v["gap"] - dg, v["v_n"], *args)[0]) / (2 * dg)
        nv = (normal_force(v["gap"], v["v_n"] + dv, *args)[0]
              - normal_force(v["gap"], v["v_n"] - dv, *args)[0]) / (2 * dv)
        Kd = Kd - ng * np.outer(Wn[c], Wn[c])
        Cd = Cd - nv * np.outer(Wn[c], Wn[c])
        closed += 1
    assert closed == 1 and st[7][0] == 1
    Minv = np.linalg.inv(M)
    J = np.zeros((ny, ny))
    J[:nq, nq:2 * nq] = np.eye(nq)
    J[nq:2 * nq, :nq] = -Minv @ Kd
    J[nq:2 * nq, nq:2 * nq] = -Minv @ Cd
    rng = np.random.default_rng(3)
    for lam, fs in ((MU_REAL / h, fr), (complex(MU_RE, MU_IM) / h, fc)):
        r = rng.normal(size=ny) * np.r_[np.full(nq, 1e-4), np.full(nq, 1e-2), np.ones(ny - 2 * nq)]
        r = r.astype(type(lam))
        ref = np.linalg.solve(lam * np.eye(ny) - J, r)
        d = np.zeros(ny, dtype=type(lam))
        N.newton_solve(st, fs, sim.S, lam, r, d, sim.nc)
        for sl in (slice(0, nq), slice(nq, 2 * nq), slice(2 * nq, ny)):
            assert np.linalg.norm(d[sl] - ref[sl]) <= 1e-7 * np.linalg.norm(ref[sl])


@pytest.mark.parametrize("model", ["continuous", "continuous_coulomb"])
def test_newton_rate_against_the_exact_jacobian(model):
    sim, t, y, disc, h = _contact_state(model)
    assert N.newton_usable(disc, sim.S)
    st, fr, fc, _ = _factorized(sim, t, y, disc, h)
    nq, ny = sim.nq, len(y)
    f0, _ = sim.evaluate(t, y, disc)
    Jx = np.zeros((nq, 2 * nq))
    for j in range(2 * nq):
        d = 1e-7 * max(abs(y[j]), 1e-3)
        yp = y.copy()
        yp[j] += d
        Jx[:, j] = (sim.evaluate(t, yp, disc)[0][nq:2 * nq] - f0[nq:2 * nq]) / d
    for lam, fs in ((MU_REAL / h, fr), (complex(MU_RE, MU_IM) / h, fc)):
        # the exact reduced matrix N = lam^2 I - lam J_xv - J_xx against the structured one,
        # column by column: rho(I - N~^-1 N) through N~^-1 = the solve with r = [0, col, 0]
        Nx = lam * lam * np.eye(nq) - lam * Jx[:, nq:] - Jx[:, :nq]
        G = np.zeros((nq, nq), dtype=complex)
        for j in range(nq):
            r = np.zeros(ny, dtype=type(lam))
            r[nq:2 * nq] = Nx[:, j]
            d = np.zeros(ny, dtype=type(lam))
            N.newton_solve(st, fs, sim.S, lam, r, d, sim.nc)
            G[:, j] = d[:nq]
        rate = np.max(np.abs(np.linalg.eigvals(np.eye(nq) - G)))
        assert rate < 1e-2, (model, lam, rate)


def test_at_a_contact_onset_the_matrix_holds_the_stiffness_the_step_reaches():
    """At the landing of the tilted beam (32 elements, Hertz n = 1.5) the contact has no
    stiffness (delta = 0), but a step of h = 0.3 ms penetrates |v_n| h = 0.3 mm, where it has.
    Against the exact Jacobian at the step's end (q + h q'), the iteration with the matrix at
    the step's start contracts at a rate above 1, and converges with the matrix whose contact
    slope is taken at the penetration the step reaches."""
    system, solver = build("falling-beam", "continuous", basis="fe", elements=32, rtol=1e-3,
                           method="Radau", theta0=0.1)
    sim = SystemSimulator(system, 0.1435, solver)
    res = sim.run(audit=False)
    ph = next(p for p in res.phases if any(int(p.disc[4 * c]) != K.FREE for c in range(sim.nc)))
    t, y, disc = ph.sol.t[0], ph.sol.y[:, 0].copy(), ph.disc
    nq, ny = sim.nq, len(y)
    _, out = sim.evaluate(t, y, disc)
    v = [sim.contact_values(out, c) for c in range(sim.nc) if int(disc[4 * c]) != K.FREE][0]
    assert -v["gap"] < 1e-9 and v["v_n"] < -0.5
    h = 3e-4
    ye = y.copy()
    ye[:nq] += h * y[nq:2 * nq]
    fe, _ = sim.evaluate(t + h, ye, disc)
    Jx = np.zeros((nq, 2 * nq))
    for j in range(2 * nq):
        d = 1e-7 * max(abs(ye[j]), 1e-3)
        yp = ye.copy()
        yp[j] += d
        Jx[:, j] = (sim.evaluate(t + h, yp, disc)[0][nq:2 * nq] - fe[nq:2 * nq]) / d
    lam = MU_REAL / h
    Nx = lam * lam * np.eye(nq) - lam * Jx[:, nq:] - Jx[:, :nq]
    rates = {}
    for onset in (False, True):
        st, fr, _ = N.newton_arrays(sim.S)
        N.newton_store(y, disc, sim.S, sim.work[0], out, st)
        if not onset:
            st[8][:, 2] = 0.0                  # the slope at the step's start only
        assert N.newton_factor(st, fr, lam, sim.S)
        G = np.zeros((nq, nq))
        for j in range(nq):
            r = np.zeros(ny)
            r[nq:2 * nq] = Nx[:, j]
            d = np.zeros(ny)
            N.newton_solve(st, fr, sim.S, lam, r, d, sim.nc)
            G[:, j] = d[:nq]
        rates[onset] = np.max(np.abs(np.linalg.eigvals(np.eye(nq) - G)))
    assert rates[False] > 1.0 and rates[True] < 1.0, rates     # measured: 7.4 and 0.72


def test_used_only_where_it_holds():
    for model, usable in (("continuous", True), ("continuous_coulomb", True),
                          ("continuous_lugre", False), ("hybrid_coulomb", False)):
        system, _ = build("falling-beam", model, basis="fe", elements=32)
        S = system.arrays()
        assert S.structured
        assert N.newton_usable(np.zeros(4 * len(system.contacts)), S) is usable, model
    system, _ = build("falling-beam", "continuous", basis="fe", elements=8)
    S = system.arrays()
    assert not S.structured and not N.newton_usable(np.zeros(4 * len(system.contacts)), S)


def _close(a, b, tol=5e-3):
    return abs(a - b) <= tol * max(abs(a), abs(b))


def test_the_structured_path_agrees_with_dop853(monkeypatch):
    monkeypatch.setattr(structured, "STRUCTURED_MIN_NQ", 1)
    kw = dict(basis="fe", elements=4, rtol=1e-6, atol=1e-9)
    system, _ = build("falling-beam", "continuous", **kw)
    S = system.arrays()
    assert S.structured and N.newton_usable(np.zeros(4 * len(system.contacts)), S)
    beam = {m: simulate("falling-beam", "continuous", 0.16, theta0=0.1, method=m, **kw)
            for m in ("DOP853", "Radau")}
    a, b = beam["DOP853"], beam["Radau"]
    assert b.stats["n_jac"] > 0 and a.success and b.success
    sa, sb = (r.summary(times=[0.16])["samples"]["bodies"][0] for r in (a, b))
    assert _close(sa["v_cm"][0][1], sb["v_cm"][0][1])
    assert _close(sa["omega_mean"][0], sb["omega_mean"][0])
    assert _close(*(sum(i["normal_impulse"] for i in r.impacts) for r in (a, b)))
    assert _close(a.impacts[0]["duration"], b.impacts[0]["duration"])
    assert _close(a.impacts[0]["normal_impulse"], b.impacts[0]["normal_impulse"])
    pend = {m: simulate("double-pendulum", "continuous", 0.62, method=m, **kw)
            for m in ("DOP853", "Radau")}
    a, b = pend["DOP853"], pend["Radau"]
    assert b.stats["n_jac"] > 0
    assert len(a.impacts) == len(b.impacts) >= 2
    assert _close(*(sum(i["normal_impulse"] for i in r.impacts) for r in (a, b)))
    assert _close(a.impacts[0]["normal_impulse"], b.impacts[0]["normal_impulse"])
    assert _close(a.impacts[0]["peak_normal_force"], b.impacts[0]["peak_normal_force"])


@pytest.mark.slow
def test_a_run_lands_the_same_with_either_newton_matrix():
    out = {}
    for jac in ("structured", "differences"):
        system, solver = build("falling-beam", "continuous", basis="fe", elements=32, rtol=1e-3,
                               method="Radau", theta0=0.1, jacobian=jac)
        res = SystemSimulator(system, 0.16, solver).run()
        mm = res.mean_motion(res.sample([0.16]))
        out[jac] = (np.array(mm["beam.v_cm"][0]), float(mm["beam.omega_mean"][0]),
                    sum(i["normal_impulse"] for i in res.impacts), res.stats["n_rhs"])
    (v0, w0, p0, n0), (v1, w1, p1, n1) = out["differences"], out["structured"]
    print("structured against differences: v_cm", np.linalg.norm(v1 - v0) / np.linalg.norm(v0),
          "omega", abs(w1 / w0 - 1), "impulse", abs(p1 / p0 - 1), "evaluations", n1, n0)
    assert n1 < n0
    assert np.linalg.norm(v1 - v0) <= 1e-4 * np.linalg.norm(v0)
    assert w1 == pytest.approx(w0, rel=1e-4)
    assert p1 == pytest.approx(p0, rel=1e-4)



def test_the_onset_slope_is_the_hertz_slope_reached_and_keeps_the_friction_terms_sign():
    """At a Hertz point's onset (gap 0, approaching at 1 m/s) a step with lam = gamma / h
    reaches the penetration 1 / |lam|, where N = K delta^n has the slope K n delta^(n - 1)
    (written here, not the code's): the normal term takes it.  A modified Coulomb point's
    friction term is -mu times the normal one (F_t = -mu N) and must keep that sign and ratio."""
    system, _ = build("falling-beam", "continuous_coulomb", basis="fe", elements=32)
    S = system.arrays()
    st = N.newton_arrays(S)[0]
    Kc, n = 1e9, 1.5                                 # the case's contact stiffness and exponent
    mu, lam = 0.3, MU_REAL / 3e-4
    st[5][0], st[5][1] = 1.0, -mu * 1.0              # the slopes at the step's start (tiny)
    st[8][0] = (0.0, -1.0, 1.0, 0.0, 1.0)            # gap, v_n, multiplier, point, v_in
    st[8][1] = (0.0, -1.0, -mu, 0.0, 1.0)
    k0, k1 = N._onset_kq(st, 0, lam, S), N._onset_kq(st, 1, lam, S)
    assert k0 == pytest.approx(Kc * n * (1.0 / lam) ** (n - 1.0), rel=1e-12)
    assert k1 == pytest.approx(-mu * k0, rel=1e-12)
