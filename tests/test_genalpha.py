"""The generalized-alpha integrator (flexlib.solver.genalpha): its coefficients, and the same
answers as the other integrators on the systems' runs.

The coefficients are checked against the linear oscillator x'' = -w^2 x, whose one-step map this
file writes down again from the method's defining equations (Arnold & Bruels 2007): its spectral
radius is rho_inf where the step does not resolve the oscillation (w h -> infinity) and 1 where
it does (w h -> 0), and its phase error falls like h^2 (second order).

The runs: the tilted falling beam on 8 Hermite elements (0-0.16 s, continuous Hertz contact) and
the double pendulum's first contact burst (default bases, 0-0.62 s), with the generalized-alpha
step at rtol 1e-4 against Radau IIA and DOP853 at their own tolerances; the quantities a user
reads agree within 0.5 %.  The step damps the modes it does not resolve, and its energy error is
not hidden: the run reports it as ``numerical_dissipation`` and the audit names it.
"""
import numpy as np
import pytest

from flexlib.cases import simulate
from flexlib.solver import genalpha
from test_implicit_systems import assert_same_drop

TOL = 5e-3


def _close(a, b):
    return abs(a - b) <= TOL * max(abs(a), abs(b))


def _oscillator_map(wh, rho):
    """The one-step map of (w x, v, abar / w) for x'' = -w^2 x with step h = wh / w (w = 1)."""
    am = (2.0 * rho - 1.0) / (rho + 1.0)
    af = rho / (rho + 1.0)
    g = 0.5 + af - am
    b = 0.25 * (g + 0.5) ** 2
    h = wh
    cols = []
    for e in np.eye(3):
        x, v, ab = e
        a = -x
        # a1 = -x1, x1 = x + h v + h^2 ((1/2 - b) ab + b ab1), ab1 = (af a + (1 - af) a1 - am ab)
        # / (1 - am): linear in a1
        c0 = (af * a - am * ab) / (1.0 - am)
        c1 = (1.0 - af) / (1.0 - am)
        x_rest = x + h * v + h * h * ((0.5 - b) * ab + b * c0)
        a1 = -x_rest / (1.0 + h * h * b * c1)
        ab1 = c0 + c1 * a1
        x1 = -a1
        v1 = v + h * ((1.0 - g) * ab + g * ab1)
        cols.append([x1, v1, ab1])
    return np.array(cols).T


@pytest.mark.parametrize("rho", [0.3, 0.5, 0.8, 1.0])
def test_coefficients_damp_the_unresolved_modes_to_rho_inf_and_keep_the_resolved(rho):
    am, af, g, b = genalpha.coefficients(rho)
    assert g == pytest.approx(0.5 + af - am) and b == pytest.approx(0.25 * (g + 0.5) ** 2)
    # (rho_inf is a triple eigenvalue at infinity: at finite w h its numerical radius is off by
    # about the cube root of 1 / (w h)^2)
    for wh, want, tol in ((1e9, rho, 1e-4), (1e-3, 1.0, 1e-6)):
        radius = max(abs(np.linalg.eigvals(_oscillator_map(wh, rho))))
        assert radius == pytest.approx(want, abs=tol)


def test_the_method_is_second_order_on_the_oscillator():
    """The phase after t = 1 (w = 1) from x = 1, v = 0: its error falls 4x per halving."""
    errs = []
    for n in (100, 200, 400):
        A = _oscillator_map(1.0 / n, genalpha.RHO_INF)
        s = np.array([1.0, 0.0, -1.0])
        for _ in range(n):
            s = A @ s
        errs.append(np.hypot(s[0] - np.cos(1.0), s[1] + np.sin(1.0)))
    assert 3.5 < errs[0] / errs[1] < 4.5 and 3.5 < errs[1] / errs[2] < 4.5


def _local_errors(rho, h, t0=0.3, warm=60):
    """On q'' = e^t (a given acceleration): the velocity update's local error over one step from
    the exact state at t0 + warm h, with abar carried over ``warm`` steps from abar_0 = a_0 (its
    start-up offset halves every step), and the trapezoidal rule's over the same step."""
    am, af, g, _ = genalpha.coefficients(rho)
    t, ab = t0, np.exp(t0)
    for _ in range(warm):
        ab = ((1.0 - af) * np.exp(t + h) + af * np.exp(t) - am * ab) / (1.0 - am)
        t += h
    ab1 = ((1.0 - af) * np.exp(t + h) + af * np.exp(t) - am * ab) / (1.0 - am)
    v1 = np.exp(t) + h * ((1.0 - g) * ab + g * ab1)
    trap = np.exp(t) + 0.5 * h * (np.exp(t) + np.exp(t + h))
    return v1 - np.exp(t + h), trap - np.exp(t + h), np.exp(t)


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_the_velocity_error_estimate_is_the_steps_own_local_error(rho):
    """The step's velocity error is C_v h^3 q'''' (q'''' = e^t here), the trapezoidal rule's
    h^3 q''''/12, and ERR_V times the two updates' difference is the step's error, to O(h)
    relative.  At rho_inf = 1 (no damping) the update is the trapezoidal rule's."""
    c_v = genalpha.velocity_error_constant(rho)
    for h in (4e-3, 2e-3):
        err, trap, d4 = _local_errors(rho, h)
        assert err / (h ** 3 * d4) == pytest.approx(c_v, rel=h)
        assert trap / (h ** 3 * d4) == pytest.approx(1.0 / 12.0, rel=h)
        assert c_v / (c_v - 1.0 / 12.0) * (err - trap) == pytest.approx(err, rel=h)
    assert genalpha.velocity_error_constant(0.8) == pytest.approx(29.0 / 324.0, rel=1e-12)
    assert genalpha.ERR_V == pytest.approx(14.5, rel=1e-12) and genalpha.RHO_INF == 0.8
    assert genalpha.velocity_error_constant(1.0) == pytest.approx(1.0 / 12.0)


