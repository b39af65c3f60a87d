"""The result of a system's run: histories, impacts per point and the energy books.

States come from the integrator's interpolant; histories are per body and per contact point.

The energy audit is E(t) - E(0) = sum over points of (W_N + W_F) + W_d + sum of the jumps'
kinetic-energy changes, with E = T + V_E + V_G, W_N and W_F the work of each point's normal and
friction force (integrated with the motion), W_d the (negative) work of the modal damping.
"""
from __future__ import annotations

import math

import numpy as np

from ..solver import integrator
from . import kernel as K
from .kernel import FREE, STICK

__all__ = ["SystemResult"]

_INTERIOR = (0.25, 0.5, 0.75)       # where each contact step is also evaluated (peaks, impulses)


class SystemResult:
    """What a run of :class:`~flexlib.multibody.simulate.SystemSimulator` computed.

    ``sample(times)`` gives states (from each step's 7th-order interpolant; at a jump the state
    after it); ``history(times)`` a dict of named arrays; ``impacts`` the contact episodes per
    point; ``audit()`` the energy balance; ``summary()`` a JSON-ready dict."""

    def __init__(self, sim, log, wall_time):
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

    # ------------------------------------------------------------------ states
    def sample(self, times) -> np.ndarray:
        """States (len(times), ny) at ``times`` [s]."""
        times = np.atleast_1d(np.asarray(times, float))
        starts = np.array([p.sol.t[0] for p in self.phases])
        Y = np.empty((len(times), len(self.phases[0].sol.y[:, 0])))
        for k, t in enumerate(times):
            i = max(int(np.searchsorted(starts, t, side="right")) - 1, 0)
            Y[k] = self.phases[i].sol(min(t, self.phases[i].sol.t[-1]))
        return Y

    def _phase_at(self, times):
        starts = np.array([p.sol.t[0] for p in self.phases])
        return np.clip(np.searchsorted(starts, times, side="right") - 1, 0, len(self.phases) - 1)

    def _outputs(self, times, Y, discs):
        outs = np.empty((len(times), K.NOUT))
        for k in range(len(times)):
            outs[k] = self.sim.evaluate(times[k], Y[k], discs[k])[1]
        return outs

    def history(self, times) -> dict:
        """Named histories at ``times`` [s]: per body ``{name}.theta`` [rad], ``.theta_dot``
        [rad/s], ``.R`` and ``.R_dot`` (n, 2) [m, m/s], ``.q`` (deformation coordinates), ``.r_cm``,
        ``.v_cm`` and ``.omega_mean`` (:meth:`mean_motion`); per point
        ``{point}.gap``, ``.v_n``, ``.v_t``, ``.N``, ``.F_t``, ``.mode``; and ``T``, ``V_E``, ``V_G``,
        ``E`` [J]."""
        times = np.atleast_1d(np.asarray(times, float))
        Y = self.sample(times)
        idx = self._phase_at(times)
        discs = [self.phases[i].disc for i in idx]
        h = self._named(times, Y, idx, self._outputs(times, Y, discs))
        h.update(self.mean_motion(Y, h))
        return h

    def _named(self, times, Y, idx, outs):
        discs = [self.phases[i].disc for i in idx]
        h = {"t": times, "T": outs[:, K.O_T], "V_E": outs[:, K.O_VE], "V_G": outs[:, K.O_VG]}
        h["E"] = h["T"] + h["V_E"] + h["V_G"]
        names, offs = self.system.coordinates()
        nq = self.nq
        for b, (ir, ith, nf) in zip(self.system.bodies, offs):
            h[f"{b.name}.theta"] = Y[:, ith]
            h[f"{b.name}.theta_dot"] = Y[:, nq + ith]
            h[f"{b.name}.q"] = Y[:, ith + 1:ith + 1 + nf]
            h[f"{b.name}.q_dot"] = Y[:, nq + ith + 1:nq + ith + 1 + nf]
        R, Rd = self.frame_origins(Y)
        for i, b in enumerate(self.system.bodies):
            h[f"{b.name}.R"] = R[:, i]
            h[f"{b.name}.R_dot"] = Rd[:, i]
        for c, name in enumerate(self.contact_names):
            o = K.O_C0 + K.NOC * c
            for j, key in enumerate(K.OC_NAMES):
                h[f"{name}.{key}"] = outs[:, o + j]
            h[f"{name}.mode"] = np.array([int(d[4 * c]) for d in discs])
        iz = 2 * nq
        nc = self.nc
        h["W_N"] = Y[:, iz + nc:iz + 2 * nc]
        h["W_F"] = Y[:, iz + 2 * nc:iz + 3 * nc]
        h["W_d"] = Y[:, iz + 3 * nc]
        h["W_tau"] = Y[:, iz + 3 * nc + 1]
        lost = np.concatenate([[0.0], np.cumsum([j.dT for j in self.log.jumps])])
        h["W_jump"] = lost[[self.phases[i].n_jumps for i in idx]]
        return h

    def frame_origins(self, Y):
        """The bodies' frame origins R and their rates (len(Y), nb, 2) [m, m/s]."""
        from .assembly import transform_into
        ws = self.sim.work[0]
        nb = len(self.system.bodies)
        R = np.empty((len(Y), nb, 2))
        Rd = np.empty((len(Y), nb, 2))
        for k in range(len(Y)):
            q = np.ascontiguousarray(Y[k, :self.nq])
            qd = np.ascontiguousarray(Y[k, self.nq:2 * self.nq])
            transform_into(q, qd, self.sim.S, ws[0], ws[1], ws[2], ws[3], ws[4], ws[5], ws[6],
                           ws[7], ws[8])
            R[k] = ws[0]
            Rd[k] = ws[1]
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
            discs = [self.phases[i].disc for i in idx]
            self._steps = self._named(t, Y, idx, self._outputs(t, Y, discs))
        return self._steps

    def audit(self) -> dict:
        """The energy books over the run: E0, E_end, the works [J] and the residual."""
        h = self.steps()
        W = h["W_N"].sum(axis=1) + h["W_F"].sum(axis=1) + h["W_d"] + h["W_tau"] + h["W_jump"]
        resid = h["E"] - h["E"][0] - W
        scale = max(abs(h["E"][0]), float(np.abs(h["T"]).max()), 1e-12)
        return dict(E0=float(h["E"][0]), E_end=float(h["E"][-1]),
                    W_N=[float(w) for w in h["W_N"][-1]], W_F=[float(w) for w in h["W_F"][-1]],
                    W_d=float(h["W_d"][-1]), W_tau=float(h["W_tau"][-1]), jump_loss=float(h["W_jump"][-1]),
                    max_residual=float(np.abs(resid).max()), scale=float(scale))

    # ------------------------------------------------------------------ impacts
    @property
    def impacts(self) -> list:
        """The contact episodes, per point, in time order: dicts with ``contact``, ``t_start``,
        ``t_end`` [s], ``duration``, ``impulse`` (the jump's plus ∫N dt) [N s], ``jump_impulse``,
        ``peak_normal_force`` [N], ``v_n_minus`` [m/s], ``max_penetration`` [m]."""
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
                vmin = [v for (tj, _, v) in jumps if abs(tj - t0) <= 1e-12]
                gap = h[f"{name}.gap"][seg]
                E = h["E"]
                stick = mode[seg] == STICK
                runs = np.flatnonzero(np.diff(np.r_[0, stick.astype(int), 0]))
                out.append(dict(contact=name, t_start=float(t0), t_end=float(t1),
                                duration=float(t1 - t0), impulse=float(jimp + integ),
                                normal_impulse=float(jimp + integ), jump_impulse=float(jimp),
                                peak_normal_force=float(NN.max()) if len(NN) else 0.0,
                                peak_friction_force=float(np.abs(h[f"{name}.F_t"][seg]).max())
                                if len(NN) else 0.0,
                                energy_lost=float(E[max(a - 1, 0)] - E[min(b, len(E) - 1)]),
                                stick_intervals=[(float(tt[i]), float(tt[min(j, len(tt) - 1)]))
                                                 for i, j in zip(runs[::2], runs[1::2])],
                                v_n_minus=float(vmin[0]) if vmin else float(h[f"{name}.v_n"][a]),
                                max_penetration=float(max(0.0, -gap.min())) if len(gap) else 0.0))
            # impacts that closed nothing (a rebound): the jump alone
            for (tj, p, v) in jumps:
                if not any(r["contact"] == name and r["t_start"] - 1e-12 <= tj <= r["t_end"] + 1e-12
                           for r in out):
                    out.append(dict(contact=name, t_start=tj, t_end=tj, duration=0.0,
                                    impulse=float(p), normal_impulse=float(p), jump_impulse=float(p),
                                    peak_normal_force=math.inf, peak_friction_force=0.0,
                                    energy_lost=float(-sum(j.dT for j in self.log.jumps
                                                           if j.t == tj)),
                                    stick_intervals=[], v_n_minus=float(v), max_penetration=0.0))
        out.sort(key=lambda r: (r["t_start"], r["contact"]))
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
        return {"wall_time_s": self.wall_time}

    @property
    def case(self):
        """The solver settings, where the parameter studies look for them (``case.solver``)."""
        from types import SimpleNamespace
        return SimpleNamespace(solver=self.sim.solver)

    # ------------------------------------------------------------------ summary
    def summary(self, times=None) -> dict:
        """A JSON-ready dict: the run, ``samples.bodies`` (a list in the system's body order of
        {name, theta, theta_dot, R, R_dot, r_cm, v_cm, omega_mean}: the frame's angle, rate, origin
        and its rate, and the frame-free centre of mass, its velocity and the mean angular velocity
        of :meth:`mean_motion`), the impacts (each naming its ``contact``) and the audit."""
        times = np.linspace(0.0, self.t_end, 11) if times is None else np.asarray(times, float)
        h = self.history(times)
        bodies = [dict(name=b.name, theta=h[f"{b.name}.theta"].tolist(),
                       theta_dot=h[f"{b.name}.theta_dot"].tolist(), R=h[f"{b.name}.R"].tolist(),
                       R_dot=h[f"{b.name}.R_dot"].tolist(),
                       **{k: h[f"{b.name}.{k}"].tolist() for k in ("r_cm", "v_cm", "omega_mean")})
                  for b in self.system.bodies]
        imp = [{k: (None if isinstance(v, float) and not math.isfinite(v) else v)
                for k, v in r.items()} for r in self.impacts]
        return dict(t_end=self.t_end, wall_time=self.wall_time,
                    samples=dict(t=times.tolist(), bodies=bodies), impacts=imp,
                    contacts=self.contact_names, n_jumps=len(self.log.jumps),
                    n_selections=self.log.n_selections, n_ambiguous=self.log.n_ambiguous,
                    energy=self.audit())

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
        """Write :meth:`table`'s columns and the impacts to a NumPy ``.npz`` file."""
        cols = self.table(times)
        imp = self.impacts
        extra = {f"impacts.{k}": np.array([r[k] for r in imp]) for k in (imp[0] if imp else {})}
        np.savez(path, **{k.split(" [")[0]: v for k, v in cols.items()}, **extra)

    def impacts_table(self) -> str:
        """The contact episodes as a text table, one line per point and episode."""
        rows = [f"{'#':>3} {'point':>6} {'t_start [s]':>12} {'dur [ms]':>9} {'v_n- [m/s]':>11} "
                f"{'impulse [N s]':>13} {'peak N [N]':>11} {'pen [um]':>9}"]
        for k, r in enumerate(self.impacts, 1):
            rows.append(f"{k:>3} {r['contact']:>6} {r['t_start']:>12.6f} {1e3 * r['duration']:>9.3f} "
                        f"{r['v_n_minus']:>11.4g} {r['impulse']:>13.5g} "
                        f"{r['peak_normal_force']:>11.5g} {1e6 * r['max_penetration']:>9.3g}")
        return "\n".join(rows)
