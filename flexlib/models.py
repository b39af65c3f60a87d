"""The models as data: one registry from model id to its contact law, friction law and look.

A model is a :class:`ModelSpec`: a contact law (none; a contact point against its obstacle as a
constraint; or as a continuous penalty force), a friction law (:class:`FrictionLaw`: none,
Coulomb, LuGre, modified Coulomb, or a law from outside the package) and whether the model
switches between stick and slip (the paper's hybrid models) or keeps one law throughout the
contact (unified LuGre).  Every case, the paper's and the systems', takes its models from here:
:func:`flexlib.multibody.models.laws_for` turns a spec into the laws of a contact point, and the
simulation asks those laws, never the model's name, what to do.

Where a new law goes: a built-in friction law's formulas go in :mod:`flexlib.contact.friction`
and its branch in :mod:`flexlib.multibody.kernel`; a law from outside the package is a
:class:`flexlib.multibody.laws.FrictionLaw` (its compiled function and parameters), carried by a
:class:`FrictionLaw` here as ``custom`` (examples/custom_friction.py).
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ContactLaw", "FrictionLaw", "ModelSpec", "REGISTRY", "MODELS", "CONTACT_MODELS",
           "FRICTION_MODELS", "CONSTRAINT_MODELS", "CONTINUOUS_MODELS", "get", "canonical_model",
           "register", "NO_CONTACT", "TIP_ON_SLOPE", "PENALTY", "NO_FRICTION", "COULOMB", "LUGRE",
           "MODIFIED_COULOMB"]


@dataclass(frozen=True)
class ContactLaw:
    """How a contact point meets its obstacle: ``none`` (no obstacle: free flight), a constraint
    (a velocity jump at impact and a Baumgarte-stabilised normal constraint, docs/model.md
    sections 7-8) or a continuous penalty force with no jump (:mod:`flexlib.contact.penalty`).
    ``constraint``: the normal direction is a constraint, so a contact phase needs no penetration."""
    name: str
    description: str
    constraint: bool = True
    active: bool = True


@dataclass(frozen=True)
class FrictionLaw:
    """A tangential law of the slip (and unified contact) phases.

    ``has_bristles``: the law carries the internal state z (integrated in contact, reset in flight,
    dropped in stick).  ``direction_candidates``: the slip directions the mode selection tries:
    (+1, -1) when the force is -dir mu N with the direction part of the discrete state (Coulomb),
    (0,) when the force follows from z (LuGre).  ``stick_limit``: the friction ratio of the stick
    test when the case says ``"default"`` (``"mu_d"`` or ``"mu_s"``).  ``needs_mu_s``: the law
    divides by g(v) >= mu_s, which must be > 0.  ``custom``: a law from outside the package, a
    :class:`flexlib.multibody.laws.FrictionLaw` (its compiled function and its parameters, which a
    paper case takes by name from its own parameters)."""
    name: str
    has_bristles: bool
    direction_candidates: tuple
    stick_limit: str
    needs_mu_s: bool = False
    custom: object = None

    @property
    def uses_direction(self) -> bool:
        """The slip force is set by the slip direction (part of the discrete state)."""
        return self.direction_candidates != (0.0,)


@dataclass(frozen=True)
class ModelSpec:
    """One model: id, contact law, friction law, stick/slip switching and how plots show it."""
    id: str
    contact: ContactLaw
    friction: FrictionLaw
    can_stick: bool           # hybrid: stick/slip switching with the contact-mode selection
    label: str
    color: str
    linestyle: object
    linewidth: float
    description: str
    plot_label: str = ""      # legend text, if longer than ``label`` (the short name of panels)
    # further Matplotlib keywords of its curves (markers), so overlapping models stay visible
    plot_kw: tuple = ()

    @property
    def has_contact(self) -> bool:
        return self.contact.active

    @property
    def has_friction(self) -> bool:
        return self.friction.name != NO_FRICTION.name

    @property
    def is_penalty(self) -> bool:
        """The continuous contact force method (no jump, no constraint)."""
        return self.has_contact and not self.contact.constraint

    @property
    def watches_painleve(self) -> bool:
        """A CONTACT phase of this model solves the constraint with friction (unified law): its
        Painleve margin is watched like a slip phase's.  A penalty contact has no such solve."""
        return self.has_friction and not self.can_stick and self.contact.constraint

    def style(self) -> dict:
        """Matplotlib keywords of the model's curves in every figure: color, ls, lw, label and
        the markers of :attr:`plot_kw`."""
        return dict(color=self.color, ls=self.linestyle, lw=self.linewidth, **dict(self.plot_kw),
                    label=self.plot_label or self.label)


