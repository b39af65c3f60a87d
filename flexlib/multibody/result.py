"""The result of a system's run: histories, impacts per point and the energy books.

States come from the integrator's interpolant; histories are per body and per contact point.

The energy audit is E(t) - E(0) = sum over points of (W_N + W_F) + W_d + sum of the jumps'
kinetic-energy changes, with E = T + V_E + V_G, W_N and W_F the work of each point's normal and
friction force (integrated with the motion), W_d the (negative) work of the modal damping.  What
the books do not explain at the end is the integrator's own: ``numerical_dissipation`` = E(0) +
the works - E(t_end), at the round-off and tolerance level for DOP853, and for Radau IIA the
energy of the modes it damps because its step does not resolve them.
"""
from __future__ import annotations

import json
import math

import numpy as np

from ..result import SYSTEM_FORMAT, audit_scale, audit_verdict, samples_within, times_within
from ..solver import integrator
from . import kernel as K
from .kernel import FREE, STICK

__all__ = ["SystemResult"]

_INTERIOR = (0.25, 0.5, 0.75)       # where each contact step is also evaluated (peaks, impulses)


class SystemResult:
    """What a run of :class:`~flexlib.multibody.simulate.SystemSimulator` computed.

    ``sample(times)`` gives states (from each step's 7th-order interpolant; at a jump the state
    after it); ``history(times)`` a dict of named arrays; ``impacts`` the contact episodes per
    point; ``audit()`` the energy balance; ``summary()`` a JSON-ready dict.  With ``audit``
    (the default) a run whose audit exceeds its bound is not a success (a warning says why)."""

    def __init__(self, sim, log, wall_time, audit=True):
        self.sim = sim
        self.system = sim.system
        self.log = log
        self.wall_time = float(wall_time)
        self.phases = log.phases
        self.t_end = float(self.phases[-1].sol.t[-1]) if self.phases else 0.0
        self.nq, self.nc = sim.nq, sim.nc
        self.contact_names = list(sim.names)
        self._steps = None
        self._impacts = None
        self.success = self.t_end >= self.sim.t_end * (1.0 - 1e-12)
        self.message = "reached t_end" if self.success else f"stopped at t = {self.t_end:.9g} s"
        self.inputs = {}            # what the run was built from (flexlib.cases.simulate)
        self.warnings = list(log.warnings)
        au = self.audit() if self.phases and audit else None
        verdict = au and audit_verdict(au["max_residual"], au["scale"])
        if verdict:
            self.warnings.append(verdict)
            self.success = False
            self.message += "; the energy audit exceeds its bound"

    # ------------------------------------------------------------------ states
    def sample(self, times) -> np.ndarray:
        """States (len(times), ny) at ``times`` [s]; a time outside the run, [0, t_end], is
        refused with a ValueError naming it and the range."""
        times = times_within(times, self.t_end)
        starts = np.array([p.sol.t[0] for p in self.phases])
        Y = np.empty((len(times), len(self.phases[0].sol.y[:, 0])))
        for k, t in enumerate(times):
            i = max(int(np.searchsorted(starts, t, side="right")) - 1, 0)
            tq = min(t, self.phases[i].sol.t[-1])
            self._complete(self.phases[i], tq)
            Y[k] = self.phases[i].sol(tq)
        return Y

    def _complete(self, phase, t):
        """Give the step of ``phase`` that holds ``t`` its 7th-order interpolant if the run took
        it without (a flight step), so that a sample there is as accurate as one in contact."""
        sol = phase.sol
        if phase.dense or len(sol.t) < 2:
            return
        j = min(max(int(np.searchsorted(sol.t, t, side="right")) - 1, 0), len(sol.t) - 2)
        if t == sol.t[j] or np.any(sol.F[j][3:]):
            return                      # a step point (exact), or a step that has it already
        F = self.sim.dense_step(sol.t[j], sol.y[:, j], sol.hs[j], phase.disc)
        if F is None:
            raise RuntimeError(f"the flight step at t = {sol.t[j]:.9g} s could not be taken "
                               f"again with its interpolant")
        sol.F[j] = F

    def _phase_at(self, times):
        starts = np.array([p.sol.t[0] for p in self.phases])
        return np.clip(np.searchsorted(starts, times, side="right") - 1, 0, len(self.phases) - 1)

    def _discs(self, idx):
        """The discrete states (len(idx), 4 nc) of the phases ``idx``."""
        D = np.array([p.disc for p in self.phases], float).reshape(len(self.phases), 4 * self.nc)
        return D[np.asarray(idx, int)]

    def _outputs(self, times, Y, idx):
        """The kernel's outputs (len(times), NOUT) and the frame origins R, R' (len(times), nb, 2)
        of the states ``Y``, each in its phase ``idx[k]``: one compiled call for all of them."""
        c = np.ascontiguousarray
        return K.phase_eval_samples(c(times, float), c(Y, float), c(self._discs(idx)), self.sim.S)

    def history(self, times) -> dict:
        """Named histories at ``times`` [s]: per body ``{name}.theta`` [rad], ``.theta_dot``
        [rad/s], ``.R`` and ``.R_dot`` (n, 2) [m, m/s], ``.q`` (deformation coordinates), ``.r_cm``,
        ``.v_cm`` and ``.omega_mean`` (:meth:`mean_motion`); per point
        ``{point}.gap``, ``.v_n``, ``.v_t``, ``.N``, ``.F_t``, ``.mode``; and ``T``, ``V_E``, ``V_G``,
        ``E`` [J].  A time outside the run, [0, t_end], is refused with a ValueError."""
        times = times_within(times, self.t_end)
        Y = self.sample(times)
        idx = self._phase_at(times)
        h = self._named(times, Y, idx, *self._outputs(times, Y, idx))
        h.update(self.mean_motion(Y, h))
        return h

    def _named(self, times, Y, idx, outs, R, Rd):
        discs = self._discs(idx)
        h = {"t": times, "T": outs[:, K.O_T], "V_E": outs[:, K.O_VE], "V_G": outs[:, K.O_VG]}
        h["E"] = h["T"] + h["V_E"] + h["V_G"]
        names, offs = self.system.coordinates()
        nq = self.nq
        for b, (ir, ith, nf) in zip(self.system.bodies, offs):
            h[f"{b.name}.theta"] = Y[:, ith]
            h[f"{b.name}.theta_dot"] = Y[:, nq + ith]
            h[f"{b.name}.q"] = Y[:, ith + 1:ith + 1 + nf]
            h[f"{b.name}.q_dot"] = Y[:, nq + ith + 1:nq + ith + 1 + nf]
        for i, b in enumerate(self.system.bodies):
            h[f"{b.name}.R"] = R[:, i]
            h[f"{b.name}.R_dot"] = Rd[:, i]
        for c, name in enumerate(self.contact_names):
            o = K.O_C0 + K.NOC * c
            for j, key in enumerate(K.OC_NAMES):
                h[f"{name}.{key}"] = outs[:, o + j]
            h[f"{name}.mode"] = discs[:, 4 * c].astype(int)
        iz = 2 * nq
        nc = self.nc
        h["W_N"] = Y[:, iz + nc:iz + 2 * nc]
        h["W_F"] = Y[:, iz + 2 * nc:iz + 3 * nc]
        h["W_d"] = Y[:, iz + 3 * nc]
        h["W_tau"] = Y[:, iz + 3 * nc + 1]
        lost = np.concatenate([[0.0], np.cumsum([j.dT for j in self.log.jumps])])
        h["W_jump"] = lost[np.array([p.n_jumps for p in self.phases], int)[idx]]
        return h

    def frame_origins(self, Y):
        """The bodies' frame origins R and their rates (len(Y), nb, 2) [m, m/s]."""
        Y = np.atleast_2d(np.asarray(Y, float))
        _, R, Rd = self._outputs(np.zeros(len(Y)), Y, np.zeros(len(Y), int))
        return R, Rd

    def mean_motion(self, Y, h=None) -> dict:
        """Per body, at the states ``Y``: ``{name}.r_cm`` (n, 2) [m] its centre of mass,
        ``.v_cm`` (n, 2) [m/s] its velocity and ``.omega_mean`` (n,) [rad/s] its mean angular
        velocity (angular momentum about the centre of mass over the moment of inertia about it,
        of the deformed body; :func:`flexlib.bodies.beam.mean_motion`).  They do not depend on
        the body's frame.  ``h``: the histories of ``Y`` with the frame origins, if already known."""
        from ..bodies.beam import mean_motion
        if h is None:
            R, Rd = self.frame_origins(Y)
        else:
            R = np.stack([h[f"{b.name}.R"] for b in self.system.bodies], axis=1)
            Rd = np.stack([h[f"{b.name}.R_dot"] for b in self.system.bodies], axis=1)
        c = np.ascontiguousarray
        _, offs = self.system.coordinates()
        out = {}
        for i, (b, (ir, ith, nf)) in enumerate(zip(self.system.bodies, offs)):
            mm = mean_motion(c(Y[:, ith:ith + 1 + nf]), c(Y[:, self.nq + ith:self.nq + ith + 1 + nf]),
                             c(R[:, i]), c(Rd[:, i]), self.sim.S.bodies[i])
            out[f"{b.name}.r_cm"] = mm[:, :2]
            out[f"{b.name}.v_cm"] = mm[:, 2:4]
            out[f"{b.name}.omega_mean"] = mm[:, 4]
        return out

    def points(self, body: str, xs, Y) -> np.ndarray:
        """Inertial positions (len(Y), len(xs), 2) [m] of the material points ``xs`` of ``body``."""
        names, offs = self.system.coordinates()
        i = self.system.index(body)
        ir, ith, nf = offs[i]
        model = self.system.model(body)
        st = model.station_data(np.asarray(xs, float))
        R, _ = self.frame_origins(Y)
        P = np.empty((len(Y), len(xs), 2))
        for k in range(len(Y)):
            P[k] = R[k, i] + model.positions(Y[k, ith:ith + 1 + nf], st)
        return P

    # ------------------------------------------------------------------ steps
    def steps(self) -> dict:
        """The histories at every step point and, in contact phases, at interior points of each
        step (the data of the impacts' peaks and impulses and of the audit)."""
        if self._steps is None:
            ts, Ys, idx = [], [], []
            for i, p in enumerate(self.phases):
                sol = p.sol
                closed = any(int(p.disc[4 * c]) != FREE for c in range(self.nc))
                tt = [sol.t]
                if closed and len(sol.t) > 1:
                    h = np.diff(sol.t)
                    tt += [sol.t[:-1] + f * h for f in _INTERIOR]
                tt = np.sort(np.concatenate(tt))
                ts.append(tt)
                Ys.append(sol(tt).T)
                idx += [i] * len(tt)
            t = np.concatenate(ts)
            Y = np.concatenate(Ys)
            self._steps = self._named(t, Y, idx, *self._outputs(t, Y, idx))
        return self._steps

    def audit(self) -> dict:
        """The energy books over the run: E0, E_end, the works [J], the residual's largest value and
        its scale (:func:`flexlib.result.audit_scale`)."""
        h = self.steps()
        W = h["W_N"].sum(axis=1) + h["W_F"].sum(axis=1) + h["W_d"] + h["W_tau"] + h["W_jump"]
        resid = h["E"] - h["E"][0] - W
        scale = audit_scale(h["T"], h["V_E"], h["V_G"], h["W_tau"])
        return dict(E0=float(h["E"][0]), E_end=float(h["E"][-1]),
                    W_N=[float(w) for w in h["W_N"][-1]], W_F=[float(w) for w in h["W_F"][-1]],
                    W_d=float(h["W_d"][-1]), W_tau=float(h["W_tau"][-1]), jump_loss=float(h["W_jump"][-1]),
                    max_residual=float(np.abs(resid).max()), end_residual=float(resid[-1]),
                    scale=float(scale))

    # ------------------------------------------------------------------ impacts
    @property
    def impacts(self) -> list:
        """The contact episodes, per point, in time order: dicts with ``contact``, ``t_start``,
        ``t_end`` [s], ``duration``, ``normal_impulse`` (the jumps' plus ∫N dt) [N s],
        ``jump_impulse`` (the velocity jump that opens it), ``peak_normal_force`` [N] (inf for an
        episode that is a velocity jump and nothing else), ``energy_before``, ``energy_after`` [J],
        ``v_n_minus`` [m/s], ``max_penetration`` [m].  The impacts of the paper's sense (clusters
        of episodes) are :meth:`impact_records`."""
        if self._impacts is None:
            self._impacts = self._find_impacts()
        return self._impacts

    def _find_impacts(self):
        h = self.steps()
        t = h["t"]
        out = []
        for c, name in enumerate(self.contact_names):
            N = h[f"{name}.N"]
            mode = h[f"{name}.mode"]
            on = mode != FREE
            jumps = [(j.t, j.impulses[j.points.index(name)], j.v_before[j.points.index(name)])
                     for j in self.log.jumps if name in j.points]
            # episodes: maximal runs of samples with the point closed (or penetrating)
            edges = np.flatnonzero(np.diff(np.r_[0, on.astype(int), 0]))
            for a, b in zip(edges[::2], edges[1::2]):
                t0, t1 = t[a], t[min(b, len(t) - 1)] if b < len(t) else t[-1]
                seg = slice(a, b)
                tt, NN = t[seg], N[seg]
                integ = float(np.sum(0.5 * (NN[1:] + NN[:-1]) * np.diff(tt))) if len(tt) > 1 else 0.0
                jimp = sum(p for (tj, p, _) in jumps if t0 - 1e-12 <= tj <= t1 + 1e-12)
                # the jump that opens the episode (later ones are other points' impacts, which
                # move this point's multiplier: they count in its normal impulse)
                j0 = sum(p for (tj, p, _) in jumps if abs(tj - t0) <= 1e-12)
                vmin = [v for (tj, _, v) in jumps if abs(tj - t0) <= 1e-12]
                gap = h[f"{name}.gap"][seg]
                E = h["E"]
                e0, e1 = float(E[max(a - 1, 0)]), float(E[min(b, len(E) - 1)])
                stick = mode[seg] == STICK
                runs = np.flatnonzero(np.diff(np.r_[0, stick.astype(int), 0]))
                out.append(dict(contact=name, t_start=float(t0), t_end=float(t1),
                                duration=float(t1 - t0),
                                normal_impulse=float(jimp + integ), jump_impulse=float(j0),
                                peak_normal_force=float(NN.max()) if len(NN) else 0.0,
                                peak_friction_force=float(np.abs(h[f"{name}.F_t"][seg]).max())
                                if len(NN) else 0.0,
                                energy_before=e0, energy_after=e1, energy_lost=e0 - e1,
                                stick_intervals=[(float(tt[i]), float(tt[min(j, len(tt) - 1)]))
                                                 for i, j in zip(runs[::2], runs[1::2])],
                                v_n_minus=float(vmin[0]) if vmin else float(h[f"{name}.v_n"][a]),
                                max_penetration=float(max(0.0, -gap.min())) if len(gap) else 0.0))
            # impacts that closed nothing (a rebound): the jump alone
            for (tj, p, v) in jumps:
                if not any(r["contact"] == name and r["t_start"] - 1e-12 <= tj <= r["t_end"] + 1e-12
                           for r in out):
                    # the samples at tj: the state before the jump, then the one after it
                    ka = int(np.searchsorted(t, tj, side="left"))
                    kb = max(int(np.searchsorted(t, tj, side="right")) - 1, ka)
                    e0, e1 = float(h["E"][min(ka, len(t) - 1)]), float(h["E"][min(kb, len(t) - 1)])
                    out.append(dict(contact=name, t_start=tj, t_end=tj, duration=0.0,
                                    normal_impulse=float(p), jump_impulse=float(p),
                                    peak_normal_force=math.inf, peak_friction_force=0.0,
                                    energy_before=e0, energy_after=e1,
                                    energy_lost=float(-sum(j.dT for j in self.log.jumps
                                                           if j.t == tj)),
                                    stick_intervals=[], v_n_minus=float(v), max_penetration=0.0))
        out.sort(key=lambda r: (r["t_start"], r["contact"]))
        return out

    def impact_records(self) -> list:
        """The impacts in the paper's sense, per point: the point's contact episodes
        (:attr:`impacts`) separated by less than ``t_cluster`` s of flight form one impact (its
        "first, second, third impact"), in time order.  Each is a dict with ``contact``,
        ``t_start``, ``t_end`` [s], ``duration`` [s], ``energy_before``, ``energy_after``,
        ``energy_lost`` [J], ``jump_impulse`` (the velocity jump at the impact's start) and
        ``normal_impulse`` (every jump and ∫N dt over its episodes) [N s], ``peak_normal_force``,
        ``peak_friction_force`` [N] (None: velocity jumps only), ``v_n_minus`` [m/s],
        ``max_penetration`` [m] and ``episodes``, a list of {t_start, duration, normal_impulse,
        peak_normal_force}."""
        t_cluster = self.sim.solver.t_cluster
        groups = []
        for name in self.contact_names:
            run = []
            for ep in (r for r in self.impacts if r["contact"] == name):
                if run and ep["t_start"] - run[-1]["t_end"] < t_cluster:
                    run.append(ep)
                    continue
                if run:
                    groups.append(run)
                run = [ep]
            if run:
                groups.append(run)
        out = [_impact_record(g) for g in groups]
        out.sort(key=lambda r: (r["t_start"], self.contact_names.index(r["contact"])))
        return out

    # ------------------------------------------------------------------ for the parameter studies
    @property
    def audit_residual_max(self) -> float:
        return self.audit()["max_residual"]

    @property
    def E_final(self) -> float:
        return self.audit()["E_end"]

    @property
    def stats(self) -> dict:
        """Wall time [s] and the run's counts: integrator steps, right-hand side evaluations of
        the steps (``n_rhs``), Jacobians and LU factorizations (Radau), phases, jumps, events,
        mode selections (and how many were ambiguous or kept redundant constraints), and the
        integrator that ran (``method``: ``"auto"`` resolved)."""
        s = self.sim.solver
        return dict(wall_time_s=self.wall_time,
                    n_steps=int(sum(len(p.sol.t) - 1 for p in self.phases)),
                    n_rhs=int(sum(getattr(p.sol, "nfev", 0) for p in self.phases)),
                    n_jac=int(sum(getattr(p.sol, "n_jac", 0) for p in self.phases)),
                    n_lu=int(sum(getattr(p.sol, "n_lu", 0) for p in self.phases)),
                    n_phases=len(self.phases), n_jumps=len(self.log.jumps),
                    n_events=len(self.log.events), n_selections=self.log.n_selections,
                    n_ambiguous=self.log.n_ambiguous, n_redundant=self.log.n_redundant,
                    rtol=s.rtol, atol=s.atol, method=self.sim.method)

    @property
    def case(self):
        """The solver settings, where the parameter studies look for them (``case.solver``)."""
        from types import SimpleNamespace
        return SimpleNamespace(solver=self.sim.solver)

    @property
    def first_contact(self):
        """The first contact: dict(t [s], contact) or None."""
        return (None if not self.impacts else
                dict(t=self.impacts[0]["t_start"], contact=self.impacts[0]["contact"]))

    def energy_summary(self) -> dict:
        """The energy books [J] in the layout every case shares: ``initial``, ``final``,
        ``audit_residual_max`` (and its ``audit_scale``), the works of the normal and friction
        forces (totals, and per point in ``per_contact``), of the modal damping and the drive
        torques, the kinetic energy the velocity jumps removed (``jump_losses``, >= 0) and the
        energy lost beyond all of these (``numerical_dissipation``: the integrator's, ~0 for
        DOP853, the damped unresolved modes' for Radau IIA)."""
        au = self.audit()
        return dict(initial=au["E0"], final=au["E_end"], audit_residual_max=au["max_residual"],
                    audit_scale=au["scale"], numerical_dissipation=-au["end_residual"],
                    normal_work=float(sum(au["W_N"])),
                    friction_work=float(sum(au["W_F"])), damping_work=au["W_d"],
                    drive_work=au["W_tau"], jump_losses=-au["jump_loss"],
                    per_contact={c: dict(normal_work=wn, friction_work=wf) for c, wn, wf in
                                 zip(self.contact_names, au["W_N"], au["W_F"])})

    # ------------------------------------------------------------------ summary
    def summary(self, times=None) -> dict:
        """A JSON-ready dict in the layout every case shares (docs/usage.md, "The result"):
        ``success``, ``message``, ``params`` (every parameter of the run: :attr:`params`),
        ``first_contact``, ``impacts`` (:meth:`impact_records`), ``samples`` (``t`` and
        ``bodies``, a list in the system's body order of {name, theta, theta_dot, R, R_dot, r_cm,
        v_cm, omega_mean}: the frame's angle, rate, origin and its rate, and the frame-free centre
        of mass, its velocity and the mean angular velocity of :meth:`mean_motion`),
        ``warnings``, ``stats`` and ``energy`` (:meth:`energy_summary`)."""
        times = np.linspace(0.0, self.t_end, 11) if times is None else np.asarray(times, float)
        p = self.params
        return _jsonable(dict(
            case=p.get("case"), model=p.get("model"), success=self.success, message=self.message,
            params=p, first_contact=self.first_contact, impacts=self.impact_records(),
            samples=samples_within(times, self.t_end, self._samples), warnings=list(self.warnings),
            stats=self.stats, energy=self.energy_summary(), t_end=self.t_end,
            contacts=self.contact_names))

    def _samples(self, times) -> dict:
        """``t`` and ``bodies`` of the summary's samples at ``times`` (inside the run)."""
        h = self.history(times)
        bodies = [dict(name=b.name, theta=h[f"{b.name}.theta"].tolist(),
                       theta_dot=h[f"{b.name}.theta_dot"].tolist(), R=h[f"{b.name}.R"].tolist(),
                       R_dot=h[f"{b.name}.R_dot"].tolist(),
                       **{k: h[f"{b.name}.{k}"].tolist() for k in ("r_cm", "v_cm", "omega_mean")})
                  for b in self.system.bodies]
        return dict(t=np.asarray(times, float).tolist(), bodies=bodies)

    @property
    def params(self) -> dict:
        """Every number the run used: the inputs it was built from (``case``, ``model`` and the
        case's parameters, when it came from :func:`flexlib.cases.simulate`), ``t_end`` [s], the
        ``solver`` settings and the ``system`` (its bodies with their beam parameters and joints,
        obstacles, contact points with their laws)."""
        from dataclasses import asdict
        return dict(self.inputs, t_end=self.sim.t_end, solver=asdict(self.sim.solver),
                    system=_plain(self.system))

    # ------------------------------------------------------------------ export
    def table(self, times=None) -> dict:
        """Named 1-D columns with units for export: time, per body theta [rad], theta_dot
        [rad/s], R_x, R_y [m], the deformation coordinates, per point gap [m], v_n, v_t [m/s],
        N, F_t [N], mode, and the energies [J].  ``times`` default: every step (and the interior
        points of contact steps)."""
        h = self.steps() if times is None else self.history(times)
        cols = {"t [s]": h["t"]}
        names, offs = self.system.coordinates()
        for b, (ir, ith, nf) in zip(self.system.bodies, offs):
            n = b.name
            cols[f"{n}.theta [rad]"] = h[f"{n}.theta"]
            cols[f"{n}.theta_dot [rad/s]"] = h[f"{n}.theta_dot"]
            cols[f"{n}.R_x [m]"] = h[f"{n}.R"][:, 0]
            cols[f"{n}.R_y [m]"] = h[f"{n}.R"][:, 1]
            for j in range(nf):
                cols[f"{names[ith + 1 + j]} [-]"] = h[f"{n}.q"][:, j]
        units = dict(gap="m", v_n="m/s", v_t="m/s", N="N", F_t="N")
        for c in self.contact_names:
            for key, u in units.items():
                cols[f"{c}.{key} [{u}]"] = h[f"{c}.{key}"]
            cols[f"{c}.mode [0=FREE,1=CONTACT,2=STICK,3=SLIP]"] = h[f"{c}.mode"]
        for key in ("T", "V_E", "V_G", "E"):
            cols[f"{key} [J]"] = h[key]
        return cols

    def to_csv(self, path, times=None):
        """Write :meth:`table` as CSV (one row per sample, units in the header)."""
        import pandas as pd
        pd.DataFrame(self.table(times)).to_csv(path, index=False, float_format="%.12g")

    def save(self, path, times=None):
        """Write the run to a NumPy ``.npz`` file that :func:`flexlib.load_result` reads back (as a
        :class:`flexlib.result.SavedSystemResult`): one 1-D array per column of :meth:`table`
        (``times`` [s]: its grid), named without the unit (``t``, ``B1.theta``, ``B.N``, ...), and
        ``meta``, a 0-d string holding a JSON object with ``format`` ("flexlib.system"), ``units``
        {column: unit}, ``summary`` (:meth:`summary`, with every parameter under ``params``) and
        ``episodes`` (:attr:`impacts`; their stick intervals, of any number per episode, as lists
        of [start, end] pairs).  It needs no pickling: ``np.load(path)`` reads it as it is."""
        cols = self.table(times)
        arrays = {k.split(" [")[0]: np.asarray(v) for k, v in cols.items()}
        units = {k.split(" [")[0]: k.split(" [", 1)[1].rstrip("]") for k in cols}
        meta = dict(format=SYSTEM_FORMAT, units=units, summary=self.summary(),
                    episodes=_jsonable(self.impacts))
        np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)


