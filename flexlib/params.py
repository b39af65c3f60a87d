"""Parameters of the beam, the slope, friction and the solver, with validation.

Every default is in docs/model.md, section 3.  Every numeric field is checked against
the single table :data:`RANGES` whenever it is set (at construction and on later
assignment); a bad value raises :class:`ValueError` naming the parameter, the
value and the valid range.  :data:`DESCRIPTIONS` says in one line what each
parameter is; the command line's help reads it.

The paper's two cases are returned by :func:`paper_case`: ``"3.1"`` (also
``"A"``) and ``"3.2"`` (also ``"B"``).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field, fields

import numpy as np

__all__ = [
    "RANGES", "DESCRIPTIONS", "parse_value", "check_value", "check_run", "T_END_MAX", "BeamParams", "SlopeParams", "CoulombParams", "LuGreParams",
    "SolverSettings", "Case", "paper_case", "CASE_NAMES",
]

# name: (low, high, low_inclusive, high_inclusive, kind, unit)
# kind is "float", "int", "bool" or a tuple of allowed strings.
RANGES: dict[str, tuple] = {
    # beam
    "L": (0.0, 100.0, False, True, "float", "m"),
    "S": (0.0, 1.0, False, True, "float", "m^2"),
    "rho": (0.0, 1e5, False, True, "float", "kg/m^3"),
    "E": (0.0, 1e16, False, True, "float", "Pa"),
    "I": (0.0, 1.0, False, True, "float", "m^4"),
    "g0": (0.0, 100.0, True, True, "float", "m/s^2"),
    "n_modes": (0, 12, True, True, "int", "-"),
    "basis": (None, None, True, True, ("modal", "fe", "partition"), "-"),
    "elements": (1, 256, True, True, "int", "-"),
    "local_length": (0.0, 100.0, True, True, "float", "m"),
    "local_modes": (0, 512, True, True, "int", "-"),
    "axial_modes": (0, 4, True, True, "int", "-"),
    "foreshortening": (None, None, True, True, "bool", "-"),
    "zeta": (0.0, 1.0, True, False, "float", "-"),
    "n_gauss": (0, 400, True, True, "int", "-"),
    "theta0": (-math.pi, math.pi, True, True, "float", "rad"),
    "tau_d": (-1e6, 1e6, True, True, "float", "N m"),
    # slope and contact
    "X1": (-100.0, 100.0, True, True, "float", "m"),
    "alpha": (-1.5, 1.5, True, True, "float", "rad"),
    "e": (0.0, 1.0, True, True, "float", "-"),
    "v_zeno": (0.0, 10.0, True, True, "float", "m/s"),
    "chi": (0.0, 1e6, True, True, "float", "1/s"),
    "beta": (0.0, 1e7, True, True, "float", "1/s"),
    # continuous contact force models (penalty normal law)
    "contact_law": (None, None, True, True,
                    ("hertz", "hunt_crossley", "lankarani_nikravesh", "flores", "kelvin_voigt"), "-"),
    "contact_stiffness": (0.0, 1e14, False, True, "float", "N/m^n"),
    "contact_exponent": (1.0, 3.0, True, True, "float", "-"),
    "contact_damping": (0.0, 1e8, True, True, "float", "N s/m"),
    # friction
    "mu_d": (0.0, 10.0, True, True, "float", "-"),
    "mu_s": (0.0, 10.0, True, True, "float", "-"),
    "Dv": (0.0, 1.0, False, True, "float", "m/s"),
    "stick_limit": (None, None, True, True, ("default", "mu_d", "mu_s"), "-"),
    "sigma0": (0.0, 1e9, False, True, "float", "1/m"),
    "sigma1": (0.0, 1e6, True, True, "float", "s/m"),
    "sigma2": (0.0, 1e6, True, True, "float", "s/m"),
    "v_s": (0.0, 10.0, False, True, "float", "m/s"),
    "v0": (0.0, 1.0, True, True, "float", "m/s"),
    "v1": (0.0, 1.0, False, True, "float", "m/s"),
    # solver
    "rtol": (1e-14, 1e-3, True, True, "float", "-"),
    "atol": (0.0, 1.0, False, True, "float", "-"),
    "method": (None, None, True, True, ("auto", "DOP853", "DOP853-scipy", "RK45", "Radau",
                                        "gen-alpha", "Radau-scipy", "BDF", "LSODA"), "-"),
    "max_step_contact": (0.0, 1.0, False, True, "float", "s"),
    "max_step_free": (0.0, 10.0, False, True, "float", "s"),
    "t_cluster": (0.0, 10.0, False, True, "float", "s"),
    "dt_rearm": (0.0, 1e-3, True, True, "float", "s"),
    "event_cap": (10, 10_000_000, True, True, "int", "-"),
    "max_steps_phase": (100, 100_000_000, True, True, "int", "-"),
    "multiplier_mode": (None, None, True, True, ("coupled",), "-"),
    "jacobian": (None, None, True, True, ("structured", "differences"), "-"),
    "dense_dt": (0.0, 1e-5, False, True, "float", "s"),
    "interior_points": (50, 10_000, True, True, "int", "-"),
}


# name: one line saying what the parameter is, in words (no unit: the unit is in RANGES).
# The command line's --help and the notebooks' widgets read their texts from here.
DESCRIPTIONS: dict[str, str] = {
    # beam
    "L": "beam length",
    "S": "cross-section area of the beam",
    "rho": "mass density of the beam",
    "E": "Young's modulus of the beam",
    "I": "second moment of area of the cross-section (bending stiffness E I)",
    "g0": "gravitational acceleration (acts along -Y)",
    "n_modes": "number N of bending (transverse) assumed modes (with basis 'partition': of the "
               "region away from the tip)",
    "basis": "functions of the beam's deflection: 'modal' (the paper's assumed modes), 'fe' "
             "(Hermite beam elements), 'partition' (assumed modes away from the tip, elements "
             "near it)",
    "elements": "number of Hermite beam elements (basis 'fe': of the whole beam; 'partition': of "
                "the end region)",
    "local_length": "length of the end region meshed with elements (basis 'partition'; 0: the "
                    "modal beam, L: the finite-element beam)",
    "local_modes": "fixed-interface modes kept of the end region (basis 'partition', Craig-Bampton "
                   "reduction; 0: no reduction)",
    "axial_modes": "number of axial bar modes (0: the paper's axially rigid beam; >= 1 lets the "
                   "hybrid models stick)",
    "foreshortening": "keep the axial shortening of the bent beam (false only to show the spurious "
                      "softening without it)",
    "zeta": "modal damping ratio of the bending modes",
    "n_gauss": "Gauss-Legendre points of the modal integrals; 0 = automatic: max(40, 8 N)",
    "theta0": "initial angle of the beam from the X axis; the beam is released at rest",
    "tau_d": "constant driving torque at the hinge",
    # slope and contact
    "X1": "X coordinate of O1, the point where the slope meets the X axis",
    "alpha": "inclination of the slope from the X axis",
    "e": "coefficient of restitution: of the velocity jump at impact (0: no rebound); for the "
         "continuous models the one their contact law is built for",
    "v_zeno": "with e > 0, approaches slower than this are taken with e = 0, ending a bouncing sequence "
              "(0: off); for the continuous models the smallest approach speed of the damping term",
    "chi": "Baumgarte damping constant of the contact constraint "
           "(Psi'' + 2 chi Psi' + beta^2 Psi = 0)",
    "beta": "Baumgarte frequency constant of the contact constraint",
    "contact_law": "normal force law of the continuous contact models: 'hertz' (elastic), "
                   "'hunt_crossley', 'lankarani_nikravesh', 'flores' (hysteresis damping set by e), "
                   "'kelvin_voigt' (spring and linear damper)",
    "contact_stiffness": "penalty stiffness K of the continuous contact models (N = K delta^n ...)",
    "contact_exponent": "exponent n of the penetration delta in the penalty force (1.5: Hertz "
                        "point contact)",
    "contact_damping": "damping coefficient C of the 'kelvin_voigt' law (N = K delta^n + C delta')",
    # friction
    "mu_d": "kinetic (sliding) Coulomb friction coefficient",
    "mu_s": "static friction coefficient (not below mu_d)",
    "Dv": "tangential speed below which the hybrid models test for stick",
    "stick_limit": "friction ratio allowed in stick: 'default' is mu_d for hybrid Coulomb and mu_s "
                   "for hybrid LuGre",
    "sigma0": "LuGre bristle stiffness (coefficient form: friction coefficient per metre of "
              "bristle deflection)",
    "sigma1": "LuGre bristle damping",
    "sigma2": "LuGre viscous friction",
    "v_s": "Stribeck velocity of the LuGre friction level",
    "v0": "modified Coulomb law: tangential speed below which there is no friction",
    "v1": "modified Coulomb law: tangential speed above which the full mu_d N acts (a linear "
          "ramp from v0)",
    # solver
    "rtol": "relative tolerance of the integrator",
    "atol": "absolute tolerance of the integrator (scaled per state component)",
    "method": "integrator: 'DOP853' is flexlib's compiled copy of scipy's DOP853 (explicit), "
              "'Radau' its compiled Radau IIA (implicit), 'gen-alpha' its compiled "
              "generalized-alpha step (implicit, second order, damps the modes its step does not "
              "resolve; not with LuGre friction), 'auto' DOP853, but Radau in the phases "
              "in which nothing excites the elastic modes when the bases are stiff (highest "
              "natural frequency times max_step_contact above 4); the others (DOP853-scipy, "
              "Radau-scipy, RK45, BDF, LSODA) use scipy's solve_ivp (slower, for cross-checks)",
    "max_step_contact": "largest integrator step in contact",
    "max_step_free": "largest integrator step in flight",
    "t_cluster": "contact episodes closer in time than this form one impact",
    "dt_rearm": "time after a separation before a new contact is looked for",
    "event_cap": "most events allowed in one impact; more stops the run (guards against endless "
                 "micro-impacts)",
    "max_steps_phase": "integrator step budget of one phase between two events",
    "multiplier_mode": "contact multipliers: 'coupled' solves the normal and tangential rows of "
                       "every contact point together (the only choice)",
    "jacobian": "Radau's Newton matrix: 'structured' builds it from the bodies' mass, damping "
                "and stiffness and the contacts' force slopes, factorized through the mass "
                "matrix's structure (finite-element bodies from 60 coordinates on, penalty "
                "contacts without friction or with modified Coulomb friction), elsewhere by "
                "differences; 'differences' always by forward differences of the right-hand side",
    "dense_dt": "sampling step of the plotted and exported histories in contact phases",
    "interior_points": "points along the beam checked for contact with the slope away from the tip",
}


def _range_text(name: str) -> str:
    lo, hi, lo_in, hi_in, kind, unit = RANGES[name]
    if kind == "bool":
        return "True or False"
    if isinstance(kind, tuple):
        return "one of " + ", ".join(repr(k) for k in kind)
    left = "[" if lo_in else "("
    right = "]" if hi_in else ")"
    what = "an integer in " if kind == "int" else ""
    unit = unit[1:].strip() if unit.startswith("-") else unit     # "-" marks a dimensionless value
    return f"{what}{left}{lo:g}, {hi:g}{right} {unit}".rstrip()


def check_value(name: str, value):
    """Validate one parameter against :data:`RANGES`; return it (ints normalised)."""
    lo, hi, lo_in, hi_in, kind, _unit = RANGES[name]
    bad = ValueError(f"parameter {name!r} = {value!r} is invalid: valid range is {_range_text(name)}")
    if kind == "bool":
        if not isinstance(value, (bool,)) and value not in (0, 1):
            raise bad
        return bool(value)
    if isinstance(kind, tuple):
        if value not in kind:
            raise bad
        return value
    if isinstance(value, bool):
        raise bad
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise bad from None
    if not math.isfinite(x):
        raise bad
    if kind == "int":
        if x != int(x):
            raise bad
        x = int(x)
    ok_lo = x >= lo if lo_in else x > lo
    ok_hi = x <= hi if hi_in else x < hi
    if not (ok_lo and ok_hi):
        raise bad
    return x


T_END_MAX = 1000.0      # s: the longest run accepted


def check_number(name: str, value, valid: str) -> float:
    """``value`` as a float, or a ValueError naming ``name`` and the ``valid`` range (a bool, a
    non-number and a non-finite number are refused)."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"parameter {name!r} = {value!r} is invalid: valid range is {valid}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"parameter {name!r} = {value!r} is not a number: valid range is "
                         f"{valid}") from None
    if not math.isfinite(x):
        raise ValueError(f"parameter {name!r} = {value!r} is invalid: valid range is {valid}")
    return x


