"""Friction laws as small pure functions (eqs (68)-(69); docs/model.md section 9).

Sign convention: the slope pushes the tip with N n + F_t t, N >= 0;
v_t is the tip's velocity along the slope tangent t.  The friction coefficient used in the
contact solves is the ratio c = F_t / N.

LuGre is written in coefficient form: sigma0 in 1/m, sigma1 and sigma2 in s/m, so that
mu is dimensionless and F_t = -mu N (eq (69)).
"""
from __future__ import annotations

import math

import numpy as np

from .. import _jit
from .._jit import hot

__all__ = ["modified_coulomb", "coulomb_force", "stribeck_level", "lugre_zdot", "lugre_coefficient",
           "lugre_steady_state", "lugre_force_form_rhs", "lugre_rates"]


@hot
def lugre_rates(v, z, mu_d, mu_s, sigma0, sigma1, sigma2, v_s):
    """LuGre in coefficient form at one state (eq (68)): (z', mu).

    g(v) = mu_d + (mu_s - mu_d) exp(-(v / v_s)^2), z' = v - sigma0 |v| z / g(v) [m/s] and
    mu = sigma0 z + sigma1 z' + sigma2 v; the friction force is F_t = -mu N.  This is the code
    the simulator runs: the compiled right-hand side (:mod:`flexlib.multibody.kernel`) calls it."""
    g = mu_d + (mu_s - mu_d) * math.exp(-(v / v_s) ** 2)
    zd = v - sigma0 * abs(v) * z / g
    return zd, sigma0 * z + sigma1 * zd + sigma2 * v


@hot
def modified_coulomb(v, mu_d, v0, v1):
    """The modified Coulomb law of the continuous contact model (Ambrosio 2002): mu with
    F_t = -mu N, mu = c_d(|v|) mu_d sgn(v), c_d = 0 for |v| <= v0, (|v| - v0) / (v1 - v0) for
    v0 < |v| < v1 and 1 above v1 [v, v0, v1 in m/s].  Below v0 there is no friction at all, so
    the law cannot hold the tip still: it creeps where a stick/slip model sticks."""
    a = abs(v)
    if a <= v0:
        return 0.0
    c = 1.0 if a >= v1 else (a - v0) / (v1 - v0)
    return c * mu_d if v > 0.0 else -c * mu_d


def coulomb_force(direction: float, normal_force: float, mu_d: float) -> float:
    """Coulomb slip friction F_t = -sgn(v_t) mu_d N (eq (69)); ``direction`` is sgn(v_t) or dir."""
    return -math.copysign(1.0, direction) * mu_d * normal_force if direction != 0 else 0.0


def stribeck_level(v, mu_d: float, mu_s: float, v_s: float):
    """g(v) = mu_d + (mu_s - mu_d) exp(-(v / v_s)^2): the Stribeck curve (eq (68)); not gravity."""
    return mu_d + (mu_s - mu_d) * np.exp(-(np.asarray(v) / v_s) ** 2)


def lugre_zdot(v, z, sigma0: float, mu_d: float, mu_s: float, v_s: float):
    """Bristle rate z' = v - sigma0 |v| z / g(v) (eq (68)), m/s."""
    return v - sigma0 * np.abs(v) * z / stribeck_level(v, mu_d, mu_s, v_s)


def lugre_coefficient(z, zdot, v, sigma0: float, sigma1: float, sigma2: float):
    """mu = sigma0 z + sigma1 z' + sigma2 v (eq (68), printed 'u')."""
    return sigma0 * z + sigma1 * zdot + sigma2 * v


def lugre_steady_state(v, mu_d: float, mu_s: float, v_s: float, sigma0: float, sigma2: float):
    """Steady sliding: z_ss = sgn(v) g(v) / sigma0 and mu_ss = sgn(v) g(v) + sigma2 v."""
    g = stribeck_level(v, mu_d, mu_s, v_s)
    return np.sign(v) * g / sigma0, np.sign(v) * g + sigma2 * np.asarray(v)


def lugre_force_form_rhs(v, z, sigma0, sigma1, sigma2, Fc, Fs, v_s):
    """LuGre in force form (Canudas de Wit et al. 1995): returns (z', F).

    z' = v - sigma0 |v| z / g(v), g(v) = Fc + (Fs - Fc) exp(-(v/v_s)^2),
    F = sigma0 z + sigma1 z' + sigma2 v (the friction force opposing the motion, N).
    """
    g = Fc + (Fs - Fc) * math.exp(-(v / v_s) ** 2)
    zd = v - sigma0 * abs(v) * z / g
    return zd, sigma0 * z + sigma1 * zd + sigma2 * v


_jit.flush_module(__name__)
