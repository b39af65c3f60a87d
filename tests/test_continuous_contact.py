"""The continuous contact force (penalty) method: physics checks of flexlib.contact.penalty and of the
models ``continuous_coulomb`` / ``continuous_lugre``.

Each check compares the library with something it does not compute itself: energy conservation
of an elastic law, a point mass integrated here with scipy, a rigid hinged rod integrated here
with scipy, a closed form (Kelvin-Voigt), the constraint models' first contact, and identities
between independently stored histories.  Every tolerance says in a comment what was measured
(compiled kernel, DOP853, default solver settings unless stated) and why the bound is what it is.
"""
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import flexlib as fl
from flexlib.contact import penalty
from flexlib.contact.slope import Slope
from flexlib.contact.friction import modified_coulomb
from flexlib.params import paper_case

ROOT = Path(__file__).resolve().parents[1]
CONTINUOUS = ("continuous_coulomb", "continuous_lugre")


def _k(h, t, side):
    """Index of the sample at an impact's start ("left": the first sample at t) or end
    ("right": the last sample at or before t), as flexlib.history reads energy_before/after."""
    if side == "left":
        return int(np.searchsorted(h["t"], t, "left"))
    return int(np.searchsorted(h["t"], t, "right")) - 1


# ----------------------------------------------------------------------------------------------
# 1. Hertz (elastic) law, no friction: the first impact returns all of its energy
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hertz_run():
    # 0.4 s: the first impact cluster (0.3329-0.3433 s, 4 episodes) and more than t_cluster of
    # flight after it, so the cluster is complete.  e is not used by the hertz law (default 0).
    return fl.simulate("3.2", "continuous_coulomb", 0.4, contact_law="hertz", mu_d=0.0)


def test_hertz_first_impact_conserves_energy(hertz_run):
    r = hertz_run
    assert r.success
    im = r.impacts[0]
    # the cluster is complete: nothing starts within t_cluster after its end
    assert all(o["t_start"] - im["t_end"] >= r.case.solver.t_cluster for o in r.impacts[1:])
    assert im["t_end"] + r.case.solver.t_cluster <= r.t[-1]
    assert im["jump_loss"] == 0.0
    # The bound asked for is 1e-8 E0.  Measured with the default solver settings (rtol 1e-8,
    # atol 1e-10): |E_after - E_before| = 3.5e-10 E0 (rtol 1e-10: 1.9e-11 E0, rtol 1e-12:
    # 6e-13 E0, so the remainder is integration error); the defaults reach the bound with a
    # factor ~30 to spare, so no tighter settings are needed.
    assert abs(im["energy_after"] - im["energy_before"]) <= 1e-8 * r.E0
    # the contact was real: a large part of E0 went through the penetration and came back
    h = r.h
    assert im["max_penetration"] > 1e-4                  # measured 3.1e-4 m
    assert h["E_pen"].max() > 0.1 * r.E0                 # measured 0.68 J = 0.23 E0


def test_hertz_stored_energy_returns(hertz_run):
    r = hertz_run
    h = r.h
    im = r.impacts[0]
    k1 = _k(h, im["t_end"], "right")
    free = h["mode"] == 0
    # no penetration energy outside contact, and none left at the separation
    assert np.all(h["E_pen"][free] == 0.0)
    assert h["E_pen"][k1] == 0.0
    assert h["mode"][k1 + 1] == 0
    # the Hertz law has no damping: what the normal force took it stored and gave back.
    # Measured max |W_N_dissipated| = 7.9e-9 J = 2.6e-9 E0 (integration error of W_N, an
    # integrated state, against E_pen, a function of the gap), while E_pen peaked at 0.23 E0.
    assert np.max(np.abs(h["W_N_dissipated"])) <= 1e-8 * r.E0
    assert abs(im["normal_dissipation"]) <= 1e-8 * r.E0
    # during the contact the mechanical energy plus the stored energy is E0 (no friction).
    # Measured max |E + E_pen - E0| = 4.8e-9 E0 (audit residual 2.8e-9 E0 plus the
    # W_N_dissipated error); 2e-8 E0 bounds both together, 10^7 below E_pen's peak.
    assert np.max(np.abs(h["E"] + h["E_pen"] - r.E0)) <= 2e-8 * r.E0


