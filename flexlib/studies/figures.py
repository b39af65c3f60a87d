"""``python -m flexlib figures``: every figure of the paper, claims.md and the cached studies.

Outputs (all regenerated, never edited by hand):

* ``figures/figNN_*.png`` and ``.svg`` (the paper's Figs 2-14), provenance in each file's metadata
  and in ``figures/manifest.json``;
* ``figures/claims.md`` and ``figures/data/claims.json`` (the paper's claims, checked one by one);
* ``figures/data/*.json``: the expensive studies that the notebooks read instead of recomputing
  them under nbval: the mode-convergence table (N = 2..6) and the tolerance study (10x tighter),
  plus ``key_numbers.json`` (per-impact tables of the default runs);
* the axial-flexibility study (an extension beyond the paper; :mod:`flexlib.studies.axial`):
  ``figures/data/axial_study.json`` (notebook 07 reads it) and ``figures/axial_*.png``/``.svg``;
* the contact-constraint method against the continuous contact force method
  (:mod:`flexlib.studies.continuous`, notebook 08): ``figures/data/continuous_study.json`` and
  ``figures/continuous_*.png``/``.svg``;
* the multibody cases (notebooks 10 and 11): ``figures/multibody_*.png``/``.svg`` and
  ``figures/data/multibody_key_numbers.json``;
* accuracy against cost of the beam's bases (:mod:`flexlib.studies.accuracy`, notebook 12):
  ``figures/accuracy_cost_*.png``/``.svg``, drawn from the committed study results
  ``benchmarks/results/accuracy*.csv`` and ``.json`` (case 3.2 and the double pendulum, more
  than an hour of runs; ``python3 benchmarks/bench_accuracy.py [--case double-pendulum]``
  recomputes them), so they take seconds here.

Every tracked output is a deterministic function of the code: the runs are made one after the
other in a fixed order, nothing measured on the machine (wall times) is stored in them, the SVG ids
use a fixed hash salt and neither PNG nor SVG carries a date.  So a second ``python -m flexlib
figures`` rewrites the same bytes and ``git status`` stays clean.  The wall times go to
``figures/timings.json``, which git ignores.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from .. import __version__
from ..models import CONTACT_MODELS, FRICTION_MODELS
from ..outputs import Outputs, write_text
from .claims import MEASUREMENT_NOTE, ROBUSTNESS_VARIANTS, add_robustness, claims_markdown, evaluate_claims
from ..params import paper_case
from ..paper import SimulationError, simulate

__all__ = ["run_models", "make_all", "mode_study", "tolerance_study", "impact_rows",
           "load_study", "axial_figures", "continuous_figures", "multibody_figures",
           "accuracy_figures", "run_summaries"]

PAPER_MODELS = FRICTION_MODELS           # the paper's three friction models
ALL_MODELS = CONTACT_MODELS              # and the frictionless reference
DATA = "data"


def run_models(case="3.2", models=ALL_MODELS, t_end=2.0, **overrides):
    """Run several models; a run that stops early contributes its partial result (and message)."""
    out, notes = {}, {}
    for m in models:
        try:
            out[m] = simulate(case, m, t_end, **overrides)
        except SimulationError as err:
            out[m] = err.result
            notes[m] = str(err)
    return out, notes


def impact_rows(res, n=None):
    """Per-impact key numbers of a run (start, end, peak N, peak |F_t|, energy lost, stick/slip)."""
    rows = []
    for k, im in enumerate(res.impacts[:n] if n else res.impacts, 1):
        rows.append(dict(impact=k, t_start=im["t_start"], t_end=im["t_end"], episodes=im["episodes"],
                         peak_N=im["peak_normal_force"], peak_Ft=im["peak_friction_force"],
                         energy_lost=im["energy_lost"], jump_loss=-im["jump_loss"],
                         friction_work=im["friction_work"], n_stick=len(im["stick_intervals"]),
                         stick_time=sum(b - a for a, b in im["stick_intervals"]),
                         n_slip=len(im["slip_intervals"]), n_stick_tests=im["n_stick_tests"],
                         n_stick_drift=im["n_stick_drift"], max_stick_ratio=im["max_stick_ratio"],
                         min_painleve_margin=im["min_painleve_margin"], max_cond_S=im["max_cond_S"]))
    return rows


def _timed(timings, key):
    """A context manager that adds the wall time of its block [s] to ``timings[key]`` (if given)."""
    import contextlib

    @contextlib.contextmanager
    def block():
        w0 = time.perf_counter()
        try:
            yield
        finally:
            if timings is not None:
                timings[key] = timings.get(key, 0.0) + time.perf_counter() - w0
    return block()


def mode_study(modes=(2, 3, 4, 5, 6), models=ALL_MODELS, t_end=2.0, n_impacts=5, timings=None):
    """Impact start times, peak N and energy lost per impact for N = 2..6 modes.

    The table holds only what the runs compute (no wall time), so it is the same on every run;
    pass a dict as ``timings`` to receive the wall time of each run [s] under "model/N"."""
    table = {}
    for m in models:
        table[m] = {}
        for n in modes:
            with _timed(timings, f"{m}/{n}"):
                try:
                    r = simulate("3.2", m, t_end, n_modes=n)
                    msg = "ok"
                except SimulationError as err:
                    r, msg = err.result, str(err)
            table[m][str(n)] = dict(message=msg, impacts=impact_rows(r, n_impacts),
                                    final_E=r.E_final)
    return table


def tolerance_study(models=ALL_MODELS, t_end=2.0, factor=10.0, n_impacts=3):
    """Default tolerances against ``factor`` x tighter: first impacts' start times and peak N."""
    out = {}
    for m in models:
        row = {}
        for label, f in (("default", 1.0), ("tight", factor)):
            case = paper_case("3.2")
            case = case.with_(rtol=case.solver.rtol / f, atol=case.solver.atol / f)
            try:
                r = simulate(case, m, t_end)
            except SimulationError as err:
                r = err.result
            row[label] = impact_rows(r, n_impacts)
        d = row["default"]
        tt = row["tight"]
        k = min(len(d), len(tt))
        row["max_dt_start"] = max((abs(d[i]["t_start"] - tt[i]["t_start"]) for i in range(k)), default=None)
        row["max_rel_dpeakN"] = max((abs(d[i]["peak_N"] / tt[i]["peak_N"] - 1) for i in range(k)), default=None)
        out[m] = row
    return out


