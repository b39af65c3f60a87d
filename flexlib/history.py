"""From a finished run of a paper case to its :class:`~flexlib.result.SimulationResult`.

A run is kept as its **trajectory** (:class:`Trajectory`): every phase's step times, states and
7th-order interpolants (DOP853's dense output, computed on every step), with the phase data
(mode, discrete state) of each.  Any history at any time is evaluated from it: the state from
the interpolant of the step that holds the time, then the phase outputs (N, F_t, margin, gap,
...) with the same compiled right-hand side the integrator ran, the tip kinematics and the
energies with the body's compiled code (:func:`flexlib.bodies.beam.sample_kinematics`, which uses the
simulator's tip point :func:`flexlib.bodies.beam.tip_point` and :func:`flexlib.bodies.beam.potential_energies`:
the formulas exist once, there; nothing here restates them).  A sample at t is therefore the
state a run ended at t would report, to the integrator's tolerance.

What :func:`build_result` computes at once is cheap: the histories at the step points (exact
states), from which come the energy audit, the states at the velocity jumps and the impacts'
energies and works; the contact episodes' peak forces and penetrations, maximised on the
interpolant (golden-section search around the largest sample, to < 2e-10 s); the normal impulse
integral of N over each contact step by Simpson's rule on the interpolant; and the whole-beam
check.  The full histories (``result.h``) are built on first use, on the default grid: the step
points plus ``dense_dt`` (10 us by default) in contact phases, so that plotted peaks are smooth;
``result.history(times)`` evaluates them on any grid.  At a velocity jump a history holds two
samples at the same time (before and after); a sample requested at a jump time is the state
after it.

Energy audit (docs/model.md section 13):
r(t) = E(t) - [E(0) + sum of jump losses up to t + W_N + W_f - W_d + W_tau].
"""
from __future__ import annotations

import math
import time

import numpy as np

from . import __version__, _jit
from .solver import integrator
from .contact import penalty
from .bodies.beam import material_points_into
from .layout import (FREE, NOUT, O_COND, O_F, O_GAP, O_MARGIN, O_MU, O_N, O_NRAW, O_S, O_VN, O_VT,
                     SLIP, STICK)
from .result import (SELECTION_KEYS, SimulationResult, audit_scale, audit_verdict,
                     selection_counts)

dense_point = integrator.dense_point      # scipy's DOP853 interpolant (compiled with numba)

__all__ = ["build_result", "Trajectory"]

_FREE_DT = 5e-4
_GOLDEN_ITERATIONS = 30     # a bracket of two steps (<= 0.3 ms) shrinks to < 2e-10 s


