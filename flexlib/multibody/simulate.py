"""The event-driven simulation of a system: phases, impacts and the contact modes of every point.

Each phase integrates the compiled right-hand side (:mod:`flexlib.multibody.kernel`) with the
compiled DOP853 of :mod:`flexlib.solver.integrator`, or where the bases are too stiff for an
explicit step and nothing excites their modes the compiled Radau IIA of :mod:`flexlib.solver.radau`
(:func:`integrator_for`), until an event of a contact point:

* a constraint point in FREE reaches its obstacle (gap 0, closing): an **impact**.  Every
  constraint point at zero gap that approaches, and every point already closed, takes part:
  Newton's law at all of them at once is the linear complementarity problem of
  :func:`flexlib.contact.lcp.newton_impact` (frictionless, restitution e; a rebound slower than
  ``v_zeno`` is taken as plastic, like the single-contact model);
* a closed point's normal force falls to 0, a sticking point reaches its friction limit, a
  slipping point's tangential velocity reverses: the contact modes are selected anew;
* a penalty point starts or stops penetrating (the kink of its force law).

After an impact, and at every selection, the modes of the closed points are chosen together
(:func:`flexlib.contact.lcp.select_modes`): each combination of their candidate modes (FREE, CONTACT,
STICK, SLIP in either direction) is solved and kept when every point's conditions hold (N >= 0,
a free point's gap not accelerating inwards, a sticking point within its friction cone, a
slipping point's friction opposing its motion).  None consistent stops the run naming the
points; several are counted as ambiguous and the first by the points' priority is taken.
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field

import numpy as np

from ..solver import genalpha, integrator, radau
from ..contact.friction import stribeck_level
from ..contact.lcp import InconsistentContacts, newton_impact, select_modes
from ..params import SolverSettings, check_run
from . import kernel as K
from . import newton as N
from .kernel import CONSTRAINT, CONTACT, FREE, SLIP, STICK
from .system import FreeJoint, System

__all__ = ["SystemSimulator", "SystemSimulationError", "integrator_for", "highest_frequency"]

GAP_TOL = 1e-9        # m: a free point this close to its obstacle, not leaving it, joins an impact
VN_TOL = 1e-6         # m/s: a normal velocity below this (in magnitude) is zero
N_FLOOR = 1e-9        # N: a redundant closed point carrying N = 0 separates at N = -N_FLOOR
MAX_STALLED = 50      # events in a row without time advancing stop the run (a switching loop)
T_SIMULTANEOUS = 1e-10  # s: another point's event this close after a located one is simultaneous
# A stick trial whose point's own 2 x 2 matrix S = [W_n; W_t] M^-1 [W_n; W_t]^T is worse conditioned
# than COND_S_WARN (= 1 / RANK_TOL: the solve's rank test then drops a row) is reported, and is a
# stick only if the row dropped holds as well: its tangential acceleration within HOLD_TOL of its
# target, relative to the point's accelerations (or 1 m/s^2).  Rows that are truly dependent (a
# rigid link's point) hold together; nearly dependent ones (case 3.2, hybrid LuGre at 1.667 s:
# cond S = 1.5e10, a_t 3.5e-3 m/s^2 off its target) do not (case 3.2: cond S ~ 1e3-1e7).
COND_S_WARN = 1e10
HOLD_TOL = 1e-8
# method="auto" calls the bases stiff when their highest natural frequency w_max [rad/s] times the
# contact phases' largest step exceeds this: DOP853's step is then bounded by its stability
# (|h w_max| below ~4) even where the contact's accuracy would allow max_step_contact.  A stiff
# system's phases in which nothing excites the elastic modes (:meth:`SystemSimulator.at_rest`) run
# with Radau IIA, whose step is not so bounded; the others with DOP853, because an excited mode
# above the tolerances must be resolved by either integrator, and there DOP853's 7th-order error
# estimate takes far fewer steps than Radau's 3rd-order one (benchmarks/README.md, "The implicit
# integrator").
STIFF_RATIO = 4.0
AUTO_STIFF = "Radau/DOP853"     # the resolved "auto" of a stiff system: Radau in the phases at rest
IMPLICIT = ("Radau", "gen-alpha")   # the compiled implicit integrators
SCIPY_NAMES = {"DOP853-scipy": "DOP853", "Radau-scipy": "Radau"}
# A run keeps every accepted step (its time, size, state and interpolant: 16 + 64 ny bytes with
# DOP853, 16 + 32 ny with Radau, for ny state components) until its summary is built.  Its steps
# may take at most this fraction of the memory available when the run starts, counted twice (a
# phase's storage is copied when it grows); past it the run stops by name with what it has,
# rather than being killed by the operating system with nothing (a 64-element-per-link pendulum
# at rtol 1e-5, atol 1e-8 took 15 GB before it was).
MEMORY_FRACTION = 0.5


def available_memory() -> int:
    """The memory available to a new process [bytes]: Linux's MemAvailable, else the free
    physical pages, else 8 GiB (a platform that says neither)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 8 << 30


def step_bytes(method: str, ny: int) -> int:
    """The memory one stored step of ``method`` takes for ``ny`` state components [bytes]."""
    return 16 + (32 if method in IMPLICIT else 64) * ny


def highest_frequency(system: System) -> float:
    """The highest natural frequency [rad/s] of the bodies' bases: bending (clamped at the
    body's frame, Rayleigh-Ritz upper bounds for the element bases) and axial."""
    w = 0.0
    for b in system.bodies:
        m = system.model(b.name)
        for f in (m.natural_frequencies(), m.axial_frequencies()):
            if len(f):
                w = max(w, float(np.max(f)))
    return w


def free_bodies(system: System) -> bool:
    """Whether every body of ``system`` is free (no joint, no drive): only then can a phase be at
    rest (:meth:`SystemSimulator.at_rest`)."""
    return all(isinstance(b.joint, FreeJoint) and getattr(b.joint, "drive", None) is None
               for b in system.bodies)


