"""Checks of flexlib.contact.friction (docs/model.md sections 9.1-9.2) against theory and a classic benchmark.

* the Stribeck level g(v) = mu_d + (mu_s - mu_d) exp(-(v/v_s)^2): limits and monotonicity;
* LuGre steady sliding: at constant v, z' = v - sigma0 |v| z / g(v) is linear in z and relaxes to
  z_ss = sgn(v) g(v) / sigma0, so mu_ss = sgn(v) g(v) + sigma2 v traces the Stribeck curve;
* the stick-slip benchmark of Canudas de Wit, Olsson, Astrom, Lischinsky (1995), IEEE TAC 40(3):
  a unit mass pulled through a spring at constant speed, LuGre in force form.  The expected
  period, breakaway force and force drop are derived here from a simple piecewise model
  (stick: spring loads at k v_pull; slip: Coulomb level Fc plus the viscous term sigma2 v),
  not taken from a run of the code under test.
* Coulomb signs (eq (69) with the sign convention of docs/model.md section 2).
"""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.signal import find_peaks

from flexlib.contact.friction import (coulomb_force, lugre_coefficient, lugre_force_form_rhs,
                              lugre_steady_state, lugre_zdot, stribeck_level)

MU_D, MU_S, VS = 0.4, 0.5, 1e-3
SIGMA0, SIGMA1, SIGMA2 = 1e5, 1e2, 0.0


# =========================================================================== Stribeck level
def test_stribeck_limits():
    assert stribeck_level(0.0, MU_D, MU_S, VS) == pytest.approx(MU_S, rel=1e-15)
    for v in (1.0, -1.0, 100 * VS, -100 * VS):
        assert stribeck_level(v, MU_D, MU_S, VS) == pytest.approx(MU_D, rel=1e-15)
    # one Stribeck velocity: mu_d + (mu_s - mu_d)/e
    assert stribeck_level(VS, MU_D, MU_S, VS) == pytest.approx(MU_D + (MU_S - MU_D) / math.e, rel=1e-14)


def test_stribeck_even_and_monotone_in_speed():
    v = np.linspace(0.0, 10 * VS, 2001)
    g = stribeck_level(v, MU_D, MU_S, VS)
    np.testing.assert_array_equal(g, stribeck_level(-v, MU_D, MU_S, VS))
    assert np.all(np.diff(g) <= 0.0)
    assert np.all((g >= MU_D) & (g <= MU_S))


# =========================================================================== LuGre steady state
@pytest.mark.parametrize("v", [1e-6, -1e-6, 1e-4, 3e-4, -1e-3, 2e-3, 1e-2, -0.1, 1.0])
def test_lugre_relaxes_to_steady_state(v):
    g = MU_D + (MU_S - MU_D) * math.exp(-(v / VS) ** 2)
    z_ss = math.copysign(g / SIGMA0, v)
    rate = SIGMA0 * abs(v) / g                   # z' = v - rate z: relaxation rate, 1/s
    T = 30.0 / rate
    sol = solve_ivp(lambda t, z: [lugre_zdot(v, z[0], SIGMA0, MU_D, MU_S, VS)], (0.0, T), [0.0],
                    method="LSODA", rtol=1e-11, atol=1e-16)
    z_end = sol.y[0, -1]
    assert z_end == pytest.approx(z_ss, rel=1e-7)
    # the exact solution of the linear ODE half-way
    zt = solve_ivp(lambda t, z: [lugre_zdot(v, z[0], SIGMA0, MU_D, MU_S, VS)], (0.0, 1.0 / rate), [0.0],
                   method="LSODA", rtol=1e-11, atol=1e-16).y[0, -1]
    assert zt == pytest.approx(z_ss * (1 - math.exp(-1.0)), rel=1e-6)
    zdot_end = lugre_zdot(v, z_end, SIGMA0, MU_D, MU_S, VS)
    mu = lugre_coefficient(z_end, zdot_end, v, SIGMA0, SIGMA1, SIGMA2)
    assert mu == pytest.approx(math.copysign(g, v), rel=1e-6)
    z_fn, mu_fn = lugre_steady_state(v, MU_D, MU_S, VS, SIGMA0, SIGMA2)
    assert z_fn == pytest.approx(z_ss, rel=1e-14)
    assert mu_fn == pytest.approx(math.copysign(g, v), rel=1e-14)