class Trajectory:
    """The phases of one run, their steps and interpolants: histories at any times.

    ``segments`` are the run's phases in time order, each ``(sol, disc, n_jumps)``: the
    integrator's solution of the phase (step times, states, dense output), its discrete state
    (:class:`flexlib.paper.PhaseState`: mode, slip direction, stick anchor, approach speed) and the
    number of velocity jumps before it.  ``sim`` is the run's
    :class:`~flexlib.paper.BeamRun`, which evaluates the phase outputs with the engine's compiled
    right-hand side.

    With the compiled integrator the phases' arrays are concatenated (``T_all``, ``Y_all``,
    ``H_all``, ``F_all``, phase i's steps from ``off[i]``) and the phase solutions are let go.
    A trajectory pickles without its simulator, which is made again from the case and the model
    when it is unpickled."""

    def __init__(self, sim, segments, jump_losses):
        self.sim = sim
        self.sols = [sol for (sol, _d, _nj) in segments]
        self.n_seg = len(self.sols)
        self.ny = self.sols[0].y.shape[0] if self.sols else 0
        self.discs = [d for (_s, d, _nj) in segments]
        self.mode = np.array([d.mode for d in self.discs], dtype=np.int64)
        self.disc = np.array([(d.dir, d.s_star, d.v_in) for d in self.discs], dtype=float)
        self.n_jumps = np.array([nj for (_s, _d, nj) in segments], dtype=np.int64)
        self.starts = np.array([sol.t[0] for sol in self.sols])
        self.ends = np.array([sol.t[-1] for sol in self.sols])
        self.jump_cum = np.cumsum(np.concatenate(([0.0], np.asarray(jump_losses, float))))
        self.compiled = integrator.COMPILED and bool(self.sols) and all(
            isinstance(sol, integrator.PhaseSolution) for sol in self.sols)
        if self.compiled:
            lens = np.array([len(sol.t) for sol in self.sols], dtype=np.int64)
            self.off = np.zeros(len(self.sols) + 1, dtype=np.int64)
            np.cumsum(lens, out=self.off[1:])
            self.T_all = np.concatenate([sol.t for sol in self.sols])
            self.Y_all = np.ascontiguousarray(np.concatenate([sol.y.T for sol in self.sols]))
            self.H_all = np.concatenate([sol.hs for sol in self.sols])
            # a Radau phase keeps three rows of coefficients, DOP853's seven (the rest zero)
            rows = max(sol.F.shape[1] for sol in self.sols)
            self.F_all = np.ascontiguousarray(np.concatenate([np.pad(
                sol.F, ((0, 0), (0, rows - sol.F.shape[1]), (0, 0))) for sol in self.sols]))
            # flight steps taken without the 7th-order part of the interpolant (F[3:] = 0) get
            # it when a sample falls in one (_complete_steps)
            self.full = np.repeat((self.mode != FREE) | sim.dense_in_flight, lens - 1)
        self.E0 = None
        if self.sols:
            y0 = np.ascontiguousarray(self.sols[0].y[:, :1].T)
            self.E0 = float(self.histories(self.starts[:1], y0, np.zeros(1, np.int64),
                                           interior=False)["E"][0])
        if self.compiled:
            self.sols = None                  # the concatenated arrays hold everything

    picklable = True

    def __getstate__(self):
        state = dict(self.__dict__)
        sim = state.pop("sim")
        state["_simulator"] = (type(sim), sim.case, sim.model, sim.t_end, sim.hub_motion)
        return state

    def __setstate__(self, state):
        simulator, case, model, t_end, hub_motion = state.pop("_simulator")
        self.__dict__.update(state)
        self.sim = simulator(case, model, t_end, hub_motion=hub_motion)

    # ------------------------------------------------------------------ where and what
    def segment_of(self, times) -> np.ndarray:
        """The phase holding each time: the latest phase that starts at or before it (so a
        time at a velocity jump belongs to the phase after the jump)."""
        return np.clip(np.searchsorted(self.starts, times, side="right") - 1, 0,
                       len(self.starts) - 1).astype(np.int64)

    def states_at(self, times):
        """(t, Y, seg): the states (m, ny) at ``times`` from the interpolants (NaN rows for
        times that are NaN or outside the run)."""
        t = np.ascontiguousarray(np.asarray(times, float).reshape(-1))
        seg = self.segment_of(np.nan_to_num(t, nan=-np.inf))
        ny = self.ny
        if self.compiled:
            Y, step = _states_at(self.T_all, self.off, self.H_all, self.Y_all, self.F_all, t, seg)
            redo = (step >= 0) & ~self.full[np.maximum(step, 0)]
            if redo.any():
                self._complete_steps(np.unique(step[redo]))
                Y[redo] = _states_at(self.T_all, self.off, self.H_all, self.Y_all, self.F_all,
                                     t[redo], seg[redo])[0]
        else:
            Y = np.full((len(t), ny), np.nan)
            for s in np.unique(seg):
                m = (seg == s) & np.isfinite(t)
                sol = self.sols[s]
                if sol.sol is not None and sol.t[-1] > sol.t[0]:
                    Y[m] = sol.sol(t[m]).T
                else:
                    Y[m] = sol.y[:, -1]
        bad = ~np.isfinite(t) | (t < self.starts[0]) | (t > self.ends[-1])
        Y[bad] = np.nan
        return t, Y, seg

    def _complete_steps(self, steps):
        """Compute the 7th-order interpolant of the flight steps ``steps`` (global indices into
        H_all / F_all) by taking each step again with it (the same step, so the same stages up
        to the last bits of t + h)."""
        s_of = np.searchsorted(self.off[1:] - np.arange(1, self.n_seg + 1), steps, side="right")
        for k, s in zip(steps.tolist(), s_of.tolist()):
            i = k - (self.off[s] - s)                 # the step's index within its phase
            a = self.off[s] + i
            F = self.sim.dense_step(self.T_all[a], self.Y_all[a], self.H_all[k], self.discs[s])
            if F is None:
                raise RuntimeError(f"the flight step at t = {self.T_all[a]:.9g} s could not be "
                                   f"taken again with its interpolant")
            self.F_all[k] = F
            self.full[k] = True

    def grid(self, dts=None):
        """(t, Y, seg) on the grid of every phase's step points plus ``np.arange(t0, t1, dt)``
        of its interpolant, ``dts[i]`` per phase (default: ``dense_dt`` in contact phases,
        none in flight; infinite: step points only)."""
        if dts is None:
            dts = np.where(self.mode != FREE, self.sim.sol.dense_dt,
                           np.inf if self.compiled else _FREE_DT)
        dts = np.broadcast_to(np.asarray(dts, float), self.mode.shape)
        if self.compiled:
            # a grid in a flight phase needs the 7th-order interpolant of its steps
            segs = np.nonzero(np.isfinite(dts) & (self.mode == FREE))[0]
            steps = [np.arange(self.off[s] - s, self.off[s + 1] - s - 1) for s in segs]
            steps = np.concatenate(steps) if steps else np.zeros(0, np.int64)
            steps = steps[~self.full[steps]]
            if len(steps):
                self._complete_steps(steps)
        return _sample_history(self, dts)

    def outputs(self, t, Y, seg):
        """The kernel outputs ``O`` (m, NOUT) and the kinetic energy at every sample, each
        sample evaluated in the phase of its segment (the same compiled code the integrator ran)."""
        return self.sim.outputs(t, Y, self.mode[seg], self.disc[seg])

    def histories(self, t, Y, seg, interior=True) -> dict:
        """Every history (name -> array, units: :data:`flexlib.result.HISTORY_UNITS`) at the
        samples (t, Y, seg); ``interior`` adds ``min_interior_gap`` (the whole-beam check)."""
        sim = self.sim
        Y = np.array(Y, float)
        O, Tk = self.outputs(t, Y, seg)
        h = _state_histories(sim, t, Y, np.array(self.mode[seg], dtype=np.int8))
        c, s = _tip_and_energy_histories(sim, h, Y, Tk)
        _contact_histories(h, O)
        _penetration_histories(sim, h)
        h["jump_sum"] = self.jump_cum[self.n_jumps[seg]]
        E0 = h["E"][0] if self.E0 is None else self.E0
        h["audit"] = h["E"] - (E0 + h["jump_sum"] + h["W_N"] + h["W_f"] - h["W_d"] + h["W_tau"])
        if interior:
            h["min_interior_gap"] = _interior_gaps(sim, Y, c, s)[0]
        return h

    def history_at(self, times) -> dict:
        """Every history at ``times`` [s], evaluated on the interpolants (see :meth:`states_at`)."""
        return self.histories(*self.states_at(times))

    def default_histories(self) -> dict:
        """Every history on the default grid (:meth:`grid`)."""
        return self.histories(*self.grid())