def _dump(path: Path, obj):
    from ..result import _jsonable
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(_jsonable(obj), indent=1, sort_keys=True) + "\n")


def load_study(name: str, folder="figures"):
    """Read a cached study (``mode_study``, ``tolerance_study``, ``claims``, ...)."""
    base = Path(folder)
    if not base.is_absolute() and not (base / DATA).exists():
        base = Path(__file__).resolve().parents[2] / folder
    return json.loads((base / DATA / f"{name}.json").read_text())


def axial_figures(out="figures", only=None, timings=None) -> dict:
    """Run :func:`flexlib.studies.axial.axial_study`, write ``data/axial_study.json`` and the figures of
    :data:`flexlib.studies.axial.AXIAL_FIGURES` into ``out``; return their manifest entries.
    ``timings``: a dict that receives the wall time of each run [s]."""
    from . import axial
    from ..viz.plots import save_figure
    out = Path(out)
    study = axial.axial_study(timings=timings)
    axial.save_axial_study(study, out)
    prov = dict(flexlib_version=study["flexlib_version"], case=study["case"], t_end=study["t_end"],
                axial_modes=study["axial_modes"], note=study["note"],
                runs={m: {na: dict(success=r["success"], t_last=r["t_last"]) for na, r in runs.items()}
                      for m, runs in study["runs"].items()})
    manifest = {}
    for name, (fn, caption) in axial.AXIAL_FIGURES.items():
        if only and name not in only:
            continue
        manifest[name] = dict(caption=caption, **save_figure(fn(study), name, out, extra=prov))
    return manifest


