"""The event-driven hybrid simulator of the paper's cases: FREE / CONTACT / STICK / SLIP.

docs/model.md, "The state machine".

Each phase is a smooth ODE integrated by :func:`scipy.integrate.solve_ivp` until its first
terminal event; the event's action (velocity jump, contact-mode selection, z reset, ...) is
applied and the next phase starts.  The hybrid models choose the state after an impact with
|v_t| <= Dv and at a slip stop by the contact-mode selection of :mod:`flexlib.contact.selection`.
With restitution e > 0, an approach slower than ``v_zeno`` is absorbed (e = 0 for that jump), so
that a bouncing sequence ends instead of accumulating ever shorter rebounds.  The continuous state is

    y = [q (N+1), q' (N+1), z, W_N, W_f, W_d, W_tau]

where z is the LuGre bristle state and W_* are the energy accumulators of the energy audit
(docs/model.md, "Energy audit").

Choices where the paper is silent (also stated in the notebooks):

* absolute tolerances are scaled per component: ``atol`` for q, q' and the accumulators,
  ``atol * 1e-4`` for z (z is of order g/sigma0 = 5e-6 m);
* the step is bounded by ``max_step_contact`` in contact phases (short contacts and
  sign changes of v_t must not be skipped) and by
  ``max_step_free`` in flight;
* the Painleve margin 1 + c S12/S11 of a slip solve is watched by a terminal event at 1e-6: a
  run that reaches it stops with :class:`SimulationError`, never clipped;
* an event at which time does not advance is allowed 50 times in a row; more stops the run.
"""
from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass, field

import numpy as np

from .. import __version__, models
from . import integrator, kernel
from ..contact import penalty, selection
from ..bodies.beam import BeamModel, mass_forces_any, sample_kinematics
from ..contact.slope import Slope, TipContact, tip_gap, tip_kinematics
from ..contact.friction import stribeck_level
from .history import build_result
from ..contact.jump import velocity_jump
from .layout import (CONTACT, FREE, MODE_NAMES, O_COND, O_F, O_GAP, O_MARGIN,
                     O_MU, O_N, O_S, O_VN, O_VT, O_ZDOT, SLIP, STICK, DiscreteState, StateLayout,
                     pack_params, with_discrete)
from ..models import CONTACT_MODELS, FRICTION_MODELS, MODELS, canonical_model
from ..params import Case, check_run, paper_case
from ..result import SimulationResult

__all__ = ["MODELS", "CONTACT_MODELS", "canonical_model", "simulate", "SimulationError",
           "spin_up_profile", "Simulator"]

PAINLEVE_MIN = 1e-6
GAP_FLOOR = 1e-12      # m: re-contact threshold below a flight's starting gap when that is <= 0
_MAX_STALLED_EVENTS = 50
COND_S_MAX = 1e12       # stick tests with a worse-conditioned S stop the run (case 3.2: ~1e5)


def solve_ivp(*args, **kwargs):
    """:func:`scipy.integrate.solve_ivp`, imported on first use: only the scipy methods
    (``method="DOP853-scipy"``, ``FLEXLIB_NO_NUMBA=1``, prescribed hub motion) need it, and
    importing SciPy costs a fresh ``python -m flexlib simulate`` process ~0.3 s."""
    from scipy.integrate import solve_ivp as scipy_solve_ivp
    return scipy_solve_ivp(*args, **kwargs)


class SimulationError(RuntimeError):
    """A run that could not continue.  ``result`` holds everything computed up to ``t``.

    Attributes: ``t`` (s), ``state`` (FREE/CONTACT/STICK/SLIP), ``model``, ``cause`` and
    ``result`` (a :class:`SimulationResult` with ``success = False``)."""

    def __init__(self, message, *, t, state, model, cause, result=None):
        super().__init__(message)
        self.t, self.state, self.model, self.cause, self.result = t, state, model, cause, result

    def __reduce__(self):
        # keyword-only arguments: pickle (a process pool, Dask) must pass them by name
        return (_simulation_error, (str(self), self.t, self.state, self.model, self.cause,
                                    self.result))


def _simulation_error(message, t, state, model, cause, result):
    return SimulationError(message, t=t, state=state, model=model, cause=cause, result=result)


def spin_up_profile(Omega: float = 4.0, T: float = 15.0):
    """Kane-Ryan-Banerjee (1987) spin-up: theta(t) = (Omega/T)[t^2/2 + (T/2pi)^2 (cos(2pi t/T) - 1)]
    for t <= T, then Omega (t - T/2).  Returns a function t -> (theta, theta', theta'')."""
    def hub(t):
        if t <= T:
            w = 2.0 * math.pi / T
            th = Omega / T * (t * t / 2.0 + (math.cos(w * t) - 1.0) / (w * w))
            thd = Omega / T * (t - math.sin(w * t) / w)
            thdd = Omega / T * (1.0 - math.cos(w * t))
            return th, thd, thdd
        return Omega * (t - T / 2.0), Omega, 0.0
    return hub


_Disc = DiscreteState        # the name the simulator's code and tests use


@dataclass
class Forces:
    """Everything the phase equations give at one state."""
    qdd: np.ndarray
    N: float = 0.0
    F: float = 0.0
    zdot: float = 0.0
    mu: float = float("nan")
    margin: float = float("nan")
    cond: float = float("nan")
    tau: float = 0.0
    gap: float = float("nan")
    s: float = float("nan")
    v_n: float = float("nan")
    v_t: float = float("nan")