def check_run(t_end, sample_times=None, dt=None):
    """The run's span and output times, checked before any run: ``t_end`` in (0, 1000] s,
    ``sample_times`` (numbers, or None) in [0, t_end] s and the output step ``dt`` (or None) in
    (0, t_end] s.  Returns (t_end, sample times as a 1-D float array or None, dt or None); a bad
    value raises a ValueError naming the parameter, its value and the valid range.  Both engines'
    entry points and the command line call it."""
    span = f"(0, {T_END_MAX:g}] s"
    t_end = check_number("t_end", t_end, span)
    if not 0.0 < t_end <= T_END_MAX:
        raise ValueError(f"parameter 't_end' = {t_end!r} is invalid: valid range is {span}")
    within = f"[0, t_end = {t_end:g}] s"
    st = None
    if sample_times is not None:
        try:
            st = np.asarray(sample_times, float).reshape(-1)
        except (TypeError, ValueError):
            raise ValueError(f"parameter 'sample_times' = {sample_times!r} is invalid: expected "
                             f"numbers in {within}") from None
        if not np.all(np.isfinite(st)) or st.size and (st.min() < 0.0 or st.max() > t_end):
            raise ValueError(f"parameter 'sample_times' = {sample_times!r} is invalid: valid range "
                             f"is {within}")
    if dt is not None:
        dt = check_number("dt", dt, f"(0, t_end = {t_end:g}] s")
        if not 0.0 < dt <= t_end:
            raise ValueError(f"parameter 'dt' = {dt!r} is invalid: valid range is "
                             f"(0, t_end = {t_end:g}] s")
    return t_end, st, dt


