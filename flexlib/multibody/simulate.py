"""The event-driven simulation of a system: phases, impacts and the contact modes of every point.

Each phase integrates the compiled right-hand side (:mod:`flexlib.multibody.kernel`) with the
compiled DOP853 of :mod:`flexlib.solver.integrator` until an event of a contact point:

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
import time
from dataclasses import dataclass, field

import numpy as np

from ..solver import integrator
from ..contact.lcp import InconsistentContacts, newton_impact, select_modes
from ..contact.friction import lugre_steady_state
from ..params import SolverSettings
from . import kernel as K
from .kernel import CONSTRAINT, CONTACT, FREE, SLIP, STICK
from .system import System

__all__ = ["SystemSimulator", "SystemSimulationError"]

GAP_TOL = 1e-9        # m: a point closer than this to its obstacle is at zero gap
VN_TOL = 1e-6         # m/s: a normal velocity below this (in magnitude) is zero
GAP_FLOOR = 1e-8      # m: how far a free point resting at zero gap may sink before it is an impact
A_TOL = 1e-8         # m/s^2: a slip starting from rest may accelerate this little against its direction
N_FLOOR = 1e-9        # N: a closed point starting a phase with |N| below this separates at N = -N_FLOOR
REARM_GAP = 1e-7      # m: a point leaving its obstacle this far is watched at the obstacle again


class SystemSimulationError(RuntimeError):
    """A run that cannot continue: says when, in which contact modes, at which points, and
    carries what was computed (``result``)."""

    def __init__(self, message, *, t, modes, points, result=None):
        super().__init__(message)
        self.t, self.modes, self.points, self.result = t, modes, points, result


@dataclass
class Phase:
    """One integrated phase: its solution, the discrete state it ran with and the number of
    jumps before it."""
    sol: object
    disc: np.ndarray
    n_jumps: int = 0


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


def _rows(combo):
    """The constraint rows of a mode combination: 2 per sticking point, 1 per other closed one."""
    return sum(2 if mode == STICK else 1 for mode, _ in combo if mode != FREE)


class SystemSimulator:
    """Simulates a :class:`~flexlib.multibody.system.System` over [0, t_end] s.  ``S`` holds the
    system's compiled arrays, ``work`` the kernel's work arrays (reused by every evaluation)."""

    def __init__(self, system: System, t_end: float, solver: SolverSettings | None = None):
        self.system = system
        self.S = system.arrays()
        self.t_end = float(t_end)
        self.solver = solver or SolverSettings()
        self.nq = self.S.nq
        self.nc = len(system.contacts)
        self.names = [c.name for c in system.contacts]
        self.laws = [c.laws for c in system.contacts]
        self._integrate = integrator.specialize(K)
        self.work = K.work_arrays(self.S)
        self._dy = np.zeros(2 * self.nq + 3 * self.nc + 1)
        self._out = np.zeros(K.NOUT)

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
        mass_forces_into(q, qd, self.S, ws, M, Q)
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
    def _events(self, disc):
        active = np.zeros(K.NEV, dtype=np.bool_)
        direction = np.full(K.NEV, -1.0)
        for c, law in enumerate(self.laws):
            e0 = K.NEK * c
            mode = int(disc[4 * c + K.D_MODE])
            if law.method == "penalty":
                active[e0 + K.EV_GAP] = True
                direction[e0 + K.EV_GAP] = -1.0 if mode == FREE else 1.0
            elif mode == FREE:
                active[e0 + K.EV_GAP] = True
            else:
                active[e0 + K.EV_N] = True
                active[e0 + K.EV_STICK] = mode == STICK
                active[e0 + K.EV_SLIP] = mode == SLIP and law.uses_direction
        return active, direction

    def _offsets(self, t, out, disc):
        """Event offsets and the phase's end: a free point that starts the phase at zero gap
        (resting on, or just leaving, its obstacle) is watched for a gap GAP_FLOOR below its
        present one, so that the phase does not start on its event surface and the constraint
        drift of its neighbours (~1e-15 m) does not make it fire at once, again and again.  A
        point leaving at v_n > VN_TOL ends the phase once it is REARM_GAP clear (after
        REARM_GAP / v_n), so that the next phase watches it at the obstacle itself: a point that
        bounces and comes back lands on time, not GAP_FLOOR deep.  Returns (offsets, end)."""
        eoff = np.zeros(K.NEV)
        t_stop = self.t_end
        for c, law in enumerate(self.laws):
            v = self.contact_values(out, c)
            if law.method == "constraint" and int(disc[4 * c]) == FREE:
                if v["gap"] <= GAP_TOL:
                    eoff[K.NEK * c + K.EV_GAP] = min(v["gap"], 0.0) - GAP_FLOOR
                    if v["v_n"] > VN_TOL:
                        t_stop = min(t_stop, t + REARM_GAP / v["v_n"])
            elif law.method == "constraint" and abs(v["N"]) <= N_FLOOR:
                eoff[K.NEK * c + K.EV_N] = -N_FLOOR         # a redundant point carrying nothing
        return eoff, t_stop

    def _watch_slip_stop(self, out, disc, active):
        """A slipping point of a hybrid law without a slip direction (LuGre) is watched for its
        slip velocity crossing zero, as a Coulomb point is, once it slides faster than Dv (a
        point that starts slipping at rest is not: its stop would fire at once); its direction
        in ``disc`` is set to that of the motion, which the event function dir * v_t needs."""
        for c, law in enumerate(self.laws):
            if not (law.method == "constraint" and law.sticks and not law.uses_direction
                    and int(disc[4 * c]) == SLIP):
                continue
            v_t = self.contact_values(out, c)["v_t"]
            if abs(v_t) > law.Dv:
                active[K.NEK * c + K.EV_SLIP] = True
                disc[4 * c + K.D_DIR] = math.copysign(1.0, v_t)

    def _phase(self, t, y, disc):
        active, direction = self._events(disc)
        s = self.solver
        closed = any(int(disc[4 * c]) != FREE for c in range(self.nc))
        max_step = s.max_step_contact if closed else s.max_step_free
        atol = np.full(len(y), s.atol)
        _, out = self.evaluate(t, y, disc)         # the phase's start, read by both
        eoff, t_stop = self._offsets(t, out, disc)
        self._watch_slip_stop(out, disc, active)
        res = self._integrate(float(t), y, float(t_stop), 0, 0, 0, disc, self.S,
                              max(s.rtol, 1e-13), atol, float(max_step), 0.0, active, direction,
                              np.zeros(4), eoff, int(s.max_steps_phase), True)
        return integrator.PhaseSolution(res)

    def run(self):
        """Integrate over [0, t_end]; returns a :class:`~flexlib.multibody.result.SystemResult`."""
        from .result import SystemResult
        wall0 = time.perf_counter()
        log = RunLog()
        t, y = 0.0, self.system.initial_state()
        disc = np.zeros(4 * self.nc)
        for c, law in enumerate(self.laws):
            if law.method == "penalty":
                disc[4 * c + K.D_VIN] = law.v_zeno
        disc = self._start(t, y, disc, log)
        n_events = 0            # events of the present cluster (events closer than t_cluster)
        t_last = -math.inf
        t_first = 0.0
        while t < self.t_end:
            sol = self._phase(t, y, disc)
            log.phases.append(Phase(sol, disc.copy(), len(log.jumps)))
            t, y = float(sol.t[-1]), sol.y[:, -1].copy()
            if sol.status < 0:
                raise self._error(f"the integrator failed at t = {t:.9g} s: {sol.message}", t, disc,
                                  list(range(self.nc)), log, wall0)
            if sol.status == 0:
                continue            # t_end, or a leaving point is clear of its obstacle
            if t - t_last > self.solver.t_cluster:
                n_events, t_first = 0, t
            n_events += 1
            t_last = t
            if n_events > self.solver.event_cap * max(self.nc, 1):
                raise self._error(f"more than {self.solver.event_cap} events per contact point in "
                                  f"one cluster of events from t = {t_first:.9g} s to "
                                  f"t = {t:.9g} s (events closer than t_cluster = "
                                  f"{self.solver.t_cluster:g} s to each other: an accumulation "
                                  f"of impacts)", t, disc, list(range(self.nc)), log, wall0)
            y, disc = self._handle(t, y, disc, sol.event_mask, log, wall0)
        return SystemResult(self, log, time.perf_counter() - wall0)

    def _error(self, msg, t, disc, points, log, wall0):
        from .result import SystemResult
        modes = {self.names[c]: K.MODE_NAMES[int(disc[4 * c])] for c in range(self.nc)}
        pts = [self.names[c] for c in points]
        full = f"{msg}; contact modes {modes}; points {pts}"
        try:
            res = SystemResult(self, log, time.perf_counter() - wall0)
        except Exception:        # pragma: no cover - nothing integrated yet
            res = None
        return SystemSimulationError(full, t=t, modes=modes, points=pts, result=res)

    # ------------------------------------------------------------------ events
    def _start(self, t, y, disc, log):
        """Modes at t = 0: penalty points already penetrating, constraint points at zero gap.  A
        constraint point may not start inside its obstacle (its constraint would push it out with
        energy from nowhere): that is a ValueError naming the point."""
        _, out = self.evaluate(t, y, disc)
        for c, law in enumerate(self.laws):
            v = self.contact_values(out, c)
            if law.method == "penalty" and v["gap"] < 0.0:
                disc[4 * c] = CONTACT
            elif law.method == "constraint" and v["gap"] < -GAP_TOL:
                p = self.system.contacts[c]
                raise ValueError(
                    f"contact point {p.name!r} starts {-v['gap']:.4g} m inside obstacle "
                    f"{p.obstacle!r} (gap {v['gap']:.4g} m): with the constraint method a point must "
                    f"start on or outside its obstacle; choose the initial positions or the "
                    f"obstacle so that its gap is >= 0")
        return self._select(t, y, disc, log, out)

    def _handle(self, t, y, disc, mask, log, wall0):
        _, out = self.evaluate(t, y, disc)
        fired = [i for i in range(K.NEV) if (mask >> i) & 1]
        for i in fired:
            c, kind = divmod(i, K.NEK)
            log.events.append((t, self.names[c], K.EVENT_KINDS[kind], ""))
            law = self.laws[c]
            if law.method == "penalty":
                v = self.contact_values(out, c)
                if int(disc[4 * c]) == FREE:
                    disc[4 * c] = CONTACT
                    disc[4 * c + K.D_VIN] = max(-v["v_n"], law.v_zeno)
                else:
                    disc[4 * c] = FREE
        if any(self.laws[i // K.NEK].method == "constraint" for i in fired):
            # the point whose event fired prefers the mode the event leads to
            prefer = {i // K.NEK: {K.EV_N: FREE, K.EV_STICK: SLIP, K.EV_SLIP: STICK}.get(i % K.NEK)
                      for i in fired}
            y = self._impact(t, y, disc, out, log)
            _, out = self.evaluate(t, y, disc)
            try:
                new = self._select(t, y, disc, log, out, prefer)
                # an event that changes nothing would fire again at once: the point whose event
                # fired leaves its mode if any consistent alternative exists
                stay = {c: int(disc[4 * c]) for c, m in prefer.items()
                        if m is not None and int(new[4 * c]) == int(disc[4 * c]) != FREE
                        and not (m == STICK and not self.laws[c].uses_direction)}
                if stay:
                    try:
                        new = self._select(t, y, disc, log, out, prefer, exclude=stay)
                    except InconsistentContacts:
                        pass
                disc = new
            except InconsistentContacts as exc:
                raise self._error(f"no consistent contact modes at t = {t:.9g} s ({exc})", t, disc,
                                  [c for c in range(self.nc)], log, wall0) from None
        return y, disc

    def _closed(self, out, disc):
        """The constraint points at zero gap that are not separating (v_n <= VN_TOL): those
        closed, closing or resting at zero gap."""
        pts = []
        for c, law in enumerate(self.laws):
            if law.method != "constraint":
                continue
            v = self.contact_values(out, c)
            if v["gap"] <= GAP_TOL and v["v_n"] <= VN_TOL:
                pts.append(c)
        return pts

    def _impact(self, t, y, disc, out, log):
        """Newton's law at the approaching and closed points (a frictionless jump)."""
        pts = self._closed(out, disc)
        vn = np.array([self.contact_values(out, c)["v_n"] for c in pts])
        if not len(pts) or not (vn < -VN_TOL).any():
            return y
        M, G, X = self.delassus(y, pts)
        e = np.array([self.laws[c].e if -vn[k] >= self.laws[c].v_zeno else 0.0
                      for k, c in enumerate(pts)])
        closed = vn >= -VN_TOL
        imp = newton_impact(G, vn, e, closed)
        dqd = X @ imp.Lambda
        T0 = 0.5 * y[self.nq:2 * self.nq] @ M @ y[self.nq:2 * self.nq]
        y = y.copy()
        y[self.nq:2 * self.nq] += dqd
        T1 = 0.5 * y[self.nq:2 * self.nq] @ M @ y[self.nq:2 * self.nq]
        self._bristles_at_impact(t, y, disc, pts)
        log.jumps.append(Jump(t, [self.names[c] for c in pts], list(imp.Lambda), list(vn),
                              list(imp.v_plus), T1 - T0, bool(imp.lcp.redundant)))
        return y

    def _bristles_at_impact(self, t, y, disc, pts):
        """A LuGre point struck by an impact starts its contact with the bristles at steady
        sliding for its tangential velocity after the jump, z = sgn(v_t) g(v_t) / sigma0 (they
        reach it within g / (sigma0 |v_t|) ~ 10 us; starting from z = 0 instead gives a friction
        ratio sigma1 v_t, e.g. 33 at 0.33 m/s with sigma1 = 100 s/m, and no consistent contact
        force: a Painleve point that the bristle model, not the mechanics, creates).  A law from
        outside the package that integrates a state z starts at its own steady sliding, the z
        with z' = 0 (:meth:`~flexlib.multibody.laws.FrictionLaw.steady_state`)."""
        _, out = self.evaluate(t, y, disc)
        for c in pts:
            law = self.laws[c]
            v_t = self.contact_values(out, c)["v_t"]
            if law.friction == "lugre":
                y[2 * self.nq + c] = lugre_steady_state(v_t, law.mu_d, law.mu_s, law.v_s,
                                                        law.sigma0, law.sigma2)[0]
            elif law.custom is not None:
                z = law.custom.steady_state(v_t, law.friction_params)
                if z is not None:
                    y[2 * self.nq + c] = z

    def _candidates(self, c, v):
        law = self.laws[c]
        if not law.sticks:
            return [(CONTACT, 0.0), (FREE, 0.0)]
        vt = v["v_t"]
        if abs(vt) <= law.Dv:
            # at rest a law without a slip direction (LuGre) has one slip candidate, whose
            # force does not depend on a direction: it is taken when sticking is not consistent
            slips = [(SLIP, 1.0), (SLIP, -1.0)] if law.uses_direction else [(SLIP, 0.0)]
            return [(STICK, 0.0), *slips, (FREE, 0.0)]
        return [(SLIP, math.copysign(1.0, vt)), (FREE, 0.0)]

    def _held_by_tolerance(self, combo, pts, vals, out):
        """Whether ``combo`` is consistent only by a tolerance: a point in SLIP at rest
        (|v_t| <= Dv) that does not accelerate in its direction of slip (a stick at the friction
        limit), or a FREE point that neither separates nor accelerates away from its obstacle (it
        is free only because a drift left it above the obstacle, and it falls back at once)."""
        for c, (mode, sgn) in zip(pts, combo):
            v = self.contact_values(out, c)
            if mode == SLIP and abs(vals[c]["v_t"]) <= self.laws[c].Dv and sgn * v["a_t"] <= A_TOL:
                return True
            if mode == FREE and vals[c]["v_n"] <= VN_TOL and v["a_n"] < -A_TOL:
                return True
        return False

    def _select(self, t, y, disc, log, out, prefer=None, exclude=None):
        """Choose the modes of the closed points together (all others FREE); ``prefer`` maps a
        point to the mode it tries first (the mode its event leads to), ``exclude`` a point to a
        mode it may not keep."""
        pts = self._closed(out, disc)
        disc = disc.copy()
        for c, law in enumerate(self.laws):
            if law.method == "constraint" and c not in pts:
                disc[4 * c] = FREE
        if not pts:
            return disc
        vals = {c: self.contact_values(out, c) for c in pts}
        cands = [self._candidates(c, vals[c]) for c in pts]
        for k, c in enumerate(pts):
            if c in (exclude or {}) and len(cands[k]) > 1:
                cands[k] = [x for x in cands[k] if x[0] != exclude[c]] or cands[k]
            first = (prefer or {}).get(c)
            if first is not None and any(m == first for m, _ in cands[k]):
                cands[k] = ([x for x in cands[k] if x[0] == first]
                            + [x for x in cands[k] if x[0] != first])

        def trial(combo):
            d = disc.copy()
            for c, (mode, sgn) in zip(pts, combo):
                d[4 * c] = mode
                d[4 * c + K.D_DIR] = sgn
                d[4 * c + K.D_SSTAR] = vals[c]["s"]
            return d, self.evaluate(t, y, d)[1]

        def consistent(combo, res):
            # judged on the forces the phase will integrate (with the stabilisation), which its
            # events watch; a free point above its obstacle (a drift of ~1e-9 m) may stay free
            d, o = res
            ok = []
            for c, (mode, sgn) in zip(pts, combo):
                v = vs = self.contact_values(o, c)
                law = self.laws[c]
                if mode == FREE:
                    ok.append(v["a_n"] >= -A_TOL or vals[c]["v_n"] > VN_TOL or v["gap"] > 0.0)
                elif mode == STICK:
                    ok.append(v["N"] >= -N_FLOOR
                              and abs(vs["F_t"]) <= law.mu_lim * vs["N"] * (1 + 1e-12) + N_FLOOR)
                elif mode == SLIP:
                    small = abs(vals[c]["v_t"]) <= law.Dv
                    ok.append(v["N"] >= -N_FLOOR and (not small or sgn * vs["a_t"] >= -A_TOL))
                else:
                    ok.append(v["N"] >= -N_FLOOR)
            return ok

        sel = select_modes(cands, trial, consistent)
        log.n_selections += 1
        log.n_ambiguous += int(sel.ambiguous)
        combo, (d, o) = sel.combo, sel.result
        if o[K.O_RANK] < _rows(combo) and sel.ambiguous:
            # redundant constraints (their multipliers are not unique): the first consistent
            # combination, in the same priority order, whose constraints are independent and
            # which holds without a tolerance (a body resting on two points otherwise "slips"
            # at rest on one point, held at its friction limit by the other, or lets one point
            # go free that falls back at once: either reopens at the first disturbance)
            for other in sel.consistent_combos:
                d2, o2 = trial(other)
                if (o2[K.O_RANK] >= _rows(other)
                        and not self._held_by_tolerance(other, pts, vals, o2)):
                    combo, d = other, d2
                    break
        if _rows(combo) > self.evaluate(t, y, d)[1][K.O_RANK]:
            log.n_redundant += 1
        for c, (mode, _) in zip(pts, combo):
            log.events.append((t, self.names[c], "selection", K.MODE_NAMES[mode]))
        return d
