"""The result of a run: histories, impacts table, energy audit, JSON summary, .npz and CSV export.

This module only holds and exports the numbers: it does not import the simulator or the
kernel.  :mod:`flexlib.history` builds a :class:`SimulationResult` from a run.

A fresh result keeps the run's trajectory (every step's state and 7th-order interpolant), so
:meth:`SimulationResult.sample` and :meth:`SimulationResult.history` evaluate any history at any
time exactly as a run ended there would report it (to the integrator's tolerance).  The full
histories ``h`` are built on first use, on the default grid: the integrator's step points plus
``dense_dt`` (10 us by default) of the interpolant in contact phases.  At a velocity jump the
history holds two samples at the same time (before and after).  A result read back from a file
(:func:`load_result`) has no trajectory; it samples its stored histories linearly.  A multibody
case's file reads back as a :class:`SavedSystemResult` (its summary, parameters and histories).
Every result refuses sample times outside its run, [0, t_end] (:func:`times_within`).

Energy audit (docs/model.md section 13):
r(t) = E(t) - [E(0) + sum of jump losses up to t + W_N + W_f - W_d + W_tau].
Its scale (:func:`audit_scale`) is the energy the run is given, not what it reaches: the initial
kinetic and elastic energy plus the largest work of gravity and of the drives, so that energy a
run creates shows in the residual instead of inflating the scale.  A run whose residual exceeds
:data:`AUDIT_BOUND` of the scale ends with ``success = False`` and a warning
(:func:`audit_verdict`), whichever case it is.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np

from . import models

__all__ = ["SimulationResult", "SavedSystemResult", "load_result", "HISTORY_UNITS", "HISTORY_KEYS",
           "times_within", "audit_scale", "audit_verdict", "AUDIT_BOUND"]

# The energy audit's bound: its largest residual over a run, relative to audit_scale
AUDIT_BOUND = 1e-6


def audit_scale(T, V_E, V_G, W_tau) -> float:
    """The energy a run is given [J], from its histories at the step points: the kinetic and
    elastic energy at the start plus the largest work of gravity (max |V_G(t) - V_G(0)|) and of
    the drive torques (max |W_tau(t)|).  Every term is independent of the potential's reference
    level and of energy that the run itself creates."""
    T, V_E, V_G, W_tau = (np.asarray(a, float) for a in (T, V_E, V_G, W_tau))
    return max(abs(float(T[0])) + abs(float(V_E[0])) + float(np.max(np.abs(V_G - V_G[0])))
               + float(np.max(np.abs(W_tau))), 1e-12)


def audit_verdict(residual: float, scale: float):
    """``None`` if the audit's largest residual [J] is within :data:`AUDIT_BOUND` of its scale,
    else the warning that says by how much it is not."""
    if residual <= AUDIT_BOUND * scale:
        return None
    return (f"energy audit: the largest residual {residual:.3g} J is {residual / scale:.2g} of "
            f"the energy the run was given ({scale:.4g} J), above the bound {AUDIT_BOUND:g}: the "
            f"energy books do not close (tighten rtol, or the contact is too stiff for the step)")

HISTORY_KEYS = ("t", "mode", "theta", "theta_dot", "B", "B_dot", "z", "W_N", "W_f", "W_d", "W_tau",
                "tip_X", "tip_Y", "tip_Xdot", "tip_Ydot", "tip_deflection", "T", "V_E", "V_G", "E",
                "N", "F_t", "mu_eff", "mu_lugre", "gap", "s", "v_n", "v_t", "margin", "cond_S",
                "jump_sum", "audit", "min_interior_gap", "penetration", "E_pen", "W_N_dissipated",
                "N_clipped")
# The unit of every history (the header of to_csv; "-" is dimensionless).  B, B_dot, C and C_dot
# are (n, N) and (n, axial_modes) arrays of modal coordinates; C, C_dot and the axial strain energy
# V_A exist only with axial_modes >= 1.  s_all and v_t_all are s and v_t also in flight.
HISTORY_UNITS = dict(
    t="s", mode="0=FREE 1=CONTACT 2=STICK 3=SLIP", theta="rad", theta_dot="rad/s", B="m",
    B_dot="m/s", C="m", C_dot="m/s", z="m", W_N="J", W_f="J", W_d="J", W_tau="J", tip_X="m",
    tip_Y="m", tip_Xdot="m/s", tip_Ydot="m/s", tip_deflection="m", T="J", V_E="J", V_A="J",
    V_G="J", E="J", N="N", F_t="N", mu_eff="-", mu_lugre="-", gap="m", s="m", v_n="m/s",
    v_t="m/s", s_all="m", v_t_all="m/s", margin="-", cond_S="-", jump_sum="J", audit="J",
    penetration="m", E_pen="J", W_N_dissipated="J", N_clipped="N",
    min_interior_gap="m")


@dataclass(eq=False)
class SimulationResult:
    """Histories (numpy arrays, one sample per row) and tables of one run.

    Arrays (``res.h[name]``, or ``res.name`` for the histories of :data:`HISTORY_UNITS`):
    ``t`` [s], ``theta`` [rad], ``theta_dot`` [rad/s], ``B``/``B_dot`` (n, N) [m, m/s],
    ``tip_X``/``tip_Y`` [m], ``tip_Xdot``/``tip_Ydot`` [m/s], ``tip_deflection`` u_y(L) [m],
    ``T``, ``V_E``, ``V_G``, ``E`` [J], ``N``, ``F_t`` [N] (0 in flight), ``mu_eff`` = -F_t/N,
    ``z`` [m], ``gap``, ``s`` [m], ``v_n``, ``v_t`` [m/s] (NaN in flight for the contact
    quantities that are only meaningful in contact: ``s``, ``v_t``, ``mu_eff``), ``mode``
    (0 FREE, 1 CONTACT, 2 STICK, 3 SLIP), the accumulators ``W_N``, ``W_f``, ``W_d``, ``W_tau``
    [J] and the audit residual ``audit`` [J].

    Tables: ``jumps`` (one dict per velocity jump), ``events``, ``stick_tests``, ``episodes``
    and ``impacts`` (clusters of episodes, with the per-impact report; docs/model.md section 12).
    """
    case: object                       # flexlib.params.Case: every parameter of the run
    model: str                         # the model id (flexlib.models)
    h: dict                            # the histories, name -> array (units: HISTORY_UNITS)
    jumps: list
    events: list
    stick_tests: list
    episodes: list
    impacts: list
    warnings: list
    success: bool
    message: str                       # why the run stopped ("reached t_end" or the cause)
    stats: dict                        # wall time, step and event counts, tolerances
    samples: dict | None = None        # theta, theta' and tip Y at requested times
    version: str = ""                  # flexlib version that made the run
    selections: list = field(default_factory=list)
    trajectory: object = field(default=None, repr=False)   # flexlib.history.Trajectory
    energy: dict | None = None         # E0, final E, works, audit max (at the step points)
    t_end: float | None = None         # the time the run reached [s]

    def __post_init__(self):
        self.selections = list(self.selections)
        self._at_cache = (None, None)
        if self.h is None:
            if self.trajectory is None:
                raise ValueError("a SimulationResult needs its histories h or a trajectory")
            del self.h                 # built on first use (__getattr__)
        if self.t_end is None:
            self.t_end = float(self.h["t"][-1])

    def __getattr__(self, name):
        # only called for attributes not set: the histories of a fresh result, on first use
        if name == "h" and self.__dict__.get("trajectory") is not None:
            self.h = self.trajectory.default_histories()
            return self.h
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __getstate__(self):
        # a pickled (or copied) result carries its trajectory, from which the histories are
        # built again (a result without one, loaded from a file, carries its histories)
        state = dict(self.__dict__)
        state["_at_cache"] = (None, None)
        traj = state.get("trajectory")
        if traj is not None and traj.picklable:
            state.pop("h", None)
        else:
            state["h"] = self.h
            state["trajectory"] = None
        return state

    @property
    def histories(self) -> dict:
        """The histories, name -> array (the same dict as ``h``)."""
        return self.h

    def __repr__(self):
        return (f"SimulationResult(model={self.model!r}, case={self.case.name!r}, "
                f"t_end={self.t_end:.4g} s, impacts={len(self.impacts)}, success={self.success})")

    # ------------------------------------------------------------------ derived numbers
    @property
    def E0(self) -> float:
        """The energy at t = 0, J."""
        return float(self.energy["initial"] if self.energy else self.h["E"][0])

    @property
    def E_final(self) -> float:
        """The energy at the end of the run, J."""
        return float(self.energy["final"] if self.energy else self.h["E"][-1])

    @property
    def audit_residual_max(self) -> float:
        """max |r(t)| over the run, J (over the integrator's step points for a fresh result)."""
        if self.energy:
            return float(self.energy["audit_residual_max"])
        return float(np.max(np.abs(self.h["audit"])))

    def history(self, times) -> dict:
        """Every history at ``times`` [s] (name -> array): evaluated on the integrator's
        interpolant (a time at a velocity jump gives the state after it).  A result read from a
        file (:func:`load_result`) has no interpolant: it interpolates its stored samples
        linearly, which between the integrator's steps in flight (~0.15 ms apart) can be off by
        a few per cent in the rates; save the histories on the grid you need (``times`` of
        :meth:`save`), or keep the result object (it pickles with its interpolant).  A time
        outside the run, [0, t_end], is refused with a ValueError."""
        times = times_within(times, self.t_end)
        key = (times.tobytes(), len(times))
        if self._at_cache[0] == key:
            return self._at_cache[1]
        if self.trajectory is not None:
            out = self.trajectory.history_at(times)
        else:
            out = {k: self._linear(times, k) for k in self.h}
        self._at_cache = (key, out)
        return out

    @property
    def first_contact(self):
        """The first velocity jump: dict(t, contact, theta, tip_deflection) or None."""
        if not self.jumps:
            return None
        j = self.jumps[0]
        return dict(t=j["t"], contact="tip", theta=j["theta"], tip_deflection=j["tip_deflection"])

    def in_contact(self) -> np.ndarray:
        return self.h["mode"] > 0

    def window(self, t0, t1):
        """Boolean mask of samples with t0 <= t <= t1."""
        return (self.h["t"] >= t0) & (self.h["t"] <= t1)

    def sample(self, times, key):
        """The history ``key`` at ``times`` [s] (see :meth:`history`; after a jump, the post-jump
        value; a time outside [0, t_end] is refused with a ValueError)."""
        shape = np.shape(times)
        v = self.history(times)[key]
        return v.reshape(shape + v.shape[1:])

    def _linear(self, times, key):
        """Linear interpolation of a stored history at ``times`` (after a jump, the post-jump
        value; ``mode`` is the mode of the sample at or before each time, not interpolated)."""
        return _linear(self.h["t"], np.asarray(self.h[key]), times, step=key == "mode")

    # ------------------------------------------------------------------ tables
    def impacts_table(self) -> str:
        """A readable text table of the impacts (clusters).  For a continuous contact model the
        impulse and jump columns (always 0) give way to the largest penetration and the energy the
        normal force dissipated."""
        spec = models.REGISTRY.get(self.model)
        pen = spec is not None and spec.is_penalty
        cols = (f"{'pen [um]':>10} {'peak N [N]':>11} {'peak|Ft| [N]':>12} {'E before [J]':>12} "
                f"{'E after [J]':>12} {'W_N,d [J]':>10}" if pen else
                f"{'I [N s]':>10} {'peak N [N]':>11} {'peak|Ft| [N]':>12} {'E before [J]':>12} "
                f"{'E after [J]':>12} {'jump [J]':>10}")
        rows = [f"{'#':>3} {'t_start [s]':>12} {'t_end [s]':>11} {'dur [ms]':>9} {'eps':>4} "
                f"{'v_n- [m/s]':>11} {cols} {'W_f [J]':>10} {'stick':>5} {'slip':>5}"]
        for k, im in enumerate(self.impacts, 1):
            first = 1e6 * im["max_penetration"] if pen else im["impulse"]
            last = im["normal_dissipation"] if pen else im["jump_loss"]
            rows.append(
                f"{k:>3} {im['t_start']:>12.6f} {im['t_end']:>11.6f} {1e3 * im['duration']:>9.3f} "
                f"{im['episodes']:>4d} {im['v_n_minus']:>11.4g} {first:>10.4g} "
                f"{im['peak_normal_force']:>11.4g} {im['peak_friction_force']:>12.4g} "
                f"{im['energy_before']:>12.6f} {im['energy_after']:>12.6f} {last:>10.4g} "
                f"{im['friction_work']:>10.4g} {len(im['stick_intervals']):>5d} {len(im['slip_intervals']):>5d}")
        return "\n".join(rows)

    def samples_at(self, times) -> dict:
        """theta, theta' and the tip's Y at the given times (lists, for JSON), and the same as the
        one-entry list ``bodies`` of every case's summary.  A run that stopped gives null (None)
        at the times after the one it reached."""
        return samples_within(times, self.t_end, self._samples_at)

    def _samples_at(self, st) -> dict:
        theta, theta_dot = self.sample(st, "theta").tolist(), self.sample(st, "theta_dot").tolist()
        # ``bodies``: the layout every case shares (the multibody cases list several bodies);
        # the hinged beam's frame origin is the hinge
        origin = [[0.0, 0.0]] * len(st)
        return dict(t=st.tolist(), theta=theta, theta_dot=theta_dot,
                    tip_y=self.sample(st, "tip_Y").tolist(),
                    bodies=[dict(name="beam", theta=theta, theta_dot=theta_dot, R=origin,
                                 R_dot=origin, **self.mean_motion_at(st))])

    def mean_motion_at(self, times) -> dict:
        """The beam's centre of mass ``r_cm`` [m], its velocity ``v_cm`` [m/s] and its mean
        angular velocity ``omega_mean`` [rad/s] at ``times`` (lists, for JSON): the quantities
        every body of a multibody case reports (:func:`flexlib.bodies.beam.mean_motion`)."""
        from .bodies.beam import BeamModel, mean_motion
        st = np.asarray(times, float).reshape(-1)
        h = self.history(st)
        model = BeamModel(self.case.beam)
        cols = [("theta", "B", "C"), ("theta_dot", "B_dot", "C_dot")]
        Q, Qd = (np.ascontiguousarray(np.column_stack(
            [h[k].reshape(len(st), -1) for k in keys if k in h])) for keys in cols)
        zero = np.zeros((len(st), 2))
        mm = mean_motion(Q, Qd, zero, zero, model.kernel_arrays())
        return dict(r_cm=mm[:, :2].tolist(), v_cm=mm[:, 2:4].tolist(), omega_mean=mm[:, 4].tolist())

    @property
    def params(self) -> dict:
        """Every parameter of the run: ``case``, ``model``, ``t_end`` [s] and the groups of
        :meth:`flexlib.params.Case.as_dict` (``Case.from_dict`` reads it back)."""
        d = self.case.as_dict()
        d.pop("name")
        return dict(case=self.case.name, model=self.model, t_end=self.t_end, **d)

    def summary(self, sample_times=None) -> dict:
        """The JSON summary of the command line, in the layout every case shares (docs/usage.md,
        "The result"): ``samples`` at ``sample_times`` [s] (default: the run's own, else 11
        times over the run)."""
        if sample_times is not None:
            samples = self.samples_at(sample_times)
        else:
            samples = self.samples or self.samples_at(np.linspace(0.0, self.t_end, 11))
        return _jsonable(dict(
            case=self.case.name, model=self.model, flexlib_version=self.version,
            params=self.params, success=self.success, message=self.message,
            first_contact=self.first_contact, impacts=[impact_record(im) for im in self.impacts],
            samples=samples, energy=self.energy_summary(),
            selections=selection_counts(self.selections),
            warnings=self.warnings, stats=self.stats, wall_time_s=self.stats.get("wall_time_s")))

    def energy_summary(self) -> dict:
        """Initial and final energy, the audit residual's maximum and the works [J]."""
        if self.energy:
            return dict(self.energy)
        h = self.h
        return dict(initial=self.E0, final=float(h["E"][-1]),
                    audit_residual_max=self.audit_residual_max,
                    normal_work=float(h["W_N"][-1]), friction_work=float(h["W_f"][-1]),
                    jump_losses=float(sum(j["dE"] for j in self.jumps)),
                    penetration_energy=float(h["E_pen"][-1]),
                    normal_dissipated=float(h["W_N_dissipated"][-1]))

    # ------------------------------------------------------------------ export
    def _histories_for(self, times):
        """The histories to export: ``h``, or every history at ``times`` [s] (:meth:`history`)."""
        return self.h if times is None else self.history(times)

    @staticmethod
    def _history_order(h) -> list:
        """The history names in a stable order: :data:`HISTORY_KEYS`, then any others."""
        return [k for k in HISTORY_KEYS if k in h] + [k for k in h if k not in HISTORY_KEYS]

    def to_csv(self, path, times=None):
        """Write every history to ``path`` as a table: a header line, then one row per sample.

        The header names each column with its unit, ``t [s],mode [0=FREE 1=CONTACT 2=STICK
        3=SLIP],theta [rad],...`` (units in :data:`HISTORY_UNITS`).  The modal coordinates are
        expanded to one column each: ``B_1 [m]`` ... ``B_N [m]``, ``B_dot_1 [m/s]`` ... (and
        ``C_1``... with axial modes).  Values are written with 17 significant digits, so they
        read back equal to the histories; quantities undefined in flight (``s``, ``v_t``,
        ``mu_eff``, ...) are ``nan``.  At a velocity jump two rows share the same time (before
        and after).  The parameters are not in the file: write them with ``--json`` or
        :meth:`save`.  ``times`` [s], if given, is the grid of the rows instead of the default one
        (the integrator's steps plus ``dense_dt`` in contact phases), evaluated on the
        integrator's interpolant (:meth:`history`).
        """
        h = self._histories_for(times)
        names, cols = [], []
        for k in self._history_order(h):
            v = np.asarray(h[k], dtype=float)
            unit = HISTORY_UNITS.get(k, "-")
            if v.ndim == 1:
                names.append(f"{k} [{unit}]")
                cols.append(v[:, None])
            else:
                names += [f"{k}_{i} [{unit}]" for i in range(1, v.shape[1] + 1)]
                cols.append(v)
        np.savetxt(path, np.hstack(cols), fmt="%.17g", delimiter=",", header=",".join(names),
                   comments="")

    def save(self, path, times=None):
        """Write the full histories and tables to ``path`` (.npz) with parameters and version.

        The file holds one array per history, named as in :data:`HISTORY_KEYS`, with n =
        ``len(t)`` samples: 1-D arrays of length n, except ``B``/``B_dot`` of shape (n, N)
        (N = the basis's coordinates: n_modes for the modal basis) and, with axial modes, ``C``/``C_dot`` of shape (n, axial_modes).  Units
        are SI, as in :data:`HISTORY_UNITS`.  The array ``meta`` is a 0-d string holding a JSON
        object with ``case`` (every parameter, as :meth:`Case.as_dict`), ``model``, ``version``,
        ``success``, ``message``, ``stats`` (wall time, step and event counts, tolerances),
        ``energy`` (:meth:`energy_summary`), ``t_end`` and the tables ``jumps``, ``events``,
        ``stick_tests``, ``episodes``, ``impacts`` and ``warnings``.
        ``times`` [s], if given, is the grid of the histories, as in :meth:`to_csv`.
        Read it back with :func:`load_result`, or with numpy::

            f = np.load(path); t, theta = f["t"], f["theta"]; meta = json.loads(str(f["meta"]))
        """
        meta = dict(case=self.case.as_dict(), model=self.model, version=self.version,
                    success=self.success, message=self.message, stats=self.stats,
                    jumps=self.jumps, events=self.events, stick_tests=self.stick_tests,
                    selections=self.selections, episodes=self.episodes, impacts=self.impacts,
                    warnings=self.warnings, energy=self.energy_summary(), t_end=self.t_end)
        np.savez_compressed(path, meta=np.array(json.dumps(_jsonable(meta))),
                            **self._histories_for(times))


def _history_property(name: str, unit: str):
    def get(self):
        try:
            return self.h[name]
        except KeyError:
            raise AttributeError(f"this result has no history {name!r}") from None
    return property(get, doc=f"The history ``{name}`` [{unit}] (the array ``h[{name!r}]``).")


# Every documented history is a named, read-only attribute: res.theta is res.h["theta"].
for _name, _unit in HISTORY_UNITS.items():
    setattr(SimulationResult, _name, _history_property(_name, _unit))


def times_within(times, t_end) -> np.ndarray:
    """``times`` [s] as a 1-D float array, every one in the run's span [0, ``t_end``]; else a
    ValueError naming ``times``, the first value outside and the span.  A time past ``t_end`` by
    rounding alone (1e-12 of it) counts as ``t_end``."""
    t = np.asarray(times, float).reshape(-1)
    slack = 1e-12 * max(abs(t_end), 1.0)
    bad = ~np.isfinite(t) | (t < -slack) | (t > t_end + slack)
    if bad.any():
        raise ValueError(f"parameter 'times' = {float(t[np.argmax(bad)])!r} is outside the run: "
                         f"valid range is [0, {t_end:g}] s (0 to the time the run reached)")
    return np.clip(t, 0.0, t_end)


def samples_within(times, t_end, sample) -> dict:
    """The summary's ``samples`` at ``times`` [s]: ``sample(inside)`` at the times inside the
    run's span [0, t_end], every per-time list of it then filled with None (JSON null) for the
    times past ``t_end`` (a run that stopped early), ``t`` listing every requested time."""
    t = np.asarray(times, float).reshape(-1)
    inside = t[t <= t_end * (1.0 + 1e-12)]
    out = sample(inside)
    if len(inside) == len(t):
        return out
    pad = [None] * (len(t) - len(inside))

    def fill(d):
        return {k: ([fill(b) for b in v] if k == "bodies" else v if k == "name" else list(v) + pad)
                for k, v in d.items()}
    return dict(fill(out), t=t.tolist())


def _linear(t, v, times, step=False):
    """The stored samples ``v`` (along ``t``) at ``times``, linearly interpolated (after a jump,
    the post-jump value); ``step``: the value of the sample at or before each time."""
    times = np.asarray(times, float)
    at_or_before = np.searchsorted(t, times, side="right") - 1
    if step:
        return v[np.clip(at_or_before, 0, len(t) - 1)]
    idx = np.clip(at_or_before, 0, len(t) - 2)
    t0, t1 = t[idx], t[idx + 1]
    w = np.where(t1 > t0, (times - t0) / np.where(t1 > t0, t1 - t0, 1.0), 0.0)
    w = w.reshape(w.shape + (1,) * (v.ndim - 1))
    return v[idx] * (1 - w) + v[idx + 1] * w


class SavedSystemResult:
    """A run of a multibody case read back from its ``.npz`` file (:func:`load_result`), without
    its interpolant: the numbers it was saved with.

    ``summary()`` is the JSON summary of the run (the layout every case shares, as
    ``SystemResult.summary()`` gave it at the default 11 sample times); ``params`` every parameter
    of the run (``summary()["params"]``); ``h`` (also ``histories``) the saved histories, one 1-D
    array per column of ``SystemResult.table``, named without the unit (``t``, ``B1.theta``,
    ``B1.R_x``, ``B.N``, ``B.mode``, ``E``, ...), with ``units`` {name: unit}; ``impacts`` the
    contact episodes point by point (as ``SystemResult.impacts``; stick intervals as lists of
    [start, end] pairs, an infinite peak force as None) and ``impact_records()`` the impacts of
    the summary; ``success``, ``message``, ``t_end`` [s] and ``contact_names``.  ``history(times)``
    interpolates the saved histories linearly and refuses times outside [0, t_end]."""

    def __init__(self, meta: dict, h: dict):
        self._summary = meta["summary"]
        self.h = h
        self.units = dict(meta["units"])
        self.impacts = list(meta["episodes"])
        self.version = meta.get("version", "")
        self.success = bool(self._summary["success"])
        self.message = self._summary["message"]
        self.t_end = float(self._summary["t_end"])
        self.contact_names = list(self._summary["contacts"])

    @property
    def histories(self) -> dict:
        return self.h

    @property
    def params(self) -> dict:
        return self._summary["params"]

    def summary(self) -> dict:
        """The JSON summary the run was saved with (a copy)."""
        return json.loads(json.dumps(self._summary))

    def impact_records(self) -> list:
        return self.summary()["impacts"]

    def history(self, times) -> dict:
        """Every saved history at ``times`` [s], linearly interpolated (``mode`` columns: the
        sample at or before each time); a time outside [0, t_end] is refused."""
        times = times_within(times, self.t_end)
        t = self.h["t"]
        return {k: _linear(t, np.asarray(v), times, step=k.endswith(".mode")) for k, v in self.h.items()}

    def __repr__(self):
        return (f"SavedSystemResult(case={self.params.get('case')!r}, model={self.params.get('model')!r}, "
                f"t_end={self.t_end:.4g} s, impacts={len(self.impact_records())}, success={self.success})")


def load_result(path):
    """Read a result written by the ``save`` method of a run (``--save`` of the command line):
    a :class:`SimulationResult` for case 3.1/3.2 (from :meth:`SimulationResult.save`), a
    :class:`SavedSystemResult` for a multibody case (from ``SystemResult.save``).  Both offer
    ``summary()``, ``params``, the histories ``h`` and ``history(times)``."""
    from .params import Case
    with np.load(path, allow_pickle=False) as f:
        if "meta" not in f.files:
            raise ValueError(f"{str(path)!r} is not a file of flexlib's save: it has no array 'meta'")
        meta = json.loads(str(f["meta"]))
        h = {k: f[k] for k in f.files if k != "meta"}
    if meta.get("format") == SYSTEM_FORMAT:
        return SavedSystemResult(meta, h)
    return SimulationResult(case=Case.from_dict(meta["case"]), model=meta["model"], h=h,
                            jumps=meta["jumps"], events=meta["events"],
                            stick_tests=meta["stick_tests"], episodes=meta["episodes"],
                            impacts=meta["impacts"], warnings=meta["warnings"],
                            success=meta["success"], message=meta["message"], stats=meta["stats"],
                            version=meta["version"], selections=meta.get("selections", ()),
                            energy=meta.get("energy"), t_end=meta.get("t_end"))


# the ``format`` of a multibody case's .npz meta (a paper case's meta has no ``format``)
SYSTEM_FORMAT = "flexlib.system"

# the keys of an impact (a cluster of contact episodes) in the JSON summary, after the shared ones
_IMPACT_EXTRA = ("t_end", "duration", "energy_lost", "peak_normal_force", "peak_friction_force",
                 "jump_loss", "friction_work", "normal_work", "v_n_minus", "v_t_minus", "v_t_plus",
                 "stick_intervals", "slip_intervals", "n_stick_tests", "n_stick_drift",
                 "max_stick_ratio", "min_painleve_margin", "max_cond_S", "zeno_jumps",
                 "max_penetration", "normal_dissipation", "clipped_impulse")


def impact_record(im) -> dict:
    """One impact (a cluster of contact episodes of the tip) in the layout every case shares:
    ``contact``, ``t_start``, ``energy_before``, ``energy_after``, ``jump_impulse`` (the velocity
    jump at the impact's start), ``normal_impulse`` (jumps + integral of N over its episodes),
    ``episodes`` (a list of {t_start, duration, normal_impulse, peak_normal_force}), then the
    further numbers a paper case reports (jump losses, works, stick and slip intervals, the
    mode selections)."""
    eps = im["episode_list"]
    out = dict(contact="tip", t_start=im["t_start"], energy_before=im["energy_before"],
               energy_after=im["energy_after"], jump_impulse=eps[0]["impulse"] if eps else 0.0,
               normal_impulse=im["normal_impulse"],
               episodes=[{k: e[k] for k in ("t_start", "duration", "normal_impulse",
                                             "peak_normal_force")} for e in eps])
    out.update({k: im[k] for k in _IMPACT_EXTRA + SELECTION_KEYS})
    return out


SELECTION_KEYS = ("n_selections", "selections_unique", "selections_several", "selections_none",
                  "slip_dir_agree", "slip_dir_disagree")


def selection_counts(selections) -> dict:
    """Counters of the contact-mode selections (:mod:`flexlib.multibody.simulate`): how many were made,
    how many had exactly one, several or no consistent candidate, and, for hybrid Coulomb, how
    often the chosen slip direction agreed with -sgn(F_t) of the stick trial."""
    n = [s["n_consistent"] for s in selections]
    agree = [s["slip_dir_agrees"] for s in selections]
    return dict(n_selections=len(n), selections_unique=n.count(1),
                selections_several=sum(1 for k in n if k > 1), selections_none=n.count(0),
                slip_dir_agree=agree.count(True), slip_dir_disagree=agree.count(False))


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, (np.floating, float)):
        v = float(x)
        return v if math.isfinite(v) else None
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.bool_,)):
        return bool(x)
    return x