def parse_value(name: str, text: str):
    """A parameter value from its text (command line, grids): a bool, a choice or a number, not
    yet range-checked (:func:`check_value` does that).  A non-number names the valid range."""
    kind = RANGES[name][4]
    if kind == "bool":
        low = text.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"parameter {name!r} = {text!r} is invalid: valid range is True or False")
    if isinstance(kind, tuple):
        return text
    try:
        return float(text) if kind == "float" else int(float(text)) if float(text).is_integer() else float(text)
    except ValueError:
        raise ValueError(f"parameter {name!r} = {text!r} is not a number: valid range is "
                         f"{_range_text(name)}") from None


class _Validated:
    """Dataclass mixin: validate every field on assignment, then cross-field rules."""

    def __setattr__(self, name, value):
        if name in RANGES:
            value = check_value(name, value)
        missing = object()
        old = getattr(self, name, missing)
        object.__setattr__(self, name, value)
        if getattr(self, "_ready", False):
            try:
                self._check_relations()
            except ValueError:
                if old is not missing:      # a rejected assignment leaves the object unchanged
                    object.__setattr__(self, name, old)
                raise

    def __post_init__(self):
        object.__setattr__(self, "_ready", True)
        self._check_relations()

    def _check_relations(self):
        pass

    def replace(self, **changes):
        """A validated copy with some fields changed (cross-field rules apply to the result)."""
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(eq=True)
class BeamParams(_Validated):
    """Beam, hinge and initial state.  SI units.

    ``n_gauss = 0`` (default) chooses ``max(40, 8 * n_modes)`` Gauss-Legendre points,
    which is 40 for N <= 5 and at least 60 for N = 8 (with basis 'partition': on the region away
    from the tip; elements are integrated exactly with 6 points each).

    ``basis`` selects the functions of the deflection (:mod:`flexlib.bodies.bases`): ``"modal"`` (the
    paper's ``n_modes`` assumed modes), ``"fe"`` (``elements`` Hermite beam elements, the root
    clamped) or ``"partition"`` (``n_modes`` assumed modes of the beam of length
    L - ``local_length`` and ``elements`` Hermite elements on the end region of length
    ``local_length``, reduced to ``local_modes`` fixed-interface modes if that is > 0).  Axial
    modes are offered with the modal basis only.
    ``foreshortening=False`` drops the second-order coupling term u_x = -1/2 B^T H B;
    it exists only to demonstrate the spurious softening it causes (the centrifugal term
    Omega^2 (D - M2) B of the rotating beam changes sign without it).
    """
    L: float = 1.0
    S: float = 3.14e-4
    rho: float = 2766.67
    E: float = 68.952e9
    I: float = 7.85e-9
    g0: float = 9.81
    n_modes: int = 3
    basis: str = "modal"
    elements: int = 8
    local_length: float = 0.2
    local_modes: int = 0
    axial_modes: int = 0
    foreshortening: bool = True
    zeta: float = 0.0
    n_gauss: int = 0
    theta0: float = math.pi / 4
    tau_d: float = 0.0

    @property
    def gauss_points(self) -> int:
        return self.n_gauss if self.n_gauss > 0 else max(40, 8 * self.n_modes)

    def _check_relations(self):
        if 0 < self.n_gauss < 2 * self.n_modes + 8:
            raise ValueError(
                f"parameter 'n_gauss' = {self.n_gauss} is too small for n_modes = {self.n_modes}: "
                f"valid range is 0 (automatic) or [{2 * self.n_modes + 8}, 400]")
        if self.basis != "modal" and self.axial_modes != 0:
            raise ValueError(
                f"parameter 'axial_modes' = {self.axial_modes} is invalid with basis "
                f"{self.basis!r}: valid range is 0 (axial modes are offered with basis 'modal' only)")
        if self.basis == "partition":
            if self.local_length > self.L:
                raise ValueError(
                    f"parameter 'local_length' = {self.local_length!r} is invalid: valid range is "
                    f"[0, L = {self.L!r}] m (the end region lies on the beam)")
            if self.local_modes > 2 * self.elements:
                raise ValueError(
                    f"parameter 'local_modes' = {self.local_modes} is invalid: valid range is "
                    f"[0, {2 * self.elements}] (0: no reduction; the end region of {self.elements} "
                    f"elements has 2 x {self.elements} coordinates)")


