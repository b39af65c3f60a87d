"""The models as data: one registry from model id to its contact law, friction law and look.

A model is a :class:`ModelSpec`: a contact law (none, or the beam tip on a rigid slope), a
friction law (:class:`FrictionLaw`: none, Coulomb, LuGre) and whether the model switches
between stick and slip (the paper's hybrid models) or keeps one law throughout the contact
(unified LuGre).  The simulator asks the spec, never the model's name, what to do; the compiled
right-hand side dispatches on the spec's :attr:`ModelSpec.kernel_code`, and a code it does not
know gives NaN (the integrator then stops), never a silent fallback to another law.

Where a new law goes: a friction law is a :class:`FrictionLaw` (its kernel code, whether it has
internal state z, how the slip direction is chosen, its stick limit).  A built-in law's formulas
go in :mod:`flexlib.friction` and its branch in :func:`flexlib.kernel.phase_eval_into`; a law
from outside the package brings its compiled function (``kernel_function``), and the simulator
compiles a right-hand side around it (:func:`flexlib.kernel.specialize`;
examples/custom_friction.py).
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ContactLaw", "FrictionLaw", "ModelSpec", "REGISTRY", "MODELS", "CONTACT_MODELS",
           "FRICTION_MODELS", "get", "canonical_model", "register",
           "NO_CONTACT", "TIP_ON_SLOPE", "NO_FRICTION", "COULOMB", "LUGRE",
           "LAW_NO_CONTACT", "LAW_FRICTIONLESS", "LAW_COULOMB", "LAW_LUGRE", "LAW_CUSTOM"]


@dataclass(frozen=True)
class ContactLaw:
    """How the body meets the obstacle.  ``code`` 0: no obstacle (free flight); 1: the beam tip
    against a rigid slope with a velocity jump at impact and a Baumgarte-stabilised normal
    constraint (docs/model.md sections 7-8)."""
    name: str
    code: int
    description: str


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
    def kernel_code(self) -> int:
        """The code of :func:`flexlib.kernel.phase_eval_into`'s ``model`` argument:
        :data:`LAW_NO_CONTACT`, or 1 + the friction code (:data:`LAW_FRICTIONLESS`,
        :data:`LAW_COULOMB`, :data:`LAW_LUGRE`)."""
        if not self.has_contact:
            return LAW_NO_CONTACT
        if self.friction.kernel_function is not None:
            return LAW_CUSTOM
        return 1 + self.friction.code

    @property
    def watches_painleve(self) -> bool:
        """A CONTACT phase of this model solves with friction (unified law): its Painleve margin
        is watched like a slip phase's."""
        return self.has_friction and not self.can_stick

    def style(self) -> dict:
        """Matplotlib keywords of the model's curves in every figure: color, ls, lw, label and
        the markers of :attr:`plot_kw`."""
        return dict(color=self.color, ls=self.linestyle, lw=self.linewidth, **dict(self.plot_kw),
                    label=self.plot_label or self.label)


NO_CONTACT = ContactLaw("none", 0, "no obstacle: the beam swings freely")
TIP_ON_SLOPE = ContactLaw("tip_on_slope", 1, "the beam tip against a rigid slope")

NO_FRICTION = FrictionLaw("none", 0, has_bristles=False, direction_candidates=(0.0,),
                          stick_limit="mu_d")
COULOMB = FrictionLaw("coulomb", 1, has_bristles=False, direction_candidates=(1.0, -1.0),
                      stick_limit="mu_d")
LUGRE = FrictionLaw("lugre", 2, has_bristles=True, direction_candidates=(0.0,),
                    stick_limit="mu_s", needs_mu_s=True)

# Kernel codes of (contact law, friction law): module constants, read by numba at compile time.
LAW_NO_CONTACT = 0
LAW_FRICTIONLESS = 1 + NO_FRICTION.code
LAW_COULOMB = 1 + COULOMB.code
LAW_LUGRE = 1 + LUGRE.code
LAW_CUSTOM = 4                  # a registered law with its own kernel function
KERNEL_CODES = (LAW_NO_CONTACT, LAW_FRICTIONLESS, LAW_COULOMB, LAW_LUGRE, LAW_CUSTOM)

# Colours and line styles: colour-blind safe (Okabe-Ito), each model with its own dash pattern.
REGISTRY: dict[str, ModelSpec] = {}


def register(spec: ModelSpec) -> ModelSpec:
    """Add ``spec`` to the registry.  Its kernel code must be one the compiled right-hand side
    implements (:data:`KERNEL_CODES`); an id already registered is an error."""
    if spec.id in REGISTRY:
        raise ValueError(f"model {spec.id!r} is already registered")
    if spec.kernel_code not in KERNEL_CODES or (spec.kernel_code == LAW_CUSTOM
                                                and not callable(spec.friction.kernel_function)):
        raise ValueError(f"model {spec.id!r}: contact law {spec.contact.name!r} with friction law "
                         f"{spec.friction.name!r} (kernel code {spec.kernel_code}) is not implemented "
                         f"by the kernel (codes {KERNEL_CODES})")
    if spec.can_stick and not (spec.has_contact and spec.has_friction):
        raise ValueError(f"model {spec.id!r}: stick/slip switching needs contact and a friction law")
    if not spec.has_contact and spec.has_friction:
        raise ValueError(f"model {spec.id!r}: a friction law needs a contact law")
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
                  plot_kw=(("marker", "^"), ("ms", 5), ("markevery", (0.06, 0.09))))):
    register(_spec)

# Views of the registry, in registration order (the names simulate.py exported before).
MODELS = tuple(REGISTRY)
CONTACT_MODELS = tuple(m for m, s in REGISTRY.items() if s.has_contact)
FRICTION_MODELS = tuple(m for m, s in REGISTRY.items() if s.has_friction)


def canonical_model(name: str) -> str:
    """The canonical model id; hyphens are accepted (``hybrid-coulomb`` -> ``hybrid_coulomb``)."""
    key = str(name).strip().lower().replace("-", "_")
    if key not in REGISTRY:
        raise ValueError(f"unknown model {name!r}; valid models: {', '.join(REGISTRY)}")
    return key


def get(name: str) -> ModelSpec:
    """The registry entry of model ``name`` (hyphens accepted); unknown names are an error."""
    return REGISTRY[canonical_model(name)]