def continuous_figures(out="figures", only=None, timings=None) -> dict:
    """Run the studies of :mod:`flexlib.studies.continuous` (method comparison on case 3.2, stiffness
    study, creep study), write ``data/continuous_study.json`` (no wall times) and the figures of
    :data:`flexlib.viz.plots.CONTINUOUS_FIGURES` into ``out``; return their manifest entries.
    ``timings``: a dict that receives the wall time of each study and of each run [s]."""
    from . import continuous
    from ..viz.plots import CONTINUOUS_FIGURES, save_figure
    out = Path(out)
    wanted = {which for name, (_fn, which, _c) in CONTINUOUS_FIGURES.items()
              if not only or name in only}
    if only and not wanted:
        return {}
    timings = {} if timings is None else timings
    with _timed(timings, "comparison"):
        comparison = continuous.compare_methods()
    with _timed(timings, "stiffness"):
        stiffness = continuous.stiffness_study()
    with _timed(timings, "creep"):
        creep = continuous.creep_study()
    timings["runs"] = {**{f"comparison/{m}": v for m, v in comparison["wall_time_s"].items()},
                       **{f"stiffness/{m}/{k:g}": float(stiffness.wall_time.sel(model=m, K=k))
                          for m in stiffness.model.values for k in stiffness.K.values}}
    data = continuous.study_data(comparison, stiffness, creep)
    _dump(out / DATA / "continuous_study.json", data)
    studies = dict(comparison=comparison, stiffness=stiffness, creep=creep)
    manifest = {}
    for name, (fn, which, caption) in CONTINUOUS_FIGURES.items():
        if only and name not in only:
            continue
        study = studies[which]
        if which == "stiffness":
            prov = save_figure(fn(study), name, out, extra=dict(
                study.attrs, K=study.K.values.tolist(), models=[str(m) for m in study.model.values]))
        else:
            prov = save_figure(fn(study), name, out, study["results"])
        manifest[name] = dict(caption=caption, **prov)
    return manifest


def multibody_figures(out="figures", only=None, timings=None) -> dict:
    """The multibody cases' figures (notebooks 10 and 11): the double pendulum with the continuous
    Hertz contact and with the constraint method (0-1.5 s), the falling beam on five points
    (hybrid Coulomb, tilted by 0.1 rad, 0-0.5 s); writes
    :data:`flexlib.viz.multibody_plots.MULTIBODY_FIGURES` into ``out`` and the runs' impacts and
    audits into ``data/multibody_key_numbers.json``; returns the manifest entries."""
    from ..cases import simulate as simulate_case
    from ..viz import multibody_plots as mbp
    from ..viz.plots import save_figure
    stamps = {} if timings is None else timings
    runs = {}
    for key, case, model, t_end, params in (
            ("pendulum_continuous", "double-pendulum", "continuous", 1.5, {}),
            ("pendulum_frictionless", "double-pendulum", "frictionless", 1.5, {}),
            ("beam_five_points", "falling-beam", "hybrid_coulomb", 0.5,
             dict(contact_points="0,0.25,0.5,0.75,1", theta0=0.1))):
        with _timed(stamps, key):
            runs[key] = simulate_case(case, model, t_end, **params)
    rc, rf = runs["pendulum_continuous"], runs["pendulum_frictionless"]
    t_hit = rc.impacts[0]["t_start"]
    figs = {
        "multibody_pendulum_snapshots": lambda: mbp.fig_pendulum_snapshots(
            rc, [0.0, 0.3, 0.5, t_hit, 0.8, 1.2], scale=10),
        "multibody_pendulum_impact": lambda: mbp.fig_theta_dot(
            {"continuous (Hertz)": rc, "constraint (frictionless, e = 0)": rf},
            window=(t_hit - 0.005, t_hit + 0.03)),
        "multibody_beam_contact_map": lambda: mbp.fig_contact_map(runs["beam_five_points"]),
    }
    manifest = {}
    for name, make in figs.items():
        if only and name not in only:
            continue
        entry = save_figure(make(), name, out, extra=dict(flexlib_version=__version__,
                                                          runs=sorted(runs)))
        manifest[name] = dict(caption=mbp.MULTIBODY_FIGURES[name], **entry)
    _dump(Path(out) / DATA / "multibody_key_numbers.json",
          {k: dict(impacts=r.impacts[:10], audit=r.audit(), jumps=len(r.log.jumps))
           for k, r in runs.items()})
    return manifest


