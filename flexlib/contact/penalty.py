"""The continuous contact force law: a penalty normal force instead of a jump and a constraint.

The research programme behind the paper compares the contact-constraint method (velocity jump,
Lagrange multiplier, Baumgarte stabilisation) with the *continuous contact force* method that
general multibody codes use: the tip may penetrate the slope by delta = max(0, -Psi) and the
slope pushes back with

    N = K delta^n (1 + D(e) delta' / delta'_in),   N := max(N, 0)   (no adhesion)

where delta' = -v_n is the penetration rate and delta'_in > 0 the approach speed stored when
the contact began.  D(e) sets how much of the approach energy the hysteresis damping takes:

======================== ===================== ================================================
law                      D(e)                  source; e recovered by a point mass (measured)
======================== ===================== ================================================
``hertz``                0                     Hertz: elastic, e_out = 1
``hunt_crossley``        3 (1 - e) / 2         Hunt & Crossley (1975): within 0.02 of e for
                                               e >= 0.9; too elastic below (0.66 at e = 0.5)
``lankarani_nikravesh``  3 (1 - e^2) / 4       Lankarani & Nikravesh (1990): within 0.02 for
                                               e >= 0.9 (0.80 at e = 0.7, 0.73 at e = 0.5)
``flores``               8 (1 - e) / (5 e)     Flores et al. (2011), defined for 0 < e <= 1:
                                               within 0.02 for e >= 0.7; 0.03-0.045 below e
                                               for e = 0.2-0.5 (0.470 at e = 0.5)
``kelvin_voigt``         --                    N = K delta^n + C delta' (a spring and a linear
                                               damper, as penalty codes use; it would pull
                                               before separation: clipped at 0)
======================== ===================== ================================================

The restitution numbers are those of a rigid point mass dropped on the plane with n = 1.5
(tests/test_continuous_contact.py integrates it independently and checks them); they do not
depend on the approach speed or K.

The normal force enters the equations of motion as the generalised force Psi_q^T N; the
tangential force is a friction law with this N (the modified Coulomb law of
:func:`flexlib.contact.friction.modified_coulomb`, or LuGre).  :func:`normal_force` is the code the
compiled right-hand side runs (:mod:`flexlib.multibody.kernel`).

Two choices where the literature is silent, both stated in docs/model.md:

* the approach speed delta'_in of the damping term is at least ``v_zeno``: a grazing contact
  (delta'_in -> 0) would make the damping coefficient K delta^n D / delta'_in unbounded and the
  equations arbitrarily stiff; with the floor a slow approach is damped as one at ``v_zeno``;
* the energy stored in the penetration, E_pen = K delta^(n+1) / (n + 1), is reported beside the
  work of the normal force; their difference is the energy the damping term dissipated
  (:func:`stored_energy`).
"""
from __future__ import annotations

from .. import _jit
from .._jit import hot

__all__ = ["LAWS", "damping_factor", "normal_force", "stored_energy", "check_law"]

LAWS = ("hertz", "hunt_crossley", "lankarani_nikravesh", "flores", "kelvin_voigt")


def check_law(law: str, e: float) -> None:
    """A clear error for a law used outside its definition (Flores divides by e)."""
    if law not in LAWS:
        raise ValueError(f"parameter 'contact_law' = {law!r} is invalid: valid range is one of "
                         + ", ".join(repr(x) for x in LAWS))
    if law == "flores" and not e > 0.0:
        raise ValueError(f"parameter 'e' = {e!r} is invalid with contact_law 'flores': valid range "
                         f"is (0, 1] (the law's damping 8 (1 - e) / (5 e) is unbounded at e = 0; the "
                         f"constraint method's e = 0 has no penalty equivalent; try e = 0.5)")


def damping_factor(law: str, e: float) -> float:
    """D(e) of the hysteresis-damped laws (0 for ``hertz`` and ``kelvin_voigt``)."""
    check_law(law, e)
    if law == "hunt_crossley":
        return 1.5 * (1.0 - e)
    if law == "lankarani_nikravesh":
        return 0.75 * (1.0 - e * e)
    if law == "flores":
        return 8.0 * (1.0 - e) / (5.0 * e)
    return 0.0


@hot
def normal_force(gap, v_n, K, n, D, C, v_in):
    """The penalty normal force at signed gap ``gap`` [m] and normal velocity ``v_n`` [m/s]:
    (N, N_raw), N = max(N_raw, 0) [N].

    N_raw = K delta^n (1 + D delta' / v_in) + C delta' with delta = max(0, -gap), delta' = -v_n;
    ``v_in`` [m/s] is the approach speed at the start of the contact (> 0 when D != 0)."""
    delta = -gap if gap < 0.0 else 0.0
    rate = -v_n
    raw = K * delta ** n
    if D != 0.0:
        raw = raw * (1.0 + D * rate / v_in)
    if C != 0.0:
        raw = raw + C * rate
    return (raw if raw > 0.0 else 0.0), raw


@hot
def normal_force_slopes(gap, v_n, K, n, D, C, v_in):
    """The slopes (dN/d gap, dN/d v_n) of :func:`normal_force`'s N [N/m, N s/m]: zero where N is
    clipped at 0 (an implicit integrator's Newton matrix, :mod:`flexlib.multibody.newton`)."""
    delta = -gap if gap < 0.0 else 0.0
    rate = -v_n
    raw = K * delta ** n
    g = K * n * delta ** (n - 1.0) if delta > 0.0 else 0.0
    v = 0.0
    if D != 0.0:
        g = g * (1.0 + D * rate / v_in)
        v = raw * D / v_in
        raw = raw * (1.0 + D * rate / v_in)
    if C != 0.0:
        raw = raw + C * rate
        v = v + C
    if not raw > 0.0:
        return 0.0, 0.0
    return -g, -v


def stored_energy(gap, K, n):
    """Elastic energy of the penetration, K delta^(n+1) / (n + 1) [J] (works on arrays)."""
    import numpy as np
    delta = np.maximum(-np.asarray(gap, dtype=float), 0.0)
    return K * delta ** (n + 1.0) / (n + 1.0)


_jit.flush_module(__name__)