# ----------------------------------------------------------------------------------------------
# 2. A point mass dropped on the slope: the restitution each law really gives
# ----------------------------------------------------------------------------------------------
M_DROP = 0.869          # kg, about the beam's mass rho S L (the value does not enter e_out)


def drop_restitution(law, e, v, K=1e9, n=1.5, C=0.0, m=M_DROP, v_zeno=1e-2):
    """e_out = separation speed / approach speed of a rigid point mass hitting a rigid plane
    normally at speed v [m/s] with the penalty force of flexlib.contact.penalty (no gravity: the laws'
    e is defined for the pure impact, and gravity's impulse over the contact would shift e_out).

    The state is (delta, delta') with delta the penetration; the gap is -delta, v_n = -delta'.
    The approach speed of the damping term is the library's choice: max(v, v_zeno)."""
    D = penalty.damping_factor(law, e)
    v_in = max(v, v_zeno)

    def rhs(t, y):
        N, _raw = penalty.normal_force(-y[0], -y[1], K, n, D, C, v_in)
        return [y[1], -N / m]

    def separation(t, y):
        return y[0]
    separation.terminal, separation.direction = True, -1
    # the largest penetration of the elastic law sets the scales of length and time
    dmax = ((n + 1.0) * 0.5 * m * v * v / K) ** (1.0 / (n + 1.0))
    tc = dmax / v
    sol = solve_ivp(rhs, (0.0, 200.0 * tc), [0.0, v], method="DOP853", rtol=1e-12,
                    atol=[1e-13 * dmax, 1e-13 * v], events=separation, max_step=tc / 50.0)
    assert sol.status == 1, f"no separation: {sol.message}"
    return -sol.y_events[0][0][1] / v


def kelvin_voigt_restitution(K, C, m):
    """Closed form of the linear spring-dashpot m x'' + C x' + K x = 0, x(0) = 0, x'(0) = v,
    whose contact ends where the force K x + C x' reaches 0 (it would pull afterwards; the clip
    makes the mass fly off with the velocity it has there): with w0 = sqrt(K/m),
    z = C / (2 sqrt(K m)) < 1, s = sqrt(1 - z^2), the force vanishes at w0 s t* = phi with
    cos(phi) = -(1 - 2 z^2), sin(phi) = 2 z s, where x'(t*) = -v exp(-z phi / s), so
    e = exp(-z phi / s), independent of v.  (Schwager & Poeschel, "Coefficient of restitution and
    linear-dashpot model revisited", Granular Matter 9 (2007) 465-469.)"""
    z = C / (2.0 * math.sqrt(K * m))
    s = math.sqrt(1.0 - z * z)
    phi = math.atan2(2.0 * z * s, -(1.0 - 2.0 * z * z))
    return math.exp(-z * phi / s)


# Measured e_out (v = 0.1 and 2 m/s give the same digits), K = 1e9 N/m^1.5, n = 1.5:
#   e                    0.2     0.3     0.5     0.7     0.8     0.9     0.95    1.0
#   flores               0.1555  0.2562  0.4704  0.6832  0.7885  0.8939  0.9468  1
#   hunt_crossley        0.5469  0.5813  0.6630  0.7680  0.8329  0.9090  0.9524  1
#   lankarani_nikravesh  0.6723  0.6842  0.7252  0.7960  0.8471  0.9132  0.9535  1
#   hertz                1 for every e
# Flores' law is the only one of the three usable over the whole range, but it is not exact: it
# dissipates slightly too much, |e_out - e| <= 0.017 for e >= 0.7 and 0.030-0.045 for
# e in [0.2, 0.5] (a bound of 0.02 over [0.2, 1] is not what the law gives).  The other two laws
# dissipate too little as e falls: their series expansions hold near e = 1.
FLORES_CLOSE = (0.7, 0.8, 0.9, 0.95, 1.0)
FLORES_LOW = (0.2, 0.3, 0.5)