def build_result(sim, log, *, success, message, wall0, sample_times=None) -> SimulationResult:
    """The result of a finished (or stopped) run: impacts, audit and warnings now, the full
    histories on first use.

    ``sim`` is the :class:`~flexlib.paper.BeamRun` and ``log`` its run log."""
    sol_set = sim.sol
    segs = [(sol, d, n_jumps) for (sol, d, _hit, n_jumps) in log.segments if len(sol.t)]
    n_steps = sum(len(sol.t) - 1 for (sol, _d, _nj) in segs)
    seg_info = [(sol.t[0], sol.t[-1], d, sol) for (sol, d, _nj) in segs]
    jumps = log.jumps
    traj = Trajectory(sim, segs, [j["dE"] for j in jumps])
    # the histories at the step points: exact states, enough for energies, works and the audit
    t, Y, seg = traj.grid(np.inf)
    h = traj.histories(t, Y, seg, interior=False)
    # jumps: add the state just before each jump (the first sample at its time).  The run's
    # jump dicts are completed in place: the log is private to this run and ends here.
    if jumps:
        k = np.minimum(np.searchsorted(t, [j["t"] for j in jumps], side="left"), len(t) - 1)
        for jj, th_k, tip_k, E_k in zip(jumps, h["theta"][k].tolist(),
                                        h["tip_deflection"][k].tolist(), h["E"][k].tolist()):
            jj["theta"], jj["tip_deflection"], jj["E_before"] = th_k, tip_k, E_k
    cs = _contact_steps(traj, t, Y, seg, h)
    warnings = list(log.warnings) + _interior_check(traj, cs["t"], cs["Y"], cs["seg"])
    episodes = _episodes(h, cs, lambda kb, ka: _episode_peaks(traj, cs, kb, ka), jumps, seg_info,
                         log)
    impacts = _clusters(episodes, sol_set.t_cluster)
    wall = time.perf_counter() - wall0
    stats = dict(wall_time_s=wall, n_rhs=sim.n_rhs, n_steps=n_steps, n_events=len(log.events),
                 n_segments=len(log.segments), n_jumps=len(jumps), n_stick_tests=len(log.stick_tests),
                 rtol=sol_set.rtol, atol=sol_set.atol, method=sol_set.method,
                 multiplier_mode=sim.mult, n_modes=sim.case.beam.n_modes,
                 axial_modes=sim.case.beam.axial_modes, selections=selection_counts(log.selections),
                 n_zeno_jumps=sum(1 for j in jumps if j.get("zeno")))
    residual = float(np.max(np.abs(h["audit"])))
    scale = audit_scale(h["T"], h["V_E"], h["V_G"], h["W_tau"])
    verdict = audit_verdict(residual, scale)
    if verdict:
        warnings.append(verdict)
        success, message = False, f"{message}; the energy audit exceeds its bound"
    energy = dict(initial=float(traj.E0), final=float(h["E"][-1]),
                  audit_residual_max=residual, audit_scale=scale,
                  numerical_dissipation=float(-h["audit"][-1]),
                  normal_work=float(h["W_N"][-1]), friction_work=float(h["W_f"][-1]),
                  jump_losses=float(sum(j["dE"] for j in jumps)),
                  penetration_energy=float(h["E_pen"][-1]),
                  normal_dissipated=float(h["W_N_dissipated"][-1]))
    return SimulationResult(case=sim.case, model=sim.model, h=None, jumps=jumps,
                            events=log.events, stick_tests=log.stick_tests, episodes=episodes,
                            impacts=impacts, warnings=warnings, success=success, message=message,
                            stats=stats, version=__version__, selections=log.selections,
                            trajectory=traj, energy=energy, t_end=float(t[-1]))


def _state_histories(sim, t, Y, mode) -> dict:
    """The histories read from the state vector: q, q', z and the work accumulators (z, W_N and
    W_f are 0 without a contact point)."""
    lay = sim.layout

    def col(k):
        return Y[:, k].copy() if k is not None else np.zeros(len(t))

    h = dict(t=t, mode=mode, theta=col(lay.theta), theta_dot=col(lay.theta_dot),
             B=Y[:, lay.B].copy(), B_dot=Y[:, lay.B_dot].copy(), z=col(lay.z))
    if sim.beam.na:
        h["C"], h["C_dot"] = Y[:, lay.C].copy(), Y[:, lay.C_dot].copy()
    h["W_N"], h["W_f"], h["W_d"], h["W_tau"] = (col(k) for k in
                                                (lay.W_N, lay.W_f, lay.W_d, lay.W_tau))
    return h


def _tip_and_energy_histories(sim, h, Y, Tk):
    """Tip position, velocity and deflection, T, V_E (V_A), V_G and E into ``h``; returns
    (cos theta, sin theta) of the samples.  The tip kinematics and the potential energies are
    those of the compiled kernel (:func:`flexlib.bodies.beam.sample_kinematics`, one call for all
    samples); T is the right-hand side's too (``sim.outputs``)."""
    bm = sim.beam
    th = Y[:, sim.layout.theta]
    kin = sim.kinematics(Y)
    for i, key in enumerate(("tip_X", "tip_Y", "tip_Xdot", "tip_Ydot", "tip_deflection")):
        h[key] = kin[i].copy()
    h["T"] = np.array(Tk)
    h["V_E"] = kin[5].copy()
    if bm.na:
        h["V_A"] = kin[6].copy()
        h["V_E"] = h["V_E"] + h["V_A"]
    h["V_G"] = kin[7].copy()
    h["E"] = h["T"] + h["V_E"] + h["V_G"]
    return np.cos(th), np.sin(th)