@dataclass(eq=True)
class SlopeParams(_Validated):
    """The rigid slope through O1 = (X1, 0) inclined at alpha, and the impact/constraint constants.

    ``e`` is the restitution of the velocity jump (eqs (39)-(48)); ``chi`` and ``beta`` are
    the Baumgarte constants of Psi'' + 2 chi Psi' + beta^2 Psi = 0 (eqs (36), (63)).

    ``v_zeno`` ends a bouncing sequence when e > 0: a contact whose normal approach speed is below
    it is taken with e = 0 (the contact persists and the contact state is chosen as after any
    impact); 0 switches the rule off.  The default 1e-2 m/s is the speed gravity gives in the
    time the contact constraint acts on, g0 / beta = 9.81 / 1000 s^-1 ~ 1e-2 m/s: a rebound slower
    than that flies for less than ~2/beta = 2 ms, a time the Baumgarte-stabilised contact cannot
    separate from a persisting contact.  Case 3.2 with e = 0.5 shows why a rule is needed: the
    rebounds shrink to ~1e-4 m/s but not to zero (the beam's vibration keeps pushing the tip in),
    so without it the contacts follow each other ~40 ns apart until the event cap stops the run.

    The continuous contact models (``continuous_coulomb``, ``continuous_lugre``) replace the
    jump and the constraint by a penalty force N = K delta^n (1 + D(e) delta' / delta'_in)
    (``contact_law`` sets D(e); ``kelvin_voigt`` is N = K delta^n + C delta' with C =
    ``contact_damping``), K = ``contact_stiffness`` in N/m^n, n = ``contact_exponent``; see
    :mod:`flexlib.contact.penalty`.  They use ``e`` as the restitution their law is built for, and
    ``v_zeno`` as the smallest approach speed delta'_in of the damping term.  ``chi`` and
    ``beta`` are not used by them.
    """
    X1: float = 0.5
    alpha: float = math.pi / 10
    e: float = 0.0
    v_zeno: float = 1e-2
    chi: float = 10.0
    beta: float = 1000.0
    contact_law: str = "flores"
    contact_stiffness: float = 1.0e9
    contact_exponent: float = 1.5
    contact_damping: float = 0.0