@pytest.mark.parametrize("e", FLORES_CLOSE)
def test_flores_restitution_near_e(e):
    # 0.02: the law's own error is at most 0.017 here (e = 0.7), the integration error ~1e-10
    assert abs(drop_restitution("flores", e, 0.1) - e) <= 0.02


@pytest.mark.parametrize("e", FLORES_LOW)
def test_flores_restitution_low_e_dissipates_a_little_too_much(e):
    # measured e - e_out = 0.045 (0.2), 0.044 (0.3), 0.030 (0.5): a known property of the law
    # (approximate energy balance of Flores et al. 2011), not an integration error
    e_out = drop_restitution("flores", e, 0.1)
    assert 0.0 < e - e_out <= 0.05


@pytest.mark.parametrize("e", (0.9, 0.95, 1.0))
def test_hunt_crossley_restitution_near_one(e):
    # measured |e_out - e| = 0.009 (0.9), 0.002 (0.95), 0 (1)
    assert abs(drop_restitution("hunt_crossley", e, 0.1) - e) <= 0.02


def test_hunt_crossley_restitution_too_high_at_low_e():
    # the documented weakness: at e = 0.5 the law rebounds with 0.663 (measured), far too
    # elastic; the bound e + 0.1 is a property of the law that a wrong D(e) would break
    assert drop_restitution("hunt_crossley", 0.5, 0.1) > 0.5 + 0.1


@pytest.mark.parametrize("e", (0.9, 0.95, 1.0))
def test_lankarani_nikravesh_restitution_near_one(e):
    # measured |e_out - e| = 0.013 (0.9), 0.0035 (0.95), 0 (1)
    assert abs(drop_restitution("lankarani_nikravesh", e, 0.1) - e) <= 0.02


@pytest.mark.parametrize("e, excess", [(0.7, 0.05), (0.8, 0.03)])
def test_lankarani_nikravesh_restitution_in_its_lower_range(e, excess):
    # its usual validity statement is e >~ 0.7, but there it is already too elastic:
    # measured e_out = 0.796 at e = 0.7 (+0.096) and 0.847 at e = 0.8 (+0.047); < 0.1 above e
    e_out = drop_restitution("lankarani_nikravesh", e, 0.1)
    assert e + excess < e_out < e + 0.1


@pytest.mark.parametrize("e", (0.0, 0.5, 1.0))
def test_hertz_restitution_is_one(e):
    # e is ignored by the elastic law; measured |e_out - 1| < 1e-12
    assert abs(drop_restitution("hertz", e, 0.1) - 1.0) <= 1e-6


@pytest.mark.parametrize("law, e", [("flores", 0.3), ("flores", 0.8), ("hunt_crossley", 0.9),
                                    ("lankarani_nikravesh", 0.9)])
def test_hysteresis_restitution_is_independent_of_speed(law, e):
    # the laws scale with delta'/delta'_in: e_out is the same at 0.1 and 2 m/s (both above
    # v_zeno); measured difference <= 4e-15, bound 1e-8 (integration tolerance 1e-12)
    assert abs(drop_restitution(law, e, 0.1) - drop_restitution(law, e, 2.0)) <= 1e-8


def test_slow_approach_below_v_zeno_is_damped_less():
    # below v_zeno the damping term uses v_zeno instead of the approach speed (a library choice,
    # flexlib/contact/penalty.py): the relative damping D delta'/v_zeno is smaller, so a slow contact
    # rebounds more elastically than the law's e (measured 0.904 at 1e-3 m/s, 0.470 at 0.1 m/s)
    e = 0.5
    assert drop_restitution("flores", e, 1e-3) > drop_restitution("flores", e, 0.1) + 0.05