def _contact_histories(h, O):
    """Contact forces, friction ratios, tip gap and slope velocities from the kernel outputs
    ``O`` into ``h`` (s, v_t, mu_eff are NaN in flight; s_all, v_t_all are not)."""
    N = np.array(O[:, O_N]); F = np.array(O[:, O_F])
    contact = h["mode"] > 0
    h["N"] = np.where(contact, N, 0.0)
    h["F_t"] = np.where(contact, F, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        h["mu_eff"] = np.where(contact & (N != 0), -F / N, np.nan)
    h["mu_lugre"] = np.array(O[:, O_MU])
    s_all, vt_all = np.array(O[:, O_S]), np.array(O[:, O_VT])
    h["gap"] = np.array(O[:, O_GAP])
    h["v_n"] = np.array(O[:, O_VN])
    h["s"] = np.where(contact, s_all, np.nan)
    h["v_t"] = np.where(contact, vt_all, np.nan)
    h["s_all"], h["v_t_all"] = s_all, vt_all
    h["margin"] = np.array(O[:, O_MARGIN])
    h["cond_S"] = np.array(O[:, O_COND])
    h["_N_raw"] = np.array(O[:, O_NRAW])


def _penetration_histories(sim, h):
    """Penetration, the energy stored in it and the normal force's dissipated work into ``h``.

    ``penetration`` = max(0, -gap) in contact [m] (for the constraint method the Baumgarte
    drift, ~0); ``E_pen`` = K delta^(n+1) / (n + 1) of a penalty contact (0 otherwise);
    ``W_N_dissipated`` = -W_N - E_pen, the energy the normal force has taken out of the beam and
    not stored (the damping of a penalty law; for the constraint method the Baumgarte work);
    ``N_clipped`` = max(0, -N_raw), the pull a penalty law would exert and the clip removes."""
    contact = h["mode"] > 0
    h["penetration"] = np.where(contact, np.maximum(-h["gap"], 0.0), 0.0)
    if sim.spec.is_penalty:
        sp = sim.case.slope
        h["E_pen"] = np.where(contact, penalty.stored_energy(h["gap"], sp.contact_stiffness,
                                                             sp.contact_exponent), 0.0)
        h["N_clipped"] = np.where(contact, np.maximum(-np.nan_to_num(h.pop("_N_raw")), 0.0), 0.0)
    else:
        h.pop("_N_raw")
        h["E_pen"] = np.zeros(len(h["t"]))
        h["N_clipped"] = np.zeros(len(h["t"]))
    h["W_N_dissipated"] = -h["W_N"] - h["E_pen"]


def _interior_gaps(sim, Y, c, s):
    """(smallest gap of the beam's stations above the slope at every sample [m], the stations
    ``xs`` [m]); NaN without a slope.  Interior contact is out of scope: this is the check."""
    if not sim.spec.has_contact:
        return np.full(len(Y), np.nan), None
    bm, lay = sim.beam, sim.layout
    xs = np.linspace(0.0, bm.mi.L, sim.sol.interior_points + 1)[:-1]
    st = bm.station_data(xs)
    return _min_interior_gap(Y[:, lay.B], Y[:, lay.C], c, s, st, sim.slope), st


def _interior_check(traj, t, Y, seg) -> list:
    """A warning if a beam point other than the tip went below the slope: the deepest
    penetration over the run, when and where.  The stations' smallest gap is evaluated at the
    samples (t, Y, seg): every step point and the midpoint of every contact step; the deepest is
    then refined on the interpolant (golden-section search between its neighbouring samples)."""
    sim = traj.sim
    th = Y[:, sim.layout.theta]
    igap, st = _interior_gaps(sim, Y, np.cos(th), np.sin(th))
    if st is None or not np.any(igap < 0.0):
        return []
    k = int(np.nanargmin(igap))

    def depth(tq, sq):
        tt, YY, _ = traj.states_at(tq)
        thq = YY[:, sim.layout.theta]
        return -_interior_gaps(sim, YY, np.cos(thq), np.sin(thq))[0]

    lo, hi = _bracket(t, seg, np.array([k]))
    t_deep, d_deep = _golden_max(depth, lo, hi, seg[[k]], np.array([-igap[k]]), t[[k]])
    t_deep, d_deep = float(t_deep[0]), float(d_deep[0])
    _, Yk, _ = traj.states_at([t_deep])
    gaps = sim.slope.gap_of_points(sim.beam.positions(Yk[0, sim.layout.q], st))
    kk = int(np.argmin(gaps))
    first = float(t[int(np.argmax(igap < 0.0))])
    return [f"interior contact: the beam went up to {1e3 * d_deep:.4g} mm below the slope, deepest at "
            f"t = {t_deep:.6f} s at the beam point x = {st[0][kk]:.4f} m (only tip contact is "
            f"modelled); first below the slope at t = {first:.6f} s, "
            f"{int(np.sum(igap < 0.0))} of {len(igap)} step points below"]


# ---------------------------------------------------------------------- maxima on the interpolant
def _bracket(t, seg, k):
    """For samples ``k`` of the time-sorted samples (t, seg): the neighbouring sample times on
    either side within the same phase (the sample's own time at a phase boundary)."""
    n = len(t)
    lo = np.where((k > 0) & (seg[np.maximum(k - 1, 0)] == seg[k]), t[np.maximum(k - 1, 0)], t[k])
    hi = np.where((k < n - 1) & (seg[np.minimum(k + 1, n - 1)] == seg[k]),
                  t[np.minimum(k + 1, n - 1)], t[k])
    return lo, hi


def _golden_max(f, lo, hi, seg, f0, t0):
    """Golden-section maximisation of ``f(times, seg)`` on the brackets [lo, hi] (one per row,
    all rows at once, one vectorised evaluation per iteration); returns (argmax, max), never
    below the starting samples (t0, f0)."""
    g = 0.5 * (math.sqrt(5.0) - 1.0)
    a, b = np.asarray(lo, float).copy(), np.asarray(hi, float).copy()
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c, seg), f(d, seg)
    for _ in range(_GOLDEN_ITERATIONS):
        left = fc >= fd                       # the maximum is in [a, d], else in [c, b]
        a, b = np.where(left, a, c), np.where(left, d, b)
        x = np.where(left, b - g * (b - a), a + g * (b - a))
        fx = f(x, seg)
        c, d, fc, fd = (np.where(left, x, d), np.where(left, c, x),
                        np.where(left, fx, fd), np.where(left, fc, fx))
    x, fx = np.where(fc >= fd, c, d), np.maximum(fc, fd)
    better = fx > f0
    return np.where(better, x, t0), np.where(better, fx, f0)