def integrator_for(system: System, solver: SolverSettings) -> str:
    """The integrator of a run: ``solver.method``, or for ``"auto"`` :data:`AUTO_STIFF` (Radau IIA
    in the phases at rest, DOP853 in the others) when the bases are stiff (``highest_frequency *
    max_step_contact > STIFF_RATIO``) and the bodies free (:func:`free_bodies`), else DOP853."""
    if solver.method != "auto":
        return solver.method
    if not free_bodies(system):
        return "DOP853"
    stiff = highest_frequency(system) * solver.max_step_contact > STIFF_RATIO
    return AUTO_STIFF if stiff else "DOP853"


class SystemSimulationError(RuntimeError):
    """A run that cannot continue: says when, in which contact modes, at which points, and
    carries what was computed (``result``)."""

    def __init__(self, message, *, t, modes, points, result=None):
        super().__init__(message)
        self.t, self.modes, self.points, self.result = t, modes, points, result


@dataclass
class Phase:
    """One integrated phase: its solution, the discrete state it ran with, the number of
    jumps before it and whether every step carries the 7th-order interpolant (a flight phase is
    integrated without it, but for its last step: :meth:`SystemSimulator.dense_step` adds it
    to a step where a sample needs it)."""
    sol: object
    disc: np.ndarray
    n_jumps: int = 0
    dense: bool = True


@dataclass
class Jump:
    """An impact: time, the points and impulses [N s], v_n before/after [m/s], kinetic energy lost [J]."""
    t: float
    points: list
    impulses: list
    v_before: list
    v_after: list
    dT: float
    redundant: bool = False


@dataclass
class RunLog:
    phases: list = field(default_factory=list)
    jumps: list = field(default_factory=list)
    events: list = field(default_factory=list)      # (t, point, kind, new mode)
    n_selections: int = 0
    n_ambiguous: int = 0
    n_redundant: int = 0        # selections that kept redundant constraints (a basic solution)
    warnings: list = field(default_factory=list)
    # per point: every stick trial (t, point, N, F_t, ratio |F_t|/N, mu_lim) and every mode
    # selection among FREE, STICK and SLIP (t, point, consistent modes, the choice, whether a
    # Coulomb slip goes against the stick trial's force, that force)
    stick_tests: list = field(default_factory=list)
    selections: list = field(default_factory=list)


def _rows(combo):
    """The constraint rows of a mode combination: 2 per sticking point, 1 per other closed one."""
    return sum(2 if mode == STICK else 1 for mode, *_ in combo if mode != FREE)


def _check_inputs(system: System, t_end, solver) -> float:
    """Refuse, before any run, what would make it meaningless: ``t_end`` outside (0, 1000] s
    (:func:`flexlib.params.check_run`), solver settings that are not a
    :class:`~flexlib.params.SolverSettings` (whose fields are range-checked), a non-finite
    initial state of a body or a non-finite obstacle origin.  Returns t_end as a float."""
    t_end = check_run(t_end)[0]
    if solver is not None and not isinstance(solver, SolverSettings):
        raise ValueError(f"parameter 'solver' = {solver!r} is invalid: valid range is a "
                         f"flexlib.params.SolverSettings (or None for the defaults)")
    for b in system.bodies:
        for name in ("theta0", "theta_dot0", "origin", "origin_rate"):
            value = getattr(b, name)
            try:
                ok = bool(np.all(np.isfinite(np.asarray(value, float))))
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise ValueError(f"parameter {name!r} = {value!r} of body {b.name!r} is invalid: "
                                 f"valid range is finite numbers")
    for o in system.obstacles:
        if not np.all(np.isfinite(np.asarray(o.origin, float))):
            raise ValueError(f"parameter 'origin' = {o.origin!r} of obstacle {o.name!r} is "
                             f"invalid: valid range is finite numbers")
    return t_end