@pytest.mark.parametrize("C", (10.0, 100.0, 1000.0))
def test_kelvin_voigt_restitution_matches_closed_form(C):
    K, m = 1e7, M_DROP                    # z = 0.0017, 0.017, 0.17
    exact = kelvin_voigt_restitution(K, C, m)
    for v in (0.1, 2.0):
        # measured |numeric - closed form| <= 1.7e-10; 1e-8 bounds the integration error
        e_out = drop_restitution("kelvin_voigt", 0.5, v, K=K, n=1.0, C=C)
        assert abs(e_out - exact) <= 1e-8
    assert exact < 1.0


# ----------------------------------------------------------------------------------------------
# 3. The rigid limit: a very stiff beam hits like a rigid hinged rod
# ----------------------------------------------------------------------------------------------
K_SOFT = 1e6            # N/m^1.5: contact ~6 ms, penetration ~8 mm


def rigid_rod_impact(mu_d, K=K_SOFT, n=1.5, law="hertz", e=0.5):
    """A rigid rod of case 3.2 (length L, mass rho S L, J = rho S L^3 / 3 about the hinge, weight
    at L/2) released at rest at theta0, its tip meeting the case's slope with the penalty law and
    the modified Coulomb friction of the library.  Integrated with scipy; returns
    (t_on, t_off, theta_dot_on, theta_dot_off)."""
    c = paper_case("3.2")
    b, fr = c.beam, c.coulomb
    sl = Slope.from_params(c.slope)
    nv, tv, O = sl.n, sl.t, sl.origin
    L, g = b.L, b.g0
    m = b.rho * b.S * b.L
    J = m * L * L / 3.0
    D = penalty.damping_factor(law, e)

    def kin(th):
        r = L * np.array([math.cos(th), math.sin(th)])
        dr = L * np.array([-math.sin(th), math.cos(th)])       # d r_tip / d theta
        return float(nv @ (r - O)), float(nv @ dr), float(tv @ dr)

    def gravity(th):
        return -m * g * 0.5 * L * math.cos(th)

    def free(t, y):
        return [y[1], gravity(y[0]) / J]

    def hit(t, y):
        return kin(y[0])[0]
    hit.terminal, hit.direction = True, -1
    tol = dict(method="DOP853", rtol=1e-12, atol=1e-14)
    s1 = solve_ivp(free, (0.0, 1.0), [b.theta0, 0.0], events=hit, **tol)
    t_on, y_on = s1.t_events[0][0], s1.y_events[0][0]
    v_in = max(-kin(y_on[0])[1] * y_on[1], c.slope.v_zeno)

    def contact(t, y):
        gap, Pn, Pt = kin(y[0])
        N, _raw = penalty.normal_force(gap, Pn * y[1], K, n, D, 0.0, v_in)
        mu = modified_coulomb(Pt * y[1], mu_d, fr.v0, fr.v1)
        return [y[1], (gravity(y[0]) + N * Pn - mu * N * Pt) / J]

    def opens(t, y):
        return kin(y[0])[0]
    opens.terminal, opens.direction = True, 1
    s2 = solve_ivp(contact, (t_on, t_on + 1.0), y_on, events=opens, max_step=1e-5, **tol)
    t_off, y_off = s2.t_events[0][0], s2.y_events[0][0]
    return t_on, t_off, y_on[1], y_off[1]