class Simulator:
    """One run of one model on one case.  Use :func:`simulate` unless you need the internals."""

    def __init__(self, case: Case, model: str, t_end: float, *, hub_motion=None,
                 multiplier_mode: str | None = None):
        self.case = case
        self.spec = models.get(model)       # the registry entry: contact and friction law
        self.model = self.spec.id
        self.t_end = check_run(t_end)[0]
        self.beam = BeamModel(case.beam)
        self.slope = Slope.from_params(case.slope)
        self.sol = case.solver
        self.mult = multiplier_mode or case.solver.multiplier_mode
        if self.mult not in ("coupled", "printed"):
            raise ValueError(f"parameter 'multiplier_mode' = {self.mult!r} is invalid: valid range is "
                             "one of 'coupled', 'printed'")
        self.hub = hub_motion
        if hub_motion is not None and self.spec.has_contact:
            raise ValueError("prescribed hub motion is only available with model 'free' (no slope)")
        fr = case.coulomb
        if self.spec.friction.needs_mu_s and fr.mu_s <= 0.0:
            raise ValueError(f"parameter 'mu_s' = {fr.mu_s!r} is invalid for LuGre models: valid range "
                             f"is (0, 10] (g(v) >= mu_s > 0 is divided by)")
        limit = fr.stick_limit
        if limit == "default":
            limit = self.spec.friction.stick_limit
        self.mu_lim = fr.mu_s if limit == "mu_s" else fr.mu_d
        self.painleve_min = PAINLEVE_MIN
        self.nd = self.beam.ndof
        nd = self.nd
        self.layout = StateLayout(nd, self.beam.n)
        self.iz, self.iW = self.layout.z, self.layout.W_N
        atol = np.full(self.layout.size, self.sol.atol)
        atol[self.iz] = self.sol.atol * 1e-4
        self.atol = atol
        self.n_rhs = 0
        # the compiled right-hand side: the kernel module, or one compiled around a friction law
        # registered from outside the package (flexlib.models.FrictionLaw.kernel_function)
        self._kern, self._integrate = kernel, None
        if self.spec.friction.kernel_function is not None:
            self._kern = kernel.specialize(self.spec.friction.kernel_function)
            self._integrate = integrator.specialize(self._kern) if kernel.COMPILED else None
        self._setup_kernel()
        self._fast = kernel.COMPILED and hub_motion is None and self.sol.method == "DOP853"

    # ------------------------------------------------------------------ phase equations
    def _setup_kernel(self):
        mi = self.beam.mi
        self._arrs = self.beam.kernel_arrays()     # the modal data, owned by the beam model
        sp, fr, lg, b = self.case.slope, self.case.coulomb, self.case.lugre, self.case.beam
        (nx, ny), (tx, ty), (X1, Y1) = self.slope.n, self.slope.t, self.slope.origin
        pen = {}
        if self.spec.is_penalty:
            # the continuous contact force law (flexlib.contact.penalty): D(e) checks the law's range of e
            law = sp.contact_law
            pen = dict(K_c=sp.contact_stiffness, n_c=sp.contact_exponent,
                       D_c=penalty.damping_factor(law, sp.e),
                       C_c=sp.contact_damping if law == "kelvin_voigt" else 0.0, v0=fr.v0, v1=fr.v1)
        self._par0 = pack_params(
            J_ob=mi.J_ob, Rx0=mi.Rx0, g0=b.g0, tau_d=b.tau_d, L=mi.L, nx=nx, ny=ny, tx=tx, ty=ty,
            X1=X1, Y1=Y1, chi=sp.chi, beta=sp.beta, mu_d=fr.mu_d, mu_s=fr.mu_s, sigma0=lg.sigma0,
            sigma1=lg.sigma1, sigma2=lg.sigma2, v_s=lg.v_s, **pen)
        self._ev_dirs = np.array(kernel.EVENT_DIRECTIONS, dtype=float)
        self._ev_epar = np.array([self.mu_lim, self.case.coulomb.Dv, PAINLEVE_MIN, 1.0])
        self._ev_offs = np.zeros(kernel.NEV)
        self._model_code = self.spec.kernel_code
        self._mult_code = 0 if self.mult == "coupled" else 1

    def _par(self, d: _Disc) -> np.ndarray:
        return with_discrete(self._par0, d.dir, d.s_star, d.v_in)

    def evaluate(self, t: float, y: np.ndarray, d: _Disc):
        """(dy/dt, out) of phase ``d`` at (t, y); out = [N, F_t, z', mu, margin, cond S, gap, s, v_n, v_t]."""
        return self._kern.phase_eval(t, y, d.mode, self._model_code, self._mult_code, self._par(d),
                                     self._arrs)

    def outputs(self, t, Y, modes, discs):
        """The phase outputs ``out`` (m, NOUT) and the kinetic energy (m,) at the samples (t, Y),
        sample k in phase ``modes[k]`` with discrete state ``discs[k]`` (the slots
        :data:`flexlib.solver.layout.DISC_SLOTS`): the compiled right-hand side the integrator ran."""
        return self._kern.phase_eval_samples(t, np.ascontiguousarray(Y), modes, discs,
                                             self._model_code, self._mult_code, self._par0,
                                             self._arrs)

    def kinematics(self, Y):
        """The tip and potential-energy histories at the states ``Y`` (rows):
        :func:`flexlib.bodies.beam.sample_kinematics`."""
        return sample_kinematics(np.ascontiguousarray(Y), self._par0, self._arrs)

    def dense_step(self, t: float, y: np.ndarray, h: float, d: _Disc):
        """The 7th-order dense-output coefficients (7, ny) of the step of size ``h`` from (t, y)
        in phase ``d``, taken again with the interpolant (the run takes flight steps without
        it), or None if the integrator does not take it as one step."""
        sol = integrator.solve_phase(t, y, t + h, d.mode, self._model_code, self._mult_code,
                                     self._par(d), self._arrs, rtol=self.sol.rtol, atol=self.atol,
                                     max_step=h, first_step=h, dense=True,
                                     integrate=self._integrate)
        return sol.F[0] if len(sol.t) == 2 and sol.status == 0 else None

    def tip(self, y: np.ndarray) -> TipContact:
        """Tip contact kinematics at the state y (:func:`flexlib.contact.slope.tip_kinematics`).

        The same numbers as :func:`flexlib.contact.slope.tip_contact` to round-off, but compiled: the
        event actions call it ~2 times per velocity jump, and the hybrid models make 10^4 jumps."""
        lay = self.layout
        g, s, v_n, v_t, Pq, Gq, gn, gt = tip_kinematics(
            y[lay.q], y[lay.qd], self._par0, self._arrs)
        return TipContact(gap=g, s=s, v_n=v_n, v_t=v_t, Psi_q=Pq, Gamma_q=Gq, gamma_n=gn, gamma_t=gt)

    def gap(self, y: np.ndarray) -> float:
        """The gap of :meth:`tip` alone (the same compiled code, so the same bits), for the
        FREE-phase floor: one per flight phase, ~2.4e4 in a hybrid model's chatter."""
        lay = self.layout
        return tip_gap(y[lay.q], y[lay.qd], self._par0, self._arrs)

    def mass_matrix(self, y: np.ndarray) -> np.ndarray:
        """M(q) by the body's compiled code (:func:`flexlib.bodies.beam.mass_forces_any`)."""
        lay = self.layout
        return mass_forces_any(np.ascontiguousarray(y[lay.q]), np.ascontiguousarray(y[lay.qd]),
                               self._par0, self._arrs)[0]

    def forces(self, t: float, y: np.ndarray, d: _Disc) -> Forces:
        """q'', contact forces and friction state of the phase ``d.mode`` at (t, y)."""
        lay, bm = self.layout, self.beam
        if self.hub is not None:
            q = y[lay.q].copy(); qd = y[lay.qd].copy()
            th, thd, thdd = self.hub(t)
            q[0], qd[0] = th, thd
            M, Q = bm.mass_and_forces(q, qd)
            Bdd = np.linalg.solve(M[1:, 1:], Q[1:] - M[1:, 0] * thdd)
            qdd = np.concatenate(([thdd], Bdd))
            return Forces(qdd=qdd, tau=float(M[0] @ qdd - Q[0]))
        dy, o = self.evaluate(t, y, d)
        return Forces(qdd=dy[lay.qd], N=o[O_N], F=o[O_F], zdot=o[O_ZDOT], mu=o[O_MU],
                      margin=o[O_MARGIN], cond=o[O_COND], gap=o[O_GAP], s=o[O_S], v_n=o[O_VN],
                      v_t=o[O_VT])

    def rhs_for(self, d: _Disc):
        nd, iz, iW = self.nd, self.iz, self.iW
        if self.hub is not None:
            def rhs_hub(t, y):
                self.n_rhs += 1
                f = self.forces(t, y, d)
                dy = np.zeros_like(y)
                dy[0] = self.hub(t)[1]
                dy[1:nd] = y[nd + 1:2 * nd]
                dy[nd:2 * nd] = f.qdd
                Bd = y[self.layout.B_dot]
                dy[self.layout.W_d] = Bd @ self.beam.mi.C @ Bd
                dy[self.layout.W_tau] = f.tau * self.hub(t)[1]
                return dy
            return rhs_hub
        pe, mode, model, mult, par, arrs = (self._kern.phase_eval, d.mode, self._model_code,
                                            self._mult_code, self._par(d), self._arrs)

        def rhs(t, y):
            self.n_rhs += 1
            return pe(t, y, mode, model, mult, par, arrs)[0]
        return rhs

    # ------------------------------------------------------------------ events
    def _phase_events(self, d: _Disc, armed_contact: bool, floor: float):
        """Events of phase ``d`` in kernel numbering (kernel.EVENT_NAMES), for the compiled integrator."""
        ev = []
        # the integrator only reads these: the shared arrays are copied where a phase changes them
        dirs, epar, offs = self._ev_dirs, self._ev_epar, self._ev_offs
        if not self.spec.has_contact:
            return ev, dirs, epar, offs
        if d.mode == FREE:
            if armed_contact:
                ev.append(0)
                if floor != 0.0:
                    offs = offs.copy()
                    offs[0] = floor
            return ev, dirs, epar, offs
        if self.spec.is_penalty:
            ev.append(7)          # GAP-OPEN: the penalty contact ends where the gap opens
            return ev, dirs, epar, offs
        ev.append(1)
        if d.mode == STICK:
            ev += [2, 3]
        if d.mode == SLIP or (d.mode == CONTACT and self.spec.watches_painleve):
            ev.append(4)
        if d.mode == SLIP:
            if d.armed:
                ev.append(5)
                epar, dirs = epar.copy(), dirs.copy()
                if self.spec.friction.uses_direction:
                    epar[3], dirs[5] = d.dir, -1.0
                else:
                    epar[3], dirs[5] = 1.0, 0.0
            else:
                ev.append(6)
        return ev, dirs, epar, offs

    def _failure_cause(self, t, y, d):
        if d.mode != FREE and self.spec.is_penalty:
            r = self.forces(t, y, d)
            sp = self.case.slope
            return (f"stiff penalty contact ({sp.contact_law}, K = {sp.contact_stiffness:.3g} "
                    f"N/m^{sp.contact_exponent:g}, N = {r.N:.4g} N, penetration {max(-r.gap, 0.0):.3g} m): "
                    f"a smaller contact_stiffness or a larger max_steps_phase")
        if d.mode != FREE:
            try:
                r = self.forces(t, y, d)
            except ZeroDivisionError:
                return self._singular_cause(d)
            if np.isfinite(r.margin) and abs(r.margin) < 1e-2:
                return (f"approach to a Painleve singularity (slip margin {r.margin:.3g}: the tip Jacobians are nearly parallel)")
            lu = self.case.lugre
            if self.spec.friction is models.LUGRE and d.mode != STICK and np.isfinite(r.v_t):
                # the bristle equation z' = v - sigma0 |v| z / g(v) has the rate sigma0 |v| / g(v)
                g = stribeck_level(r.v_t, self.case.coulomb.mu_d, self.case.coulomb.mu_s, lu.v_s)
                rate = math.inf if g <= 0.0 else lu.sigma0 * abs(r.v_t) / g
                if rate > 1e6:
                    return (f"LuGre bristle equation too stiff for the explicit integrator: "
                            f"sigma0 |v_t| / g(v_t) = {rate:.3g} 1/s at v_t = {r.v_t:.4g} m/s, "
                            f"g = {g:.3g} (g(v) -> mu_d = {self.case.coulomb.mu_d:g} for "
                            f"|v_t| >> v_s; a larger mu_d or a smaller sigma0 keeps it tractable)")
            return f"stiff or singular contact phase (N = {r.N:.4g} N, v_t = {r.v_t:.4g} m/s)"
        return "integrator failure in free flight"

    def _singular_cause(self, d):
        why = ("the normal and tangential tip constraints are linearly dependent; with n_modes = 1 "
               "they always are at zero modal velocity, so the stick constraint has no unique "
               "multipliers (use n_modes >= 2)" if self.beam.n == 1 else
               "linearly dependent tip constraint Jacobians")
        return f"singular constraint matrix in state {MODE_NAMES[d.mode]}: {why}"

    def events_for(self, d: _Disc, armed_contact: bool, floor: float = 0.0):
        """The events of phase ``d`` as :func:`scipy.integrate.solve_ivp` event functions (the
        scipy methods and the pure-NumPy path): the same events, directions and offsets as the
        compiled integrator's (:meth:`_phase_events`), evaluated by the same function,
        :func:`flexlib.solver.kernel.event_values`, on the phase outputs.  One definition of every
        event, whichever integrator runs."""
        evi, dirs, epar, offs = self._phase_events(d, armed_contact, floor)
        evs = []
        for i in evi:
            def event(t, y, i=i):
                return kernel.event_values(self.evaluate(t, y, d)[1], epar)[i] - offs[i]
            event.terminal, event.direction, event.kind = True, dirs[i], kernel.EVENT_NAMES[i]
            evs.append(event)
        return evs

    # ------------------------------------------------------------------ run
    def run(self, sample_times=None, progress=None) -> SimulationResult:
        """Simulate from t = 0 to ``t_end``; raises :class:`SimulationError` with the partial result.

        ``progress``, if given, is called as ``progress(t, t_end)`` [s] before every phase; it
        must be cheap (the command line's progress line throttles itself by wall time).

        Python's cyclic garbage collector is paused during the run (and restored after it): the
        run creates ~10^5 small containers (phase solutions, event, jump and stick-test records)
        and no reference cycles, so the collector's repeated scans of the growing heap found
        nothing and cost up to 30 % of a hybrid model's run (3.5 s against 2.3-3.0 s measured).
        Reference counting still frees everything that is dropped."""
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._run(sample_times, progress)
        finally:
            if gc_was_enabled:
                gc.enable()

    def _run(self, sample_times, progress=None):
        wall0 = time.perf_counter()
        nd = self.nd
        b = self.case.beam
        y = np.zeros(self.layout.size)
        if self.hub is not None:
            y[0], y[nd], _ = self.hub(0.0)
        else:
            y[0] = b.theta0
        t = 0.0
        d = _Disc()
        log = _RunLog(self)
        if self.spec.has_contact:
            k0 = self.tip(y)
            if k0.gap <= 0.0:
                raise ValueError(
                    f"the beam tip starts on or below the slope (gap {k0.gap:.4g} m): choose theta0, "
                    f"X1 or alpha so that the initial gap is positive")
        last_sep = -np.inf
        stalled = 0
        try:
            while t < self.t_end:
                if progress is not None:
                    progress(t, self.t_end)
                armed_contact = (t - last_sep) >= self.sol.dt_rearm
                t_stop = self.t_end if armed_contact or d.mode != FREE else min(self.t_end, last_sep + self.sol.dt_rearm)
                if t_stop <= t:
                    t_stop = min(self.t_end, t + self.sol.dt_rearm)
                floor = 0.0
                if d.mode == FREE and self.spec.has_contact:
                    # A flight that starts on or below the slope (after a separation or a
                    # micro-impact, |gap| ~ round-off) watches gap = floor < 0 instead of gap = 0,
                    # so that a tip that moves further in is still caught.
                    g0 = self.gap(y)
                    floor = min(0.0, g0) - GAP_FLOOR
                max_step = self.sol.max_step_free if d.mode == FREE else self.sol.max_step_contact
                fired = None
                if self._fast:
                    evi, dirs, epar, offs = self._phase_events(d, armed_contact, floor)
                    # Flight skips the 7th-order interpolant (3 RHS per step) except on the
                    # steps that locate an event: the result computes it for the few flight
                    # steps a sample falls in (Simulator.dense_step).  Contact phases keep it for
                    # their histories, peaks and impulse integrals.
                    sol = integrator.solve_phase(
                        t, y, t_stop, d.mode, self._model_code, self._mult_code, self._par(d),
                        self._arrs, rtol=self.sol.rtol, atol=self.atol, max_step=max_step,
                        events=evi, directions=dirs, epar=epar, offsets=offs,
                        max_steps=self.sol.max_steps_phase, dense=d.mode != FREE,
                        integrate=self._integrate)
                    self.n_rhs += sol.nfev + sol.n_event_evals
                    if sol.status == 1:
                        kinds = sol.event_names
                        fired = "SEPARATE" if "SEPARATE" in kinds else kinds[0]
                        t_hit, y_hit = sol.t_event, sol.y_event.copy()
                else:
                    evs = self.events_for(d, armed_contact, floor)
                    method = "DOP853" if self.sol.method == "DOP853-scipy" else self.sol.method
                    sol = solve_ivp(self.rhs_for(d), (t, t_stop), y, method=method,
                                    rtol=self.sol.rtol, atol=self.atol, max_step=max_step,
                                    events=evs or None, dense_output=True)
                    if sol.status == 1:
                        hits = [(te[0], i) for i, te in enumerate(sol.t_events) if len(te)]
                        t_hit = min(h[0] for h in hits)
                        kinds = [evs[i].kind for (th, i) in hits if th <= t_hit + 1e-15]
                        fired = "SEPARATE" if "SEPARATE" in kinds else kinds[0]
                        i_f = [e.kind for e in evs].index(fired)
                        y_hit = sol.y_events[i_f][0].copy()
                        t_hit = sol.t_events[i_f][0]
                if sol.status == -1:
                    log.add_segment(sol, d, None)
                    budget = (f" (max_steps_phase = {self.sol.max_steps_phase})"
                              if "maximum number of steps" in sol.message else "")
                    raise _Stop(f"the integrator failed: {sol.message}{budget}", sol.t[-1], d.mode,
                                self._failure_cause(sol.t[-1], sol.y[:, -1], d))
                log.add_segment(sol, d, (t_hit, y_hit) if fired else None)
                if fired is None:
                    t, y = sol.t[-1], sol.y[:, -1].copy()
                    if t >= self.t_end:
                        break
                    continue
                stalled = stalled + 1 if t_hit <= t else 0
                self._check_stall(stalled, t_hit, d, log)
                t, y = t_hit, y_hit
                t, y, d, sep = self._apply(fired, t, y, d, log)
                if sep:
                    last_sep = t
                log.count_event(t)
        except ZeroDivisionError:
            # the kernel's Gaussian elimination met an exactly singular constraint matrix
            stop = _Stop("a singular contact constraint matrix (division by zero in the "
                         "multiplier solve)", t, d.mode, self._singular_cause(d))
            res = log.finish(success=False, message=stop.message, wall0=wall0, sample_times=sample_times)
            raise SimulationError(
                f"{self.model}: {stop.message} at t = {stop.t:.6f} s in state {MODE_NAMES[stop.mode]}"
                f" (likely cause: {stop.cause})", t=stop.t, state=MODE_NAMES[stop.mode],
                model=self.model, cause=stop.cause, result=res) from None
        except _Stop as stop:
            res = log.finish(success=False, message=stop.message, wall0=wall0, sample_times=sample_times)
            raise SimulationError(
                f"{self.model}: {stop.message} at t = {stop.t:.6f} s in state {MODE_NAMES[stop.mode]}"
                f" (likely cause: {stop.cause})", t=stop.t, state=MODE_NAMES[stop.mode],
                model=self.model, cause=stop.cause, result=res) from None
        return log.finish(success=True, message="reached t_end", wall0=wall0, sample_times=sample_times)

    def _check_stall(self, stalled, t, d, log):
        if stalled > _MAX_STALLED_EVENTS:
            raise _Stop(f"{stalled} events without time advancing", t, d.mode,
                        "Zeno-like event chattering (switching rule cannot settle)")
        if log.events_in_cluster() > self.sol.event_cap:
            raise _Stop(f"event cap of {self.sol.event_cap} events in one impact cluster reached", t,
                        d.mode, self._chatter_cause())

    def _chatter_cause(self):
        """The likely reason for an event-cap stop, from the settings that produce one."""
        if self.mult == "printed":
            return ("chattering between states with the paper's decoupled (printed) multipliers, "
                    "which do not keep the gap closed")
        e, vz = self.case.slope.e, self.case.slope.v_zeno
        if e > 0.0:
            return (f"a long sequence of restitution rebounds (e = {e:g}) faster than v_zeno = "
                    f"{vz:g} m/s, or switching between contact states that does not settle "
                    f"(a larger v_zeno ends rebound sequences sooner)")
        return ("contact states that do not settle: repeated micro-impacts or stick/slip "
                "switching within one impact cluster")

    # ------------------------------------------------------------------ actions
    def _contact_on(self, t, y, d, log):
        """CONTACT-ON: the velocity jump (eqs (39)-(48)), then ONSET.

        M, the tip kinematics and the jump solve are compiled (:meth:`mass_matrix`, :meth:`tip`,
        :func:`flexlib.contact.jump.velocity_jump`): NumPy statements of them cost ~150 us per jump, which
        dominated the hybrid models' chatter."""
        nd = self.nd
        qd = y[nd:2 * nd]
        M = self.mass_matrix(y)
        k = self.tip(y)
        e = self.case.slope.e
        zeno = 0.0 < e and abs(k.v_n) < self.case.slope.v_zeno
        if zeno:
            # the accumulation point of a bouncing sequence: an approach slower than v_zeno is
            # absorbed (e = 0), so the contact persists and ONSET decides the state
            e = 0.0
        dqd, impulse, dT = velocity_jump(M, k.Psi_q, k.v_n, e)
        T_before = 0.5 * qd @ M @ qd
        y = y.copy()
        y[nd:2 * nd] = qd + dqd
        qd2 = y[nd:2 * nd]
        T_after = 0.5 * qd2 @ M @ qd2
        k2 = self.tip(y)
        log.jump(t, y, dict(t=t, v_n_minus=k.v_n, v_t_minus=k.v_t, v_n_plus=k2.v_n, v_t_plus=k2.v_t,
                            impulse=impulse, dE=dT, dT_direct=T_after - T_before, gap=k.gap,
                            e=e, zeno=zeno))
        y[self.iz] = 0.0
        nd2 = self._onset(t, y, k2, log, e)
        return t, y, nd2

    def _penalty_on(self, t, y, log):
        """CONTACT-ON of the continuous contact force method: no jump, no mode selection; the
        contact phase starts with the approach speed of its damping term stored (at least
        ``v_zeno``, see :mod:`flexlib.contact.penalty`).  The onset is recorded like a jump with no
        velocity change, so episodes and impacts are counted as for the constraint method."""
        k = self.tip(y)
        sp = self.case.slope
        v_in = max(-k.v_n, sp.v_zeno, 1e-12)
        log.jump(t, y, dict(t=t, v_n_minus=k.v_n, v_t_minus=k.v_t, v_n_plus=k.v_n, v_t_plus=k.v_t,
                            impulse=0.0, dE=0.0, dT_direct=0.0, gap=k.gap, e=sp.e, zeno=False,
                            v_in=v_in))
        y[self.iz] = 0.0
        log.event(t, "ONSET", CONTACT, f"penalty contact, approach speed {-k.v_n:.4g} m/s")
        return _Disc(CONTACT, v_in=v_in)

    def _onset(self, t, y, k, log, e_jump):
        """ONSET after a velocity jump with restitution ``e_jump``: which state follows."""
        if k.v_n > 0.0 and e_jump > 0.0:
            log.event(t, "ONSET", FREE, "rebound (e > 0)")
            return _Disc(FREE)
        if not self.spec.can_stick:
            d = _Disc(CONTACT)
            r = self.forces(t, y, d)
            if self.spec.watches_painleve:
                self._check_painleve(t, r, d)
            N = r.N
            if N > 0.0:
                log.event(t, "ONSET", CONTACT, f"N = {N:.4g} N")
                return d
            log.event(t, "ONSET", FREE, f"micro-impact: N = {N:.4g} N <= 0 after the jump")
            return _Disc(FREE)
        if abs(k.v_t) <= self.case.coulomb.Dv:
            return self._select(t, y, log, "ONSET", k)
        # |v_t| > Dv: the motion sets the slip direction (LuGre: z = 0 after the jump)
        d = _Disc(SLIP, dir=math.copysign(1.0, k.v_t), armed=True)
        r = self.forces(t, y, d)
        self._check_painleve(t, r, d)
        N = r.N
        if N > 0.0:
            log.event(t, "ONSET", SLIP, f"|v_t| = {abs(k.v_t):.3g} m/s > Dv, dir = {d.dir:+.0f}")
            return d
        free = selection.free_candidate(self, t, y, k)
        if free.consistent:
            log.event(t, "ONSET", FREE, f"micro-impact: slip N = {N:.4g} N <= 0 and the contact "
                      f"opens (a_n - a_n* = {free.test:.4g} m/s^2)")
            return _Disc(FREE)
        raise _Stop(f"Painlevé inconsistency at contact onset: sliding with |v_t| = {abs(k.v_t):.3g}"
                    f" m/s gives N = {N:.4g} N <= 0, but the contact does not open "
                    f"(a_n - a_n* = {free.test:.4g} m/s^2)", t, SLIP,
                    "Painlevé inconsistency: no contact state is consistent (a tangential impact "
                    "would be needed)")

    def _select(self, t, y, log, why, k=None):
        """The mode selection (:func:`flexlib.contact.selection.select_mode`): evaluate FREE, STICK and
        the SLIP candidates at (t, y), log them and return the chosen phase.  ``y`` is changed
        in place where the chosen state needs it (z dropped on STICK)."""
        if k is None:
            k = self.tip(y)
        sel = selection.select_mode(self, t, y, k)
        st = sel.candidates[1]
        log.stick_test(t, st.N, st.F_t, self.mu_lim, st.cond)
        if not st.cond <= COND_S_MAX:
            # the stick multipliers (N, F_t) of a singular S are round-off: deciding stick, slip
            # or flight on them would be a silent wrong branch
            raise _Stop(f"singular stick test: cond S = {st.cond:.3g} > {COND_S_MAX:.0e} "
                        f"(N = {st.N:.3g} N, F_t = {st.F_t:.3g} N are meaningless)", t, SLIP,
                        self._singular_cause(_Disc(STICK)))
        log.selection(sel, self.spec)
        c = sel.chosen
        if c is None:
            raise _Stop(f"Painlevé inconsistency at {why}: no consistent contact state at "
                        f"v_t = {k.v_t:.4g} m/s, v_n = {k.v_n:.4g} m/s, gap = {k.gap:.4g} m "
                        f"({sel.describe()})", t, SLIP,
                        "Painlevé inconsistency: no contact state is consistent (a tangential "
                        "impact would be needed)")
        many = f" ({sel.n_consistent} consistent: {', '.join(x.name for x in sel.consistent)})" \
            if sel.n_consistent > 1 else ""
        if c.name == "FREE":
            log.event(t, why, FREE, f"selection: FREE (a_n - a_n* = {c.test:.4g} m/s^2; stick trial "
                      f"N = {st.N:.4g} N){many}")
            return _Disc(FREE)
        if c.name == "STICK":
            log.event(t, why, STICK, f"selection: STICK (|F_t|/N = {abs(c.F_t) / c.N:.4g} <= "
                      f"{self.mu_lim:g}){many}")
            y[self.iz] = 0.0
            return _Disc(STICK, s_star=k.s)
        ratio = abs(st.F_t / st.N) if st.N != 0.0 else math.inf
        log.event(t, why, SLIP, f"selection: {c.name} (N = {c.N:.4g} N; stick trial N = "
                  f"{st.N:.4g} N, |F_t|/N = {ratio:.4g}){many}")
        return _Disc(SLIP, dir=c.dir, armed=abs(k.v_t) > self.case.coulomb.Dv)

    def _check_painleve(self, t, r, d):
        """A slip solve with margin 1 + c S12/S11 <= PAINLEVE_MIN has no consistent contact force:
        stop instead of letting the tip fall through the slope."""
        if self.mult == "coupled" and not (r.margin > PAINLEVE_MIN):
            raise _Stop(f"Painleve singularity at contact onset: slip solve margin 1 + c S12/S11 = "
                        f"{r.margin:.3g} (mu = {r.mu:.4g}, v_t = {r.v_t:.4g} m/s)", t, d.mode,
                        "friction coefficient too large for the nearly parallel tip Jacobians "
                        "(Gamma_q ~ tan(alpha - theta) Psi_q)")

    def _apply(self, kind, t, y, d, log):
        """Apply the action of a fired event.  Returns (t, y, disc, separated)."""
        y = y.copy()
        if kind == "CONTACT-ON" and self.spec.is_penalty:
            return t, y, self._penalty_on(t, y, log), False
        if kind == "GAP-OPEN":
            y[self.iz] = 0.0
            log.event(t, "SEPARATE", FREE, "the gap opens (penetration -> 0)")
            return t, y, _Disc(FREE), True
        if kind == "CONTACT-ON":
            t, y, d2 = self._contact_on(t, y, d, log)
            return t, y, d2, d2.mode == FREE
        if kind == "SEPARATE":
            y[self.iz] = 0.0
            log.event(t, kind, FREE, "N -> 0")
            return t, y, _Disc(FREE), True
        if kind == "PAINLEVE":
            r = self.forces(t, y, d)
            raise _Stop(f"Painleve singularity: slip solve margin 1 + c S12/S11 = {r.margin:.3g} "
                        f"(mu = {r.mu:.4g}, v_t = {r.v_t:.4g} m/s)", t, d.mode,
                        "friction coefficient too large for the nearly parallel tip Jacobians "
                        "(Gamma_q ~ tan(alpha - theta) Psi_q)")
        if kind == "ARM":
            d2 = d.copy(); d2.armed = True
            return t, y, d2, False
        if kind == "STICK->SLIP":
            r = self.forces(t, y, d)
            d2 = _Disc(SLIP, armed=False)
            if self.spec.friction.uses_direction:
                d2.dir = -math.copysign(1.0, r.F)
            if self.spec.friction.has_bristles:
                # the bristle state that carries the stick force over: -F/N = mu = sigma0 z
                y[self.iz] = -r.F / (r.N * self.case.lugre.sigma0)
            log.event(t, kind, SLIP, f"|F_t| = mu_lim N = {abs(r.F):.4g} N")
            return t, y, d2, False
        if kind == "STICK-DRIFT":
            r = self.forces(t, y, d)
            d2 = _Disc(SLIP, dir=math.copysign(1.0, r.v_t), armed=True)
            if self.spec.friction.has_bristles:
                y[self.iz] = -r.F / (r.N * self.case.lugre.sigma0)
            log.warn(f"t = {t:.6f} s: STICK-DRIFT (|v_t| = {abs(r.v_t):.3g} m/s > Dv while sticking): "
                     "switched to SLIP")
            log.event(t, kind, SLIP, "|v_t| > Dv in STICK")
            return t, y, d2, False
        if kind == "SLIP-STOP":
            d2 = self._select(t, y, log, "SLIP-STOP")
            if d2.mode in (STICK, FREE):     # z is dropped in STICK and reset in flight
                y[self.iz] = 0.0
            return t, y, d2, d2.mode == FREE
        raise AssertionError(kind)