# ---------------------------------------------------------------------- sampling the phases
def _sample_history(traj, dts):
    """Sample times t (m,), states Y (m, ny) and the phase index of every sample of a run.

    Each phase is sampled at the integrator's step points (with their exact states) plus the
    uniform grid ``np.arange(t0, t1, dt)`` of its dense output (``dts[i]`` per phase).  The
    compiled integrator's phases are all sampled by one compiled call (:func:`_merge_samples`):
    the hybrid models have hundreds of phases, and the per-phase NumPy calls (arange, unique,
    the dense output, searchsorted) cost ~30 us each.  Phases integrated otherwise
    (``FLEXLIB_NO_NUMBA=1``) go through their interpolant, one phase at a time."""
    if traj.compiled:
        off = traj.off
        span = traj.T_all[off[1:] - 1] - traj.T_all[off[:-1]]
        # an upper bound of the number of samples: every step point plus every grid point
        with np.errstate(invalid="ignore"):
            extra = np.where(np.isfinite(dts), np.ceil(span / dts), 0.0)
        cap = int(off[-1] + np.sum(extra) + traj.n_seg)
        return _merge_samples(traj.T_all, off, traj.H_all, traj.Y_all, traj.F_all,
                              np.ascontiguousarray(dts, dtype=float), cap)
    ts, ys, seg = [], [], []
    for i, (sol, dt) in enumerate(zip(traj.sols, dts)):
        tt = sol.t
        t0, t1 = tt[0], tt[-1]
        if t1 > t0 and sol.sol is not None and np.isfinite(dt):
            grid = np.arange(t0, t1, dt)
            tt = np.unique(np.concatenate((sol.t, grid)))
            yy = sol.sol(tt)
            # keep the integrator's own values at its step points (exact event states)
            yy[:, np.searchsorted(tt, sol.t)] = sol.y
        else:
            yy = sol.y
        ts.append(tt)
        ys.append(yy.T)
        seg.append(np.full(len(tt), i, dtype=np.int64))
    return (np.ascontiguousarray(np.concatenate(ts)), np.ascontiguousarray(np.concatenate(ys)),
            np.concatenate(seg))


def _states_at(T_all, off, H_all, Y_all, F_all, times, seg):
    """The states at ``times`` (each in phase ``seg``), from the phase's dense output: on the
    step that holds the time (``searchsorted(..., side='left')``, clipped, as scipy's
    ``OdeSolution``), the integrator's own state at a step point.  Also returns the global index
    (into H_all, F_all) of the step each state was interpolated on, -1 where none was."""
    m = times.shape[0]
    ny = Y_all.shape[1]
    out = np.empty((m, ny))
    step = np.full(m, -1, dtype=np.int64)
    for k in range(m):
        s = seg[k]
        a = off[s]
        n = off[s + 1] - a
        tq = times[k]
        if not (tq == tq):
            for j in range(ny):
                out[k, j] = np.nan
            continue
        lo, hi = 0, n
        while lo < hi:                     # the first step point >= tq
            mid = (lo + hi) // 2
            if T_all[a + mid] < tq:
                lo = mid + 1
            else:
                hi = mid
        if lo < n and T_all[a + lo] == tq:
            for j in range(ny):
                out[k, j] = Y_all[a + lo, j]
            continue
        iv = min(max(lo - 1, 0), n - 2)
        if n < 2:
            for j in range(ny):
                out[k, j] = Y_all[a, j]
            continue
        x = (tq - T_all[a + iv]) / H_all[a - s + iv]
        dense_point(F_all[a - s + iv], Y_all[a + iv], x, out[k])
        step[k] = a - s + iv
    return out, step


def _merge_samples(T_all, off, H_all, Y_all, F_all, dts, cap):
    """The samples of all compiled-integrator segments (see :func:`_sample_history`).

    Segment i holds the step points T_all[off[i]:off[i+1]] (states Y_all) and, for its
    intervals, the step sizes H_all and dense coefficients F_all from index off[i] - i on.  The
    grid is built exactly like ``np.arange(t0, t1, dt)`` (length ceil((t1 - t0) / dt), values
    t0, t0 + dt, then t0 + k ((t0 + dt) - t0)) and merged with the step points like
    ``np.unique``, so that the samples are those of the per-segment NumPy statements."""
    ny = Y_all.shape[1]
    t_out = np.empty(cap)
    Y_out = np.empty((cap, ny))
    seg_out = np.empty(cap, dtype=np.int64)
    m = 0
    for s in range(off.shape[0] - 1):
        a = off[s]
        n = off[s + 1] - a
        h0 = a - s                    # the first interval of segment s in H_all / F_all
        t0 = T_all[a]
        t1 = T_all[a + n - 1]
        ng = 0
        g1 = t0
        delta = 0.0
        if t1 > t0:
            ng = int(math.ceil((t1 - t0) / dts[s]))
            g1 = t0 + dts[s]
            delta = g1 - t0
        i = 0
        j = 0
        while i < n or j < ng:
            gj = t0 if j == 0 else (g1 if j == 1 else t0 + j * delta)
            if j < ng and (i >= n or gj < T_all[a + i]):
                # a grid point between step points: scipy's Dop853DenseOutput on the interval
                # that holds it (searchsorted(ts, gj) - 1, clipped)
                iv = min(max(i - 1, 0), n - 2)
                x = (gj - T_all[a + iv]) / H_all[h0 + iv]
                dense_point(F_all[h0 + iv], Y_all[a + iv], x, Y_out[m])
                t_out[m] = gj
                j += 1
            else:
                if j < ng and gj == T_all[a + i]:
                    j += 1            # a grid point on a step point is that step point
                while i + 1 < n and T_all[a + i + 1] == T_all[a + i]:
                    i += 1
                t_out[m] = T_all[a + i]
                for k in range(ny):
                    Y_out[m, k] = Y_all[a + i, k]
                i += 1
            seg_out[m] = s
            m += 1
    return t_out[:m].copy(), Y_out[:m].copy(), seg_out[:m].copy()