class SystemSimulator:
    """Simulates a :class:`~flexlib.multibody.system.System` over [0, t_end] s.  ``S`` holds the
    system's compiled arrays, ``work`` the kernel's work arrays (reused by every evaluation)."""

    def __init__(self, system: System, t_end: float, solver: SolverSettings | None = None):
        t_end = _check_inputs(system, t_end, solver)
        self.system = system
        self.S = system.arrays()
        self.t_end = t_end
        self.solver = solver or SolverSettings()
        self.nq = self.S.nq
        self.nc = len(system.contacts)
        self.names = [c.name for c in system.contacts]
        self.laws = [c.laws for c in system.contacts]
        self.n_drives = sum(getattr(b.joint, "drive", None) is not None for b in system.bodies)
        self.method = integrator_for(system, self.solver)
        if self.method == "gen-alpha" and any(
                int(k) == K.LUGRE for k in self.S.cint[:, 3]):
            raise ValueError("parameter 'method' = 'gen-alpha' is invalid for a system with "
                             "LuGre friction: valid range is 'auto', 'DOP853' or 'Radau' (the "
                             "generalized-alpha step integrates the bristle states by "
                             "fixed-point iteration, which their stiffness does not allow)")
        self._integrate = integrator.specialize(K)
        self._audit = True            # whether a run's result audits its energy (run(audit=))
        self._implicit = self._specialize_implicit()
        self._free = free_bodies(system)
        _, offs = system.coordinates()
        self._rates = np.array([self.nq + ith + k for _, ith, nf in offs for k in range(nf + 1)],
                               dtype=int)
        self._elastic = np.array([ith + 1 + k for _, ith, nf in offs for k in range(nf)], dtype=int)
        self.work = K.work_arrays(self.S)
        self._dy = np.zeros(2 * self.nq + 3 * self.nc + 2)
        self._out = np.zeros(K.NOUT)

    # ------------------------------------------------------------------ pickling
    # The compiled integrators are built at run time around the kernel (integrator.specialize):
    # pickled, numba would serialize them by value and the receiving process would compile them
    # again (60-90 s; a panel's background run sends its result back this way).  They are
    # dropped from the pickle and taken from the receiving process's own cache instead.
    def __getstate__(self):
        state = self.__dict__.copy()
        state["_integrate"] = None
        state["_implicit"] = state["_implicit"] is not None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._integrate = integrator.specialize(K)
        self._implicit = self._specialize_implicit() if state["_implicit"] else None

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, t, y, disc):
        """(dy, out) at (t, y) with the discrete state ``disc`` (copies)."""
        ws, Mw, Xw = self.work
        K.phase_eval_into(float(t), y, 0, 0, 0, disc, self.S, ws, Mw, Xw, self._dy, self._out, True)
        return self._dy.copy(), self._out.copy()

    def contact_values(self, out, c):
        """The outputs of point ``c`` as a dict (gap, v_n, v_t, s, N, F_t, a_n, a_t, ratio, zdot)."""
        o = K.O_C0 + K.NOC * c
        return dict(zip(K.OC_NAMES, out[o:o + K.NOC]))

    def rows(self, y):
        """(M, W_n (nc, nq)) at the state ``y``."""
        from .assembly import contact_rows_into, mass_forces_into
        ws = self.work[0]
        M = np.zeros((self.nq, self.nq))
        Q = np.zeros(self.nq)
        q, qd = y[:self.nq].copy(), y[self.nq:2 * self.nq].copy()
        mass_forces_into(q, qd, self.S, ws, M, Q, True)
        Wn = np.zeros((self.nc, self.nq))
        Wt = np.zeros((self.nc, self.nq))
        for c in range(self.nc):
            contact_rows_into(c, q, qd, self.S, ws, Wn[c], Wt[c])
        return M, Wn, Wt

    def delassus(self, y, points):
        """(M, G, X) at the state ``y`` for the contact points ``points`` (indices): the
        Delassus matrix G = W_n M^-1 W_n^T of their normal rows, whose entry G_ij is the normal
        velocity that a unit normal impulse at point j gives point i, and X = M^-1 W_n^T, the
        velocity change per unit impulse."""
        M, Wn, _ = self.rows(y)
        Wp = Wn[list(points)]
        X = np.linalg.solve(M, Wp.T)
        return M, Wp @ X, X

    # ------------------------------------------------------------------ phases
    def _events(self, t, out, disc):
        """The events a phase watches, their directions and offsets, and the phase's end.

        Per point and mode: a free constraint point watches its gap once it is re-armed
        (``dt_rearm`` after it left its obstacle; until then the phase ends at the re-arm
        instant), at the floor recorded when it was armed: ``recontact_tolerance`` below its
        gap then, or below the obstacle if it was clear of it, so that a point resting at zero
        gap does not fire at once on its own round-off; a closed point its normal force (N = 0:
        separation) and, with friction along its normal solve, the Painleve margin; a sticking
        point its friction limit and its slip velocity (|v_t| > Dv: drift); a slipping point its
        slip velocity crossing zero, once armed (it slid faster than Dv in this slip), and until
        then |v_t| reaching Dv.  A penalty point in contact watches its gap opening; a free one
        is re-armed like a constraint point (the floor is then its gap's own round-off)."""
        active = np.zeros(K.NEV, dtype=np.bool_)
        direction = np.full(K.NEV, -1.0)
        eoff = np.zeros(K.NEV)
        t_stop = self.t_end
        tol = self.system.recontact_tolerance
        for c, law in enumerate(self.laws):
            e0 = K.NEK * c
            mode = int(disc[4 * c + K.D_MODE])
            v = self.contact_values(out, c)
            if law.method == "penalty" and mode != FREE:
                active[e0 + K.EV_GAP] = True           # the gap opens: the contact ends
                direction[e0 + K.EV_GAP] = 1.0
                continue
            if mode == FREE:
                rearm = self.last_sep[c] + self.solver.dt_rearm
                if t < rearm:
                    t_stop = min(t_stop, rearm)
                    continue
                if math.isnan(self.floor[c]):
                    self.floor[c] = min(v["gap"], 0.0) - tol
                active[e0 + K.EV_GAP] = True
                eoff[e0 + K.EV_GAP] = self.floor[c]
                continue
            active[e0 + K.EV_N] = True
            if v["N"] == 0.0 and out[K.O_RANK] < self._rows_of(disc):
                eoff[e0 + K.EV_N] = -N_FLOOR         # a redundant point carrying nothing
            if mode == STICK:
                active[e0 + K.EV_STICK] = active[e0 + K.EV_DRIFT] = True
            elif mode == SLIP or law.friction != "none":
                active[e0 + K.EV_PAINLEVE] = True
            if mode == SLIP:
                if self.armed[c]:
                    active[e0 + K.EV_SLIP] = True
                    direction[e0 + K.EV_SLIP] = -1.0 if law.uses_direction else 0.0
                else:
                    active[e0 + K.EV_ARM] = True
                    direction[e0 + K.EV_ARM] = 1.0
        return active, direction, eoff, t_stop

    def _rows_of(self, disc):
        """The constraint rows of the discrete state: the closed constraint points' and the hinge
        drives'."""
        return self.n_drives + sum(2 if int(disc[4 * c]) == STICK else 1
                                   for c, law in enumerate(self.laws)
                                   if law.method == "constraint" and int(disc[4 * c]) != FREE)

    def _atol(self, n):
        """The absolute tolerances of the state's components."""
        atol = np.full(n, self.solver.atol)
        atol[2 * self.nq:2 * self.nq + self.nc] *= 1e-4      # the bristle deflections z ~ 1e-5 m
        return atol

    def closed(self, disc) -> bool:
        """Some contact point is in contact (not FREE) in the discrete state ``disc``."""
        return any(int(disc[4 * c]) != FREE for c in range(self.nc))

    def dense_step(self, t, y, h, disc):
        """The 7th-order interpolant's coefficients (7, ny) of the step of size ``h`` from (t, y)
        in the phase ``disc``, taken again with the interpolant (a flight phase runs without it),
        or None if the integrator does not take it as one step (a Radau phase keeps every step's
        collocation polynomial and needs none)."""
        s = self.solver
        none = np.zeros(K.NEV, dtype=np.bool_)
        res = self._integrate(float(t), np.ascontiguousarray(y, float), float(t + h), 0, 0, 0,
                              disc, self.S, max(s.rtol, 1e-13), self._atol(len(y)), float(h),
                              float(h), none, np.zeros(K.NEV), np.zeros(4), np.zeros(K.NEV), 2,
                              True)
        sol = integrator.PhaseSolution(res)
        return sol.F[0] if len(sol.t) == 2 and sol.status == 0 else None

    @property
    def dense_in_flight(self) -> bool:
        """Whether a flight step may lack the 7th-order interpolant without being taken again for
        a sample: True when flight phases may run with an implicit integrator (a Radau step keeps
        its collocation cubic, a generalized-alpha step its cubic Hermite interpolant, and a
        DOP853 flight step its cubic Hermite interpolant)."""
        return self.method in IMPLICIT or (self.method == AUTO_STIFF and self._free)

    def at_rest(self, y, disc) -> bool:
        """Whether nothing excites the bodies' elastic modes in the phase from (t, y): every body
        free (no joint, no drive), not rotating and undeformed (elastic coordinates and rates
        within atol), no contact point closed.  Uniform gravity then accelerates every material
        point alike, so the modes stay at rest through the phase."""
        atol = self.solver.atol
        return (self._free and not self.closed(disc)
                and bool(np.all(np.abs(y[self._elastic]) <= atol))
                and bool(np.all(np.abs(y[self._rates]) <= atol)))

    def _specialize_implicit(self):
        """The compiled implicit integrator of the run's method, or None."""
        if self.method == "gen-alpha":
            return genalpha.specialize(K, newton=self._newton())
        if self.method in ("Radau", AUTO_STIFF):
            return radau.specialize(K, newton=self._newton())
        return None

    def _newton(self):
        """The module of Radau's structured Newton matrix, or None (``jacobian="differences"``)."""
        return N if getattr(self.solver, "jacobian", "structured") == "structured" else None

    def phase_method(self, y, disc) -> str:
        """The integrator of the phase from (t, y) in ``disc``: the run's, and for
        :data:`AUTO_STIFF` Radau IIA at rest (:meth:`at_rest`), DOP853 otherwise."""
        if self.method == AUTO_STIFF:
            return "Radau" if self.at_rest(y, disc) else "DOP853"
        return self.method

    def _phase(self, t, y, disc):
        s = self.solver
        closed = self.closed(disc)
        max_step = s.max_step_contact if closed else s.max_step_free
        atol = self._atol(len(y))
        _, out = self.evaluate(t, y, disc)         # the phase's start
        active, direction, eoff, t_stop = self._events(t, out, disc)
        self._watched = (active, direction, eoff)
        meth = self.phase_method(y, disc)
        self._memory_step = (0, False)
        if meth not in ("DOP853",) + IMPLICIT:
            # scipy's integrators (for comparison): the same right-hand side and events,
            # evaluated from Python
            return integrator.ScipyPhase(
                lambda tt, yy: self.evaluate(tt, yy, disc),
                lambda o: o[K.O_EV:K.O_EV + K.NEV] - eoff, float(t), y, float(t_stop),
                SCIPY_NAMES.get(meth, meth), rtol=max(s.rtol, 1e-13), atol=atol,
                max_step=float(max_step), active=active, direction=direction)
        # the steps the memory budget leaves (see MEMORY_FRACTION)
        per_step = 2 * step_bytes(meth, len(y))
        room = max(int(self._memory_left // per_step), 1)
        self._memory_step = (per_step, room < s.max_steps_phase)
        args = (float(t), y, float(t_stop), 0, 0, 0, disc, self.S, max(s.rtol, 1e-13), atol,
                float(max_step), 0.0, active, direction, np.zeros(4), eoff,
                int(min(s.max_steps_phase, room)), closed)
        if meth in IMPLICIT:
            # the state's structure: q' = v for the first nq components, then the nc bristle
            # states, then the works (flexlib.solver.radau, flexlib.solver.genalpha)
            return integrator.PhaseSolution(self._implicit(*args, self.nq, self.nc))
        return integrator.PhaseSolution(self._integrate(*args))

    def run(self, progress=None, audit=True):
        """Integrate over [0, t_end]; returns a :class:`~flexlib.multibody.result.SystemResult`.
        ``progress``, if given, is called as ``progress(t, t_end)`` [s] before every phase (it
        must be cheap).  ``audit=False`` leaves the energy audit to the caller (the paper's
        cases audit their own history: :mod:`flexlib.history`)."""
        from .result import SystemResult
        self._audit = audit
        wall0 = time.perf_counter()
        self._memory_budget = self._memory_left = MEMORY_FRACTION * available_memory()
        self._memory_step = (0, False)
        log = RunLog()
        t, y = 0.0, self.system.initial_state()
        disc = np.zeros(4 * self.nc)
        self.armed = np.zeros(self.nc, dtype=bool)
        self.last_sep = np.full(self.nc, -math.inf)
        self.floor = np.full(self.nc, math.nan)
        for c, law in enumerate(self.laws):
            if law.method == "penalty":
                disc[4 * c + K.D_VIN] = law.v_zeno
        disc = self._start(t, y, disc, log)
        n_events = 0            # events of the present cluster (events closer than t_cluster)
        t_last = -math.inf
        t_first = 0.0
        stalled = 0
        while t < self.t_end:
            if progress is not None:
                progress(t, self.t_end)
            sol = self._phase(t, y, disc)
            log.phases.append(Phase(sol, disc.copy(), len(log.jumps),
                                    self.closed(disc) or getattr(sol, "n_jac", 0) > 0
                                    or not isinstance(sol, integrator.PhaseSolution)))
            t0, t, y = t, float(sol.t[-1]), sol.y[:, -1].copy()
            per_step, limited = self._memory_step
            self._memory_left -= per_step * (len(sol.t) - 1)
            if sol.status < 0 and limited and sol.code == integrator.MAX_STEPS:
                n = sum(len(p.sol.t) - 1 for p in log.phases)
                raise self._error(
                    f"the run's stored steps reached its memory budget at t = {t:.9g} s: {n} "
                    f"steps of {per_step / 2048:.3g} kB (counted twice: a phase's storage is "
                    f"copied when it grows) against {self._memory_budget / 2 ** 30:.3g} GiB, "
                    f"{MEMORY_FRACTION:g} of the memory available when the run started; a looser "
                    f"tolerance (rtol, atol), a coarser basis or a shorter t_end takes fewer "
                    f"steps", t, disc, list(range(self.nc)), log, wall0)
            if sol.status < 0:
                raise self._error(f"the integrator failed at t = {t:.9g} s: {sol.message} "
                                  f"(likely cause: {self._failure_cause(t, y, disc)})", t, disc,
                                  list(range(self.nc)), log, wall0)
            if sol.status == 0:
                continue            # t_end, or a point is re-armed
            stalled = stalled + 1 if t <= t0 else 0
            if stalled > MAX_STALLED:
                raise self._error(f"{stalled} events in a row at t = {t:.9g} s without time "
                                  f"advancing (contact modes that do not settle)", t, disc,
                                  list(range(self.nc)), log, wall0)
            if t - t_last > self.solver.t_cluster:
                n_events, t_first = 0, t
            n_events += 1
            t_last = t
            if n_events > self.solver.event_cap * max(self.nc, 1):
                raise self._error(f"event cap reached: more than {self.solver.event_cap} events "
                                  f"per contact point in one cluster of events from "
                                  f"t = {t_first:.9g} s to t = {t:.9g} s (events closer than "
                                  f"t_cluster = {self.solver.t_cluster:g} s to each other): "
                                  f"{self._chatter_cause()}", t, disc, list(range(self.nc)), log,
                                  wall0)
            try:
                y, disc = self._handle(t, y, disc, sol.event_mask, log, wall0)
            except SystemSimulationError:
                raise
            except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
                # a rule that finds no way on (a defect, or a state no rule foresaw): a named
                # stop with the partial result, not a traceback or a "bad input" exit
                pts = sorted({i // K.NEK for i in range(K.NEV) if (sol.event_mask >> i) & 1})
                raise self._error(f"the contact rules found no way on at t = {t:.9g} s after the "
                                  f"events {self._event_names(sol.event_mask)}: "
                                  f"{type(exc).__name__}: {exc}", t, disc, pts, log,
                                  wall0) from exc
        return SystemResult(self, log, time.perf_counter() - wall0, audit=audit)

    def _event_names(self, mask) -> list:
        """The events of ``mask`` as 'kind at point' strings."""
        return [f"{K.EVENT_KINDS[i % K.NEK]} at {self.names[i // K.NEK]!r}"
                for i in range(K.NEV) if (mask >> i) & 1]

    def _failure_cause(self, t, y, disc) -> str:
        """The likely reason the integrator could not go on at (t, y): a stiff penalty contact, a
        LuGre bristle equation too stiff for an explicit method, or an approach to a Painleve
        singularity, named at its point with the numbers that say so."""
        try:
            _, out = self.evaluate(t, y, disc)
        except Exception:                       # pragma: no cover - a state that cannot be evaluated
            return "a state the right-hand side cannot evaluate"
        for c, law in enumerate(self.laws):
            mode = int(disc[4 * c])
            if mode == FREE:
                continue
            v = self.contact_values(out, c)
            name = self.names[c]
            if law.method == "penalty":
                return (f"a stiff penalty contact at point {name!r} (K = {law.K:.3g}, N = "
                        f"{v['N']:.4g} N, penetration {max(-v['gap'], 0.0):.3g} m): a smaller "
                        f"contact stiffness or a larger max_steps_phase")
            if law.friction == "lugre" and mode != STICK:
                g = float(stribeck_level(v["v_t"], law.mu_d, law.mu_s, law.v_s))
                rate = math.inf if g <= 0.0 else law.sigma0 * abs(v["v_t"]) / g
                if rate > 1e6:
                    return (f"the LuGre bristle equation too stiff at point {name!r} for the "
                            f"explicit integrator: sigma0 |v_t| / g(v_t) = {rate:.3g} 1/s at v_t = "
                            f"{v['v_t']:.4g} m/s, g = {g:.3g} (g falls to mu_d = {law.mu_d:g} for "
                            f"|v_t| >> v_s; a larger mu_d or a smaller sigma0 keeps it tractable)")
            if abs(v["margin"]) < 1e-2:
                return (f"an approach to a Painleve singularity at point {name!r} (slip margin "
                        f"{v['margin']:.3g})")
        return "a stiff or singular phase"

    def _chatter_cause(self) -> str:
        """The likely reason for an event-cap stop, from the laws that produce one."""
        bouncy = [law for law in self.laws if law.method == "constraint" and law.e > 0.0]
        if bouncy:
            return (f"a long sequence of restitution rebounds (e = {bouncy[0].e:g}) faster than "
                    f"v_zeno = {bouncy[0].v_zeno:g} m/s, or contact modes that do not settle (a "
                    f"larger v_zeno ends rebound sequences sooner)")
        return ("contact modes that do not settle: repeated micro-impacts or stick/slip "
                "switching within one cluster of impacts")

    def _error(self, msg, t, disc, points, log, wall0):
        from .result import SystemResult
        modes = {self.names[c]: K.MODE_NAMES[int(disc[4 * c])] for c in range(self.nc)}
        pts = [self.names[c] for c in points]
        full = f"{msg}; contact modes {modes}; points {pts}"
        try:
            res = SystemResult(self, log, time.perf_counter() - wall0,
                               audit=self._audit)
        except Exception:        # pragma: no cover - nothing integrated yet
            res = None
        return SystemSimulationError(full, t=t, modes=modes, points=pts, result=res)

    # ------------------------------------------------------------------ events
    def _start(self, t, y, disc, log):
        """Modes at t = 0: penalty points already penetrating (by at most ``GAP_TOL``),
        constraint points at zero gap (chosen as after an impact).  No point may start inside its
        obstacle (a constraint would push it out with energy from nowhere, a penalty force with
        the spring energy of the penetration): that is a ValueError naming the point and the
        penetration."""
        _, out = self.evaluate(t, y, disc)
        onset = []
        for c, law in enumerate(self.laws):
            v = self.contact_values(out, c)
            if v["gap"] < -GAP_TOL:
                p = self.system.contacts[c]
                raise ValueError(
                    f"contact point {p.name!r} starts {-v['gap']:.4g} m inside obstacle "
                    f"{p.obstacle!r} (gap {v['gap']:.4g} m, a penetration of {-v['gap']:.4g} m): "
                    f"with the {law.method} method a point must start on or outside its obstacle "
                    f"(a penalty point would be pushed out with energy from nowhere too); choose "
                    f"the initial positions or the obstacle so that its gap is >= 0")
            if law.method == "penalty" and v["gap"] < 0.0:
                disc[4 * c] = CONTACT
            elif law.method == "constraint" and v["gap"] <= GAP_TOL and v["v_n"] <= VN_TOL:
                onset.append(c)
        if not onset:
            return disc
        y = y.copy()
        return self._choose(t, y, disc, log, {c: self._onset_candidates(c, out) for c in onset})

    def _handle(self, t, y, disc, mask, log, wall0):
        """The action of the events in ``mask`` at t: the rules of one contact point, at each
        point whose event fired.

        * gap (a free point lands): Newton's law at it and at every closed point (and every free
          point resting at zero gap), the frictionless jump of :meth:`_impact`; then each of them
          is a contact onset (:meth:`_onset_candidates`);
        * normal force (N falls to 0): the point separates (FREE; z := 0);
        * stick margin (|F_t| reaches mu_lim N): it slips, in the direction opposite to the stick
          force, with the LuGre bristles at z = mu/sigma0 so that the friction is continuous;
        * stick drift (|v_t| > Dv while sticking, a drift of the constraint): it slips the way it
          moves, with a warning;
        * slip velocity (v_t crosses 0): the mode selection (FREE, STICK, SLIP);
        * slip arm (|v_t| reaches Dv): the slip stop is watched from now on;
        * Painleve margin: the normal force no longer follows from the state; the run stops.

        The points whose event did not fire keep their modes; the new modes are chosen together
        (:meth:`_choose`)."""
        _, out = self.evaluate(t, y, disc)
        fired = {}
        for i in (i for i in range(K.NEV) if (mask >> i) & 1):
            c, kind = divmod(i, K.NEK)
            log.events.append((t, self.names[c], K.EVENT_KINDS[kind], ""))
            law = self.laws[c]
            if law.method == "penalty":
                v = self.contact_values(out, c)
                if int(disc[4 * c]) == FREE:
                    disc[4 * c] = CONTACT
                    disc[4 * c + K.D_VIN] = max(-v["v_n"], law.v_zeno)
                    y = y.copy()
                    y[2 * self.nq + c] = 0.0      # a contact begins with the bristles at rest
                else:
                    disc[4 * c] = FREE
                    y = y.copy()
                    y[2 * self.nq + c] = 0.0      # no bristle state in flight
                    self.last_sep[c] = t          # re-armed like a constraint point
                    self.floor[c] = math.nan
            else:
                fired.setdefault(c, set()).add(kind)
        if not fired:
            return y, disc
        self._simultaneous(t, y, disc, fired, log)
        y = y.copy()
        cands = {}
        for c, kinds in fired.items():
            v = self.contact_values(out, c)
            if K.EV_PAINLEVE in kinds and K.EV_N not in kinds:
                raise self._error(
                    f"Painleve singularity at point {self.names[c]!r} at t = {t:.9g} s: the slip "
                    f"solve's margin 1 + c S12/S11 = {v['margin']:.3g} (friction ratio "
                    f"{v['ratio']:.4g}, v_t = {v['v_t']:.4g} m/s): the friction is too large for "
                    f"the direction of the contact's normal and tangential rows, and the normal "
                    f"force no longer follows from the state", t, disc, [c], log, wall0)
            if K.EV_N in kinds:
                cands[c] = [(FREE, 0.0, "forced")]
            elif K.EV_STICK in kinds:
                cands[c] = [(SLIP, -math.copysign(1.0, v["F_t"]), "forced")]
                self.armed[c] = False
                self._bristles_from_stick(c, y, v)
            elif K.EV_DRIFT in kinds:
                log.warnings.append(f"t = {t:.9g} s: point {self.names[c]!r} drifted while "
                                    f"sticking (|v_t| = {abs(v['v_t']):.3g} m/s > Dv): it slips")
                cands[c] = [(SLIP, math.copysign(1.0, v["v_t"]), "forced")]
                self.armed[c] = True
                self._bristles_from_stick(c, y, v)
            elif K.EV_SLIP in kinds:
                cands[c] = self._selection_candidates(c)
            elif K.EV_ARM in kinds:
                self.armed[c] = True
                cands[c] = [(SLIP, disc[4 * c + K.D_DIR], "forced")]
        if any(K.EV_GAP in kinds for kinds in fired.values()):
            y, onset, leaving = self._impact(t, y, disc, out, log)
            _, out = self.evaluate(t, y, disc)
            for c in leaving:
                cands[c] = [(FREE, 0.0, "forced")]
            for c in onset:
                if c not in cands or K.EV_GAP in fired.get(c, ()):
                    cands[c] = self._onset_candidates(c, out)
            for c, kinds in fired.items():
                # a free point that reaches its floor while it leaves (v_n > VN_TOL: a graze,
                # or the interpolant's velocity ahead of its position) does not land: it stays
                # free and is re-armed at its present gap
                if K.EV_GAP in kinds and c not in cands:
                    cands[c] = [(FREE, 0.0, "forced")]
        try:
            try:
                disc = self._choose(t, y, disc, log, cands)
            except InconsistentContacts:
                # the other closed points' modes, kept, leave no consistent mode to the points
                # whose events fired (e.g. redundant sticking points whose basic solution puts
                # the friction where the cone does not hold it): all closed points are chosen
                # anew together, each from the candidates of a contact's onset
                _, out = self.evaluate(t, y, disc)
                for c, law in enumerate(self.laws):
                    if law.method == "constraint" and int(disc[4 * c]) != FREE and c not in cands:
                        cands[c] = self._onset_candidates(c, out)
                disc = self._choose(t, y, disc, log, cands)
        except InconsistentContacts as exc:
            for c, lst in cands.items():           # a selection that found nothing counts too
                if any(mode == STICK for mode, _, _ in lst):
                    log.selections.append(dict(t=t, point=self.names[c], n_consistent=0,
                                               consistent=[], chosen=None, slip_dir_agrees=None,
                                               F_stick=None))
            raise self._error(f"no consistent contact modes at t = {t:.9g} s ({exc}): a "
                              f"Painleve-type inconsistency, a tangential impact would be needed",
                              t, disc, list(cands), log, wall0) from None
        except _ContactStop as exc:
            raise self._error(str(exc), t, disc, [exc.point], log, wall0) from None
        return y, disc

    def _simultaneous(self, t, y, disc, fired, log):
        """Add to ``fired`` the events of the other constraint points that cross zero within
        T_SIMULTANEOUS after t (on the phase's own slope): events that coincide in exact
        arithmetic, e.g. both ends of a symmetric body stopping at once, are located a few
        round-offs apart, and handled one after the other they would be decided one point at a
        time (the first to stick would decide the other's mode), so they are decided together.
        A point whose own event fired is left as it is: a one-point run is not changed."""
        active, direction, eoff = self._watched
        dy, out = self.evaluate(t, y, disc)
        _, ahead = self.evaluate(t + T_SIMULTANEOUS, y + T_SIMULTANEOUS * dy, disc)
        for i in np.flatnonzero(active):
            c, kind = divmod(int(i), K.NEK)
            if c in fired or self.laws[c].method != "constraint":
                continue
            g0, g1 = out[K.O_EV + i] - eoff[i], ahead[K.O_EV + i] - eoff[i]
            if (g0 > 0.0 >= g1 and direction[i] <= 0.0) or (g0 < 0.0 <= g1 and direction[i] >= 0.0):
                fired.setdefault(c, set()).add(kind)
                log.events.append((t, self.names[c], K.EVENT_KINDS[kind], "simultaneous"))

    def _bristles_from_stick(self, c, y, v):
        """A LuGre point leaving stick starts its slip with the bristle deflection that carries
        the stick force over, z = mu/sigma0 with mu = -F_t/N, so that the friction is continuous."""
        law = self.laws[c]
        if law.friction == "lugre" and v["N"] != 0.0:
            y[2 * self.nq + c] = -v["F_t"] / (v["N"] * law.sigma0)

    def _impact(self, t, y, disc, out, log):
        """Newton's law (a frictionless jump) at the points that land, every closed point and
        every free point resting at zero gap: the linear complementarity problem of
        :func:`flexlib.contact.lcp.newton_impact`.  Returns (y after the jump, the points that
        stay at their obstacle (v_n = 0 after it), the points that leave it)."""
        pts = []
        for c, law in enumerate(self.laws):
            if law.method != "constraint":
                continue
            v = self.contact_values(out, c)
            if int(disc[4 * c]) != FREE or (v["gap"] <= GAP_TOL and v["v_n"] <= VN_TOL):
                pts.append(c)
        vn = np.array([self.contact_values(out, c)["v_n"] for c in pts])
        # a landing (free) point approaches when v_n < 0, however slowly (the impact law of one
        # point has no threshold); a closed point only beyond VN_TOL (its drift is not an impact)
        landing = np.array([int(disc[4 * c]) == FREE for c in pts], dtype=bool)
        approaching = np.where(landing, vn < 0.0, vn < -VN_TOL)
        if not len(pts) or not approaching.any():
            return y, pts, []
        M, G, X = self.delassus(y, pts)
        e = np.array([self.laws[c].e if -vn[k] >= self.laws[c].v_zeno else 0.0
                      for k, c in enumerate(pts)])
        closed = ~approaching
        imp = newton_impact(G, vn, e, closed)
        dqd = X @ imp.Lambda
        T0 = 0.5 * y[self.nq:2 * self.nq] @ M @ y[self.nq:2 * self.nq]
        y = y.copy()
        y[self.nq:2 * self.nq] += dqd
        T1 = 0.5 * y[self.nq:2 * self.nq] @ M @ y[self.nq:2 * self.nq]
        for c in pts:
            if int(disc[4 * c]) == FREE:
                y[2 * self.nq + c] = 0.0          # a contact begins with the bristles at rest
        log.jumps.append(Jump(t, [self.names[c] for c in pts], list(imp.Lambda), list(vn),
                              list(imp.v_plus), T1 - T0, bool(imp.lcp.redundant)))
        leaving = [c for k, c in enumerate(pts) if imp.v_plus[k] > VN_TOL]
        return y, [c for c in pts if c not in leaving], leaving

    def _onset_candidates(self, c, out):
        """A contact's onset (after a jump, or at the start): a point without stick stays in
        contact if its normal force is positive, else it is free (a micro-impact); a point that may stick and
        slides (|v_t| > Dv) slips the way it moves, else it is free; a point that may stick and
        does not slide is chosen by the mode selection (FREE, STICK, SLIP)."""
        law = self.laws[c]
        if not law.sticks:
            return [(CONTACT, 0.0, "onset"), (FREE, 0.0, "")]
        v_t = self.contact_values(out, c)["v_t"]
        if abs(v_t) > law.Dv:
            return [(SLIP, math.copysign(1.0, v_t), "onset"), (FREE, 0.0, "")]
        return self._selection_candidates(c)

    def _selection_candidates(self, c):
        """The mode selection's candidates of point ``c`` in the order of preference among
        several consistent ones: FREE, STICK, then SLIP in the direction opposite to the stick
        trial's friction force (a Coulomb point; a LuGre point has one slip candidate, whose
        force follows from its bristles)."""
        law = self.laws[c]
        if not law.uses_direction:
            return [(FREE, 0.0, ""), (STICK, 0.0, ""), (SLIP, 0.0, "")]
        return [(FREE, 0.0, ""), (STICK, 0.0, ""), (SLIP, 1.0, ""), (SLIP, -1.0, "")]

    def _choose(self, t, y, disc, log, cands):
        """Choose the modes of the points in ``cands`` (point -> candidates (mode, direction,
        role), in the order of preference) together, the other points keeping theirs: each
        combination is solved and kept if every point's conditions hold (a "forced" candidate
        always does); among several the preference order decides, point by point (a single
        point: the first consistent of its list).  Updates the points' bookkeeping (re-arming,
        bristles) and returns the new discrete state."""
        pts = sorted(cands)
        _, out0 = self.evaluate(t, y, disc)
        vals = {c: self.contact_values(out0, c) for c in pts}
        lists = []
        d_sticks = {}
        for c in pts:
            lst = list(cands[c])
            if self.laws[c].uses_direction and sum(m == SLIP for m, _, r in lst) == 2:
                d_stick = d_sticks[c] = self._stick_direction(c, t, y, disc, pts, cands, vals)
                lst.sort(key=lambda x: x[0] == SLIP and x[1] != d_stick)
            lists.append(lst)
        painleve = {}

        def trial(combo):
            d = disc.copy()
            for c, (mode, sgn, _) in zip(pts, combo):
                d[4 * c] = mode
                d[4 * c + K.D_DIR] = sgn
                if mode == STICK:
                    d[4 * c + K.D_SSTAR] = vals[c]["s"]
            return d, self.evaluate(t, y, d)[1]

        def consistent(combo, res):
            d, o = res
            rank_short = o[K.O_RANK] < self._rows_of(d)
            ok = []
            for c, (mode, sgn, role) in zip(pts, combo):
                v = self.contact_values(o, c)
                law = self.laws[c]
                N_ok = v["N"] > 0.0 or (rank_short and v["N"] == 0.0)
                if role == "forced":
                    ok.append(True)
                elif mode == FREE:
                    target = -2.0 * self.system.chi * v["v_n"] - self.system.beta ** 2 * v["gap"]
                    ok.append(v["a_n"] >= target)
                elif mode == STICK:
                    cond = self._stick_condition(c, y)
                    target = -2.0 * self.system.chi * v["v_t"]        # the anchor s* = s
                    held = cond <= COND_S_WARN or abs(v["a_t"] - target) <= HOLD_TOL * max(
                        abs(v["a_n"]), abs(v["a_t"]), 1.0)
                    ok.append(N_ok and abs(v["F_t"]) <= law.mu_lim * v["N"] and held)
                    # (a stick that does not hold has no friction ratio: NaN)
                    log.stick_tests.append(dict(
                        t=t, point=self.names[c], N=v["N"], F_t=v["F_t"], mu_lim=law.mu_lim,
                        ratio=abs(v["F_t"]) / v["N"] if v["N"] > 0.0 and held else math.nan,
                        cond=cond))
                    if cond > COND_S_WARN:
                        log.warnings.append(f"t = {t:.9g} s: stick trial at point "
                                            f"{self.names[c]!r} with cond S = {cond:.3g}"
                                            + ("" if held else " (its rows do not hold together: "
                                               "not a stick)"))
                else:
                    margin_ok = v["margin"] > K.PAINLEVE_MIN
                    if not margin_ok and role == "onset":
                        painleve[c] = v
                    good = N_ok and margin_ok
                    if mode == SLIP and law.uses_direction and role != "onset":
                        good = good and sgn * v["a_t"] >= 0.0
                    ok.append(good)
            return ok

        def painleve_stop(c):
            v = painleve[c]
            return _ContactStop(
                f"Painleve singularity at the contact onset of point {self.names[c]!r} at "
                f"t = {t:.9g} s: the slip solve's margin 1 + c S12/S11 = {v['margin']:.3g} "
                f"(friction ratio {v['ratio']:.4g}, v_t = {v['v_t']:.4g} m/s), so the normal "
                f"force does not follow from the state", c)

        try:
            sel = select_modes(lists, trial, consistent)
        except InconsistentContacts:
            if painleve:
                raise painleve_stop(next(iter(painleve))) from None
            raise
        combo, (d, o) = sel.combo, sel.result
        for c, (mode, _, role) in zip(pts, combo):
            if c in painleve and role != "onset":
                raise painleve_stop(c)
        log.n_selections += 1
        log.n_ambiguous += int(sel.ambiguous)
        self._log_selections(t, pts, lists, sel, d_sticks, log)
        if _rows(combo) + self.n_drives > o[K.O_RANK]:
            log.n_redundant += 1
        for c, (mode, sgn, role) in zip(pts, combo):
            if mode in (FREE, STICK):
                y[2 * self.nq + c] = 0.0          # no bristle state in flight or in stick
            if mode == FREE:
                self.last_sep[c] = t
                self.floor[c] = math.nan
            if mode == SLIP and role == "onset":
                self.armed[c] = True
            elif mode == SLIP and role == "":
                self.armed[c] = abs(vals[c]["v_t"]) > self.laws[c].Dv
            log.events.append((t, self.names[c], "selection", K.MODE_NAMES[mode]))
        return d

    def _stick_condition(self, c, y) -> float:
        """cond(S) of point ``c``'s stick rows at the state ``y``: S = [W_n; W_t] M^-1 [W_n; W_t]^T."""
        M, Wn, Wt = self.rows(y)
        W = np.vstack([Wn[c], Wt[c]])
        try:
            return float(np.linalg.cond(W @ np.linalg.solve(M, W.T)))
        except np.linalg.LinAlgError:
            return math.inf

    def _log_selections(self, t, pts, lists, sel, d_sticks, log):
        """Record the mode selection of every point of ``pts`` whose candidates were FREE, STICK
        and SLIP (a contact's onset at rest, a slip stop): the modes consistent in some chosen
        combination, the choice and, for a Coulomb slip, whether it goes the way the stick
        trial's force says (-sgn F_t)."""
        for i, c in enumerate(pts):
            if not any(mode == STICK for mode, _, _ in lists[i]):
                continue
            names = [_mode_name(m, s, self.laws[c]) for m, s, _ in
                     dict.fromkeys(combo[i] for combo in sel.consistent_combos)]
            mode, sgn, _ = sel.combo[i]
            agree = (sgn == d_sticks[c]) if (mode == SLIP and c in d_sticks) else None
            log.selections.append(dict(t=t, point=self.names[c], n_consistent=len(names),
                                       consistent=names, chosen=_mode_name(mode, sgn, self.laws[c]),
                                       slip_dir_agrees=agree, F_stick=None))

    def _stick_direction(self, c, t, y, disc, pts, cands, vals):
        """-sgn(F_t) of point ``c``'s stick trial (the others at their first candidate): the slip
        direction the selection prefers among consistent ones."""
        d = disc.copy()
        for p in pts:
            mode, sgn, _ = (STICK, 0.0, "") if p == c else cands[p][0]
            d[4 * p], d[4 * p + K.D_DIR] = mode, sgn
            if mode == STICK:
                d[4 * p + K.D_SSTAR] = vals[p]["s"]
        F = self.contact_values(self.evaluate(t, y, d)[1], c)["F_t"]
        return -math.copysign(1.0, F) if F else 1.0


def _mode_name(mode, sgn, law) -> str:
    """FREE, CONTACT, STICK, SLIP (SLIP+ / SLIP- for a law whose slip direction is a state)."""
    if mode == SLIP and law.uses_direction:
        return "SLIP+" if sgn > 0 else "SLIP-"
    return K.MODE_NAMES[mode]


class _ContactStop(Exception):
    """A contact mode that the state does not determine (a Painleve point at its onset): the run
    stops naming the point."""
    def __init__(self, message, point):
        super().__init__(message)
        self.point = point
