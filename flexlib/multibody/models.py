"""The laws of a contact point from a model of the registry (:mod:`flexlib.models`).

Every model is a contact method and a friction law, with or without stick/slip switching:

=========================  ==============  ====================  ===========
model                      method          friction              stick/slip
=========================  ==============  ====================  ===========
``free``                   (no contact)
``frictionless``           constraint      none                  no
``hybrid_coulomb``         constraint      Coulomb               yes
``hybrid_lugre``           constraint      LuGre                 yes
``lugre``                  constraint      LuGre (unified)       no
``continuous``             penalty         none                  no
``continuous_coulomb``     penalty         modified Coulomb      no
``continuous_lugre``       penalty         LuGre                 no
=========================  ==============  ====================  ===========

A slipping ``hybrid_lugre`` point watches its slip velocity for a stop, as a Coulomb point does
(once it slides faster than Dv), and sticks there if sticking is consistent.  A model registered
from outside the package brings its friction law (``FrictionLaw.custom``).
"""
from __future__ import annotations

from .. import models as registry
from ..params import CoulombParams, LuGreParams, check_value
from ..contact.penalty import damping_factor
from .system import ContactLaws

__all__ = ["MODELS", "laws_for"]


def _entry(spec):
    """(method, friction, stick/slip) of a registry entry, None without contact."""
    if not spec.has_contact:
        return None
    return ("constraint" if spec.contact.constraint else "penalty",
            spec.friction.custom or spec.friction.name, spec.can_stick)


# model id -> (method, friction, stick/slip) of the models registered with the package
MODELS = {k: _entry(spec) for k, spec in registry.REGISTRY.items()}


def canonical(model: str) -> str:
    key = str(model).strip().lower().replace("-", "_")
    if key not in registry.REGISTRY:
        raise ValueError(f"parameter 'model' = {model!r} is invalid: valid range is one of "
                         + ", ".join(registry.REGISTRY))
    return key


def laws_for(model: str, *, e: float = 0.0, contact_law: str = "hertz", contact_stiffness: float,
             contact_exponent: float = 1.5, contact_damping: float = 0.0, v_zeno: float = 1e-2,
             coulomb: CoulombParams | None = None, lugre: LuGreParams | None = None):
    """The :class:`~flexlib.multibody.system.ContactLaws` of ``model`` (None for ``free``)."""
    entry = _entry(registry.REGISTRY[canonical(model)])
    if entry is None:
        return None
    method, friction, stick = entry
    coulomb = coulomb or CoulombParams()
    lugre = lugre or LuGreParams()
    e = check_value("e", e)
    D = 0.0
    if method == "penalty":
        D = damping_factor(contact_law, e)
        check_value("contact_stiffness", contact_stiffness)
        check_value("contact_exponent", contact_exponent)
    if friction == "lugre" and coulomb.mu_d <= 0.0:
        # g(v) = mu_d + (mu_s - mu_d) exp(-(v/v_s)^2) is divided by and falls to mu_d (exactly 0
        # once the exponential underflows, |v| > ~27 v_s)
        raise ValueError(f"parameter 'mu_d' = {coulomb.mu_d!r} is invalid for LuGre models "
                         f"(model {model!r}): valid range is (0, 10] (the Stribeck level g(v), "
                         f"which falls to mu_d at speed, is divided by)")
    mu_d = coulomb.mu_d if friction != "none" else 0.0
    mu_s = coulomb.mu_s if friction != "none" else 0.0
    return ContactLaws(method=method, friction=friction, can_stick=stick, e=e,
                       K=float(contact_stiffness), n=float(contact_exponent), D=D,
                       C=float(contact_damping) if contact_law == "kelvin_voigt" else 0.0,
                       v_zeno=float(v_zeno), mu_d=mu_d, mu_s=mu_s, Dv=coulomb.Dv, v0=coulomb.v0,
                       v1=coulomb.v1, sigma0=lugre.sigma0, sigma1=lugre.sigma1,
                       sigma2=lugre.sigma2, v_s=lugre.v_s,
                       stick_limit=coulomb.stick_limit)