# ---------------------------------------------------------------------- whole-beam check
def _min_interior_gap(B, Ca, c, s, st, slope):
    """min over the stations ``st`` (:meth:`BeamModel.station_data`) of the gap of the beam
    point above the slope [m], at every sample (B (m, N), axial Ca (m, Na), c, s = cos, sin
    theta): a compiled loop over the samples (:func:`_interior_gap_loop`) around the body's
    :func:`~flexlib.bodies.beam.material_points_into`, with no (samples x stations) temporaries."""
    xs, phi, H = st[:3]
    Psi = st[3] if len(st) > 3 else np.zeros((len(xs), 0))
    n, o = slope.n, slope.origin
    c_ = np.ascontiguousarray
    return _interior_gap_loop(c_(B), c_(Ca), c_(c), c_(s), c_(xs, dtype=float),
                              c_(phi, dtype=float), c_(H, dtype=float), c_(Psi, dtype=float),
                              float(n[0]), float(n[1]), float(o[0]), float(o[1]))


def _interior_gap_loop(B, Ca, c, s, xs, phi, H, Psi, nx, ny, ox, oy):
    """The loop of :func:`_min_interior_gap`: the material points of each sample, then the
    smallest of their gaps n . (r - O1)."""
    m = B.shape[0]
    out = np.empty(m)
    P = np.empty((xs.shape[0], 2))
    for k in range(m):
        material_points_into(B[k], Ca[k], c[k], s[k], xs, phi, H, Psi, P)
        best = np.inf
        for j in range(xs.shape[0]):
            g = (P[j, 0] - ox) * nx + (P[j, 1] - oy) * ny
            if g < best:
                best = g
        out[k] = best
    return out


if integrator.COMPILED:
    import numba as _nb
    _merge_samples = _nb.njit(cache=True)(_merge_samples)
    _states_at = _nb.njit(cache=True)(_states_at)
    _interior_gap_loop = _nb.njit(cache=True)(_interior_gap_loop)
    # numba keys these caches on this file; the loop compiles in beam.material_points_into
    _jit.flush_stale_cache([_merge_samples, _states_at, _interior_gap_loop], "history.kernel-sha256",
                             _jit.SOURCE_STAMP)


def _peak_quantities(traj, O, contact):
    """The quantities whose episode maxima the impacts report, from kernel outputs ``O``: the
    normal force N, |F_t| [N] and the penetration [m] (0 outside contact), minus the slip's
    Painleve margin and cond(S) (-inf where the phase has none)."""
    margin, cond = O[:, O_MARGIN], O[:, O_COND]
    return np.stack([np.where(contact, O[:, O_N], 0.0), np.where(contact, np.abs(O[:, O_F]), 0.0),
                     np.where(contact, np.maximum(-O[:, O_GAP], 0.0), 0.0),
                     np.where(np.isfinite(margin), -margin, -np.inf),
                     np.where(np.isfinite(cond), cond, -np.inf)])


def _contact_steps(traj, t, Y, seg, h):
    """What the impacts need between the step points, from the interpolant of every contact
    step: the running integrals of N and of the clipped penalty pull (Simpson's rule on each
    step: the ends and the midpoint), and the samples (step points and contact-step midpoints,
    in time order) over which the peaks are taken, with their states, phase, index and the peak
    quantities of :func:`_peak_quantities`."""
    sim = traj.sim
    pair = (seg[1:] == seg[:-1]) & (t[1:] > t[:-1]) & (traj.mode[seg[:-1]] != FREE)
    k = np.nonzero(pair)[0]
    tm = 0.5 * (t[k] + t[k + 1])
    tq, Ym, segm = traj.states_at(tm)
    segm = seg[k]                      # the midpoint lies in the step's own phase
    Om, _ = traj.outputs(tm, Ym, segm)
    dt = t[k + 1] - t[k]
    N_cum = np.zeros(len(t))
    clip_cum = np.zeros(len(t))
    steps_N = np.zeros(len(t) - 1 if len(t) else 0)
    steps_N[k] = dt / 6.0 * (h["N"][k] + 4.0 * Om[:, O_N] + h["N"][k + 1])
    N_cum[1:] = np.cumsum(steps_N)
    if sim.spec.is_penalty:
        clip_m = np.maximum(-np.nan_to_num(Om[:, O_NRAW]), 0.0)
        steps_c = np.zeros_like(steps_N)
        steps_c[k] = dt / 6.0 * (h["N_clipped"][k] + 4.0 * clip_m + h["N_clipped"][k + 1])
        clip_cum[1:] = np.cumsum(steps_c)
    # the merged samples: step point i at merged index pos[i]; the midpoint of step k after it
    n = len(t)
    add = np.zeros(n, dtype=np.int64)
    add[k + 1] = 1
    pos = np.arange(n) + np.cumsum(add)
    mt = np.empty(n + len(k))
    mseg = np.empty(n + len(k), dtype=np.int64)
    mq = np.empty((5, n + len(k)))
    mY = np.empty((n + len(k), Y.shape[1]))
    mt[pos], mseg[pos], mY[pos] = t, seg, Y
    mY[pos[k] + 1] = Ym
    mq[:, pos] = np.stack([h["N"], np.abs(h["F_t"]), h["penetration"],
                           np.where(np.isfinite(h["margin"]), -h["margin"], -np.inf),
                           np.where(np.isfinite(h["cond_S"]), h["cond_S"], -np.inf)])
    mt[pos[k] + 1], mseg[pos[k] + 1] = tm, segm
    mq[:, pos[k] + 1] = _peak_quantities(traj, Om, np.ones(len(k), dtype=bool))
    return dict(N_cum=N_cum, clip_cum=clip_cum, pos=pos, t=mt, Y=mY, seg=mseg, q=mq)