class _Stop(Exception):
    def __init__(self, message, t, mode, cause):
        super().__init__(message)
        self.message, self.t, self.mode, self.cause = message, t, mode, cause


class _RunLog:
    """Collects segments, jumps and events during a run; builds the result at the end."""

    def __init__(self, sim: Simulator):
        self.sim = sim
        self.segments = []
        self.jumps = []
        self.events = []
        self.stick_tests = []
        self.selections = []
        self.warnings = []
        self._cluster_start_events = 0
        self._n_events = 0
        self._last_contact_end = -np.inf

    def add_segment(self, sol, d, hit):
        self.segments.append((sol, d.copy(), hit, len(self.jumps)))

    def jump(self, t, y, info):
        if t - self._last_contact_end > self.sim.sol.t_cluster:
            self._cluster_start_events = self._n_events
        self.jumps.append(info)

    def event(self, t, kind, to_mode, detail):
        self.events.append(dict(t=t, kind=kind, to=MODE_NAMES[to_mode], detail=detail))
        if to_mode == FREE:
            self._last_contact_end = t

    def stick_test(self, t, N, F, mu_lim, cond):
        self.stick_tests.append(dict(t=t, N=N, F_t=F, ratio=abs(F) / N if N > 0 else float("nan"),
                                     mu_lim=mu_lim, cond=cond))

    def selection(self, sel, spec):
        """Record a mode selection: its time, the consistent candidates, the choice and, for a
        Coulomb slip, whether the chosen direction is -sgn(F_t) of the stick trial."""
        c = sel.chosen
        agree = None
        if c is not None and spec.friction.uses_direction and c.name.startswith("SLIP"):
            agree = c.dir == sel.dir_stick
        self.selections.append(dict(
            t=sel.t, n_consistent=sel.n_consistent, consistent=[x.name for x in sel.consistent],
            chosen=None if c is None else c.name, slip_dir_agrees=agree, F_stick=sel.F_stick,
            detail=sel.describe()))
        if sel.n_consistent != 1:
            self.warn(f"t = {sel.t:.6f} s: mode selection with {sel.n_consistent} consistent "
                      f"candidates ({sel.describe()}); chose "
                      f"{'nothing' if c is None else c.name}")

    def warn(self, msg):
        self.warnings.append(msg)

    def count_event(self, t):
        self._n_events += 1

    def events_in_cluster(self):
        return self._n_events - self._cluster_start_events

    def finish(self, *, success, message, wall0, sample_times):
        return build_result(self.sim, self, success=success, message=message, wall0=wall0,
                            sample_times=sample_times)


