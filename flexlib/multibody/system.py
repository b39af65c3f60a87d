"""A system as data: bodies in a tree of joints, half-plane obstacles and contact points.

    sys = System(
        bodies=(Body("B1", BeamParams(L=1.0), GroundHinge((0, 0))),
                Body("B2", BeamParams(L=0.5), Hinge("B1", x=1.0))),
        obstacles=(HalfPlane("stop", origin=(0, 0), normal=(1, 0)),),
        contacts=(ContactPoint("B", body="B1", x=0.8, obstacle="stop"),))

A body is a beam in a floating frame (:class:`flexlib.params.BeamParams`: its length, section,
material and basis; ``n_modes = 0`` makes it rigid); its joint to the parent is a
:class:`GroundHinge`, a :class:`Hinge` to a parent body's material point, or a :class:`FreeJoint`.
A contact point is a material point of a body that may touch an obstacle; its laws (the
contact method, the normal law, the friction law, whether it may stick) are a
:class:`ContactLaws`, usually made from a model name by :func:`flexlib.multibody.models.laws_for`.
:meth:`System.arrays` turns the description into the flat arrays the compiled code runs
(:class:`SystemArrays`); nothing in the compiled code knows which system it runs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import NamedTuple

import numpy as np

from ..bodies.beam import NPAR_BODY, BeamModel, KernelArrays
from ..params import BeamParams
from .assembly import (B_DRIVE, B_MASS, B_OMEGA, B_RAMP, B_TH0, FREE_JOINT, GROUND_HINGE, NBFLT,
                       PARENT_HINGE)
from .drives import SpinUp
from . import structured as _st
from .kernel import (NB_MAX, C_C, C_D, C_DV, C_E, C_K, C_LIM, C_MU_D, C_MU_S, C_N, C_SIGMA0, C_SIGMA1,
                     C_SIGMA2, C_V0, C_V1, C_V_S, CONSTRAINT, CUSTOM, NC_MAX, NCFLT, PENALTY,
                     use_ldlt)
from .laws import FrictionLaw, law_table

__all__ = ["GroundHinge", "Hinge", "FreeJoint", "Body", "HalfPlane", "ContactLaws", "ContactPoint",
           "System", "SystemArrays"]


@dataclass(frozen=True)
class GroundHinge:
    """A frictionless hinge to the ground at ``point`` [m]: the body keeps its angle theta, or,
    with a ``drive`` (:class:`flexlib.multibody.drives.SpinUp`), turns as the drive prescribes
    from its initial angle (the drive's torque is whatever that takes)."""
    point: tuple = (0.0, 0.0)
    drive: object = None

    def __post_init__(self):
        if self.drive is not None and not isinstance(self.drive, SpinUp):
            raise ValueError(f"parameter 'drive' = {self.drive!r} of a ground hinge is invalid: "
                             f"valid is None or a flexlib.multibody.drives.SpinUp")


@dataclass(frozen=True)
class Hinge:
    """A frictionless hinge at the material point ``x`` [m] of the body ``parent`` (the deformed
    point): the body's frame origin follows it; its angle theta is absolute."""
    parent: str
    x: float


@dataclass(frozen=True)
class FreeJoint:
    """No joint: the frame origin R = (R_x, R_y) is free (planar motion)."""


@dataclass(frozen=True)
class Body:
    """A beam in a floating frame.  ``theta0`` [rad], ``theta_dot0`` [rad/s] its initial angle and
    rate; a free body also starts at ``origin`` [m] with ``origin_rate`` [m/s] (the position and
    velocity of its end x = 0, the undeformed beam's axis at ``theta0``); deformations start at 0.

    ``clamp`` says where the basis's functions are clamped and so which tangent is the frame's
    axis (:func:`flexlib.bodies.bases.basis_of`): ``"auto"`` (default) is ``"centre"`` for a free
    body, so that its two ends are alike (:mod:`flexlib.bodies.basis_centre`), and ``"root"`` (the
    end x = 0, where a hinge holds the body) otherwise.  A hinged body needs ``"root"``."""
    name: str
    beam: BeamParams = field(default_factory=BeamParams)
    joint: object = field(default_factory=GroundHinge)
    theta0: float = 0.0
    theta_dot0: float = 0.0
    origin: tuple = (0.0, 0.0)
    origin_rate: tuple = (0.0, 0.0)
    clamp: str = "auto"

    def __post_init__(self):
        if self.clamp not in ("auto", "root", "centre"):
            raise ValueError(f"parameter 'clamp' = {self.clamp!r} of body {self.name!r} is invalid: "
                             f"valid range is one of 'auto', 'root', 'centre'")
        if self.clamp == "centre" and not isinstance(self.joint, FreeJoint):
            raise ValueError(f"parameter 'clamp' = 'centre' of body {self.name!r} is invalid with "
                             f"its joint {self.joint!r}: valid range is 'auto' or 'root' (a hinge "
                             f"holds the frame origin, the material point x = 0)")

    @property
    def frame_clamp(self) -> str:
        """Where this body's basis is clamped: ``"root"`` or ``"centre"``."""
        if self.clamp == "auto":
            return "centre" if isinstance(self.joint, FreeJoint) else "root"
        return self.clamp


@dataclass(frozen=True)
class HalfPlane:
    """A rigid half-plane: ``origin`` [m] on its boundary line, ``normal`` pointing into the free
    side (normalised here); its tangent is t = (n_y, -n_x)."""
    name: str
    origin: tuple = (0.0, 0.0)
    normal: tuple = (0.0, 1.0)

    def __post_init__(self):
        nx, ny = map(float, self.normal)
        h = math.hypot(nx, ny)
        if not h > 0.0:
            raise ValueError(f"parameter 'normal' = {self.normal!r} of obstacle {self.name!r} is "
                             f"invalid: valid range is a nonzero 2-vector")
        object.__setattr__(self, "normal", (nx / h, ny / h))


@dataclass(frozen=True)
class ContactLaws:
    """The laws of a contact point.  ``method``: ``"constraint"`` (impulse-momentum jump with
    restitution ``e``, then a Baumgarte-stabilised constraint) or ``"penalty"`` (the continuous
    contact force N = K delta^n (1 + D delta'/delta'_in) + C delta', :mod:`flexlib.contact.penalty`);
    ``friction``: ``"none"``, ``"coulomb"`` (stick/slip with ``can_stick``), ``"lugre"`` or
    ``"modified_coulomb"`` (penalty only); the friction parameters are those of
    :class:`flexlib.params.CoulombParams` and :class:`flexlib.params.LuGreParams`.  Or
    ``friction`` is a law from outside the package, a :class:`flexlib.multibody.laws.FrictionLaw`
    (both methods; stick/slip with ``can_stick`` if the law has a stick limit), and
    ``friction_params`` its own parameter values (a dict by name, or a sequence in its order),
    checked against its ranges and stored in its order."""
    method: str = "constraint"
    friction: str = "none"
    can_stick: bool = False
    e: float = 0.0
    K: float = 0.0
    n: float = 1.5
    D: float = 0.0
    C: float = 0.0
    v_zeno: float = 1e-2
    mu_d: float = 0.0
    mu_s: float = 0.0
    Dv: float = 1e-4
    v0: float = 1e-4
    v1: float = 1e-3
    sigma0: float = 1e5
    sigma1: float = 1e2
    sigma2: float = 0.0
    v_s: float = 1e-3
    friction_params: tuple = ()
    stick_limit: str = "default"     # the built-in laws' stick ratio: mu_d, mu_s, or by the law

    def __post_init__(self):
        if self.method not in ("constraint", "penalty"):
            raise ValueError(f"parameter 'method' = {self.method!r} is invalid: valid range is one "
                             f"of 'constraint', 'penalty'")
        law = self.custom
        if self.stick_limit not in ("default", "mu_d", "mu_s"):
            raise ValueError(f"parameter 'stick_limit' = {self.stick_limit!r} is invalid: valid "
                             f"range is one of 'default', 'mu_d', 'mu_s'")
        if law is None:
            if self.friction not in FRICTION_CODES:
                raise ValueError(f"parameter 'friction' = {self.friction!r} is invalid: valid range "
                                 f"is one of {', '.join(map(repr, FRICTION_CODES))} or a FrictionLaw")
            if self.friction_params:
                raise ValueError(f"parameter 'friction_params' = {self.friction_params!r} is "
                                 f"invalid with the built-in friction {self.friction!r}: valid is ()")
            return
        if self.can_stick and not law.can_stick:
            raise ValueError(f"parameter 'can_stick' = True is invalid with friction law "
                             f"{law.name!r}: it has no stick limit (valid: False)")
        object.__setattr__(self, "friction_params", law.values(self.friction_params))

    @property
    def custom(self) -> FrictionLaw | None:
        """The law from outside the package, or None for a built-in friction."""
        return self.friction if isinstance(self.friction, FrictionLaw) else None

    @property
    def code(self) -> int:
        """The friction code of the compiled right-hand side."""
        return CUSTOM if self.custom is not None else FRICTION_CODES[self.friction]

    @property
    def sticks(self) -> bool:
        """The point switches between stick and slip."""
        return self.can_stick and self.friction != "none"

    @property
    def uses_direction(self) -> bool:
        """The slip force is set by the slip direction of the discrete state (its reversal is an
        event): Coulomb, and a law from outside that may stick."""
        return self.friction == "coulomb" or (self.custom is not None and self.can_stick)

    @property
    def mu_lim(self) -> float:
        """The friction ratio |F_t| / N that a sticking point may reach."""
        law = self.custom
        if law is not None:
            return self.friction_params[law.names.index(law.stick_limit)] if law.can_stick else 0.0
        limit = self.stick_limit
        if limit == "default":          # Coulomb sticks up to mu_d, LuGre up to mu_s
            limit = "mu_s" if self.friction == "lugre" else "mu_d"
        return self.mu_s if limit == "mu_s" else self.mu_d

    def row(self) -> np.ndarray:
        """The contact's float row of :class:`SystemArrays` (``cflt``)."""
        r = np.zeros(NCFLT)
        for col, v in ((C_E, self.e), (C_K, self.K), (C_N, self.n), (C_D, self.D), (C_C, self.C),
                       (C_MU_D, self.mu_d), (C_MU_S, self.mu_s), (C_SIGMA0, self.sigma0),
                       (C_SIGMA1, self.sigma1), (C_SIGMA2, self.sigma2), (C_V_S, self.v_s),
                       (C_V0, self.v0), (C_V1, self.v1), (C_DV, self.Dv), (C_LIM, self.mu_lim)):
            r[col] = v
        return r


FRICTION_CODES = {"none": 0, "coulomb": 1, "lugre": 2, "modified_coulomb": 3}


@dataclass(frozen=True)
class ContactPoint:
    """The material point ``x`` [m] of ``body`` against ``obstacle``, with its :class:`ContactLaws`
    (None: no laws yet, the model supplies them)."""
    name: str
    body: str
    x: float
    obstacle: str
    laws: ContactLaws | None = None


def _half_bandwidth(H) -> int:
    """The largest |i - j| with H_ij != 0 (0 for a zero or empty H): the finite-element bases'
    foreshortening matrices are banded (H(x) integrates products of locally supported slopes)."""
    i, j = np.nonzero(np.asarray(H))
    return int(np.max(np.abs(i - j))) if len(i) else 0


class SystemArrays(NamedTuple):
    """The system in the layout of the compiled code (:mod:`flexlib.multibody.assembly`)."""
    bodies: tuple        # one flexlib.bodies.beam.KernelArrays per body (padded to NB_MAX)
    bpar: np.ndarray     # (nb, NPAR_BODY) each body's beam parameters (flexlib.bodies.beam slots)
    bint: np.ndarray     # (nb, 7) joint kind, parent, index of R_x, of theta, nf, joint point
    bflt: np.ndarray     # (nb, 3) ground hinge point [m], mass [kg]
    pint: np.ndarray     # (npt,) body of each material point
    pflt: np.ndarray     # (npt, 1 + nmax + nmax^2 + namax) x, Phi(x), H(x), Psi(x)
    pband: np.ndarray    # (npt,) half-bandwidth of H(x): H_ij = 0 for |i - j| > it
    cint: np.ndarray     # (nc, 4) point, obstacle, method, friction law
    cflt: np.ndarray     # (nc, NCFLT) the contact laws' parameters
    laddr: np.ndarray    # (nc,) the address of each point's law from outside, in this process (or 0)
    lpar: np.ndarray     # (nc, n) the parameters of each point's law from outside
    oflt: np.ndarray     # (no, 4) obstacle origin [m] and unit normal
    gflt: np.ndarray     # (2,) Baumgarte chi, beta [1/s]
    nq: int
    nmax: int
    ldlt: bool           # M solved by LDL^T (flexlib.multibody.kernel.use_ldlt(nq))
    # the structured solve of M (flexlib.multibody.structured; the arrays have size 1 without it)
    structured: bool     # M solved through its structure (use_structured)
    sith: np.ndarray     # (nb,) index of each body's theta in q
    snel: np.ndarray     # (nb,) its number of elastic coordinates
    spos: np.ndarray     # (nb, nmax) position of each elastic coordinate in the body's band system
    sypos: np.ndarray    # (nb, E, 2) positions of each element's two auxiliary unknowns
    sna: np.ndarray      # (nb,) size of each body's band system
    skl: np.ndarray      # (nb,) its half-bandwidth
    smbw: np.ndarray     # (nb,) M2's half-bandwidth
    fq: np.ndarray       # (nF,) indices of the frame coordinates (theta, a free body's R) in q
    skbw: np.ndarray     # (nb,) half-bandwidth of each body's K2 and C (N: full)
    shbw: np.ndarray     # (nb,) half-bandwidth of each body's Hbar


@dataclass(frozen=True)
class System:
    """Bodies (parents before children), obstacles and contact points; ``chi``, ``beta`` [1/s] the
    Baumgarte coefficients of the constraint contacts; ``recontact_tolerance`` [m] how far a free
    constraint point that rests at zero gap (after a separation or a micro-impact) may sink below
    it before it counts as landing again (1e-12 m: round-off of the constraint's drift, not a
    physical depth; a case that needs more says why)."""
    bodies: tuple
    obstacles: tuple = ()
    contacts: tuple = ()
    chi: float = 10.0
    beta: float = 1000.0
    recontact_tolerance: float = 1e-12

    def __post_init__(self):
        tol = self.recontact_tolerance
        if not (isinstance(tol, (int, float)) and 0.0 < tol <= 1e-6):
            raise ValueError(f"parameter 'recontact_tolerance' = {tol!r} is invalid: valid range is "
                             f"(0, 1e-6] m")
        names = [b.name for b in self.bodies]
        if not 1 <= len(names) <= NB_MAX:
            raise ValueError(f"parameter 'bodies' has {len(names)} bodies: valid range is "
                             f"1..{NB_MAX}")
        if len(set(names)) != len(names):
            raise ValueError(f"parameter 'bodies' has repeated names {names}: each name once")
        for i, b in enumerate(self.bodies):
            if isinstance(b.joint, Hinge):
                if b.joint.parent not in names[:i]:
                    raise ValueError(f"body {b.name!r}: parent {b.joint.parent!r} is not a body listed "
                                     f"before it (valid: {names[:i]})")
                L = self.body(b.joint.parent).beam.L
                if not 0.0 <= b.joint.x <= L:
                    raise ValueError(f"parameter 'x' = {b.joint.x!r} of the hinge of {b.name!r} is "
                                     f"invalid: valid range is [0, {L}] m (the parent's length)")
                if b.beam.tau_d != 0.0:
                    raise ValueError(f"parameter 'tau_d' = {b.beam.tau_d!r} of body {b.name!r} is "
                                     f"invalid on a hinge to another body: valid is 0 (a drive "
                                     f"torque acts on a body hinged to the ground or free)")
            elif not isinstance(b.joint, (GroundHinge, FreeJoint)):
                raise TypeError(f"body {b.name!r}: joint {b.joint!r} is not a GroundHinge, Hinge or "
                                f"FreeJoint")
            if b.frame_clamp == "centre":
                self.model(b.name)          # the centre clamp's own checks of the basis, now
        obs = [o.name for o in self.obstacles]
        if len(self.contacts) > NC_MAX:
            raise ValueError(f"parameter 'contacts' has {len(self.contacts)} points: valid range is "
                             f"0..{NC_MAX}")
        for c in self.contacts:
            if c.body not in names:
                raise ValueError(f"contact {c.name!r}: body {c.body!r} unknown (valid: {names})")
            if c.obstacle not in obs:
                raise ValueError(f"contact {c.name!r}: obstacle {c.obstacle!r} unknown (valid: {obs})")
            L = self.body(c.body).beam.L
            if not 0.0 <= c.x <= L:
                raise ValueError(f"parameter 'x' = {c.x!r} of contact {c.name!r} is invalid: valid "
                                 f"range is [0, {L}] m (the length of {c.body!r})")

    def body(self, name: str) -> Body:
        return next(b for b in self.bodies if b.name == name)

    def index(self, name: str) -> int:
        return [b.name for b in self.bodies].index(name)

    def with_laws(self, laws: ContactLaws) -> "System":
        """The same system with ``laws`` at every contact point."""
        return replace(self, contacts=tuple(replace(c, laws=laws) for c in self.contacts))

    def coordinates(self):
        """(names, offsets): the names of q's entries and, per body, (index of R_x or -1, index of
        theta, number of deformation coordinates)."""
        names, offs = [], []
        for b in self.bodies:
            model = self.model(b.name)
            ir = -1
            if isinstance(b.joint, FreeJoint):
                ir = len(names)
                names += [f"{b.name}.R_x", f"{b.name}.R_y"]
            ith = len(names)
            names.append(f"{b.name}.theta")
            names += [f"{b.name}.B{i + 1}" for i in range(model.n)]
            names += [f"{b.name}.C{i + 1}" for i in range(model.na)]
            offs.append((ir, ith, model.n + model.na))
        return names, offs

    def model(self, name: str) -> BeamModel:
        """The :class:`flexlib.bodies.beam.BeamModel` of body ``name`` (cached per beam)."""
        b = self.body(name)
        return _beam_model(b.beam, b.frame_clamp)

    def initial_state(self) -> np.ndarray:
        """y0 = [q, q', z, W_N, W_F, W_d, W_tau]: the bodies' initial angles, rates and frame
        origins."""
        names, offs = self.coordinates()
        nq = len(names)
        nc = len(self.contacts)
        y = np.zeros(2 * nq + 3 * nc + 2)
        for b, (ir, ith, nf) in zip(self.bodies, offs):
            y[ith] = b.theta0
            y[nq + ith] = b.theta_dot0
            drive = getattr(b.joint, "drive", None)
            if drive is not None:
                y[nq + ith] = drive(0.0)[1]          # the drive sets the rate
            if ir >= 0:
                y[ir:ir + 2] = b.origin
                y[nq + ir:nq + ir + 2] = b.origin_rate
        return y

    def arrays(self) -> SystemArrays:
        """The flat arrays of the compiled code."""
        names, offs = self.coordinates()
        models = [self.model(b.name) for b in self.bodies]
        nmax = max(m.n for m in models)
        namax = max(m.na for m in models)
        points = []                                       # (body index, x)
        bint = np.zeros((len(self.bodies), 7), dtype=np.int64)
        bflt = np.zeros((len(self.bodies), NBFLT))
        for i, (b, (ir, ith, nf), m) in enumerate(zip(self.bodies, offs, models)):
            kind, parent, jp = GROUND_HINGE, -1, -1
            if isinstance(b.joint, Hinge):
                kind, parent = PARENT_HINGE, self.index(b.joint.parent)
                jp = len(points)
                points.append((parent, b.joint.x))
            elif isinstance(b.joint, FreeJoint):
                kind = FREE_JOINT
            else:
                bflt[i, :2] = b.joint.point
                if b.joint.drive is not None:
                    bflt[i, B_DRIVE] = 1.0
                    bflt[i, B_OMEGA], bflt[i, B_RAMP] = b.joint.drive.Omega, b.joint.drive.T
                    bflt[i, B_TH0] = b.theta0
            bint[i] = (kind, parent, ir, ith, nf, jp, m.n)
            bflt[i, B_MASS] = m.mi.m
        cint = np.zeros((len(self.contacts), 4), dtype=np.int64)
        cflt = np.zeros((len(self.contacts), NCFLT))
        obs = [o.name for o in self.obstacles]
        for k, c in enumerate(self.contacts):
            if c.laws is None:
                raise ValueError(f"contact {c.name!r} has no laws: give ContactPoint(laws=...) or a model")
            cint[k] = (len(points), obs.index(c.obstacle),
                       CONSTRAINT if c.laws.method == "constraint" else PENALTY, c.laws.code)
            points.append((self.index(c.body), c.x))
            cflt[k] = c.laws.row()
        pflt = np.zeros((max(len(points), 1), 1 + nmax + nmax * nmax + namax))
        pint = np.zeros(max(len(points), 1), dtype=np.int64)
        pband = np.zeros(max(len(points), 1), dtype=np.int64)
        for k, (bi, x) in enumerate(points):
            m = models[bi]
            pint[k] = bi
            pflt[k, 0] = x
            phi, H, psi = _shapes_at(m, x)
            pflt[k, 1:1 + m.n] = phi
            h0 = 1 + nmax
            pflt[k, h0:h0 + m.n * m.n] = H.ravel()
            pband[k] = _half_bandwidth(H)
            a0 = h0 + nmax * nmax
            pflt[k, a0:a0 + m.na] = psi
        oflt = np.array([[*o.origin, *o.normal] for o in self.obstacles], float).reshape(-1, 4)
        c = np.ascontiguousarray
        arrs = [_kernel_arrays(m) for m in models]
        st = _structure(arrs, bint, len(names), nmax)
        laddr, lpar = law_table([(k.laws.custom, k.laws.friction_params) for k in self.contacts])
        return SystemArrays(
            # padded to NB_MAX entries, so that every system up to NB_MAX bodies has one type and
            # is compiled once (the padding is never read)
            bodies=tuple(arrs + [arrs[0]] * (NB_MAX - len(arrs))),
            bpar=c(np.array([m.kernel_params() for m in models]).reshape(-1, NPAR_BODY)),
            bint=bint, bflt=bflt, pint=pint, pflt=pflt, pband=pband, cint=cint, cflt=cflt,
            laddr=laddr, lpar=lpar,
            oflt=c(oflt if len(oflt) else np.zeros((1, 4))),
            gflt=np.array([self.chi, self.beta], float), nq=len(names), nmax=nmax,
            ldlt=use_ldlt(len(names)), **st)


_MODELS: dict = {}


def _beam_model(beam: BeamParams, clamp: str) -> BeamModel:
    key = (repr(beam), clamp)
    if key not in _MODELS:
        _MODELS[key] = BeamModel(beam, clamp)
    return _MODELS[key]


def use_structured(arrs, nq: int) -> bool:
    """Whether the system's M is solved through its structure (:mod:`flexlib.multibody.structured`):
    every body with elastic coordinates runs by the element route (finite elements without axial
    modes) and there are at least ``structured.STRUCTURED_MIN_NQ`` coordinates (read at each call,
    so that a test can move the threshold)."""
    return nq >= _st.STRUCTURED_MIN_NQ and all(
        a.M2.shape[0] == 0 or a.eA.shape[0] > 0 for a in arrs)


def _structure(arrs, bint, nq: int, nmax: int) -> dict:
    """The fields of :class:`SystemArrays` that the structured solve reads."""
    nb = len(arrs)
    on = use_structured(arrs, nq)
    ith = np.ascontiguousarray(bint[:, 3])
    nel = np.ascontiguousarray(bint[:, 6])
    emax = max(max(a.edof.shape[0] for a in arrs), 1) if on else 1
    pos = np.zeros((nb, max(nmax, 1) if on else 1), dtype=np.int64)
    ypos = np.zeros((nb, emax, 2), dtype=np.int64)
    na = np.zeros(nb, dtype=np.int64)
    kl = np.ones(nb, dtype=np.int64)
    mbw = np.zeros(nb, dtype=np.int64)
    if on:
        for b, a in enumerate(arrs):
            if a.M2.shape[0] == 0:
                continue
            p, yp, na[b], kl[b], mbw[b] = _st.aug_layout(a.edof, a.estart, a.M2)
            pos[b, :len(p)] = p
            ypos[b, :len(yp)] = yp
    frame = [i for i in range(nq)
             if not any(ith[b] < i <= ith[b] + nel[b] for b in range(nb))]
    return dict(structured=on, sith=ith, snel=nel, spos=pos, sypos=ypos, sna=na, skl=kl, smbw=mbw,
                fq=np.array(frame, dtype=np.int64),
                skbw=np.array([max(_half_bandwidth(a.K2), _half_bandwidth(a.C)) for a in arrs],
                              dtype=np.int64),
                shbw=np.array([_half_bandwidth(a.Hbar) for a in arrs], dtype=np.int64))


def _kernel_arrays(m: BeamModel) -> KernelArrays:
    return KernelArrays._make(np.require(a, np.int64 if a.dtype.kind in "iu" else float, ("C", "W"))
                              for a in m.kernel_arrays())


def _shapes_at(m: BeamModel, x: float):
    """(Phi(x) (N,), H(x) (N, N), Psi(x) (Na,)) of the beam model ``m``."""
    data = m.station_data(np.array([float(x)]))
    phi = np.asarray(data[1]).reshape(-1)[:m.n] if m.n else np.zeros(0)
    H = np.asarray(data[2]).reshape(m.n, m.n) if m.n else np.zeros((0, 0))
    psi = np.asarray(data[3]).reshape(-1) if m.na else np.zeros(0)
    return phi, H, psi