def stiff_beam_impact(mu_d, E_factor):
    """flexlib's first impact with E raised E_factor times, one bending mode, the soft Hertz law:
    (result, impact, theta_dot ratio, p_theta ratio, p_theta before / J)."""
    r = fl.simulate("3.2", "continuous_coulomb", 0.345, E=68.952e9 * E_factor, n_modes=1,
                    contact_law="hertz", contact_stiffness=K_SOFT, mu_d=mu_d)
    h = r.h
    im = r.impacts[0]
    k0, k1 = _k(h, im["t_start"], "left"), _k(h, im["t_end"], "right")
    bm = fl.BeamModel(r.case.beam)

    def p_theta(k):
        # the angular momentum about the hinge, dT/dtheta' = M[0] q'; for the rigid rod J theta'
        q = np.r_[h["theta"][k], h["B"][k]]
        qd = np.r_[h["theta_dot"][k], h["B_dot"][k]]
        return float(bm.mass_matrix(q)[0] @ qd)
    J = float(bm.mass_matrix(np.zeros(2))[0, 0])
    return (r, im, h["theta_dot"][k1] / h["theta_dot"][k0], p_theta(k1) / p_theta(k0),
            p_theta(k0) / J)


@pytest.fixture(scope="module")
def rigid_limit():
    out = {}
    for mu in (0.0, 0.4):
        out[mu] = dict(rod=rigid_rod_impact(mu), **{f"E{int(f)}": stiff_beam_impact(mu, f)
                                                     for f in (1e4, 1e5)})
    return out


@pytest.mark.parametrize("mu_d", (0.0, 0.4))
def test_stiff_beam_hits_like_a_rigid_rod(rigid_limit, mu_d):
    """Measured (E x 1e4, n_modes = 1, K = 1e6 N/m^1.5; the rod from scipy):

    ======  ===============  ==================  ==================  ==========
    mu_d    quantity         rod                 flexlib             difference
    ======  ===============  ==================  ==================  ==========
    0       p_theta ratio    -0.99999999999573   -0.99999999980274   2.0e-10
    0       theta' ratio     -0.99999999999573   -0.99985762         1.4e-4
    0.4     p_theta ratio    -0.93613473940      -0.93614328983      8.6e-6
    0.4     theta' ratio     -0.93613473940      -0.93624042         1.1e-4
    ======  ===============  ==================  ==================  ==========

    The contact (6.0 ms) is long against the 1e4-stiffened first bending period (0.7 ms) and
    short against the swing (~0.3 s).  theta' is the rotation rate of the floating frame; with
    the beam's residual vibration it oscillates about the rigid-body rate (by M_thetaB B'/J),
    so its ratio agrees to ~1e-4 only and does not converge with E (1e-3 at E x 1e5 with
    friction).  The hinge angular momentum p_theta = M[0] q' is the rigid rod's J theta' and is
    not disturbed by the vibration (dp_theta/dt = gravity + contact torques): its ratio agrees
    to 2e-10 without friction and 8.6e-6 with friction, and the friction difference falls as 1/E
    (8.6e-7 at E x 1e5, the largest E the range allows is 1.45e5)."""
    lim = rigid_limit[mu_d]
    t_on, t_off, thd_on, thd_off = lim["rod"]
    rod_ratio = thd_off / thd_on
    r, im, thd_ratio, p_ratio, p_on = lim["E10000"]
    assert r.success and im["episodes"] == 1 and im["max_penetration"] > 1e-3
    # the same approach (the free swing of a stiff beam is the rod's): measured 2e-9 relative
    assert p_on == pytest.approx(thd_on, rel=1e-6)
    assert im["t_start"] == pytest.approx(t_on, abs=1e-8)            # measured 4e-10 s
    # the same contact duration: measured 3.9e-7 s of 6.0e-3 s
    assert (im["t_end"] - im["t_start"]) == pytest.approx(t_off - t_on, rel=1e-3)
    if mu_d == 0.0:
        assert rod_ratio == pytest.approx(-1.0, abs=1e-9)     # elastic, frictionless rod
        assert abs(p_ratio - rod_ratio) <= 1e-8               # measured 2.0e-10
    else:
        assert rod_ratio > -0.95                               # friction took energy: -0.936
        assert abs(p_ratio - rod_ratio) <= 1e-4                # measured 8.6e-6
        # ... and the remaining difference is the beam's flexibility: 10x E, ~10x smaller
        p_ratio_5 = lim["E100000"][3]
        assert abs(p_ratio_5 - rod_ratio) <= 0.2 * abs(p_ratio - rod_ratio)   # measured 0.10
    # the frame's rate: 5e-4 bounds the vibration's share measured at 1.4e-4 / 1.1e-4
    assert abs(thd_ratio - rod_ratio) <= 5e-4