def simulate(case="3.2", model: str = "frictionless", t_end: float = 2.0, *,
             hub_motion=None, multiplier_mode: str | None = None, sample_times=None,
             progress=None, **overrides) -> SimulationResult:
    """Simulate ``model`` on ``case`` over [0, t_end] s.

    ``case`` is a :class:`~flexlib.params.Case` or a paper case name (``"3.1"``/``"A"``,
    ``"3.2"``/``"B"``); ``overrides`` are flat parameter changes (``mu_d=0.45, n_modes=4``),
    among them the beam's basis: ``basis="modal"`` (the paper's ``n_modes`` assumed modes, the
    default), ``basis="fe", elements=8`` (Hermite finite elements) or ``basis="partition"``
    (``n_modes`` assumed modes away from the tip, ``elements`` elements on its last
    ``local_length`` metres, reduced to ``local_modes`` fixed-interface modes if > 0); what each
    costs and how accurate it is: :mod:`flexlib.studies.accuracy`, notebook 12.
    ``model`` is one of ``free`` (no slope), ``frictionless``, ``hybrid_coulomb``,
    ``hybrid_lugre``, ``lugre`` (the paper's contact-constraint method), ``continuous_coulomb``,
    ``continuous_lugre`` (the continuous contact force method: set ``e`` > 0 for the default law,
    ``contact_law="flores"``), or a model registered in :mod:`flexlib.models` (hyphens accepted).  ``hub_motion`` (model ``free`` only) is a
    function t -> (theta, theta', theta'') that prescribes the hub angle.  ``progress``, if
    given, is called as ``progress(t, t_end)`` [s] before every phase of the run (see
    :meth:`Simulator.run`).

    Raises :class:`SimulationError` (carrying the partial result) when the run cannot continue.
    """
    if not isinstance(case, Case):
        case = paper_case(case)
    if overrides:
        case = case.with_(**overrides)
    t_end, st, _ = check_run(t_end, sample_times)
    sim = Simulator(case, model, t_end, hub_motion=hub_motion, multiplier_mode=multiplier_mode)
    try:
        res = sim.run(sample_times=sample_times, progress=progress)
    except SimulationError as err:
        if sample_times is not None and err.result is not None:
            # the partial result is sampled where it has data (NaN beyond its end)
            err.result.samples = err.result.samples_at(
                np.where(st <= err.result.t[-1], st, np.nan))
        raise
    if sample_times is not None:
        res.samples = res.samples_at(st)
    return res
