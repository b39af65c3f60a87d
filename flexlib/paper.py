"""The paper's cases on the system engine: :func:`simulate` and the paper's quantities of a run.

A paper case (Fan et al.'s beam hinged at O, its tip striking the rigid slope) is the one-body,
one-point system of :mod:`flexlib.cases.beam_on_slope`, and it runs on
:class:`~flexlib.multibody.simulate.SystemSimulator` like every other system: the same equations,
the same rules at the contact point.  What this module adds is the reading of that run as the
paper reports it: theta, the modal coordinates, the tip on the slope, N and F_t, and the
contact episodes (one per contact onset: a velocity jump, or the start of a penalty contact),
clustered into impacts, with their works, peaks and selections (:mod:`flexlib.history` builds
these from the run's phases; :class:`BeamRun` is what it reads them through).
"""
from __future__ import annotations

import dataclasses
import gc
import math
import time
from dataclasses import dataclass

import numpy as np

from . import models
from .bodies.beam import BeamModel, sample_kinematics
from .contact.slope import Slope
from .history import build_result
from .layout import (FREE, NOUT, O_COND, O_F, O_GAP, O_MARGIN, O_MU, O_N, O_NRAW, O_S, O_VN,
                     O_VT, O_ZDOT, SLIP, StateLayout)
from .multibody import kernel as K
from .multibody.drives import SpinUp
from .multibody.simulate import SystemSimulationError, SystemSimulator
from .params import Case, check_run, paper_case
from .result import SimulationResult

__all__ = ["simulate", "SimulationError", "BeamRun", "system_of", "spin_up_profile", "SpinUp"]

# the system engine's event kinds as the paper's result names them
_EVENT_NAMES = {"gap": "CONTACT-ON", "normal force": "SEPARATE", "stick margin": "STICK->SLIP",
                "slip velocity": "SLIP-STOP", "stick drift": "STICK-DRIFT", "slip arm": "SLIP-ARM",
                "Painleve margin": "PAINLEVE", "selection": "SELECTION"}


def spin_up_profile(Omega: float = 4.0, T: float = 15.0) -> SpinUp:
    """The hub drive of Kane, Ryan and Banerjee's spin-up: the rate rises from 0 to ``Omega``
    [rad/s] over ``T`` [s] (:class:`~flexlib.multibody.drives.SpinUp`; called with t it gives the
    angle turned, its rate and acceleration)."""
    return SpinUp(Omega, T)


class SimulationError(RuntimeError):
    """A run that could not continue.  ``result`` holds everything computed up to ``t``.

    Attributes: ``t`` (s), ``state`` (the contact mode: FREE/CONTACT/STICK/SLIP), ``model``,
    ``cause`` and ``result`` (a :class:`SimulationResult` with ``success = False``)."""

    def __init__(self, message, *, t, state, model, cause, result=None):
        super().__init__(message)
        self.t, self.state, self.model, self.cause, self.result = t, state, model, cause, result

    def __reduce__(self):
        # keyword-only arguments: pickle (a process pool, Dask) must pass them by name
        return (_simulation_error, (str(self), self.t, self.state, self.model, self.cause,
                                    self.result))


def _simulation_error(message, t, state, model, cause, result):
    return SimulationError(message, t=t, state=state, model=model, cause=cause, result=result)


def system_of(case: Case, spec, hub_motion=None):
    """The :class:`~flexlib.multibody.system.System` of ``case`` with model ``spec``'s laws at the
    tip (a friction law registered from outside the package takes its parameters by name from the
    case) and, if given, the hinge driven by ``hub_motion`` (a
    :class:`~flexlib.multibody.drives.SpinUp`)."""
    from .cases.beam_on_slope import system
    sp = case.slope
    law = spec.friction.custom
    base = spec.id if law is None else ("hybrid_coulomb" if spec.can_stick else "lugre")
    sysm = system(base, beam=case.beam, e=sp.e, coulomb=case.coulomb, lugre=case.lugre,
                  X1=sp.X1, alpha=sp.alpha, contact_stiffness=sp.contact_stiffness,
                  contact_exponent=sp.contact_exponent, contact_damping=sp.contact_damping,
                  contact_law=sp.contact_law, v_zeno=sp.v_zeno, chi=sp.chi, beta=sp.beta)
    if hub_motion is not None:
        body = sysm.bodies[0]
        sysm = dataclasses.replace(sysm, bodies=(dataclasses.replace(
            body, joint=dataclasses.replace(body.joint, drive=hub_motion)),))
    if law is None:
        return sysm
    point = sysm.contacts[0]
    values = {name: getattr(getattr(case, case.group_of(name)), name) for name in law.names}
    laws = dataclasses.replace(point.laws, friction=law, can_stick=spec.can_stick,
                               friction_params=values, stick_limit="default")
    return dataclasses.replace(sysm, contacts=(dataclasses.replace(point, laws=laws),))