# ----------------------------------------------------------------------------------------------
# 4. The whole run of both continuous models: audit, signs, bookkeeping
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def full_runs():
    return {m: fl.simulate("3.2", m, 2.0, e=0.5) for m in CONTINUOUS}


@pytest.mark.parametrize("model", CONTINUOUS)
def test_whole_run_audit_and_signs(full_runs, model):
    r = full_runs[model]
    h = r.h
    assert r.success and r.t[-1] == pytest.approx(2.0, abs=1e-12)
    # measured 6.1e-8 E0 (continuous_coulomb), 3.8e-8 E0 (continuous_lugre)
    assert r.audit_residual_max <= 1e-6 * r.E0
    for key in ("N", "N_clipped", "penetration", "E_pen", "W_N", "W_N_dissipated", "E"):
        assert np.all(np.isfinite(h[key])), key
    assert np.all(h["N"] >= 0.0)
    assert np.all(h["N_clipped"] >= 0.0)        # max measured 1502 N / 3.7 N: the clip acts
    assert np.all(h["penetration"] >= 0.0)
    assert set(np.unique(h["mode"]).tolist()) == {0, 1}       # FREE and CONTACT only
    contact = h["mode"] == 1
    assert h["penetration"][contact].max() > 0.0
    assert np.all(h["penetration"][~contact] == 0.0) and np.all(h["N"][~contact] == 0.0)
    # E_pen is the law's stored energy of the penetration (recomputed here)
    sp = r.case.slope
    n = sp.contact_exponent
    expect = sp.contact_stiffness * h["penetration"] ** (n + 1.0) / (n + 1.0)
    np.testing.assert_allclose(h["E_pen"], expect, rtol=1e-12, atol=0.0)


@pytest.mark.parametrize("model", CONTINUOUS)
def test_normal_work_splits_into_stored_and_dissipated(full_runs, model):
    r = full_runs[model]
    h = r.h
    # the identity the histories state (W_N_dissipated is defined from it in flexlib.history)
    assert np.max(np.abs(h["W_N"] + h["E_pen"] + h["W_N_dissipated"])) <= 1e-12 * r.E0
    # ... and what is physics: the hysteresis damping (and the clip, which drops stored energy)
    # only ever takes energy out, so W_N_dissipated never decreases.  Measured smallest step
    # -5.7e-11 J / -1.0e-10 J (<= 3.3e-11 E0: the integration error of W_N, an integrated state,
    # against E_pen, a function of the gap, within one sample step); bound 1e-9 E0.
    assert np.min(np.diff(h["W_N_dissipated"])) >= -1e-9 * r.E0
    assert h["W_N_dissipated"][-1] > 0.1 * r.E0                # measured 2.1 J / 1.3 J of 3.0 J


@pytest.mark.parametrize("model", CONTINUOUS)
def test_impacts_of_penalty_models(full_runs, model):
    r = full_runs[model]
    assert len(r.impacts) >= 5                                 # measured 10 and 7
    h = r.h
    for im in r.impacts:
        assert im["jump_loss"] == 0.0
        assert im["max_penetration"] > 0.0
        assert im["normal_dissipation"] > 0.0
        # the energy lost in an impact is what the normal law dissipated, plus what is still
        # stored in the penetration, minus the friction work.  E_pen = 0 at both ends except for
        # an impact the end of the run cuts (continuous_coulomb's last one: 1.0e-5 J stored at
        # t = 2 s).  The audit bounds the difference: measured <= 4.1e-9 J = 1.4e-9 E0.
        pen_after = h["E_pen"][_k(h, im["t_end"], "right")]
        pen_before = h["E_pen"][_k(h, im["t_start"], "left")]
        assert pen_before == 0.0
        assert pen_after == 0.0 or im["t_end"] == r.t[-1]
        assert im["energy_lost"] == pytest.approx(
            im["normal_dissipation"] + pen_after - im["friction_work"], abs=1e-7 * r.E0)
    for j in r.jumps:                                          # one record per contact onset
        assert j["dE"] == 0.0 and j["impulse"] == 0.0
        assert j["v_n_plus"] == j["v_n_minus"] and j["v_t_plus"] == j["v_t_minus"]
        assert j["v_n_minus"] <= 0.0
    assert sum(im["episodes"] for im in r.impacts) == len(r.jumps)