@dataclass(eq=True)
class CoulombParams(_Validated):
    """Coulomb levels shared by every friction model (eqs (68)-(69)).

    ``mu_d`` kinetic and ``mu_s`` static coefficient (mu_s >= mu_d), ``Dv`` the stick
    velocity threshold of the hybrid models.  ``stick_limit`` is the friction ratio of the
    stick test: ``"default"`` means mu_d for hybrid Coulomb and mu_s for hybrid LuGre
    (the paper's stick limits).  ``v0`` < ``v1`` shape the modified Coulomb law of the
    continuous contact model (Ambrosio 2002): no friction below v0, mu_d above v1, a linear ramp
    between (:func:`flexlib.contact.friction.modified_coulomb`).
    """
    mu_d: float = 0.4
    mu_s: float = 0.5
    Dv: float = 1e-4
    stick_limit: str = "default"
    v0: float = 1e-4
    v1: float = 1e-3

    def _check_relations(self):
        if self.mu_s < self.mu_d:
            raise ValueError(
                f"parameter 'mu_s' = {self.mu_s!r} is invalid: valid range is "
                f"[mu_d = {self.mu_d!r}, 10] (static friction must not be below kinetic friction)")
        if not self.v0 < self.v1:
            raise ValueError(
                f"parameter 'v0' = {self.v0!r} is invalid: valid range is [0, v1 = {self.v1!r}) m/s "
                f"(the modified Coulomb ramp runs from v0 up to v1)")