@dataclass(frozen=True)
class PhaseState:
    """The discrete state of a phase at the tip: contact mode, slip direction, stick anchor s*
    [m] and a penalty contact's approach speed [m/s]."""
    mode: int = FREE
    dir: float = 0.0
    s_star: float = 0.0
    v_in: float = 0.0

    def copy(self):
        return self


class BeamRun:
    """One run of a paper case on the system engine, read as the beam's and the tip's quantities.

    ``engine`` is the :class:`~flexlib.multibody.simulate.SystemSimulator`; :meth:`outputs` and
    :meth:`kinematics` evaluate the paper's histories at any states with the engine's compiled
    right-hand side and the body's compiled kinematics (:func:`flexlib.bodies.beam.sample_kinematics`)."""

    @property
    def dense_in_flight(self) -> bool:
        """False: a flight step gets its 7th-order interpolant on demand (True for a Radau run,
        whose steps keep their collocation polynomials)."""
        return self.engine.dense_in_flight
    mult = "coupled"                 # the multipliers of all rows are solved together

    def __init__(self, case: Case, model: str, t_end: float, *, multiplier_mode=None,
                 hub_motion=None):
        if multiplier_mode not in (None, "coupled"):
            raise ValueError(f"parameter 'multiplier_mode' = {multiplier_mode!r} is invalid: valid "
                             f"range is 'coupled' (the normal and tangential multipliers solved "
                             f"together)")
        self.case = case
        self.spec = models.get(model)
        self.model = self.spec.id
        self.t_end = check_run(t_end)[0]
        self.sol = case.solver
        self.beam = BeamModel(case.beam)
        self.slope = Slope.from_params(case.slope)
        self.nd = self.beam.ndof
        self.hub_motion = hub_motion
        self.engine = SystemSimulator(system_of(case, self.spec, hub_motion), self.t_end,
                                      case.solver)
        self.nc = self.engine.nc
        self.layout = StateLayout(self.nd, self.beam.n, self.nc)
        self._par0 = self.beam.kernel_params()
        self._arrs = self.beam.kernel_arrays()
        self.n_rhs = 0

    # ------------------------------------------------------------------ what the history reads
    def outputs(self, t, Y, modes, discs):
        """The tip's outputs (m, NOUT: N, F_t, z', mu = -F_t/N, Painleve margin, gap, s, v_n, v_t,
        a penalty law's unclipped force) and the kinetic energy (m,) at the samples (t, Y),
        sample k in the phase ``modes[k]`` with discrete state ``discs[k]`` (direction, s*, v_in)."""
        m = len(t)
        D = np.zeros((m, 4 * self.nc))
        if self.nc:
            D[:, 0] = modes
            D[:, 1:4] = discs
        outs, _, _ = K.phase_eval_samples(np.ascontiguousarray(t, float), np.ascontiguousarray(Y),
                                          D, self.engine.S)
        return self._paper_outputs(outs, np.asarray(modes)), outs[:, K.O_T].copy()

    def evaluate(self, t: float, y, d: PhaseState = PhaseState()):
        """(dy/dt, the tip's outputs as :meth:`outputs` gives them) at (t, y) in the phase ``d``:
        the engine's compiled right-hand side."""
        disc = np.array([d.mode, d.dir, d.s_star, d.v_in], float)[:4 * self.nc]
        dy, out = self.engine.evaluate(t, np.asarray(y, float), disc)
        return dy, self._paper_outputs(out[None, :], np.array([d.mode]))[0]

    def _paper_outputs(self, outs, modes):
        O = np.full((len(outs), NOUT), np.nan)
        O[:, O_N] = O[:, O_F] = 0.0
        O[:, O_COND] = np.nan                        # the rows are eliminated, not conditioned
        if not self.nc:
            return O
        o = K.O_C0
        for dst, src in ((O_N, K.OC_N), (O_F, K.OC_FT), (O_GAP, K.OC_GAP), (O_S, K.OC_S),
                         (O_VN, K.OC_VN), (O_VT, K.OC_VT), (O_NRAW, K.OC_NRAW),
                         (O_ZDOT, K.OC_ZDOT)):
            O[:, dst] = outs[:, o + src]
        closed = modes != FREE
        N = O[:, O_N]
        O[:, O_MU] = np.where(closed & (N != 0.0), -O[:, O_F] / np.where(N != 0.0, N, 1.0), np.nan)
        solved = (modes == SLIP) | (closed & self.spec.watches_painleve)
        O[:, O_MARGIN] = np.where(solved, outs[:, o + K.OC_MARGIN], np.nan)
        return O

    def dense_step(self, t, y, h, d: PhaseState):
        """The 7th-order interpolant of the flight step of size ``h`` from (t, y) in phase ``d``
        (:meth:`flexlib.multibody.simulate.SystemSimulator.dense_step`), or None."""
        disc = np.array([d.mode, d.dir, d.s_star, d.v_in], float)[:4 * self.nc]
        return self.engine.dense_step(t, y, h, disc)

    def kinematics(self, Y):
        """The tip and potential-energy histories at the states ``Y`` (rows):
        :func:`flexlib.bodies.beam.sample_kinematics`."""
        return sample_kinematics(np.ascontiguousarray(Y), self._par0, self._arrs)

    # ------------------------------------------------------------------ the run
    def run(self, progress=None):
        """Run the engine; returns (result, None) or (partial result, the engine's error)."""
        wall0 = time.perf_counter()
        gc_was_enabled = gc.isenabled()
        gc.disable()           # ~10^5 small objects and no cycles: the collector's scans find nothing
        try:
            sres, err = self.engine.run(progress=progress, audit=False), None   # audited below
        except SystemSimulationError as exc:
            sres, err = exc.result, exc
        finally:
            if gc_was_enabled:
                gc.enable()
        if sres is None:
            raise err
        self.n_rhs = int(sum(p.sol.nfev for p in sres.phases))
        log = _PaperLog(self, sres)
        if err is None:
            return build_result(self, log, success=True, message="reached t_end",
                                wall0=wall0, sample_times=None), None
        res = build_result(self, log, success=False, message=str(err), wall0=wall0)
        return res, err