def _episode_peaks(traj, cs, k_before, k_after):
    """The largest N, |F_t|, penetration, -margin and cond(S) of every episode (5, n_episodes):
    the largest sample between its first and last step point, refined on the interpolant of its
    phase by a golden-section search between the sample's neighbours (-inf: none defined)."""
    pos, mt, mseg, mq = cs["pos"], cs["t"], cs["seg"], cs["q"]
    a, b = pos[k_before], pos[k_after]
    pairs = np.empty(2 * len(a), dtype=np.int64)
    pairs[0::2], pairs[1::2] = a, b + 1
    peaks = np.maximum.reduceat(np.concatenate((mq, mq[:, :1]), axis=1), pairs, axis=1)[:, 0::2]
    targets, idx = [], []
    for e in range(len(a)):
        for q in range(len(mq)):
            if np.isfinite(peaks[q, e]) and (q >= 3 or peaks[q, e] > 0.0):
                targets.append((q, e))
                idx.append(a[e] + int(np.argmax(mq[q, a[e]:b[e] + 1])))
    if not targets:
        return peaks
    rows, idx = np.array([q for (q, _e) in targets]), np.array(idx, dtype=np.int64)
    lo, hi = _bracket(mt, mseg, idx)
    cols = np.arange(len(rows))

    def value(tq, sq):
        _, Yq, _ = traj.states_at(tq)
        O, _ = traj.outputs(tq, Yq, sq)
        return _peak_quantities(traj, O, traj.mode[sq] != FREE)[rows, cols]

    _, best = _golden_max(value, lo, hi, mseg[idx], mq[rows, idx], mt[idx])
    for (q, e), v in zip(targets, best.tolist()):
        peaks[q, e] = max(peaks[q, e], v)
    return peaks


def _intervals(seg_info, starts, t0, t1):
    """Merged STICK / SLIP intervals inside [t0, t1] from the phase segments (sorted by start)."""
    out = []
    i0 = max(int(np.searchsorted(starts, t0, side="left")) - 1, 0)
    i1 = int(np.searchsorted(starts, t1, side="right"))
    for (a, b, d, _sol) in seg_info[i0:i1]:
        if b < t0 or a > t1 or d.mode not in (STICK, SLIP) or b <= a:
            continue
        kind = "stick" if d.mode == STICK else "slip"
        if out and out[-1]["kind"] == kind and abs(out[-1]["t1"] - a) < 1e-15 and \
                (kind == "stick" or out[-1]["dir"] == d.dir):
            out[-1]["t1"] = b
        else:
            out.append(dict(kind=kind, t0=a, t1=b, dir=d.dir))
    return out