def _impact_record(episodes) -> dict:
    """One impact from the contact episodes ``episodes`` of one point (in time order)."""
    first, last = episodes[0], episodes[-1]
    peak = max(e["peak_normal_force"] for e in episodes)
    return dict(contact=first["contact"], t_start=first["t_start"], t_end=last["t_end"],
                duration=last["t_end"] - first["t_start"], energy_before=first["energy_before"],
                energy_after=last["energy_after"],
                energy_lost=first["energy_before"] - last["energy_after"],
                jump_impulse=first["jump_impulse"],
                normal_impulse=float(sum(e["normal_impulse"] for e in episodes)),
                peak_normal_force=peak,
                peak_friction_force=max(e["peak_friction_force"] for e in episodes),
                v_n_minus=first["v_n_minus"],
                max_penetration=max(e["max_penetration"] for e in episodes),
                episodes=[dict(t_start=e["t_start"], duration=e["duration"],
                               normal_impulse=e["normal_impulse"],
                               peak_normal_force=e["peak_normal_force"]) for e in episodes])


def _plain(x):
    """A dataclass tree (the system) as plain dicts, lists, numbers and strings: a joint or an
    obstacle says its kind in ``type``; an object from outside (a friction law) its name."""
    from dataclasses import fields, is_dataclass
    if is_dataclass(x) and not isinstance(x, type):
        d = {f.name: _plain(getattr(x, f.name)) for f in fields(x)}
        return {"type": type(x).__name__, **d} if not d or "name" not in d else d
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    return getattr(x, "name", repr(x))


def _jsonable(x):
    """``x`` with every non-finite float as None (JSON has no inf or nan)."""
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    return x