@dataclass(eq=True)
class LuGreParams(_Validated):
    """LuGre bristle parameters in coefficient form (eq (68)).

    mu = sigma0 z + sigma1 z' + sigma2 v_t, z' = v_t - sigma0 |v_t| z / g(v_t),
    g(v) = mu_d + (mu_s - mu_d) exp(-(v / v_s)^2).  sigma0 in 1/m, sigma1 and sigma2 in s/m.
    """
    sigma0: float = 1.0e5
    sigma1: float = 1.0e2
    sigma2: float = 0.0
    v_s: float = 1e-3


@dataclass(eq=True)
class SolverSettings(_Validated):
    """Integrator and event settings (docs/model.md, sections 3, 11 and 12).

    ``rtol``/``atol`` are the integrator tolerances (atol is scaled per component by the
    simulator).  ``method="DOP853"`` uses flexlib's compiled copy of scipy's DOP853
    (:mod:`flexlib.solver.integrator`) when numba is available, ``"Radau"`` its compiled Radau IIA
    (:mod:`flexlib.solver.radau`, implicit: its step is not bounded by the bases' highest
    frequency), ``"gen-alpha"`` its compiled generalized-alpha step (:mod:`flexlib.solver.genalpha`,
    implicit, second order, one evaluation per Newton iteration; not with LuGre friction),
    ``"auto"`` (the default) DOP853, and on stiff bases Radau in the phases in which
    nothing excites the elastic modes (:func:`flexlib.multibody.simulate.integrator_for`);
    ``"DOP853-scipy"``, ``"Radau-scipy"`` and the other names use :func:`scipy.integrate.solve_ivp`
    (slower, for cross-checks).  ``max_step_contact`` bounds the step in contact phases so that short
    contacts and sign changes of v_t are not skipped.  ``dense_dt`` is the sampling step of
    the histories ``result.h`` in contact phases (the impacts' peaks and ``result.sample`` use
    the interpolant itself).  ``event_cap`` bounds the events per impact
    cluster (Zeno guard).  ``max_steps_phase`` is the step budget of one phase of the compiled
    integrator (its dense output costs ~1-2 kB per step, so the default 10^6 bounds a phase at
    ~1-2 GB; a legitimate phase of the paper's cases takes < 10^4 steps, a very stiff LuGre
    bristle equation with mu_d -> 0 many more).  ``multiplier_mode`` is ``"coupled"``: the
    multipliers of all constraint rows are solved together (docs/model.md 8.4).  ``jacobian``
    is Radau's Newton matrix (:mod:`flexlib.multibody.newton`: ``"structured"`` where the system
    allows it, else ``"differences"``).
    """
    rtol: float = 1e-8
    atol: float = 1e-10
    method: str = "auto"
    max_step_contact: float = 5e-5
    max_step_free: float = 1e-2
    t_cluster: float = 0.02
    dt_rearm: float = 1e-9
    event_cap: int = 10_000
    max_steps_phase: int = 1_000_000
    multiplier_mode: str = "coupled"
    jacobian: str = "structured"
    dense_dt: float = 1e-5
    interior_points: int = 50

    def tightened(self, factor: float = 10.0) -> "SolverSettings":
        """The same settings with rtol and atol divided by ``factor``."""
        return self.replace(rtol=max(self.rtol / factor, 1e-14), atol=self.atol / factor)