# ----------------------------------------------------------------------------------------------
# 5. The first contact is where the free swing meets the slope, whatever the contact law
# ----------------------------------------------------------------------------------------------
def test_first_contact_same_as_constraint_method(full_runs, hertz_run):
    ref = fl.simulate("3.2", "frictionless", 0.34)
    t_ref = ref.first_contact["t"]
    assert 0.33 < t_ref < 0.335
    # measured: identical to the last bit (the same free flight and the same CONTACT-ON event)
    for r in (*full_runs.values(), hertz_run):
        assert abs(r.first_contact["t"] - t_ref) <= 1e-9
        assert r.impacts[0]["t_start"] == pytest.approx(t_ref, abs=1e-9)
        assert r.first_contact["theta"] == pytest.approx(ref.first_contact["theta"], abs=1e-9)


# ----------------------------------------------------------------------------------------------
# 6. Validation: the errors name the parameter and its valid range
# ----------------------------------------------------------------------------------------------
def test_flores_needs_positive_e():
    # the case's default e = 0 with the default law flores
    for kw in ({}, dict(e=0.0)):
        with pytest.raises(ValueError, match=r"'e'.*\(0, 1\]"):
            fl.simulate("3.2", "continuous_coulomb", 0.1, **kw)
    with pytest.raises(ValueError, match=r"'e'.*\(0, 1\]"):
        penalty.damping_factor("flores", 0.0)
    # the other laws are defined at e = 0
    assert penalty.damping_factor("hunt_crossley", 0.0) == 1.5
    assert penalty.damping_factor("lankarani_nikravesh", 0.0) == 0.75


@pytest.mark.parametrize("kw", [dict(v0=1e-3, v1=1e-3), dict(v0=2e-3), dict(v0=0.5, v1=0.1)])
def test_modified_coulomb_ramp_must_rise(kw):
    with pytest.raises(ValueError, match="'v0'"):
        fl.simulate("3.2", "continuous_coulomb", 0.1, e=0.5, **kw)


def test_unknown_contact_law_names_the_laws():
    with pytest.raises(ValueError, match="contact_law") as err:
        fl.simulate("3.2", "continuous_coulomb", 0.1, e=0.5, contact_law="foo")
    for law in penalty.LAWS:
        assert repr(law) in str(err.value)
    with pytest.raises(ValueError, match="contact_law"):
        penalty.damping_factor("foo", 0.5)


def test_cli_writes_penalty_impacts(tmp_path):
    out = tmp_path / "out.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "flexlib", "simulate", "--case", "3.2", "--model",
                        "continuous_coulomb", "--contact-law", "flores", "--restitution", "0.5", "--t-end",
                        "2", "--json", str(out), "--quiet"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    d = json.loads(out.read_text())
    assert len(d["impacts"]) >= 5
    for im in d["impacts"]:
        assert im["jump_loss"] == 0
        assert im["max_penetration"] > 0


# ----------------------------------------------------------------------------------------------
# 7. Kelvin-Voigt: the damper would pull before the separation; the clip removes the pull
# ----------------------------------------------------------------------------------------------
KV = dict(contact_law="kelvin_voigt", contact_exponent=1.0, contact_stiffness=1e8)