NO_CONTACT = ContactLaw("none", "no obstacle: the beam swings freely", active=False)
TIP_ON_SLOPE = ContactLaw("tip_on_slope", "a contact point against its obstacle as a constraint")
PENALTY = ContactLaw("penalty", "a contact point against its obstacle with a continuous penalty "
                     "force", constraint=False)

NO_FRICTION = FrictionLaw("none", has_bristles=False, direction_candidates=(0.0,),
                          stick_limit="mu_d")
COULOMB = FrictionLaw("coulomb", has_bristles=False, direction_candidates=(1.0, -1.0),
                      stick_limit="mu_d")
LUGRE = FrictionLaw("lugre", has_bristles=True, direction_candidates=(0.0,),
                    stick_limit="mu_s", needs_mu_s=True)
MODIFIED_COULOMB = FrictionLaw("modified_coulomb", has_bristles=False,
                               direction_candidates=(0.0,), stick_limit="mu_d")

# Colours and line styles: colour-blind safe (Okabe-Ito), each model with its own dash pattern.
REGISTRY: dict[str, ModelSpec] = {}


_BUILT_IN = {"none", "coulomb", "lugre", "modified_coulomb"}


def register(spec: ModelSpec) -> ModelSpec:
    """Add ``spec`` to the registry: a friction law the engine implements (built in, or one from
    outside with its ``custom`` law) with a contact law; an id already registered is an error."""
    if spec.id in REGISTRY:
        raise ValueError(f"model {spec.id!r} is already registered")
    if spec.can_stick and not (spec.has_contact and spec.has_friction and spec.contact.constraint):
        raise ValueError(f"model {spec.id!r}: stick/slip switching needs a constraint contact and a "
                         f"friction law")
    if not spec.has_contact and spec.has_friction:
        raise ValueError(f"model {spec.id!r}: a friction law needs a contact law")
    custom = spec.friction.custom
    if custom is None and spec.friction.name not in _BUILT_IN:
        raise ValueError(f"model {spec.id!r}: friction law {spec.friction.name!r} is not built in "
                         f"(valid: {', '.join(sorted(_BUILT_IN))}) and brings no custom law")
    # (the check reads the law's type by name: the registry is filled before the system code loads)
    if custom is not None and type(custom).__module__ + "." + type(custom).__name__ != \
            "flexlib.multibody.laws.FrictionLaw":
        raise ValueError(f"model {spec.id!r}: the custom law of friction law {spec.friction.name!r} "
                         f"is {custom!r}: valid is a flexlib.multibody.laws.FrictionLaw")
    if spec.friction.name == "modified_coulomb" and spec.contact.constraint:
        raise ValueError(f"model {spec.id!r}: modified Coulomb friction is a penalty contact's "
                         f"law (valid contact law: penalty)")
    if spec.friction.name == "coulomb" and spec.has_contact and not spec.contact.constraint:
        raise ValueError(f"model {spec.id!r}: a penalty contact has no stick state for hard "
                         f"Coulomb friction (valid friction laws: none, modified_coulomb, lugre)")
    REGISTRY[spec.id] = spec
    return spec