# figure name: (study case, model)
ACCURACY_FIGURES = {**{f"accuracy_cost_{m}": ("3.2", m) for m in ("hybrid_coulomb", "frictionless")},
                    "accuracy_cost_double_pendulum": ("double-pendulum", "continuous")}


def accuracy_figures(out="figures", only=None) -> dict:
    """The error-against-cost figures of :mod:`flexlib.studies.accuracy`, one per case and model, drawn
    from the committed results (``benchmarks/results/accuracy*.csv`` and ``.json``; nothing is
    run); their manifest entries.  Without a results file (an installed flexlib) nothing."""
    from . import accuracy
    from ..viz.plots import fig_accuracy_cost, save_figure
    manifest = {}
    for name, (case, model) in ACCURACY_FIGURES.items():
        study = accuracy.STUDIES[case]
        if only and name not in only:
            continue
        if not study.results_csv.exists() or not study.summary_json.exists():
            continue
        summary = json.loads(study.summary_json.read_text())
        ref = summary["reference"]["label"]
        err = accuracy.errors(accuracy.load_table(study=study), ref, study)
        extra = dict(flexlib_version=__version__,
                     source=f"benchmarks/results/{study.results_csv.name}",
                     reference=ref, tight=summary["tight"], case=summary["case"], model=model)
        prov = save_figure(fig_accuracy_cost(err, model, ref, summary["tolerance"], study), name,
                           out, extra=extra)
        what = "case 3.2" if case == "3.2" else f"the {case.replace('-', ' ')}"
        manifest[name] = dict(caption=f"Accuracy against cost of the beam's bases, {what}, "
                                      f"{model}: relative error per quantity against CPU time",
                              **prov)
    from . import resolution
    from ..viz.multibody_plots import fig_resolution
    name = "accuracy_resolution"
    if (not only or name in only) and resolution.RESULTS_JSON.exists():
        prov = save_figure(fig_resolution(resolution.load()), name, out,
                           extra=dict(flexlib_version=__version__,
                                      source=f"benchmarks/results/{resolution.RESULTS_JSON.name}"))
        manifest[name] = dict(caption="The multibody systems' settings (basis, mesh, integrator) "
                                      "against their converged references: relative error of the "
                                      "contact answers against CPU time", **prov)
    return manifest


def run_summaries(results: dict) -> dict:
    """{model: per-impact rows, first contact, energies, status, warnings and run statistics} of
    the default runs, as stored in ``figures/data/key_numbers.json``.  The statistics leave out
    the wall time, which differs from run to run."""
    return {m: dict(impacts=impact_rows(r), first_contact=r.first_contact, final_E=r.E_final,
                    E0=r.E0, audit_rel=r.audit_residual_max / r.E0, success=r.success,
                    message=r.message, warnings=r.warnings,
                    stats={k: v for k, v in r.stats.items() if k != "wall_time_s"})
            for m, r in results.items()}


def _write_manifest(path: Path, manifest: dict, complete: bool):
    """Write the manifest; a partial run (``--only``, ``--no-studies``) keeps the other entries."""
    if not complete and path.exists():
        manifest = {**json.loads(path.read_text()), **manifest}
    _dump(path, manifest)


def make_all(out="figures", only=None, studies=True, verbose=True):
    """Regenerate the figures (and, with ``studies``, the cached studies) into ``out``.

    Deterministic: the same code writes the same bytes (see the module docstring).  The wall
    times of the runs are printed and written to ``out/timings.json`` (not tracked by git).
    Whole or not at all: every file is written beside its target and renamed into place when
    all of them are written (:mod:`flexlib.outputs`); if one fails, no file of ``out`` changes."""
    with Outputs():
        return _make_all(out, only, studies, verbose)