@dataclass(eq=True)
class Case:
    """A complete simulation case: beam, slope, friction and solver settings."""
    name: str = "3.2"
    beam: BeamParams = field(default_factory=BeamParams)
    slope: SlopeParams = field(default_factory=SlopeParams)
    coulomb: CoulombParams = field(default_factory=CoulombParams)
    lugre: LuGreParams = field(default_factory=LuGreParams)
    solver: SolverSettings = field(default_factory=SolverSettings)

    _GROUPS = ("beam", "slope", "coulomb", "lugre", "solver")

    def __post_init__(self):
        for g in self._GROUPS:
            cls = {f.name: f.default_factory for f in fields(self)}[g]
            if not isinstance(getattr(self, g), cls):
                raise TypeError(f"Case.{g} must be a {cls.__name__}, not {type(getattr(self, g)).__name__}")

    def group_of(self, name: str) -> str:
        for g in self._GROUPS:
            if name in {f.name for f in fields(getattr(self, g))}:
                return g
        valid = sorted(n for g in self._GROUPS for n in (f.name for f in fields(getattr(self, g))))
        raise ValueError(f"unknown parameter {name!r}; valid parameters: {', '.join(valid)}")

    def with_(self, **changes) -> "Case":
        """A copy with flat parameter changes, e.g. ``case.with_(mu_d=0.3, n_modes=4)``."""
        per_group: dict[str, dict] = {}
        for k, v in changes.items():
            per_group.setdefault(self.group_of(k), {})[k] = v
        new = {g: getattr(self, g).replace(**kw) for g, kw in per_group.items()}
        return dataclasses.replace(self, **new)

    def as_dict(self) -> dict:
        return {"name": self.name, **{g: getattr(self, g).as_dict() for g in self._GROUPS}}

    def key(self) -> tuple:
        """A hashable key of every parameter value (for caches)."""
        return (self.name,) + tuple(tuple(sorted(getattr(self, g).as_dict().items())) for g in self._GROUPS)

    @classmethod
    def from_dict(cls, d: dict) -> "Case":
        """The case of ``d`` (:meth:`as_dict`, or the ``params`` of a result's summary, which
        name it ``case`` and add the model and t_end)."""
        return cls(name=d.get("name", d.get("case", "custom")),
                   beam=BeamParams(**d["beam"]), slope=SlopeParams(**d["slope"]),
                   coulomb=CoulombParams(**d["coulomb"]), lugre=LuGreParams(**d["lugre"]),
                   solver=SolverSettings(**d["solver"]))


CASE_NAMES = {"3.1": "3.1", "A": "3.1", "a": "3.1", "3.2": "3.2", "B": "3.2", "b": "3.2"}


def paper_case(name: str = "3.2") -> Case:
    """The paper's cases: ``"3.1"``/``"A"`` (X1 = 0.3, mu_d = 0.3, hybrid Coulomb)
    and ``"3.2"``/``"B"`` (X1 = 0.5, mu_d = 0.4, mu_s = 0.5)."""
    key = CASE_NAMES.get(str(name).strip())
    if key is None:
        raise ValueError(f"unknown case {name!r}; valid cases: '3.1' (or 'A'), '3.2' (or 'B')")
    if key == "3.1":
        # mu_s is not given for case A and is not used by hybrid Coulomb: set to mu_d.
        return Case(name="3.1", slope=SlopeParams(X1=0.3), coulomb=CoulombParams(mu_d=0.3, mu_s=0.3))
    return Case(name="3.2")
