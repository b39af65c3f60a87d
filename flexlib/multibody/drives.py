"""Prescribed hinge angles: a hinge that drives its body's angle along a given law.

A driven ground hinge holds theta(t) = theta0 + phi(t) by a driving constraint, solved with the
contact constraints and stabilised the same way (Baumgarte): theta'' - phi''(t) + 2 chi (theta' -
phi'(t)) + beta^2 (theta - theta0 - phi(t)) = 0.  Its multiplier is the torque the drive applies,
whose work enters the energy audit with the other drive torques.

The law here is the spin-up of Kane, Ryan and Banerjee (1987), the classic test of dynamic
stiffening: phi(t) = (Omega/T) [t^2/2 + (T/2 pi)^2 (cos(2 pi t/T) - 1)] for t <= T, then
Omega (t - T/2): the rate rises smoothly from 0 to Omega over T seconds and stays there.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .. import _jit
from .._jit import hot

__all__ = ["SpinUp", "spin_up"]


@hot
def spin_up(t, omega, ramp):
    """(phi, phi', phi'') of the spin-up at t [s] to the rate ``omega`` [rad/s] over ``ramp`` [s]."""
    if t <= ramp:
        w = 2.0 * math.pi / ramp
        c = omega / ramp
        return (c * (t * t / 2.0 + (math.cos(w * t) - 1.0) / (w * w)),
                c * (t - math.sin(w * t) / w), c * (1.0 - math.cos(w * t)))
    return omega * (t - ramp / 2.0), omega, 0.0


@dataclass(frozen=True)
class SpinUp:
    """The spin-up drive of a ground hinge: the rate rises to ``Omega`` [rad/s] over ``T`` [s]
    (Kane, Ryan & Banerjee 1987).  Called with t [s], it gives (phi, phi', phi'') [rad, rad/s,
    rad/s^2], the angle turned from the body's initial angle."""
    Omega: float = 4.0
    T: float = 15.0

    def __post_init__(self):
        for name in ("Omega", "T"):
            v = getattr(self, name)
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            if not ok or (name == "T" and v <= 0.0):
                raise ValueError(f"parameter {name!r} = {v!r} of the spin-up drive is invalid: "
                                 f"valid range is {'(0, inf) s' if name == 'T' else 'finite rad/s'}")

    def __call__(self, t: float):
        return tuple(float(v) for v in spin_up(float(t), float(self.Omega), float(self.T)))


_jit.flush_module(__name__)