def test_the_error_norm_weighs_the_velocities_by_milnes_factor():
    """One step's norm from hand-made states: with a_{n+1} = a_n the positions' estimate is zero,
    and a velocity update d away from the trapezoidal rule's counts ERR_V d in the root mean
    square over the 2 n2 positions and velocities."""
    n2, h, d = 3, 1e-3, 2e-7
    y = np.array([0.1, -0.2, 0.3, 1.0, 2.0, -1.0, 5.0])       # q, q', one more state
    f = np.array([1.0, 2.0, -1.0, 0.5, -0.5, 0.25, 0.0])      # q', q'' = a_n, its rate
    a1 = f[n2:2 * n2].copy()
    y1 = y.copy()
    y1[:n2] += h * y[n2:2 * n2]
    y1[n2:2 * n2] += h * a1
    y1[n2] += d                                               # the first velocity off by d
    atol, rtol = np.full(7, 1e-6), 1e-3
    scale = atol[n2] + rtol * max(abs(y[n2]), abs(y1[n2]))
    want = genalpha.ERR_V * d / scale / np.sqrt(2 * n2)
    assert genalpha._error_norm(y, y1, f, a1, h, n2, atol, rtol) == pytest.approx(want, rel=1e-12)
    a1[0] += 1.0                                              # now the positions' estimate too
    wq = h * h * genalpha.ERR_C / (atol[0] + rtol * max(abs(y[0]), abs(y1[0])))
    wv = (genalpha.ERR_V * (d - 0.5 * h)) / scale
    got = genalpha._error_norm(y, y1, f, a1, h, n2, atol, rtol)
    assert got == pytest.approx(np.sqrt((wq * wq + wv * wv) / (2 * n2)), rel=1e-12)


def test_the_newton_matrix_is_the_reduced_one_within_half_a_percent():
    """The module's Newton matrix lam^2 I - J_q - lam J_v stands for lam^2 I - J_q - lam' J_v,
    lam' = gamma / (h beta): the two lams differ by < 0.5 % at the chosen rho_inf."""
    am, af, g, b = genalpha.coefficients(genalpha.RHO_INF)
    lam = ((1.0 - am) / (1.0 - af) / b) ** 0.5
    assert lam == pytest.approx(genalpha.LAM_H)
    assert abs(g / b / lam - 1.0) < 5e-3


def test_lugre_friction_is_refused_by_name():
    from flexlib.cases import build
    from flexlib.multibody.simulate import SystemSimulator
    system, solver = build("double-pendulum", "lugre")
    with pytest.raises(ValueError, match="parameter 'method' = 'gen-alpha'.*LuGre"):
        SystemSimulator(system, 0.1, solver.replace(method="gen-alpha"))


@pytest.fixture(scope="module")
def beams():
    kw = dict(basis="fe", elements=8, theta0=0.1, rtol=1e-4)
    return {m: simulate("falling-beam", "continuous", 0.16, method=m, **kw)
            for m in ("Radau", "gen-alpha")}


@pytest.mark.slow
def test_falling_beam_same_motion_and_impulses_as_radau(beams):
    assert beams["gen-alpha"].stats["method"] == "gen-alpha" and beams["gen-alpha"].stats["n_jac"]
    assert_same_drop(beams["Radau"], beams["gen-alpha"])


@pytest.mark.slow
def test_its_energy_error_is_reported_not_hidden(beams):
    """The generalized-alpha run loses (or gains) energy that no work explains: the result
    reports it, the audit's residual is at least as large, and a run whose residual passes the
    audit's bound says so in its warnings."""
    r = beams["gen-alpha"]
    e = r.summary()["energy"]
    assert 0.0 < abs(e["numerical_dissipation"]) < 1e-2 * e["audit_scale"]
    assert e["audit_residual_max"] >= abs(e["numerical_dissipation"])
    if e["audit_residual_max"] > 1e-6 * e["audit_scale"]:
        assert not r.success and any("energy audit" in w for w in r.warnings)


@pytest.mark.slow
def test_pendulum_burst_same_impulses_as_dop853():
    a = simulate("double-pendulum", "continuous", 0.62, method="DOP853")
    b = simulate("double-pendulum", "continuous", 0.62, method="gen-alpha", rtol=1e-4)
    assert len(a.impacts) == len(b.impacts) >= 1
    assert _close(*(sum(i["normal_impulse"] for i in r.impacts) for r in (a, b)))
    assert _close(a.impacts[0]["normal_impulse"], b.impacts[0]["normal_impulse"])
    assert _close(a.impacts[0]["peak_normal_force"], b.impacts[0]["peak_normal_force"])


@pytest.mark.slow
def test_a_flat_drop_keeps_its_symmetry():
    """Both ends land together: the step must not turn the beam (mean angular velocity at most
    1e-6 rad/s) and both ends take the same total impulse."""
    r = simulate("falling-beam", "continuous", 0.16, basis="fe", elements=8, theta0=0.0,
                 method="gen-alpha", rtol=1e-3)
    om = r.summary(times=[0.16])["samples"]["bodies"][0]["omega_mean"][0]
    assert abs(om) <= 1e-6
    imp = {}
    for i in r.impacts:
        imp[i["contact"]] = imp.get(i["contact"], 0.0) + i["normal_impulse"]
    assert len(imp) == 2 and min(imp.values()) > 0.5
    assert abs(imp["P1"] - imp["P2"]) <= 1e-6 * imp["P1"]
