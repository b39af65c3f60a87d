"""Case ``beam-on-slope``: the paper's case built from the multibody parts (one body, one contact point).

Fan et al.'s rotating flexible beam (their section 3.2): a beam hinged to the ground at O, released at
rest from theta0 = 45 deg, strikes the rigid slope through O1 = (X1, 0) inclined at alpha.  Here the
beam is a :class:`~flexlib.multibody.system.Body` on a ground hinge, the slope a half-plane with the
outward normal (-sin alpha, cos alpha) and the tip a contact point, so the system engine
(:class:`~flexlib.multibody.simulate.SystemSimulator`) runs it like any other system.  The paper's
cases 3.1 and 3.2 are this system: :func:`flexlib.simulate` builds it (:func:`flexlib.paper.system_of`)
and reads its run as the paper's quantities, and the figures come from those runs.  As the case
``beam-on-slope`` it is reported as a system, and its contact point may lie inside the beam
(``contact_at`` < 1).  tests/test_parity_gate.py holds it to the recorded runs of the single-beam
simulator that ran the paper's cases before (it has been removed).
"""
from __future__ import annotations

import math

from ..params import BeamParams, CoulombParams, LuGreParams, SlopeParams
from ..multibody.models import laws_for
from ..multibody.system import Body, ContactPoint, GroundHinge, HalfPlane, System
from . import Option

NAME = "beam-on-slope"
DEFAULT_MODEL = "hybrid_coulomb"
T_END = 0.75
BODIES = ("beam",)
_SLOPE = SlopeParams()

OPTIONS = {
    "X1": Option(_SLOPE.X1, -100.0, 100.0, "m", "X of O1, where the slope meets the X axis"),
    "alpha": Option(_SLOPE.alpha, -1.5, 1.5, "rad", "inclination of the slope from the X axis"),
    "contact_at": Option(1.0, 0.0, 1.0, "", "the contact point as a fraction of L (1: the tip)"),
    "contact_stiffness": Option(_SLOPE.contact_stiffness, 1e3, 1e14, "N/m^n",
                                "penalty stiffness K of the continuous models"),
    "contact_exponent": Option(_SLOPE.contact_exponent, 1.0, 3.0, "",
                               "exponent n of N = K delta^n"),
}


def system(model: str = DEFAULT_MODEL, *, beam: BeamParams | None = None, e: float = _SLOPE.e,
           coulomb: CoulombParams | None = None, lugre: LuGreParams | None = None,
           X1=_SLOPE.X1, alpha=_SLOPE.alpha, contact_at=1.0,
           contact_stiffness=_SLOPE.contact_stiffness, contact_exponent=_SLOPE.contact_exponent,
           contact_damping=_SLOPE.contact_damping, contact_law=_SLOPE.contact_law,
           v_zeno=_SLOPE.v_zeno, chi=_SLOPE.chi, beta=_SLOPE.beta):
    """The paper's beam and slope as a :class:`~flexlib.multibody.system.System` with ``model``'s
    laws at the contact point (friction of case 3.2 unless ``coulomb``/``lugre`` say otherwise)."""
    beam = beam or BeamParams()
    laws = laws_for(model, e=e, contact_law=contact_law, contact_stiffness=contact_stiffness,
                    contact_exponent=contact_exponent, contact_damping=contact_damping,
                    v_zeno=v_zeno,
                    coulomb=coulomb or CoulombParams(), lugre=lugre or LuGreParams())
    slope = HalfPlane("slope", origin=(X1, 0.0), normal=(-math.sin(alpha), math.cos(alpha)))
    body = Body("beam", beam, GroundHinge((0.0, 0.0)), theta0=beam.theta0)
    contacts = () if laws is None else (
        ContactPoint("tip" if contact_at == 1.0 else "P", "beam", contact_at * beam.L, "slope", laws),)
    return System(bodies=(body,), obstacles=(slope,), contacts=contacts, chi=chi, beta=beta)