# Colour-blind safe colours (Okabe-Ito); each friction model also has its own dash pattern, width
# and marker.  ``markevery`` = (start, step) as fractions of the axes diagonal, measured along the
# line: the markers are sparse, and the three friction models' markers do not fall on the same points.
for _spec in (
        ModelSpec("free", NO_CONTACT, NO_FRICTION, False, "free flight", "k", "-", 1.2,
                  "the beam swings with no slope (no contact)"),
        ModelSpec("frictionless", TIP_ON_SLOPE, NO_FRICTION, False, "frictionless", "0.55", "-.",
                  1.0, "contact with a normal force only (the reference)",
                  plot_label="frictionless (reference)"),
        ModelSpec("hybrid_coulomb", TIP_ON_SLOPE, COULOMB, True, "hybrid Coulomb", "#0072B2", "-",
                  2.6, "stick/slip switching, Coulomb friction in slip",
                  plot_kw=(("marker", "o"), ("ms", 4.5), ("markevery", (0.0, 0.09)))),
        ModelSpec("hybrid_lugre", TIP_ON_SLOPE, LUGRE, True, "hybrid LuGre", "#D55E00", "--", 1.4,
                  "stick/slip switching, LuGre friction in slip",
                  plot_kw=(("marker", "s"), ("ms", 5), ("mfc", "none"), ("mew", 1.2),
                           ("markevery", (0.03, 0.09)))),
        ModelSpec("lugre", TIP_ON_SLOPE, LUGRE, False, "unified LuGre", "#009E73", (0, (1, 1.2)),
                  1.8, "unified LuGre: LuGre friction throughout the contact, no stick/slip switching",
                  plot_kw=(("marker", "^"), ("ms", 5), ("markevery", (0.06, 0.09)))),
        ModelSpec("continuous", PENALTY, NO_FRICTION, False, "continuous", "#E69F00", "-", 1.8,
                  "continuous contact force: penalty normal force, no friction (the elastic Hertz "
                  "impact of the multibody cases)"),
        ModelSpec("continuous_coulomb", PENALTY, MODIFIED_COULOMB, False, "continuous Coulomb",
                  "#CC79A7", (0, (6, 1.5, 1.5, 1.5)), 1.6,
                  "continuous contact force: penalty normal force, modified Coulomb friction",
                  plot_kw=(("marker", "D"), ("ms", 4), ("markevery", (0.015, 0.09)))),
        ModelSpec("continuous_lugre", PENALTY, LUGRE, False, "continuous LuGre", "#56B4E9",
                  (0, (3, 1, 1, 1, 1, 1)), 1.6,
                  "continuous contact force: penalty normal force, LuGre friction",
                  plot_kw=(("marker", "v"), ("ms", 5), ("markevery", (0.045, 0.09))))):
    register(_spec)

# Views of the registry, in registration order (the names simulate.py exported before).
# CONTACT_MODELS and FRICTION_MODELS are the paper's models (the contact-constraint method);
# the continuous contact force models are CONTINUOUS_MODELS.
MODELS = tuple(REGISTRY)
CONTACT_MODELS = tuple(m for m, s in REGISTRY.items() if s.has_contact and s.contact.constraint)
FRICTION_MODELS = tuple(m for m in CONTACT_MODELS if REGISTRY[m].has_friction)
CONTINUOUS_MODELS = tuple(m for m, s in REGISTRY.items() if s.is_penalty)
CONSTRAINT_MODELS = CONTACT_MODELS


def canonical_model(name: str) -> str:
    """The canonical model id; hyphens are accepted (``hybrid-coulomb`` -> ``hybrid_coulomb``)."""
    key = str(name).strip().lower().replace("-", "_")
    if key not in REGISTRY:
        raise ValueError(f"unknown model {name!r}; valid models: {', '.join(REGISTRY)}")
    return key


def get(name: str) -> ModelSpec:
    """The registry entry of model ``name`` (hyphens accepted); unknown names are an error."""
    return REGISTRY[canonical_model(name)]