def _episodes(h, cs, peaks_of, jumps, seg_info, log):
    """One contact episode per velocity jump: from the jump to the next flight (or the next jump).

    ``h`` holds the histories at the step points, ``cs`` what :func:`_contact_steps` found
    between them, and ``peaks_of(k_before, k_after)`` gives the episodes' maxima on the
    interpolant (:func:`_episode_peaks`).  Vectorised over the episodes (a run can have ~10^4):
    the index searches are one ``searchsorted`` each.  Only the episodes that hold stick tests or
    STICK/SLIP phases (a few) are completed one by one."""
    if not jumps:
        return []
    t = h["t"]
    starts = np.array([a for (a, b, d, _s) in seg_info])
    free_starts = np.array([a for (a, b, d, _s) in seg_info if d.mode == FREE])
    test_t = np.array([s["t"] for s in log.stick_tests])
    drift_t = np.array([e["t"] for e in log.events if e["kind"] == "STICK-DRIFT"])
    t_s = np.array([j["t"] for j in jumps])
    nxt = np.append(t_s[1:], np.inf)
    t_e = np.minimum(np.append(free_starts, t[-1])[np.searchsorted(free_starts, t_s, "left")], nxt)
    k_before = np.searchsorted(t, t_s, "left")
    k_after = np.maximum(np.searchsorted(t, t_e, "right") - 1, k_before)
    test_a = np.searchsorted(test_t, t_s, "left")
    test_b = np.searchsorted(test_t, t_e, "right")
    sel_t = np.array([s["t"] for s in log.selections])
    sel_a = np.searchsorted(sel_t, t_s, "left")
    sel_b = np.searchsorted(sel_t, t_e, "right")
    n_drift = np.searchsorted(drift_t, t_e, "right") - np.searchsorted(drift_t, t_s, "left")
    # episodes whose segment range holds a STICK or SLIP phase need their intervals
    is_ss = np.array([d.mode in (STICK, SLIP) for (_a, _b, d, _s) in seg_info], dtype=np.int64)
    n_ss = np.concatenate(([0], np.cumsum(is_ss)))
    i0 = np.maximum(np.searchsorted(starts, t_s, "left") - 1, 0)
    i1 = np.searchsorted(starts, t_e, "right")
    has_ss = (n_ss[i1] - n_ss[i0]) > 0
    W_f, W_N, W_d, E = h["W_f"], h["W_N"], h["W_d"], h["E"]
    # the integrals of N and of a penalty law's clipped pull (Simpson's rule on every step)
    clip_cum, N_cum = cs["clip_cum"], cs["N_cum"]
    Wnd = h["W_N_dissipated"]
    peak_N, peak_F, peak_pen, neg_margin, max_cond = peaks_of(k_before, k_after)
    min_margin = np.where(np.isfinite(neg_margin), -neg_margin, np.nan)
    max_cond = np.where(np.isfinite(max_cond), max_cond, np.nan)
    cols = dict(
        t_start=t_s, t_end=t_e, duration=t_e - t_s,
        peak_normal_force=peak_N, peak_friction_force=peak_F,
        energy_before=E[k_before], energy_after=E[k_after],
        friction_work=W_f[k_after] - W_f[k_before], normal_work=W_N[k_after] - W_N[k_before],
        damping_work=W_d[k_after] - W_d[k_before], min_painleve_margin=min_margin,
        max_cond_S=max_cond, max_penetration=peak_pen,
        clipped_impulse=clip_cum[k_after] - clip_cum[k_before],
        force_impulse=N_cum[k_after] - N_cum[k_before],
        normal_dissipation=Wnd[k_after] - Wnd[k_before])
    cols = {k: v.tolist() for k, v in cols.items()}
    eps = []
    for i, j in enumerate(jumps):
        ts, te = cols["t_start"][i], cols["t_end"][i]
        ints = _intervals(seg_info, starts, ts, te) if has_ss[i] else []
        tests = log.stick_tests[test_a[i]:test_b[i]]
        max_cond_i = cols["max_cond_S"][i]
        if tests:
            # the stick trials' cond(S) count too (a trial's phase is never integrated)
            conds = [s["cond"] for s in tests] + ([max_cond_i] if math.isfinite(max_cond_i) else [])
            max_cond_i = max(conds)
        eps.append(dict(
            t_start=ts, t_end=te, duration=cols["duration"][i], v_n_minus=j["v_n_minus"],
            v_t_minus=j["v_t_minus"], v_t_plus=j["v_t_plus"], impulse=j["impulse"],
            jump_loss=j["dE"], peak_normal_force=cols["peak_normal_force"][i],
            peak_friction_force=cols["peak_friction_force"][i],
            energy_before=cols["energy_before"][i], energy_after=cols["energy_after"][i],
            friction_work=cols["friction_work"][i], normal_work=cols["normal_work"][i],
            damping_work=cols["damping_work"][i], max_penetration=cols["max_penetration"][i],
            clipped_impulse=cols["clipped_impulse"][i],
            normal_impulse=j["impulse"] + cols["force_impulse"][i],
            normal_dissipation=cols["normal_dissipation"][i],
            stick_intervals=[(iv["t0"], iv["t1"]) for iv in ints if iv["kind"] == "stick"],
            slip_intervals=[(iv["t0"], iv["t1"], iv["dir"]) for iv in ints if iv["kind"] == "slip"],
            n_stick_tests=len(tests), n_stick_drift=int(n_drift[i]),
            max_stick_ratio=max([s["ratio"] for s in tests], default=float("nan")),
            min_painleve_margin=cols["min_painleve_margin"][i], max_cond_S=max_cond_i,
            micro=te <= ts, zeno_jumps=int(bool(j.get("zeno"))),
            **selection_counts(log.selections[sel_a[i]:sel_b[i]])))
    return eps


def _clusters(episodes, t_cluster):
    groups = []
    for e in episodes:
        if groups and e["t_start"] - groups[-1][-1]["t_end"] < t_cluster:
            groups[-1].append(e)
        else:
            groups.append([e])
    out = []
    for g in groups:
        first, last = g[0], g[-1]
        before, after = first["energy_before"], last["energy_after"]
        out.append(dict(
            t_start=first["t_start"], t_end=last["t_end"], duration=last["t_end"] - first["t_start"],
            episodes=len(g), episode_list=g,
            v_n_minus=first["v_n_minus"], v_t_minus=first["v_t_minus"], v_t_plus=first["v_t_plus"],
            impulse=sum(e["impulse"] for e in g),
            peak_normal_force=max(e["peak_normal_force"] for e in g),
            peak_friction_force=max(e["peak_friction_force"] for e in g),
            energy_before=before, energy_after=after, energy_lost=before - after,
            jump_loss=sum(e["jump_loss"] for e in g),
            friction_work=sum(e["friction_work"] for e in g),
            normal_work=sum(e["normal_work"] for e in g),
            normal_dissipation=sum(e["normal_dissipation"] for e in g),
            max_penetration=max(e["max_penetration"] for e in g),
            clipped_impulse=sum(e["clipped_impulse"] for e in g),
            normal_impulse=sum(e["normal_impulse"] for e in g),
            stick_intervals=[iv for e in g for iv in e["stick_intervals"]],
            slip_intervals=[iv for e in g for iv in e["slip_intervals"]],
            n_stick_tests=sum(e["n_stick_tests"] for e in g),
            n_stick_drift=sum(e["n_stick_drift"] for e in g),
            zeno_jumps=sum(e["zeno_jumps"] for e in g),
            **{k: sum(e[k] for e in g) for k in SELECTION_KEYS},
            max_stick_ratio=float(np.nanmax([e["max_stick_ratio"] for e in g]))
            if any(np.isfinite(e["max_stick_ratio"]) for e in g) else float("nan"),
            min_painleve_margin=float(np.nanmin([e["min_painleve_margin"] for e in g]))
            if any(np.isfinite(e["min_painleve_margin"]) for e in g) else float("nan"),
            max_cond_S=float(np.nanmax([e["max_cond_S"] for e in g]))
            if any(np.isfinite(e["max_cond_S"]) for e in g) else float("nan")))
    return out
