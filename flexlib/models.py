"""The models as data: one registry from model id to its contact law, friction law and look.

A model is a :class:`ModelSpec`: a contact law (none; the beam tip on a rigid slope as a
constraint; or as a continuous penalty force), a friction law (:class:`FrictionLaw`: none,
Coulomb, LuGre, modified Coulomb) and whether the model switches
between stick and slip (the paper's hybrid models) or keeps one law throughout the contact
(unified LuGre).  The simulator asks the spec, never the model's name, what to do; the compiled
right-hand side dispatches on the spec's :attr:`ModelSpec.kernel_code`, and a code it does not
know gives NaN (the integrator then stops), never a silent fallback to another law.

Where a new law goes: a friction law is a :class:`FrictionLaw` (its kernel code, whether it has
internal state z, how the slip direction is chosen, its stick limit).  A built-in law's formulas
go in :mod:`flexlib.contact.friction` and its branch in :func:`flexlib.solver.kernel.phase_eval_into`; a law
from outside the package brings its compiled function (``kernel_function``), and the simulator
compiles a right-hand side around it (:func:`flexlib.solver.kernel.specialize`;
examples/custom_friction.py).
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ContactLaw", "FrictionLaw", "ModelSpec", "REGISTRY", "MODELS", "CONTACT_MODELS",
           "FRICTION_MODELS", "CONSTRAINT_MODELS", "CONTINUOUS_MODELS", "get", "canonical_model",
           "register", "NO_CONTACT", "TIP_ON_SLOPE", "PENALTY", "NO_FRICTION", "COULOMB", "LUGRE",
           "MODIFIED_COULOMB", "LAW_NO_CONTACT", "LAW_FRICTIONLESS", "LAW_COULOMB", "LAW_LUGRE",
           "LAW_CUSTOM", "LAW_PENALTY", "LAW_PENALTY_MOD_COULOMB", "LAW_PENALTY_LUGRE"]


@dataclass(frozen=True)
class ContactLaw:
    """How the body meets the obstacle.  ``code`` 0: no obstacle (free flight); 1: the beam tip
    against a rigid slope with a velocity jump at impact and a Baumgarte-stabilised normal
    constraint (docs/model.md sections 7-8); 2: the beam tip against the slope with a continuous
    penalty force and no jump (:mod:`flexlib.contact.penalty`).  ``constraint``: the normal direction is
    a constraint (jump, multiplier, Baumgarte), so a contact phase needs no penetration."""
    name: str
    code: int
    description: str
    constraint: bool = True


@dataclass(frozen=True)
class FrictionLaw:
    """A tangential law of the slip (and unified contact) phases.

    ``code``: the kernel's friction code.  ``has_bristles``: the law carries the internal state z
    (integrated in contact, reset in flight, dropped in stick).  ``direction_candidates``: the
    slip directions the mode selection tries: (+1, -1) when the force is -dir mu N with the
    direction part of the discrete state (Coulomb), (0,) when the force follows from z (LuGre).
    ``stick_limit``: the friction ratio of the stick test when the case says ``"default"``
    (``"mu_d"`` or ``"mu_s"``).  ``needs_mu_s``: the law divides by g(v) >= mu_s, which must be > 0.
    """
    name: str
    code: int
    has_bristles: bool
    direction_candidates: tuple
    stick_limit: str
    needs_mu_s: bool = False
    # A law from outside the package: its compiled (v_t, z, par) -> (z', mu) with F_t = -mu N
    # (``par`` slots: flexlib.layout).  The simulator compiles a right-hand side around it.
    kernel_function: object = None

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
        return self.contact.code != NO_CONTACT.code

    @property
    def has_friction(self) -> bool:
        return self.friction.code != NO_FRICTION.code

    @property
    def is_penalty(self) -> bool:
        """The continuous contact force method (no jump, no constraint)."""
        return self.has_contact and not self.contact.constraint

    @property
    def kernel_code(self) -> int:
        """The code of :func:`flexlib.solver.kernel.phase_eval_into`'s ``model`` argument for this
        (contact law, friction law) pair (:data:`KERNEL_LAWS`), or -1 if the kernel does not
        implement the pair."""
        if self.friction.kernel_function is not None:
            return LAW_CUSTOM if self.contact is TIP_ON_SLOPE else -1
        return KERNEL_LAWS.get((self.contact.name, self.friction.name), -1)

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


NO_CONTACT = ContactLaw("none", 0, "no obstacle: the beam swings freely")
TIP_ON_SLOPE = ContactLaw("tip_on_slope", 1, "the beam tip against a rigid slope")
PENALTY = ContactLaw("penalty", 2, "the beam tip against the slope with a continuous penalty force",
                     constraint=False)

NO_FRICTION = FrictionLaw("none", 0, has_bristles=False, direction_candidates=(0.0,),
                          stick_limit="mu_d")
COULOMB = FrictionLaw("coulomb", 1, has_bristles=False, direction_candidates=(1.0, -1.0),
                      stick_limit="mu_d")
LUGRE = FrictionLaw("lugre", 2, has_bristles=True, direction_candidates=(0.0,),
                    stick_limit="mu_s", needs_mu_s=True)
MODIFIED_COULOMB = FrictionLaw("modified_coulomb", 3, has_bristles=False,
                               direction_candidates=(0.0,), stick_limit="mu_d")

# Kernel codes of (contact law, friction law): module constants, read by numba at compile time.
LAW_NO_CONTACT = 0
LAW_FRICTIONLESS = 1            # constraint contact, no friction
LAW_COULOMB = 2                 # constraint contact, Coulomb (hybrid)
LAW_LUGRE = 3                   # constraint contact, LuGre (hybrid or unified)
LAW_CUSTOM = 4                  # constraint contact, a registered law with its own kernel function
LAW_PENALTY = 5                 # penalty contact, no friction; codes >= 5 are penalty contacts
LAW_PENALTY_MOD_COULOMB = 6     # penalty contact, modified Coulomb
LAW_PENALTY_LUGRE = 7           # penalty contact, LuGre
KERNEL_LAWS = {
    ("none", "none"): LAW_NO_CONTACT,
    ("tip_on_slope", "none"): LAW_FRICTIONLESS,
    ("tip_on_slope", "coulomb"): LAW_COULOMB,
    ("tip_on_slope", "lugre"): LAW_LUGRE,
    ("penalty", "none"): LAW_PENALTY,
    ("penalty", "modified_coulomb"): LAW_PENALTY_MOD_COULOMB,
    ("penalty", "lugre"): LAW_PENALTY_LUGRE,
}
KERNEL_CODES = tuple(sorted(set(KERNEL_LAWS.values()) | {LAW_CUSTOM}))

# Colours and line styles: colour-blind safe (Okabe-Ito), each model with its own dash pattern.
REGISTRY: dict[str, ModelSpec] = {}


def register(spec: ModelSpec) -> ModelSpec:
    """Add ``spec`` to the registry.  Its kernel code must be one the compiled right-hand side
    implements (:data:`KERNEL_CODES`); an id already registered is an error."""
    if spec.id in REGISTRY:
        raise ValueError(f"model {spec.id!r} is already registered")
    if spec.can_stick and not (spec.has_contact and spec.has_friction and spec.contact.constraint):
        raise ValueError(f"model {spec.id!r}: stick/slip switching needs a constraint contact and a "
                         f"friction law")
    if not spec.has_contact and spec.has_friction:
        raise ValueError(f"model {spec.id!r}: a friction law needs a contact law")
    if spec.kernel_code not in KERNEL_CODES or (spec.kernel_code == LAW_CUSTOM
                                                and not callable(spec.friction.kernel_function)):
        raise ValueError(f"model {spec.id!r}: contact law {spec.contact.name!r} with friction law "
                         f"{spec.friction.name!r} (kernel code {spec.kernel_code}) is not implemented "
                         f"by the kernel (codes {KERNEL_CODES})")
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
