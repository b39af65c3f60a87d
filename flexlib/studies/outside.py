"""The two multibody systems beside an outside code (Exudyn): stored levels as comparable series.

The outside runs are figures/data/exudyn_falling_beam.json and exudyn_double_pendulum.json
(scripts/exudyn_*.py: ANCF cables, generalized-alpha at a fixed step, levels in elements per metre
and step); flexlib's own mesh-convergence study is tests/data/converged_references.json
(scripts/converged_references.py: ``basis="fe"`` at several meshes).  Every series here maps the
number of elements on the 1 m beam (the falling beam, the double pendulum's upper link) to a dict
of named quantities with the same names on both sides (:data:`QUANTITIES`).
"""
from __future__ import annotations

import json
import os

__all__ = ["QUANTITIES", "EXUDYN_FALLING_BEAM", "EXUDYN_DOUBLE_PENDULUM", "CONVERGED_REFERENCES",
           "contact_measures", "exudyn_falling_beam", "exudyn_double_pendulum",
           "exudyn_converged", "flexlib_levels", "flexlib_falling_beam_runs",
           "relative_differences"]

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXUDYN_FALLING_BEAM = os.path.join(_ROOT, "figures", "data", "exudyn_falling_beam.json")
EXUDYN_DOUBLE_PENDULUM = os.path.join(_ROOT, "figures", "data", "exudyn_double_pendulum.json")
CONVERGED_REFERENCES = os.path.join(_ROOT, "tests", "data", "converged_references.json")

# name: (label with unit, factor from SI to the label's unit)
QUANTITIES = {
    "impulse": ("total normal impulse [N s]", 1.0),
    "first duration": ("first episode's duration [ms]", 1e3),
    "first impulse": ("first episode's impulse [N s]", 1.0),
    "first peak force": ("first episode's peak force [N]", 1.0),
    "v_cm_y": ("v_cm,y at t_end [m/s]", 1.0),
    "omega_mean": ("ω_mean at t_end [rad/s]", 1.0),
}


def contact_measures(res, point: str, t_end: float, burst_gap: float | None = None) -> dict:
    """The contact answers of ``point`` and every body's motion at ``t_end`` [s] of one run.

    The episodes of ``point`` (with ``burst_gap`` [s]: only the first burst, episodes less than
    that apart), their count and total normal impulse [N s], the first episode's start [s],
    duration [s], impulse [N s] and peak force [N], and per body ``"<name> v_cm_x"``,
    ``"<name> v_cm_y"`` [m/s] and ``"<name> omega_mean"`` [rad/s] at ``t_end``."""
    eps = [i for i in res.impacts if i["contact"] == point]
    if burst_gap is not None and eps:
        burst = eps[:1]
        for e in eps[1:]:
            if e["t_start"] - burst[-1]["t_end"] >= burst_gap:
                break
            burst.append(e)
        eps = burst
    first = eps[0] if eps else None
    h = res.history([t_end])
    out = {"episodes": len(eps), "impulse": float(sum(e["normal_impulse"] for e in eps))}
    if first:
        out.update({"first t_start": first["t_start"], "first duration": first["duration"],
                    "first impulse": first["normal_impulse"],
                    "first peak force": first["peak_normal_force"]})
    for b in res.system.bodies:
        v = h[f"{b.name}.v_cm"][0]
        out[f"{b.name} v_cm_x"], out[f"{b.name} v_cm_y"] = float(v[0]), float(v[1])
        out[f"{b.name} omega_mean"] = float(h[f"{b.name}.omega_mean"][0])
    return out


def _episode_values(first: dict) -> dict:
    return {"first t_start": first["t_start"], "first duration": first["duration"],
            "first impulse": first["impulse"], "first peak force": first["peak_force"]}


def exudyn_falling_beam(path: str = EXUDYN_FALLING_BEAM, theta0: str = "0.1",
                        h: float = 1e-6) -> dict:
    """Exudyn's falling beam tilted by ``theta0`` [rad] at the step ``h`` [s]: {elements: values}
    (the end x = 0's episodes, the landing impulse, v_cm,y and ω_mean at t_end)."""
    with open(path) as f:
        data = json.load(f)
    out = {}
    for lv in data["cases"][theta0]["levels"]:
        if lv["h"] != h:
            continue
        p = lv["points"][0]
        out[lv["elements"]] = dict(_episode_values(p["episodes"][0]), episodes=p["n_episodes"],
                                   impulse=lv["landing_impulse"], v_cm_y=lv["v_cm"][1],
                                   omega_mean=lv["omega_mean"])
    return dict(sorted(out.items()))