def test_lugre_steady_curve_from_mu_s_to_mu_d():
    v = np.array([1e-6, 1e-5, 1e-4, 1e-3, 3e-3, 1e-2, 0.1])
    _, mu = lugre_steady_state(v, MU_D, MU_S, VS, SIGMA0, 0.0)
    assert mu[0] == pytest.approx(MU_S, rel=1e-6)           # |v| << v_s
    assert mu[-1] == pytest.approx(MU_D, rel=1e-12)         # |v| >> v_s
    assert np.all(np.diff(mu) <= 0)
    assert np.all(np.diff(mu[:5]) < 0)      # strictly while exp(-(v/v_s)^2) is representable
    _, mu_neg = lugre_steady_state(-v, MU_D, MU_S, VS, SIGMA0, 0.0)
    np.testing.assert_allclose(mu_neg, -mu, rtol=1e-15)
    # viscous term
    _, mu2 = lugre_steady_state(v, MU_D, MU_S, VS, SIGMA0, 0.7)
    np.testing.assert_allclose(mu2 - mu, 0.7 * v, rtol=1e-12, atol=1e-15)


def test_lugre_coefficient_formula():
    assert lugre_coefficient(2e-6, 3e-4, 5e-3, SIGMA0, SIGMA1, 0.3) == pytest.approx(
        SIGMA0 * 2e-6 + SIGMA1 * 3e-4 + 0.3 * 5e-3, rel=1e-15)


def test_force_form_rhs_formula():
    zd, F = lugre_force_form_rhs(0.02, 1e-5, 1e5, 316.0, 0.4, 1.0, 1.5, 1e-3)
    g = 1.0 + 0.5 * math.exp(-(0.02 / 1e-3) ** 2)
    assert zd == pytest.approx(0.02 - 1e5 * 0.02 * 1e-5 / g, rel=1e-14)
    assert F == pytest.approx(1e5 * 1e-5 + 316.0 * zd + 0.4 * 0.02, rel=1e-14)


# =========================================================================== Canudas de Wit 1995
K_SPRING, V_PULL, MASS = 2.0, 0.1, 1.0
CW = dict(sigma0=1e5, sigma1=math.sqrt(1e5), sigma2=0.4, Fc=1.0, Fs=1.5, v_s=1e-3)


def _coulomb_viscous_cycle(F0, Fc=CW["Fc"], c=CW["sigma2"], k=K_SPRING, m=MASS, vp=V_PULL):
    """Independent piecewise estimate of one stick-slip cycle.

    Slip: m x'' = k y - Fc - c x', y' = vp - x' (y = spring extension), from rest at spring
    force F0 until the mass stops again.  Stick: the spring force rises at k vp back to F0.
    Returns (T_slip, F_end, T_stick, period)."""
    def f(t, u):
        y, w = u
        return [vp - w, (k * y - Fc - c * w) / m]
    stop = lambda t, u: u[1]
    stop.terminal, stop.direction = True, -1
    s = solve_ivp(f, (0.0, 50.0), [F0 / k, 0.0], events=stop, rtol=1e-12, atol=1e-14, first_step=1e-6)
    T_slip = s.t_events[0][0]
    F_end = k * s.y_events[0][0][0]
    T_stick = (F0 - F_end) / (k * vp)
    return T_slip, F_end, T_stick, T_slip + T_stick


@pytest.fixture(scope="module")
def canudas():
    def rhs(t, u):
        x, v, z = u
        zd, F = lugre_force_form_rhs(v, z, CW["sigma0"], CW["sigma1"], CW["sigma2"], CW["Fc"],
                                     CW["Fs"], CW["v_s"])
        return [v, (K_SPRING * (V_PULL * t - x) - F) / MASS, zd]
    T = 30.0
    sol = solve_ivp(rhs, (0.0, T), [0.0, 0.0, 0.0], method="LSODA", rtol=1e-9, atol=1e-11,
                    max_step=0.01, dense_output=True)
    assert sol.success
    t = np.linspace(0.0, T, 300_001)
    x, v, z = sol.sol(t)
    Fsp = K_SPRING * (V_PULL * t - x)
    return t, x, v, z, Fsp