def _make_all(out, only, studies, verbose):
    import matplotlib
    matplotlib.use("Agg")
    from ..viz.plots import FIGURES, save_figure
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    say = print if verbose else (lambda *a, **k: None)
    timings = {"note": "wall times [s] of the last `python -m flexlib figures` on this machine; "
                       "not tracked by git"}
    t0 = time.perf_counter()
    with _timed(timings, "total"):
        with _timed(timings, "simulations"):
            resB, notesB = run_models("3.2", ALL_MODELS)
            resA, notesA = run_models("3.1", ("hybrid_coulomb",))
        timings["runs"] = {f"{r.case.name}/{m}": r.stats.get("wall_time_s")
                           for m, r in [*resB.items(), *resA.items()]}
        say(f"simulations: {timings['simulations']:.1f} s")
        manifest = {}
        for name, (fn, case, models, caption) in FIGURES.items():
            if only and name not in only:
                continue
            res = resA if case == "3.1" else resB
            if models:
                res = {m: res[m] for m in models}
            fig = fn(res)
            manifest[name] = dict(caption=caption, **save_figure(fig, name, out, res))
            say(f"made {out / name}.png/.svg (written when every file is made)")
        claims = evaluate_claims(resB)
        if studies:
            # each verdict re-evaluated with tighter tolerances and with N = 4 modes
            with _timed(timings, "robustness"):
                add_robustness(claims, {name: evaluate_claims(run_models("3.2", PAPER_MODELS, **ov)[0])
                                        for name, ov in ROBUSTNESS_VARIANTS.items()})
        key = run_summaries({**resB, "caseA_hybrid_coulomb": resA["hybrid_coulomb"]})
        _dump(out / DATA / "key_numbers.json", dict(flexlib_version=__version__, runs=key, notes=notesB))
        _dump(out / DATA / "claims.json", claims)
        case = paper_case("3.2")
        header = (f"# Claims of Fan et al. (2021) checked by flexlib {__version__}\n\n"
                  f"Case 3.2, t = 0..2 s, N = {case.beam.n_modes} modes, rtol = {case.solver.rtol:g}, "
                  f"atol = {case.solver.atol:g}, method {case.solver.method}, multipliers "
                  f"{case.solver.multiplier_mode}. Generated by `python -m flexlib figures`; do not edit.\n\n"
                  "Thresholds: coincide <= 1 % of the quantity's range over the window; basically the same "
                  "<= 5 %; clearly different > 10 %. An impact is a cluster of contact episodes (a "
                  "contact, the micro-impacts and rebounds that follow it).\n\n" + MEASUREMENT_NOTE)
        if notesB:
            header += "\n\nRuns that stopped early: " + "; ".join(f"{m}: {n}" for m, n in notesB.items())
        if studies:
            with _timed(timings, "studies"):
                stamps = {}
                _dump(out / DATA / "mode_study.json", mode_study(timings=stamps.setdefault("mode_study", {})))
                with _timed(stamps, "tolerance_study"):
                    _dump(out / DATA / "tolerance_study.json", tolerance_study())
            say(f"studies: {timings['studies']:.1f} s")
            header += "\n\nSensitivity to the number of modes: see `figures/data/mode_study.json` and notebook 06."
            with _timed(timings, "axial_study"):
                manifest.update(axial_figures(out, only=only, timings=stamps.setdefault("axial_study", {})))
            timings["study_runs"] = stamps
            say(f"axial study (an extension beyond the paper): {timings['axial_study']:.1f} s")
            with _timed(timings, "continuous_study"):
                manifest.update(continuous_figures(out, only=only,
                                                   timings=stamps.setdefault("continuous_study", {})))
            say(f"continuous contact force studies: {timings['continuous_study']:.1f} s")
            with _timed(timings, "multibody"):
                manifest.update(multibody_figures(out, only=only,
                                                  timings=stamps.setdefault("multibody", {})))
            say(f"multibody cases: {timings['multibody']:.1f} s")
            with _timed(timings, "accuracy_figures"):
                manifest.update(accuracy_figures(out, only=only))
        _write_manifest(out / "manifest.json", manifest, complete=studies and not only)
        write_text(out / "claims.md", claims_markdown(claims, header))
    _dump(out / "timings.json", timings)
    say(f"wrote {out / 'claims.md'}; total {time.perf_counter() - t0:.1f} s (wall times in "
        f"{out / 'timings.json'})")
    return resB, claims
