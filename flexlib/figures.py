"""``python -m flexlib figures``: every figure of the paper, claims.md and the cached studies.

Outputs (all regenerated, never edited by hand):

* ``figures/figNN_*.png`` and ``.svg`` (MODEL.md 9.3), provenance in each file's metadata and in
  ``figures/manifest.json``;
* ``figures/claims.md`` and ``figures/data/claims.json`` (MODEL.md 10);
* ``figures/data/*.json``: the expensive studies that the notebooks read instead of recomputing
  them under nbval: the mode-convergence table (N = 2..6), the tolerance study (10x tighter) and
  the printed-multipliers runs, plus ``key_numbers.json`` (per-impact tables of the default runs);
* the axial-flexibility study (an extension beyond the paper, MODEL.md 14; :mod:`flexlib.axial`):
  ``figures/data/axial_study.json`` (notebook 07 reads it) and ``figures/axial_*.png``/``.svg``.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from . import __version__
from .claims import ROBUSTNESS_VARIANTS, add_robustness, claims_markdown, evaluate_claims
from .params import paper_case
from .simulate import SimulationError, simulate

__all__ = ["run_models", "make_all", "mode_study", "tolerance_study", "printed_study", "impact_rows",
           "load_study", "axial_figures"]

PAPER_MODELS = ("hybrid_coulomb", "hybrid_lugre", "lugre")
ALL_MODELS = ("frictionless",) + PAPER_MODELS
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


def mode_study(modes=(2, 3, 4, 5, 6), models=ALL_MODELS, t_end=2.0, n_impacts=5):
    """Impact start times, peak N and energy lost per impact for N = 2..6 modes."""
    table = {}
    for m in models:
        table[m] = {}
        for n in modes:
            w0 = time.perf_counter()
            try:
                r = simulate("3.2", m, t_end, n_modes=n)
                msg = "ok"
            except SimulationError as err:
                r, msg = err.result, str(err)
            table[m][str(n)] = dict(message=msg, wall_s=time.perf_counter() - w0,
                                    impacts=impact_rows(r, n_impacts), final_E=float(r.h["E"][-1]))
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


def printed_study(models=PAPER_MODELS, t_end=2.0):
    """The paper's decoupled multipliers (eqs 37, 65, 66) against the coupled default (R1, 13.3)."""
    out = {}
    for m in models:
        w0 = time.perf_counter()
        try:
            r = simulate("3.2", m, t_end, multiplier_mode="printed")
            msg, ok = "reached t_end", True
        except SimulationError as err:
            r, msg, ok = err.result, str(err), False
        gap = np.abs(r.gap[r.mode > 0]) if (r.mode > 0).any() else np.array([0.0])
        out[m] = dict(completed=ok, message=msg, t_reached=float(r.t[-1]), wall_s=time.perf_counter() - w0,
                      impacts=impact_rows(r, 5), max_gap_in_contact=float(gap.max()),
                      n_events=len(r.events), audit_rel=float(r.audit_residual_max / r.E0))
    return out


def _dump(path: Path, obj):
    from .result import _jsonable
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_jsonable(obj), indent=1, sort_keys=True) + "\n")


def load_study(name: str, folder="figures"):
    """Read a cached study (``mode_study``, ``tolerance_study``, ``printed_study``, ``claims``, ...)."""
    base = Path(folder)
    if not base.is_absolute() and not (base / DATA).exists():
        base = Path(__file__).resolve().parent.parent / folder
    return json.loads((base / DATA / f"{name}.json").read_text())


def axial_figures(out="figures", only=None) -> dict:
    """Run :func:`flexlib.axial.axial_study`, write ``data/axial_study.json`` and the figures of
    :data:`flexlib.axial.AXIAL_FIGURES` into ``out``; return their manifest entries."""
    from . import axial
    from .plots import save_figure
    out = Path(out)
    study = axial.axial_study()
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


def make_all(out="figures", only=None, studies=True, verbose=True):
    """Regenerate the figures (and, with ``studies``, the cached studies) into ``out``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams["svg.hashsalt"] = "flexlib"
    from .plots import FIGURES, save_figure
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    say = print if verbose else (lambda *a, **k: None)
    t0 = time.perf_counter()
    resB, notesB = run_models("3.2", ALL_MODELS)
    resA, notesA = run_models("3.1", ("hybrid_coulomb",))
    say(f"simulations: {time.perf_counter() - t0:.1f} s")
    manifest = {}
    for name, (fn, case, models, caption) in FIGURES.items():
        if only and name not in only:
            continue
        res = resA if case == "3.1" else resB
        if models:
            res = {m: res[m] for m in models}
        fig = fn(res)
        manifest[name] = dict(caption=caption, **save_figure(fig, name, out, res))
        say(f"wrote {out / name}.png/.svg")
    _dump(out / "manifest.json", manifest)
    claims = evaluate_claims(resB)
    if studies:
        # each verdict re-evaluated with tighter tolerances and with N = 4 modes
        add_robustness(claims, {name: evaluate_claims(run_models("3.2", PAPER_MODELS, **ov)[0])
                                for name, ov in ROBUSTNESS_VARIANTS.items()})
    key = {m: dict(impacts=impact_rows(r), first_contact=r.first_contact, final_E=float(r.h["E"][-1]),
                   E0=r.E0, audit_rel=r.audit_residual_max / r.E0, success=r.success, message=r.message,
                   warnings=r.warnings, stats=r.stats)
           for m, r in {**resB, "caseA_hybrid_coulomb": resA["hybrid_coulomb"]}.items()}
    _dump(out / DATA / "key_numbers.json", dict(flexlib_version=__version__, runs=key, notes=notesB))
    _dump(out / DATA / "claims.json", claims)
    case = paper_case("3.2")
    header = (f"# Claims of Fan et al. (2021) checked by flexlib {__version__}\n\n"
              f"Case 3.2, t = 0..2 s, N = {case.beam.n_modes} modes, rtol = {case.solver.rtol:g}, "
              f"atol = {case.solver.atol:g}, method {case.solver.method}, multipliers "
              f"{case.solver.multiplier_mode}. Generated by `python -m flexlib figures`; do not edit.\n\n"
              "Thresholds: coincide <= 1 % of the quantity's range over the window; basically the same "
              "<= 5 %; clearly different > 10 %. Impacts are clusters of contact episodes (MODEL.md 8.6).")
    if notesB:
        header += "\n\nRuns that stopped early: " + "; ".join(f"{m}: {n}" for m, n in notesB.items())
    if studies:
        t1 = time.perf_counter()
        ms = mode_study()
        _dump(out / DATA / "mode_study.json", ms)
        _dump(out / DATA / "tolerance_study.json", tolerance_study())
        _dump(out / DATA / "printed_study.json", printed_study())
        say(f"studies: {time.perf_counter() - t1:.1f} s")
        header += "\n\nSensitivity to the number of modes: see `figures/data/mode_study.json` and notebook 06."
        t2 = time.perf_counter()
        manifest.update(axial_figures(out, only=only))
        _dump(out / "manifest.json", manifest)
        say(f"axial study (extension, MODEL.md 14): {time.perf_counter() - t2:.1f} s")
    (out / "claims.md").write_text(claims_markdown(claims, header))
    say(f"wrote {out / 'claims.md'}; total {time.perf_counter() - t0:.1f} s")
    return resB, claims