def test_canudas_stick_slip_cycles(canudas):
    t, x, v, z, Fsp = canudas
    # slip phases: the mass moves faster than 1% of the pulling speed
    slipping = v > 1e-2 * V_PULL
    starts = t[1:][np.diff(slipping.astype(int)) == 1]
    ends = t[1:][np.diff(slipping.astype(int)) == -1]
    assert len(starts) >= 3 and len(ends) >= 3
    # between slips the mass (nearly) sticks: |v| small for a long time while the spring loads
    for a, b in zip(ends, starts[1:]):
        m = (t > a + 0.1) & (t < b - 0.1)
        assert b - a > 1.0
        assert np.max(np.abs(v[m])) < 1e-2 * V_PULL
        assert np.all(np.diff(Fsp[m]) > 0)            # spring force rises during stick
    assert np.max(v) > 2 * V_PULL                      # a genuine slip, faster than the drive


def test_canudas_period_peak_and_drop(canudas):
    t, x, v, z, Fsp = canudas
    late = t > 7.0
    pk, _ = find_peaks(Fsp, prominence=0.1)
    tr, _ = find_peaks(-Fsp, prominence=0.1)
    pk = pk[t[pk] > 5.0]
    assert len(pk) >= 3
    periods = np.diff(t[pk])
    period = float(np.mean(periods))
    assert np.ptp(periods) < 1e-2 * period            # a limit cycle
    F_peak = float(np.mean(Fsp[pk]))
    # the force when the mass has stopped after a slip (start of stick)
    slipping = v > 1e-2 * V_PULL
    ends = t[1:][np.diff(slipping.astype(int)) == -1]
    starts = t[1:][np.diff(slipping.astype(int)) == 1]
    ends = ends[ends > 7.0]
    F_stop = float(np.mean(np.interp(ends, t, Fsp)))
    T_slip_m, F_end_m, T_stick_m, period_m = _coulomb_viscous_cycle(CW["Fs"])
    print(f"\nCanudas de Wit stick-slip: period = {period:.4f} s, peak spring force = {F_peak:.4f} N, "
          f"force at the end of slip = {F_stop:.4f} N, minimum spring force = "
          f"{float(np.mean(Fsp[tr[t[tr] > 7.0]])):.4f} N")
    print(f"piecewise Coulomb+viscous estimate: period = {period_m:.4f} s (slip {T_slip_m:.3f} s, "
          f"stick {T_stick_m:.3f} s), force at the end of slip = {F_end_m:.4f} N")
    # breakaway near Fs, a little above it (bristle dynamics overshoot)
    assert CW["Fs"] - 0.02 <= F_peak <= CW["Fs"] + 0.05
    # the force drop during slip: the Coulomb+viscous slip model (Stribeck neglected)
    assert (F_peak - F_stop) == pytest.approx(CW["Fs"] - F_end_m, abs=0.05)
    # Coulomb alone would drop by 2 (Fs - Fc) = 1 N; the viscous term sigma2 v reduces the drop
    assert F_peak - F_stop < 2 * (CW["Fs"] - CW["Fc"])
    # stick duration: the spring loads at k v_pull from F_stop back to F_peak
    stick = [b - a for a, b in zip(ends, starts[starts > ends[0]])]
    T_stick_est = (F_peak - F_stop) / (K_SPRING * V_PULL)
    assert np.mean(stick) == pytest.approx(T_stick_est, rel=0.10)
    # the period against the independent piecewise estimate
    assert period == pytest.approx(period_m, rel=0.05)


# =========================================================================== Coulomb
def test_coulomb_force_signs():
    assert coulomb_force(1.0, 10.0, 0.4) == pytest.approx(-4.0)
    assert coulomb_force(+3e-3, 10.0, 0.4) == pytest.approx(-4.0)
    assert coulomb_force(-1.0, 10.0, 0.4) == pytest.approx(4.0)
    assert coulomb_force(-5.0, 2.5, 0.3) == pytest.approx(0.75)
    assert coulomb_force(0.0, 10.0, 0.4) == 0.0
    # friction opposes the slip: F_t v_t <= 0
    for d in (-2.0, -1e-9, 1e-9, 2.0):
        assert coulomb_force(d, 7.0, 0.5) * d < 0