class _PaperLog:
    """The run's phases, jumps, events, stick tests and selections as :func:`flexlib.history.build_result`
    reads them: one velocity jump per contact onset (a penalty contact's start, and a landing
    that changes no velocity, count with impulse 0)."""

    def __init__(self, run: BeamRun, sres):
        log = sres.log
        phases = [p for p in sres.phases]
        starts = np.array([p.sol.t[0] for p in phases])
        discs = [PhaseState(int(p.disc[0]), float(p.disc[1]), float(p.disc[2]), float(p.disc[3]))
                 if run.nc else PhaseState() for p in phases]
        onsets = self._onsets(log, phases, discs, starts)
        self.jumps = self._jumps(run, log, phases, discs, onsets)
        kb = np.array([k for (_t, k) in onsets], dtype=np.int64)
        n_before = np.searchsorted(np.sort(kb), np.arange(len(phases)), side="left")
        self.segments = [(p.sol, d, None, int(n)) for p, d, n in zip(phases, discs, n_before)]
        # (t, point, kind, the new mode of a selection or a detail)
        self.events = [dict(t=t, kind=_EVENT_NAMES.get(kind, kind),
                            to=last if kind == "selection" else "",
                            detail="" if kind == "selection" else last)
                       for (t, _point, kind, last) in log.events]
        self.stick_tests = list(log.stick_tests)
        self.selections = list(log.selections)
        self.warnings = list(log.warnings)

    @staticmethod
    def _onsets(log, phases, discs, starts):
        """(t, index of the phase before) of every contact onset: a gap event of a free point."""
        out = []
        for (t, _point, kind, *_rest) in log.events:
            if kind != "gap":
                continue
            k = max(int(np.searchsorted(starts, t, side="left")) - 1, 0)
            if discs[k].mode == FREE and (not out or out[-1] != (t, k)):
                out.append((t, k))
        return out

    @staticmethod
    def _jumps(run, log, phases, discs, onsets):
        """The jump record of every onset: v_n, v_t before and after, impulse, kinetic-energy change."""
        if not onsets:
            return []
        by_t = {j.t: j for j in log.jumps}
        kb = [k for (_t, k) in onsets]
        ka = [min(k + 1, len(phases) - 1) for k in kb]
        Yb = np.array([phases[k].sol.y[:, -1] for k in kb])
        Ya = np.array([phases[k].sol.y[:, 0] if k != b else phases[b].sol.y[:, -1]
                       for k, b in zip(ka, kb)])
        tt = np.array([t for (t, _k) in onsets])

        def out_at(Y, ks):
            return run.outputs(tt, Y, np.array([discs[k].mode for k in ks]),
                               np.array([(discs[k].dir, discs[k].s_star, discs[k].v_in)
                                         for k in ks]))[0]

        Ob, Oa = out_at(Yb, kb), out_at(Ya, ka)
        laws = run.engine.laws[0] if run.nc else None
        jumps = []
        for i, (t, _k) in enumerate(onsets):
            j = by_t.get(t)
            vn = float(Ob[i, O_VN])
            if j is not None:
                e = laws.e if -j.v_before[0] >= laws.v_zeno else 0.0
                rec = dict(t=t, v_n_minus=float(j.v_before[0]), v_t_minus=float(Ob[i, O_VT]),
                           v_n_plus=float(j.v_after[0]), v_t_plus=float(Oa[i, O_VT]),
                           impulse=float(j.impulses[0]), dE=float(j.dT), dT_direct=float(j.dT),
                           gap=float(Ob[i, O_GAP]), e=e, zeno=bool(laws.e > 0.0 and e == 0.0))
            else:
                rec = dict(t=t, v_n_minus=vn, v_t_minus=float(Ob[i, O_VT]), v_n_plus=vn,
                           v_t_plus=float(Ob[i, O_VT]), impulse=0.0, dE=0.0, dT_direct=0.0,
                           gap=float(Ob[i, O_GAP]), e=laws.e, zeno=False)
                if laws.method == "penalty":
                    rec["v_in"] = discs[ka[i]].v_in
            jumps.append(rec)
        return jumps


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
    ``continuous_lugre`` (the continuous contact force method), or a model registered in
    :mod:`flexlib.models` (hyphens accepted).  ``hub_motion`` (a :class:`SpinUp`, e.g.
    ``spin_up_profile(4.0, 15.0)``) drives the hub angle from ``theta0`` along its law, whatever
    torque that takes (its work enters the energy audit).  ``progress``, if given, is called as
    ``progress(t, t_end)`` [s] before every phase of the run.

    Raises :class:`SimulationError` (carrying the partial result) when the run cannot continue.
    """
    if not isinstance(case, Case):
        case = paper_case(case)
    if overrides:
        case = case.with_(**overrides)
    t_end, st, _ = check_run(t_end, sample_times)
    run = BeamRun(case, model, t_end, multiplier_mode=multiplier_mode, hub_motion=hub_motion)
    res, err = run.run(progress=progress)
    if sample_times is not None:
        # a stopped run is sampled where it has data (NaN beyond its end)
        res.samples = res.samples_at(np.where(st <= res.t_end, st, np.nan) if err else st)
    if err is not None:
        modes = err.modes
        raise SimulationError(f"{run.model}: {err}", t=err.t,
                              state=next(iter(modes.values()), "FREE"),
                              model=run.model, cause=str(err).split("; contact modes")[0],
                              result=res)
    return res
