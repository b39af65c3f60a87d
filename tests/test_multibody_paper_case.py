"""The paper's case built as a one-body system from the multibody parts (a beam hinged to the
ground, the slope as a half-plane, the tip as a contact point) agrees with the single-beam solver
that produced the paper's figures: the same first impact and the same motion.

The two are independent implementations of the events and the contact-mode selection (the
multibody one chooses the modes of all closed points together; the single-beam one has its own
rules); the beam's M and Q are the same code (checked to the bit in test_multibody.py)."""
import math

import numpy as np
import pytest

import flexlib as fl
import flexlib.multibody as mb
from flexlib.cases import build, simulate
from flexlib.params import paper_case

T_END = 0.6          # s: the first impact (t = 0.333 s) and the flight after it


def paper_system(model: str) -> mb.System:
    """The case ``beam-on-slope`` with case 3.2's values (its defaults), checked here against the
    values of :func:`flexlib.paper_case` so that the two runs below are one model."""
    case = paper_case("3.2")
    system, _ = build("beam-on-slope", model)
    sp = case.slope
    (body,), (slope,), (tip,) = system.bodies, system.obstacles, system.contacts
    assert body.beam == case.beam and body.theta0 == case.beam.theta0
    assert isinstance(body.joint, mb.GroundHinge) and tuple(body.joint.point) == (0.0, 0.0)
    assert tuple(slope.origin) == (sp.X1, 0.0)
    assert np.allclose(slope.normal, (-math.sin(sp.alpha), math.cos(sp.alpha)), rtol=0, atol=1e-16)
    assert tip.x == case.beam.L and (system.chi, system.beta) == (sp.chi, sp.beta)
    return system


@pytest.mark.parametrize("model", ["frictionless", "hybrid_coulomb"])
def test_paper_case_as_a_one_body_system(model):
    case = paper_case("3.2")
    res = mb.SystemSimulator(paper_system(model), T_END, case.solver).run()
    ref = fl.simulate(case, model, T_END)
    first, im = res.impacts[0], ref.impacts[0]
    # the same flight and the same instant of contact, to the regression fingerprints' 1e-12
    # (measured 2.4e-13 s; theta before the impact 6e-13 rad): M and Q are the same bits, the
    # solves and the event location differ in round-off only
    assert abs(first["t_start"] - im["t_start"]) <= 1e-12 * im["t_start"]
    before = np.linspace(0.0, im["t_start"], 12)[:-1]
    assert np.abs(res.history(before)["beam.theta"] - ref.sample(before, "theta")).max() < 1e-11
    # the single-beam solver clusters the episodes of one impact; the multibody result lists them
    episodes = [r for r in res.impacts if r["t_start"] <= im["t_end"] + 1e-9]
    assert abs(episodes[-1]["t_end"] - im["t_end"]) < 1e-6
    total = sum(r["normal_impulse"] for r in episodes)
    assert total == pytest.approx(im["normal_impulse"], rel=1e-4)
    ts = np.linspace(0.0, T_END, 13)
    h = res.history(ts)
    # after the impact the two event and mode-selection codes part by round-off that the
    # contact amplifies (measured at these 13 times 3.1e-7 rad frictionless, 1.4e-7 rad hybrid
    # Coulomb; at 1201 times 5.6e-7 and 2.6e-7)
    assert np.abs(h["beam.theta"] - ref.sample(ts, "theta")).max() < 1e-6
    # the energy books close to the integration's accuracy (rtol = 1e-8; measured 1.8e-8 of E0
    # frictionless): W_N and W_F are integrated with the motion, so the residual is the
    # integration error, not a quadrature's
    audit = res.audit()
    assert audit["max_residual"] <= 100 * case.solver.rtol * audit["scale"]


def test_beam_on_slope_rigid_interior_point_against_the_pendulum():
    """A contact point inside the beam, which the single-beam solver cannot model: with n_modes = 0
    the beam is a rigid rod on a hinge, falling from rest at theta0.  Energy gives
    theta'^2 = (3 g / L)(sin theta0 - sin theta); the point x strikes the slope when
    x sin(theta - alpha) = -X1 sin(alpha), and with e = 0 and no friction its impulse stops the
    point's normal velocity: P = I |theta'| / (x cos(theta - alpha)), I = m L^2 / 3."""
    from scipy.integrate import quad

    frac = 0.9
    res = simulate("beam-on-slope", "frictionless", 0.45, n_modes=0, contact_at=frac)
    b, sp = paper_case("3.2").beam, paper_case("3.2").slope
    x, g, th0 = frac * b.L, b.g0, b.theta0
    th_c = sp.alpha - math.asin(sp.X1 * math.sin(sp.alpha) / x)
    w2 = 3.0 * g / b.L

    def dt(u):          # theta = theta0 - u^2 removes the 1/sqrt singularity at the release
        return 2.0 * u / math.sqrt(w2 * (math.sin(th0) - math.sin(th0 - u * u))) if u else \
            2.0 / math.sqrt(w2 * math.cos(th0))
    t_c, _ = quad(dt, 0.0, math.sqrt(th0 - th_c), epsabs=1e-14, epsrel=1e-13)
    first = res.impacts[0]
    assert first["contact"] == "P"
    # measured: the instant to 5e-14 of itself, the impulse to 1.2e-12 (the point is taken to
    # land 1e-12 m below the slope, where its speed is higher by g delta / v^2 of itself)
    assert abs(first["t_start"] - t_c) <= 1e-12 * t_c
    omega = math.sqrt(w2 * (math.sin(th0) - math.sin(th_c)))
    inertia = b.rho * b.S * b.L ** 3 / 3.0
    assert first["jump_impulse"] == pytest.approx(inertia * omega / (x * math.cos(th_c - sp.alpha)),
                                                  rel=1e-11)