@pytest.fixture(scope="module")
def kv_runs():
    # C = 2000 N s/m: damping ratio ~0.2 for the tip's effective mass (~0.3 kg); C = 0: a spring
    return {C: fl.simulate("3.2", "continuous_coulomb", 0.4, contact_damping=C, **KV)
            for C in (2000.0, 0.0)}


def test_kelvin_voigt_clip(kv_runs):
    r = kv_runs[2000.0]
    h = r.h
    assert r.success
    im = r.impacts[0]
    assert im["clipped_impulse"] > 1e-3                        # measured 0.0445 N s
    assert np.all(h["N"] >= 0.0) and np.all(h["N_clipped"] >= 0.0)
    assert h["N_clipped"].max() > 0.0
    # N and N_clipped are the law K delta + C delta' split at 0 (recomputed from gap and v_n)
    c = h["mode"] == 1
    raw = 1e8 * h["penetration"][c] - 2000.0 * h["v_n"][c]
    scale = np.max(np.abs(raw))
    np.testing.assert_allclose(h["N"][c], np.maximum(raw, 0.0), rtol=0, atol=1e-9 * scale)
    np.testing.assert_allclose(h["N_clipped"][c], np.maximum(-raw, 0.0), rtol=0, atol=1e-9 * scale)
    # the damper dissipates: measured 0.52 J of E0 = 3.0 J in the first impact
    assert im["normal_dissipation"] > 0.05 * r.E0
    # without the damper nothing pulls and nothing is dissipated by the normal law
    r0 = kv_runs[0.0]
    assert r0.impacts[0]["clipped_impulse"] == 0.0 and np.all(r0.h["N_clipped"] == 0.0)
    assert abs(r0.impacts[0]["normal_dissipation"]) <= 1e-8 * r0.E0


# ----------------------------------------------------------------------------------------------
# 8. Where the hybrid model sticks, the modified Coulomb law cannot hold the tip
# ----------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def axial_pair():
    # axial_modes = 1 lets hybrid_coulomb stick (notebook 07); 0.36 s holds the first impact and
    # its stick interval (the full 1.2 s hybrid run costs ~14 s for the same first interval)
    hyb = fl.simulate("3.2", "hybrid_coulomb", 0.36, axial_modes=1)
    cont = fl.simulate("3.2", "continuous_coulomb", 0.36, axial_modes=1, e=0.5)
    return hyb, cont


def test_modified_coulomb_does_not_stick(axial_pair):
    hyb, cont = axial_pair
    sticks = [iv for im in hyb.impacts for iv in im["stick_intervals"]]
    assert sticks, "hybrid_coulomb with axial_modes = 1 should stick in its first impact"
    a, b = max(sticks, key=lambda iv: iv[1] - iv[0])            # measured 0.33952-0.34019 s
    assert b - a > 1e-4

    def s_at(r, t):
        return float(np.interp(t, r.h["t"], r.h["s_all"]))
    # the hybrid tip holds its place (measured |ds| = 1e-16 m) ...
    assert abs(s_at(hyb, b) - s_at(hyb, a)) <= 1e-12
    # ... the continuous model is in contact over most of that window (measured 97 %) and its
    # tip moves along the slope: measured ds = -4.0e-5 m
    h = cont.h
    w = (h["t"] >= a) & (h["t"] <= b)
    assert np.mean(h["mode"][w] == 1) > 0.9
    assert abs(s_at(cont, b) - s_at(cont, a)) > 1e-6
    # the dead zone of the law: in contact with |v_t| <= v0 there is no friction at all although
    # N > 0 (measured min N there 92 N), so nothing holds the tip; such samples exist
    v0 = cont.case.coulomb.v0
    dz = (h["mode"] == 1) & (np.abs(h["v_t"]) <= v0)
    assert dz.sum() > 0                                        # measured 18 samples
    assert np.all(h["N"][dz] > 0.0)
    assert np.all(h["F_t"][dz] == 0.0) and np.all(h["mu_eff"][dz] == 0.0)
    assert cont.audit_residual_max <= 1e-6 * cont.E0