def exudyn_double_pendulum(path: str = EXUDYN_DOUBLE_PENDULUM, h: float = 1e-6) -> dict:
    """Exudyn's double pendulum at the step ``h`` [s]: {elements on the upper link: values} (the
    first burst's episode count and impulse, its first episode; the lower link has half as many
    elements on its 0.5 m)."""
    with open(path) as f:
        data = json.load(f)
    out = {}
    for lv in data["levels"]:
        if lv["h"] != h or lv["h_free"] != 2e-5:
            continue
        bu = lv["burst"]
        out[lv["elements"][0]] = dict(_episode_values(bu["first"]), episodes=bu["n_episodes"],
                                      impulse=bu["impulse"])
    return dict(sorted(out.items()))


def exudyn_converged(system: str) -> dict:
    """Exudyn's finest level of ``system`` ("falling-beam", tilted, or "double-pendulum") with
    the same names as the series."""
    if system == "falling-beam":
        with open(EXUDYN_FALLING_BEAM) as f:
            c = json.load(f)["cases"]["0.1"]["converged"]
        v = c["values"]
        out = {k: v[f"x=0: first {k.split(' ', 1)[1].replace('peak force', 'peak_force')}"]
               for k in ("first t_start", "first duration", "first impulse", "first peak force")}
        out.update(impulse=v["landing_impulse"], v_cm_y=v["v_cm_y"], omega_mean=v["omega_mean"],
                   episodes=v["x=0: episodes"])
    elif system == "double-pendulum":
        with open(EXUDYN_DOUBLE_PENDULUM) as f:
            c = json.load(f)["converged"]
        v = c["values"]
        out = {"first t_start": v["first t_start"], "first duration": v["first duration"],
               "first impulse": v["first impulse"], "first peak force": v["first peak_force"],
               "impulse": v["burst impulse"], "episodes": v["burst episodes"]}
    else:
        raise ValueError(f"system={system!r}: expected 'falling-beam' or 'double-pendulum'")
    return dict(out, elements_per_metre=c["elements_per_metre"], h=c["h"],
                change=c["change_from_coarser"])


def _series(levels: list, body: str) -> dict:
    out = {}
    for lv in levels:
        v = dict(lv["values"])
        for q in ("v_cm_y", "omega_mean"):
            if f"{body} {q}" in v:
                v[q] = v[f"{body} {q}"]
        out[lv["elements"]] = dict(v, wall_time=lv.get("wall_time"))
    return dict(sorted(out.items()))


def flexlib_levels(system: str, path: str = CONVERGED_REFERENCES) -> dict | None:
    """flexlib's stored mesh levels of ``system`` ("falling-beam" or "double-pendulum"):
    {elements: values}, or None when the study has not stored that system (or no file)."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        data = json.load(f)
    if system not in data:
        return None
    return _series(data[system]["levels"], "beam" if system == "falling-beam" else "B1")


def flexlib_falling_beam_runs(elements=(4, 8, 16), t_end: float = 0.16) -> dict:
    """flexlib's tilted falling beam (model continuous, theta0 = 0.1 rad, 0 to ``t_end`` [s])
    with ``basis="fe"`` at each mesh, run now: {elements: values} as :func:`flexlib_levels`."""
    import time
    from ..cases import simulate
    levels = []
    for n in elements:
        w0 = time.perf_counter()
        res = simulate("falling-beam", "continuous", t_end, basis="fe", elements=n, theta0=0.1)
        levels.append(dict(elements=n, wall_time=time.perf_counter() - w0,
                           values=contact_measures(res, "P1", t_end)))
    return _series(levels, "beam")


def relative_differences(a: dict, b: dict, names) -> dict:
    """{elements: {name: |a - b| / |b|}} at the meshes both series have."""
    return {n: {q: abs(a[n][q] - b[n][q]) / abs(b[n][q]) for q in names}
            for n in sorted(set(a) & set(b))}
