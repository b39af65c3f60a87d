"""Accuracy against cost of the multibody systems' settings, against their converged references.

Notebook 12's first study compares the beam's bases on case 3.2 and on the double pendulum's first
impact with one explicit integrator and a reference of 12 elements per link.  This one asks what
a user of the two multibody systems must choose (basis, mesh and integrator) to get their contact
answers right, and what it costs, up to the meshes that converge them:

* the tilted falling beam (``falling-beam``, ``theta0 = 0.1``, continuous Hertz contact, 0-0.16 s):
  the episodes of its end x = 0 after the landing;
* the double pendulum (``double-pendulum``, continuous Hertz contact, 0-0.65 s): the first contact
  burst of point B at the stop (its episodes less than :data:`BURST_GAP` apart).

Each setting (:data:`SETTINGS`) is run warm (a short run of the same size first loads the compiled
code) and measured by :func:`flexlib.studies.outside.contact_measures`: the episode count, the
total normal impulse, the first episode's impulse and peak force and every body's centre-of-mass
velocity and mean angular velocity at t_end.  The reference of each system is the finest level of
flexlib's own mesh study (tests/data/converged_references.json, ``scripts/converged_references.py``:
64 Hermite elements for the falling beam, 256 per link for the pendulum, where the last
refinement moves every answer by less than 0.5 %).  :func:`errors` measures a run against it as
that study measures a refinement (:func:`relative_change`), and :func:`meets` asks the two
accuracy targets of :data:`TARGETS`.

``benchmarks/bench_resolution.py`` runs the settings and writes
``benchmarks/results/accuracy_resolution.json``; the figures command draws
``figures/accuracy_resolution.png`` from it (:func:`flexlib.viz.multibody_plots.fig_resolution`).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from .outside import CONVERGED_REFERENCES, contact_measures

__all__ = ["SYSTEMS", "BURST_GAP", "SETTINGS", "TARGETS", "RESULTS_JSON", "label", "run_setting",
           "relative_change", "errors", "meets", "cheapest", "load", "reference"]

ROOT = Path(__file__).resolve().parents[2]
RESULTS_JSON = ROOT / "benchmarks" / "results" / "accuracy_resolution.json"
BURST_GAP = 5e-3        # s: episodes of a point less than this apart belong to one burst

# the two systems' runs: model, window, case parameters, the struck point, whether its first
# burst (else all its episodes until t_end) is measured
SYSTEMS = {
    "falling-beam": dict(model="continuous", t_end=0.16, params=dict(theta0=0.1), point="P1",
                         burst=False),
    "double-pendulum": dict(model="continuous", t_end=0.65, params={}, point="B", burst=True),
}

# the integrators' settings of the study: (name, overrides); Radau with the atol the double
# pendulum's docstring recommends, the generalized-alpha step with the default atol (1e-10), as in
# benchmarks/bench_implicit.py
_DEFAULT = ("default", {})                                   # auto, rtol 1e-8
_RADAU = ("Radau 1e-3", dict(method="Radau", rtol=1e-3, atol=1e-6))
_GA = ("gen-alpha 1e-3", dict(method="gen-alpha", rtol=1e-3))


def _settings(modes, fe_default, fe_radau, fe_ga):
    out = [dict(basis="modal", n_modes=n, integrator=_DEFAULT[0], **_DEFAULT[1]) for n in modes]
    out += [dict(basis="fe", elements=n, integrator=_DEFAULT[0], **_DEFAULT[1])
            for n in fe_default]
    out += [dict(basis="fe", elements=n, integrator=name, **over)
            for name, over, meshes in ((*_RADAU, fe_radau), (*_GA, fe_ga)) for n in meshes]
    return out


# The settings run per system.  An integrator is left out where it costs minutes: the default
# on the pendulum from 16 elements per link on (133 s at 16, 51 min at 32; benchmarks/README.md),
# the generalized-alpha step on the pendulum from 32 on (66 s at 16, about five times more per
# doubling of the mesh).
SETTINGS = {
    "falling-beam": _settings((3, 4, 6), (4, 8, 16, 32), (4, 8, 16, 32, 64), (4, 8, 16, 32, 64)),
    "double-pendulum": _settings((3, 5, 8), (4, 8), (4, 8, 16, 32, 64), (4, 8, 16)),
}

# the accuracy targets: (name, largest relative error of the impulses (total and first episode's),
# of the first episode's peak force, of the motion at t_end (None: not asked))
TARGETS = {
    "5 % impulses, 15 % peak force": (0.05, 0.15, None),
    "1 % impulses and motion, 5 % peak force": (0.01, 0.05, 0.01),
}


def label(s: dict) -> str:
    """``modal N=3``, ``fe 16, Radau 1e-3`` ..."""
    base = f"modal N={s['n_modes']}" if s["basis"] == "modal" else f"fe {s['elements']}"
    return base + ("" if s["integrator"] == "default" else f", {s['integrator']}")


def _overrides(s: dict) -> dict:
    return {k: v for k, v in s.items() if k != "integrator"}


def run_setting(system: str, s: dict) -> dict:
    """One warm run of ``system`` with the setting ``s``: its wall and CPU time [s], steps, whether
    its energy books closed (``success``), their largest residual, the energy the integrator
    lost and the scale of the books (``audit_residual_max``, ``numerical_dissipation``,
    ``audit_scale`` [J]; the audit allows 1e-6 of the scale) and its :func:`contact_measures`."""
    from ..cases import simulate
    spec = SYSTEMS[system]
    over = dict(_overrides(s), **spec["params"])
    simulate(system, spec["model"], 0.002, **over)              # load the compiled code
    w0, c0 = time.perf_counter(), time.process_time()
    res = simulate(system, spec["model"], spec["t_end"], **over)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    en = res.energy_summary()
    return dict(system=system, label=label(s), setting=s, wall_s=wall, cpu_s=cpu,
                n_steps=int(res.stats["n_steps"]), success=bool(res.success),
                audit_residual_max=en["audit_residual_max"],
                numerical_dissipation=en["numerical_dissipation"], audit_scale=en["audit_scale"],
                values=contact_measures(res, spec["point"], spec["t_end"],
                                        BURST_GAP if spec["burst"] else None))


def relative_change(a: dict, b: dict) -> dict:
    """The change of every quantity from the values ``a`` to ``b`` (:func:`contact_measures`),
    relative to ``b``: the episode count's absolute change; a centre-of-mass velocity's change
    relative to the larger of that body's two components; the first episode's start relative to
    its duration; the rest relative to their own value."""
    out = {}
    for k, v in b.items():
        if k == "episodes":
            out[k] = abs(v - a[k])
        elif k.endswith("v_cm_x") or k.endswith("v_cm_y"):
            body = k.rsplit(" ", 1)[0]
            scale = max(abs(b[f"{body} v_cm_x"]), abs(b[f"{body} v_cm_y"]), 1e-12)
            out[k] = abs(v - a[k]) / scale
        elif k == "first t_start":
            out[k] = abs(v - a[k]) / max(b["first duration"], 1e-12)   # against the duration
        else:
            out[k] = abs(v - a[k]) / max(abs(v), 1e-12)
    return out


def reference(system: str, path=CONVERGED_REFERENCES) -> dict:
    """The finest level of ``system`` in flexlib's mesh study: {elements, settings, values}; a
    ValueError if that study did not converge (its last refinement moved an answer by more than
    its tolerance)."""
    data = json.loads(Path(path).read_text())[system]
    if not data["converged"]["all_within"]:
        raise ValueError(f"{path}: the mesh study of {system} has not converged")
    lv = max(data["levels"], key=lambda lv: lv["elements"])
    return dict(elements=lv["elements"], settings=data["settings"], values=lv["values"])


def errors(values: dict, ref: dict) -> dict:
    """A run's errors against the reference values: every :func:`relative_change`, and
    ``impulses`` (the larger of the total and the first episode's), ``peak`` and ``motion`` (the
    largest over the bodies' velocities and mean angular velocities at t_end; a mean angular
    velocity's error is relative to its own value, so on the double pendulum the upper link's,
    about 1 rad/s after the stop, sets it)."""
    if "first impulse" not in values:       # no contact: every contact answer infinitely wrong
        values = dict(values, **{k: float("inf") for k in ref if k.startswith("first")})
    d = relative_change(values, ref)
    motion = [v for k, v in d.items() if "v_cm" in k or "omega_mean" in k]
    return dict(d, impulses=max(d["impulse"], d["first impulse"]), peak=d["first peak force"],
                motion=max(motion))


def meets(err: dict, target: str) -> bool:
    """Whether the errors ``err`` (:func:`errors`) are within the target of :data:`TARGETS`."""
    imp, peak, motion = TARGETS[target]
    return err["impulses"] <= imp and err["peak"] <= peak and (motion is None
                                                               or err["motion"] <= motion)


def _family(r: dict):
    s = r["setting"]
    return s["basis"], s["integrator"]


def _size(r: dict) -> int:
    s = r["setting"]
    return s["n_modes"] if s["basis"] == "modal" else s["elements"]


def cheapest(rows: list[dict], target: str) -> dict | None:
    """The least costly (CPU time) row of ``rows`` (records of :func:`run_setting` with their
    ``errors``) that :func:`meets` the target and whose every refinement in the study (the same
    basis and integrator, more modes or elements) meets it too, or None: a coarse setting can
    land within a target by chance, this asks that refining keeps it there (the finest setting
    of a basis and integrator has no refinement in the study to hold it)."""
    def kept(r):
        return all(meets(o["errors"], target) for o in rows
                   if _family(o) == _family(r) and _size(o) >= _size(r))
    ok = [r for r in rows if kept(r)]
    return min(ok, key=lambda r: r["cpu_s"]) if ok else None


def load(path=RESULTS_JSON) -> dict:
    """The stored study (``benchmarks/bench_resolution.py``)."""
    return json.loads(Path(path).read_text())
