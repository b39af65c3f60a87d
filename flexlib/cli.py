"""Command line: ``python -m flexlib simulate | compare | sweep | modes | figures | notebooks``.

User errors (unknown case or model, a parameter out of range) print one line and exit 2;
a run that stops with :class:`~flexlib.paper.SimulationError` prints one line, still writes
the partial JSON (and CSV, .npz) when asked, and exits 3 (``compare`` runs the other models and
exits 3 if any stopped).  Outputs are whole or not at all (:mod:`flexlib.outputs`): a path that
cannot be written is refused before the run (exit 2), an output that fails after it leaves no
output of the command (exit 1).  No traceback is shown for any of them.  On a terminal, a run
longer than 2 s shows a progress line on stderr (not with ``--quiet``).
"""
from __future__ import annotations

import argparse
import difflib
import json
import math
import sys
import time
from dataclasses import fields
from pathlib import Path

from . import models
from .outputs import OutputError, Outputs, npz_path, write as write_output
from .cases.command import (add_case_options, canonical_for, compare_command, is_system_case,
                            refuse_inapplicable, simulate_command)
from .text import fixed, num
from .params import (DESCRIPTIONS, RANGES, BeamParams, CoulombParams, LuGreParams, SlopeParams,
                     SolverSettings, _range_text, check_number, paper_case, parse_value)

_PARAM_CLASSES = (BeamParams, SlopeParams, CoulombParams, LuGreParams, SolverSettings)
_PARAM_NAMES = [f.name for c in _PARAM_CLASSES for f in fields(c)]
_PARAM_GROUPS = ("beam, hinge and initial state", "slope and contact", "Coulomb friction levels",
                 "LuGre friction", "solver")
# A parameter's metavar is its name in capitals, except where two names differ only in case.
_METAVARS = {"E": "YOUNG_MODULUS", "e": "RESTITUTION", "method": "INTEGRATOR"}
# The option of a parameter is its name with hyphens, except the restitution coefficient e (beside
# Young's modulus E): one name per concept in every case.
_OPTION_NAMES = {"e": "restitution", "method": "integrator"}
# the spellings of earlier versions, for the hint of the unknown-option error (not accepted)
_RENAMED = {"--e": "--restitution", "--stop-stiffness": "--contact-stiffness",
            "--stop-exponent": "--contact-exponent", "--ground-stiffness": "--contact-stiffness",
            "--ground-exponent": "--contact-exponent", "--method": "--integrator"}
_CASES_TEXT = ("3.1 (or A), 3.2 (or B), double-pendulum, falling-beam, beam-on-slope")
_MODEL_HELP = {m: spec.description for m, spec in models.REGISTRY.items()}
_DEFAULT_MODEL = "frictionless"
_COMPARE_MODELS = ",".join(models.CONTACT_MODELS)


class _Parser(argparse.ArgumentParser):
    def error(self, message):          # one line, exit 2, no usage dump
        sys.stderr.write(f"flexlib: error: {message}\n")
        raise SystemExit(2)


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Help texts wrapped, descriptions and the models table kept as written."""

    def __init__(self, prog):
        super().__init__(prog, max_help_position=30)


def _value_text(v, unit="") -> str:
    """A default as the help shows it: 0.4, 1e-08, 0.5 m; an angle that is a fraction of pi
    says so (0.785398 rad (pi/4))."""
    text = f"{v:.6g}{unit}" if isinstance(v, float) else f"{v}{unit}"
    if unit == " rad" and v:
        k = next((k for k in range(1, 13) if abs(v * k / math.pi - round(v * k / math.pi)) < 1e-12), None)
        if k is not None:
            n = round(v * k / math.pi)
            text += f" ({'' if n == 1 else n}pi/{k})"
    return text


def _param_help(name: str, defaults: dict, defaults_31: dict) -> str:
    """``description; range; default value [(case 3.1: value)]``, from the parameters' tables."""
    unit = RANGES[name][5]
    unit = "" if unit.startswith("-") else " " + unit
    default = f"default {_value_text(defaults[name], unit)}"
    if defaults_31[name] != defaults[name]:
        default += f" (case 3.1: {_value_text(defaults_31[name], unit)})"
    return f"{DESCRIPTIONS[name]}; {_range_text(name)}; {default}"


def _flat_params(case) -> dict:
    return {k: v for g in case.as_dict().values() if isinstance(g, dict) for k, v in g.items()}


def _add_run_options(s, *, compare: bool):
    """The options that ``simulate`` and ``compare`` share: case, t_end, outputs, parameters."""
    s.add_argument("--case", default="3.2", metavar="CASE",
                   help="case of the paper's section 3: 3.1 (or A; comparison with the literature) "
                        "or 3.2 (or B; the main study); or a multibody case: double-pendulum (a "
                        "flexible double pendulum striking a stop), falling-beam (a free beam "
                        "dropped on the ground, several contact points), beam-on-slope (case 3.2 "
                        "run by the multibody solver); default 3.2")
    s.add_argument("--t-end", default=None, metavar="T_END",
                   help="end time; (0, 1000] s; default 2 s (double-pendulum 1.5 s, falling-beam 1 s, "
                        "beam-on-slope 0.75 s)")
    s.add_argument("--sample-times", default=None, metavar="TIMES",
                   help="comma-separated times [s] at which the JSON summary samples every "
                        "body's motion (and, for cases 3.1/3.2, theta, theta' and the tip's Y); "
                        "[0, t_end] s; default: 11 times over the run")
    per_model = " one file per model, the model's name added to PATH (out.csv -> out_lugre.csv);" \
        if compare else ""
    s.add_argument("--json", default=None, metavar="JSON_PATH",
                   help=("write one JSON file with every model's summary under 'results';" if compare
                         else "write the JSON summary (impacts, energies, parameters) to this file;")
                   + " default: not written")
    s.add_argument("--csv", default=None, metavar="CSV_PATH",
                   help="write the full time histories as a table, one row per sample, units in the "
                        f"header;{per_model} default: not written")
    s.add_argument("--save", default=None, metavar="NPZ_PATH",
                   help="write the full histories and tables to this .npz file (layout in the "
                        f"README);{per_model} default: not written")
    s.add_argument("--dt", default=None, metavar="DT",
                   help="write the --csv/--save histories on the uniform grid 0, DT, 2 DT, ... "
                        "[s], read from the integrator's interpolant; (0, t_end] s; default: the "
                        "integrator's steps plus every 10 us in contact")
    s.add_argument("--quiet", action="store_true",
                   help="print neither the impacts nor the progress line; default: off")
    _add_param_options(s)
    add_case_options(s, {"p_" + n for n in _PARAM_NAMES})


def _add_param_options(s):
    """One option per parameter, in the parameters' groups, with description, range and default."""
    defaults, defaults_31 = _flat_params(paper_case("3.2")), _flat_params(paper_case("3.1"))
    for title, cls in zip(_PARAM_GROUPS, _PARAM_CLASSES):
        g = s.add_argument_group(f"parameters: {title} (default: the case's value)")
        for f in fields(cls):
            name = f.name
            g.add_argument("--" + _OPTION_NAMES.get(name, name).replace("_", "-"),
                           dest="p_" + name, default=None,
                           metavar=_METAVARS.get(name, name.upper()),
                           help=_param_help(name, defaults, defaults_31))


def _add_run_command(sub, name, model_option, model_default, *, summary, description):
    """A subcommand that runs models: its model option, the shared options, the models table."""
    metavar = model_option.lstrip("-").upper()
    s = sub.add_parser(
        name, help=summary, description=description, formatter_class=_Formatter, allow_abbrev=False,
        usage=f"python -m flexlib {name} [--case CASE] [{model_option} {metavar}] [--t-end T_END] "
              "[options]",
        epilog="models:\n" + "\n".join(f"  {m:<15} {t}" for m, t in _MODEL_HELP.items()))
    several = "comma-separated, from " if name == "compare" else ""
    s.add_argument(model_option, default=None, metavar=metavar,
                   help=f"{several}{', '.join(_MODEL_HELP)} (listed below; hyphens accepted); "
                        f"default {model_default}; the multibody cases also take 'continuous' (a "
                        f"frictionless penalty contact) and default to their own model "
                        f"(double-pendulum: continuous, falling-beam and beam-on-slope: hybrid_coulomb)")
    _add_run_options(s, compare=name == "compare")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m flexlib", description="flexlib: oblique frictional impact of a "
                "rotating flexible beam on a rigid slope (Fan et al. 2021), and of flexible "
                f"multibody systems.  Cases (--case): {_CASES_TEXT}.",
                epilog="'python -m flexlib COMMAND --help' lists every option of a command with "
                       "its default.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p.commands = sub.choices            # name -> the command's parser (for the unknown options)
    _add_run_command(
        sub, "simulate", "--model", _DEFAULT_MODEL,
        summary="run one model on one case and print its impacts",
        description="Run one model on one case of the paper and print its impacts (clusters of "
                    "contact episodes)\nand its energy audit.  Every parameter is an option; one "
                    "not given keeps the case's value.")
    _add_run_command(
        sub, "compare", "--models", _COMPARE_MODELS,
        summary="run several models on one case and print their impacts side by side",
        description="Run several models in turn on one case, with the same parameters, and print "
                    "each impact's start\ntime, duration, peak normal force and energy lost per "
                    "model, then each run's final energy,\naudit residual, wall time and status.  "
                    "A model that stops is reported and the others still run\n(exit 3 if any "
                    "stopped).")
    _add_sweep_parser(sub)
    _add_modes_parser(sub)
    f = sub.add_parser("figures", help="regenerate every figure, claims.md and the cached studies",
                       formatter_class=_Formatter)
    f.add_argument("--out", default="figures", metavar="DIR", help="output folder; default figures")
    f.add_argument("--only", default=None, metavar="NAMES",
                   help="comma-separated figure names; default: all")
    f.add_argument("--no-studies", action="store_true",
                   help="skip the expensive studies (mode table, tolerance, "
                        "axial modes); default: off (the studies run)")
    n = sub.add_parser("notebooks", help="re-execute every notebook in notebooks/ in place",
                       formatter_class=_Formatter,
                       description="Re-execute notebooks in place, each in a fresh kernel of its "
                                   "own, and store them\nwithout widget state.  A notebook whose "
                                   "cell fails, runs past --timeout or kills\nits kernel is left "
                                   "as it was and reported in one line (its name and the\ncell); "
                                   "the others still run, and the command then exits 1.")
    n.add_argument("paths", nargs="*", metavar="NOTEBOOK",
                   help="notebooks to execute; default: every notebooks/*.ipynb")
    n.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS",
                   help="time limit of each cell; a cell that runs longer is interrupted and its "
                        "notebook reported as failed; default 600")
    n.add_argument("--kernel", default=None, metavar="NAME",
                   help="Jupyter kernel to run them on; default: 'flexlib' (installed into this "
                        "environment if missing), else 'python3'")
    return p


class _Progress:
    """``progress(t, t_end)`` for :func:`flexlib.paper.simulate`: a line on ``stream``,
    ``\\r  t = 1.234 / 2.000 s  ( 62 %)  3.1 s``, rewritten at most every ``every`` s of wall
    time and not before ``after`` s have passed; :meth:`close` clears it."""

    def __init__(self, stream, label="", *, after=2.0, every=0.2, clock=time.perf_counter):
        self.stream, self.label, self.every, self.clock = stream, label, every, clock
        self.start = clock()
        self.next = self.start + after
        self.width = 0

    def __call__(self, t, t_end):
        now = self.clock()
        if now < self.next:
            return
        self.next = now + self.every
        line = (f"  {self.label}t = {t:.3f} / {t_end:.3f} s  ({100.0 * t / t_end:3.0f} %)  "
                f"{now - self.start:.1f} s")
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = max(self.width, len(line))

    def close(self):
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()


def _progress_for(a, label=""):
    """A progress line for a terminal, or None (``--quiet``, or stderr is a file or a pipe)."""
    if a.quiet or not sys.stderr.isatty():
        return None
    return _Progress(sys.stderr, label)


def _check_case(name):
    """The case name as given, if it names a case; else a ValueError listing every case."""
    from .params import CASE_NAMES
    if str(name).strip() not in CASE_NAMES and not is_system_case(name):
        raise ValueError(f"parameter 'case' = {name!r} is invalid: valid range is one of "
                         f"{_CASES_TEXT}")
    return name


def _number(name, text, lo, hi, unit, *, lo_open=True):
    """``text`` as a float in (lo, hi] (or [lo, hi]); else a ValueError naming ``name``, the
    value and the range (nan and non-numbers are refused)."""
    valid = f"{'(' if lo_open else '['}{lo:g}, {hi:g}] {unit}".rstrip()
    x = check_number(name, text, valid)
    if not ((lo < x if lo_open else lo <= x) and x <= hi):
        raise ValueError(f"parameter {name!r} = {text!r} is invalid: valid range is {valid}")
    return x


def _run_inputs(a):
    """The validated inputs shared by simulate and compare, for every case: (case, overrides,
    t_end, sample_times); ``case`` is None for a multibody case (its options are checked when
    its system is built)."""
    _check_case(a.case)
    system = is_system_case(a.case)
    overrides = {}
    for name in _PARAM_NAMES:
        v = getattr(a, "p_" + name)
        if v is not None:
            overrides[name] = parse_value(name, v)
    for opt, path in (("--json", a.json), ("--save", a.save and npz_path(a.save)), ("--csv", a.csv)):
        if path:
            Outputs.check(opt, path)
    if system:
        from .cases import get_case
        default = get_case(a.case).T_END
    else:
        default = 2.0
    t_end = _number("t_end", a.t_end if a.t_end is not None else default, 0.0, 1000.0, "s")
    sample_times = None
    if a.sample_times:
        texts = [x for x in a.sample_times.split(",") if x.strip()]
        sample_times = [_number("sample_times", x, 0.0, t_end, "s (0 <= t <= t_end)", lo_open=False)
                        for x in texts]
        if not sample_times:
            raise ValueError(f"parameter 'sample_times' = {a.sample_times!r} names no time: valid "
                             f"range is a comma-separated list of times in [0, {t_end:g}] s")
    if a.dt is not None:
        _number("dt", a.dt, 0.0, t_end, "s (0 < dt <= t_end)")
    # the values first (a bad value is named with its range even if the option does not apply)
    case = None if system else paper_case(a.case).with_(**overrides)
    return case, overrides, t_end, sample_times


def _run(case, model, t_end, overrides, sample_times, progress):
    """One run: (result, stop message or None); a stopped run's result is the partial one."""
    from .paper import SimulationError, simulate
    try:
        return simulate(case, model, t_end, sample_times=sample_times, progress=progress,
                        **overrides), None
    except SimulationError as err:
        return err.result, str(err)
    finally:
        if progress is not None:
            progress.close()


def _write(what, path, write):
    """Write ``path`` with ``write(tmp)`` in the open set of outputs (:mod:`flexlib.outputs`):
    it appears only when every output of the command is written."""
    write_output(path, write, what)


def _per_model(path, model):
    """``out.csv`` -> ``out_lugre.csv``: compare's one file per model."""
    p = Path(path)
    return str(p.with_name(f"{p.stem}_{model}{p.suffix}"))


def _cmd_simulate(a) -> int:
    from .models import canonical_model
    case, overrides, t_end, sample_times = _run_inputs(a)
    if case is None:
        with Outputs():
            return simulate_command(a, t_end)
    model = canonical_model(_DEFAULT_MODEL if a.model is None else a.model)
    refuse_inapplicable(a, case.name, [model])
    with Outputs():
        return _simulate_and_write(a, case, model, t_end, overrides, sample_times)


def _simulate_and_write(a, case, model, t_end, overrides, sample_times) -> int:
    res, stopped = _run(case, model, t_end, overrides, sample_times, _progress_for(a))
    if stopped:
        sys.stderr.write(f"flexlib: simulation stopped: {stopped}\n")
    if not a.quiet and res is not None:
        fc = res.first_contact
        print(f"flexlib {res.version}  case {res.case.name}  model {res.model}  "
              f"t = 0..{res.t_end:.4g} s  ({res.stats['wall_time_s']:.2f} s wall)")
        if fc:
            print(f"first contact: t = {fc['t']:.6f} s, theta = {fc['theta']:.6f} rad, "
                  f"tip deflection = {fc['tip_deflection'] * 1e3:.4f} mm")
        print(res.impacts_table() if res.impacts else "no impacts")
        print(f"energy: initial {fixed(res.E0, 6, 'J')}, final {fixed(res.E_final, 6, 'J')}, "
              f"audit residual max {num(res.audit_residual_max, 3, 'J')}")
        for w in res.warnings:
            print("warning: " + w)
    if res is not None:
        _write_outputs(a, res, sample_times)
    return 3 if stopped else 0


def _write_outputs(a, res, sample_times, model=None):
    """--json (simulate only), --csv and --save; ``model`` names compare's per-model files."""
    name = (lambda path: path) if model is None else (lambda path: _per_model(path, model))
    if a.json and model is None:
        _write("--json", a.json, lambda p: p.write_text(json.dumps(res.summary(sample_times), indent=1)))
    times = None
    if a.dt is not None:
        import numpy as np
        times = np.arange(0.0, res.t_end + 0.5 * float(a.dt), float(a.dt))
        times = times[times <= res.t_end]
    if a.csv:
        _write("--csv", name(a.csv), lambda p: res.to_csv(p, times))
    if a.save:
        _write("--save", name(str(npz_path(a.save))), lambda p: res.save(p, times))


def _cmd_compare(a) -> int:
    from .models import canonical_model
    case, overrides, t_end, sample_times = _run_inputs(a)
    if case is None:
        a.models = "continuous,frictionless,hybrid_coulomb" if a.models is None else a.models
        with Outputs():
            return compare_command(a, t_end)
    a.models = _COMPARE_MODELS if a.models is None else a.models
    models = list(dict.fromkeys(canonical_model(m) for m in a.models.split(",") if m.strip()))
    if not models:
        raise ValueError(f"--models {a.models!r} names no model; valid models: {', '.join(_MODEL_HELP)}")
    refuse_inapplicable(a, case.name, models)
    case = case.with_(**overrides)          # a bad parameter is refused before any run
    with Outputs():
        return _compare_and_write(a, case, models, t_end, sample_times)


def _compare_and_write(a, case, models, t_end, sample_times) -> int:
    runs = {}
    for m in models:
        res, stopped = _run(case, m, t_end, {}, sample_times, _progress_for(a, f"{m}: "))
        if stopped:
            sys.stderr.write(f"flexlib: simulation stopped: {stopped}\n")
        runs[m] = res
        if res is not None:
            _write_outputs(a, res, sample_times, model=m)
    if not a.quiet:
        print(compare_table(runs, case_name=case.name, t_end=t_end))
    if a.json:
        out = lambda: dict(case=case.name, t_end=t_end, models=models,
                           results={m: (r.summary(sample_times) if r is not None else None)
                                    for m, r in runs.items()})
        _write("--json", a.json, lambda p: p.write_text(json.dumps(out(), indent=1)))
    return 3 if any(r is None or not r.success for r in runs.values()) else 0


def compare_table(runs: dict, *, case_name: str = "", t_end: float | None = None) -> str:
    """The impacts of several runs ({model: SimulationResult or None}) side by side: impact k of
    every model on consecutive lines, then one line per run (end time, final energy, audit
    residual, wall time, status)."""
    from . import __version__
    w = max(12, *(len(m) for m in runs))
    head = f"flexlib {__version__}  case {case_name}  models {', '.join(runs)}"
    if t_end is not None:
        head += f"  t_end = {t_end:g} s"
    rows = [head, "impacts (E lost: energy before the impact minus energy after it):",
            f"{'#':>3}  {'model':<{w}} {'t_start [s]':>11} {'dur [ms]':>9} {'peak N [N]':>11} "
            f"{'E lost [J]':>11}"]
    n = max((len(r.impacts) for r in runs.values() if r is not None), default=0)
    for k in range(n):
        for i, (m, r) in enumerate(runs.items()):
            num = f"{k + 1:>3}" if i == 0 else "   "
            im = r.impacts[k] if r is not None and k < len(r.impacts) else None
            if im is None:
                rows.append(f"{num}  {m:<{w}} {'-':>11}")
                continue
            rows.append(f"{num}  {m:<{w}} {im['t_start']:>11.6f} {1e3 * im['duration']:>9.3f} "
                        f"{im['peak_normal_force']:>11.4g} {im['energy_lost']:>11.4g}")
    if n == 0:
        rows.append("   no impacts")
    rows += ["runs:", f"     {'model':<{w}} {'t reached [s]':>13}  {'impacts':>7}  {'final E [J]':>11}  "
                      f"{'audit max [J]':>13}  {'wall [s]':>8}  status"]
    for m, r in runs.items():
        if r is None:
            rows.append(f"     {m:<{w}} {'-':>13}  status: stopped before any result")
            continue
        status = "ok" if r.success else f"stopped: {r.message}"
        rows.append(f"     {m:<{w}} {r.t_end:>13.6g}  {len(r.impacts):>7d}  {r.E_final:>11.6f}  "
                    f"{r.audit_residual_max:>13.3g}  {r.stats['wall_time_s']:>8.2f}  {status}")
    return "\n".join(rows)


def _add_sweep_parser(sub):
    w = sub.add_parser("sweep", help="run models over a grid of parameters (in parallel) and save a netCDF file",
                       formatter_class=_Formatter, allow_abbrev=False,
                       usage="python -m flexlib sweep [--model MODEL] --grid NAME=VALUES --out NC_PATH [options]",
                       epilog="models:\n" + "\n".join(f"  {m:<15} {t}" for m, t in _MODEL_HELP.items()),
                       description="Run every model at every point of the product of the --grid "
                       "values and write the metrics (per-impact times, peak forces, energy lost, "
                       "stick time, status, ...) as an xarray Dataset to a netCDF file.")
    w.add_argument("--case", default="3.2", metavar="CASE",
                   help="case of the paper's section 3: 3.1 (or A) or 3.2 (or B), or a multibody "
                        "case: double-pendulum, falling-beam, beam-on-slope; default 3.2")
    w.add_argument("--model", action="append", default=None, metavar="MODEL",
                   help=f"model(s), repeated or comma-separated: {', '.join(_MODEL_HELP)} "
                        "(listed below); default lugre (a multibody case: its own default)")
    w.add_argument("--grid", action="append", default=[], metavar="NAME=VALUES",
                   help="a swept parameter: NAME=start:stop:num (linear), NAME=start:stop:num:log, "
                        "or NAME=v1,v2,...; repeat for more dimensions; default: none (one point)")
    w.add_argument("--t-end", default=None, metavar="T_END",
                   help="end time of every run; (0, 1000] s; default 2 s (a multibody case: its own)")
    w.add_argument("--out", required=True, metavar="NC_PATH", help="netCDF file to write (.nc); required")
    w.add_argument("--table", default=None, metavar="TABLE_PATH",
                   help="also write a table with one row per point (.csv or .parquet); default: not written")
    w.add_argument("--engine", default=None, choices=("serial", "local", "dask"),
                   help="serial, local (a process per core) or dask (a Dask cluster); default local, "
                        "or dask with --scheduler")
    w.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="address of a Dask scheduler, e.g. tcp://host:8786; default: none")
    w.add_argument("--workers", default=None, metavar="N", help="number of worker processes (local engine, or a "
                                                   "local Dask cluster); default: one per core")
    w.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="store finished points here; a rerun computes only the missing ones; default: none")
    w.add_argument("--impacts", default="3", metavar="N",
                   help="per-impact metrics for the first N impacts; default 3")
    w.add_argument("--no-progress", action="store_true", help="no progress bar; default: off (a bar is shown)")
    _add_param_options(w)
    add_case_options(w, {"p_" + n for n in _PARAM_NAMES})


_BASIS_OPTIONS = ("basis", "n_modes", "elements", "local_length", "local_modes")


def _add_modes_parser(sub):
    m = sub.add_parser(
        "modes", help="print the beam's natural frequencies in its basis beside the exact ones",
        formatter_class=_Formatter,
        usage="python -m flexlib modes [--case CASE] [--basis BASIS] [--n-modes N_MODES] "
              "[--elements ELEMENTS] [--local-length LOCAL_LENGTH] [--local-modes LOCAL_MODES] "
              "[--json JSON_PATH]",
        description="Print the natural frequencies of the beam, root clamped and not rotating (the "
                    "generalized eigenvalues\nof the basis's stiffness and mass matrices), beside "
                    "the exact clamped-free cantilever values\nomega_i = lambda_i^2 sqrt(E I / "
                    "(rho S L^4)) and their relative errors.")
    m.add_argument("--case", default="3.2", metavar="CASE",
                   help="case of the paper's section 3 whose beam is used: 3.1 (or A) or 3.2 (or B); "
                        "default 3.2")
    m.add_argument("--json", default=None, metavar="JSON_PATH",
                   help="write the frequencies and the exact ones [rad/s] to this file; default: "
                        "not written")
    defaults, defaults_31 = _flat_params(paper_case("3.2")), _flat_params(paper_case("3.1"))
    g = m.add_argument_group("parameters: the basis (default: the case's value)")
    for name in _BASIS_OPTIONS:
        g.add_argument("--" + name.replace("_", "-"), dest="p_" + name, default=None,
                       metavar=name.upper(), help=_param_help(name, defaults, defaults_31))


def modes_table(beam) -> dict:
    """The natural frequencies of ``beam`` (a :class:`~flexlib.params.BeamParams`) in its basis,
    root clamped and not rotating, beside the exact clamped-free ones: a dict with ``basis``,
    ``coordinates``, ``frequencies`` and ``exact`` [rad/s] and ``relative_error``."""
    from .bodies.beam import BeamModel
    from .bodies.modes import cantilever_roots
    bm = BeamModel(beam)
    w = bm.natural_frequencies()
    exact = cantilever_roots(len(w)) ** 2 * math.sqrt(beam.E * beam.I / (beam.rho * beam.S * beam.L**4))
    return dict(basis=beam.basis, coordinates=int(bm.n), frequencies=[float(x) for x in w],
                exact=[float(x) for x in exact], relative_error=[float(x) for x in (w - exact) / exact])


def _cmd_modes(a) -> int:
    overrides = {name: parse_value(name, getattr(a, "p_" + name)) for name in _BASIS_OPTIONS
                 if getattr(a, "p_" + name) is not None}
    if a.json:
        Outputs.check("--json", a.json)
    case = paper_case(a.case).with_(**overrides)
    b = case.beam
    out = modes_table(b)
    what = {"modal": f"{b.n_modes} assumed modes",
            "fe": f"{b.elements} Hermite elements",
            "partition": f"{b.n_modes} far modes, local length {b.local_length:g} m, "
                         f"{b.elements} elements"
                         + (f" reduced to {b.local_modes} modes" if b.local_modes else "")}[b.basis]
    print(f"case {case.name}  basis {b.basis} ({what}): {out['coordinates']} coordinates, root "
          f"clamped, not rotating")
    print(f"{'i':>3}  {'omega [rad/s]':>14}  {'exact [rad/s]':>14}  {'rel. error':>11}")
    for i, (w, x, e) in enumerate(zip(out["frequencies"], out["exact"], out["relative_error"])):
        print(f"{i + 1:>3}  {w:>14.6f}  {x:>14.6f}  {e:>11.3e}")
    if a.json:
        out = dict(case=case.name, **out, parameters={k: getattr(b, k) for k in _BASIS_OPTIONS})
        _write("--json", a.json, lambda p: p.write_text(json.dumps(out, indent=1)))
    return 0


def _positive_int(option, text):
    try:
        v = int(text)
    except ValueError:
        raise ValueError(f"{option} {text!r} is not an integer >= 1") from None
    if v < 1:
        raise ValueError(f"{option} {text!r} is not an integer >= 1")
    return v


def _cmd_sweep(a) -> int:
    from .params import paper_case
    from .studies.sweep import parse_grid_values, sweep, sweep_table
    _check_case(a.case)
    overrides = {name: parse_value(name, getattr(a, "p_" + name)) for name in _PARAM_NAMES
                 if getattr(a, "p_" + name) is not None}
    if is_system_case(a.case):
        from .cases import SystemCase, get_case
        spec = get_case(a.case)
        own = {k[2:]: v for k, v in vars(a).items()
               if k.startswith("p_") and v is not None and k[2:] in spec.OPTIONS}
        case = SystemCase(spec.NAME).with_(**overrides, **own)
        a.model = a.model or [spec.DEFAULT_MODEL]
        a.t_end = a.t_end or str(spec.T_END)
    else:
        case = paper_case(a.case).with_(**overrides)
    a.t_end = a.t_end or "2.0"
    grid = {}
    for item in a.grid:
        name, sep, values = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise ValueError(f"--grid {item!r}: expected NAME=start:stop:num[:log] or NAME=v1,v2,...")
        if name in grid:
            raise ValueError(f"--grid {name} is given twice")
        grid[name] = parse_grid_values(name, values, case)
    models = [m for text in (a.model or ["lugre"]) for m in text.split(",") if m.strip()]
    refuse_inapplicable(a, case.name, [canonical_for(case.name, m) for m in models])
    try:
        t_end = float(a.t_end)
    except ValueError:
        raise ValueError(f"parameter 't_end' = {a.t_end!r} is not a number: valid range is "
                         "(0, 1000] s") from None
    workers = None if a.workers is None else _positive_int("--workers", a.workers)
    impacts = _positive_int("--impacts", a.impacts)
    engine = a.engine or ("dask" if a.scheduler else "local")
    out = Path(a.out).expanduser()
    for opt, path in (("--out", a.out), ("--table", a.table)):
        if path:
            Outputs.check(opt, path)
    if a.table and Path(a.table).suffix.lower() not in (".csv", ".parquet"):
        raise ValueError(f"--table {a.table!r}: use a .csv or .parquet name")
    ds = sweep(case, models, grid, t_end=t_end, engine=engine, scheduler=a.scheduler, workers=workers,
               cache_dir=a.cache_dir, impacts=impacts, progress=not a.no_progress)
    with Outputs():                     # the netCDF file and the table together, or neither
        _write("--out", out, lambda p: ds.to_netcdf(p, engine="h5netcdf"))
        if a.table:
            sweep_table(ds, a.table)
    st = ds["status"].values.ravel()
    n_ok = int((st == "ok").sum())
    stopped = int(sum(s.startswith("stopped") for s in st))
    print(f"flexlib sweep: {st.size} points ({ds.attrs['n_computed']} computed, "
          f"{ds.attrs['n_cached']} from the cache): {n_ok} ok, {stopped} stopped, "
          f"{st.size - n_ok - stopped} invalid or not run; wrote {a.out}")
    if ds.attrs["interrupted"]:
        sys.stderr.write("flexlib: sweep interrupted: the points that finished were written\n")
        return 130
    return 0


def _note_numerics():
    """Say so when NumPy and OpenBLAS do not run with the settings of flexlib/_numerics.py, with
    which the README, the figures and the notebooks were made: which variable is unset or set to
    another value, or that NumPy was loaded before the settings could apply, and what to do."""
    from . import _numerics
    why = _numerics.describe_unpinned()
    if why:
        sys.stderr.write(f"flexlib: note: {why}\n")


def _unknown_options(parser, command, extra):
    """Exit 2 naming the first unknown option of ``command`` and the nearest valid one."""
    import re
    valid = sorted(set(re.findall(r"--[A-Za-z0-9][\w-]*", parser.commands[command].format_help())))
    word = next((x for x in extra if x.startswith("-")), extra[0]).split("=")[0]
    near = difflib.get_close_matches(word, valid, n=1, cutoff=0.5)
    near = [_RENAMED[word]] if word in _RENAMED else near
    hint = (f"; did you mean {near[0]}?" if near else
            f"; 'python -m flexlib {command} --help' lists the options")
    what = "option" if word.startswith("-") else "argument"
    sys.stderr.write(f"flexlib: error: unknown {what} {word!r} of '{command}'{hint}\n")
    raise SystemExit(2)


def main(argv=None) -> int:
    parser = build_parser()
    try:
        a, extra = parser.parse_known_args(argv)
        if extra:
            _unknown_options(parser, a.command, extra)
        _note_numerics()
        if a.command == "simulate":
            return _cmd_simulate(a)
        if a.command == "compare":
            return _cmd_compare(a)
        if a.command == "sweep":
            return _cmd_sweep(a)
        if a.command == "modes":
            return _cmd_modes(a)
        if a.command == "figures":
            from .studies.figures import make_all
            make_all(a.out, only=a.only.split(",") if a.only else None, studies=not a.no_studies)
            return 0
        if a.command == "notebooks":
            from .notebooks import execute_all
            return execute_all(a.paths or None, timeout=a.timeout, kernel=a.kernel)
    except ValueError as err:
        sys.stderr.write(f"flexlib: error: {err}\n")
        return 2
    except OutputError as err:          # after the run: none of the outputs was written
        sys.stderr.write(f"flexlib: error: {err}; no output file was written\n")
        return 1
    except ModuleNotFoundError as err:
        extra = {"xarray": "studies", "pandas": "studies", "h5netcdf": "studies", "tqdm": "studies",
                 "dask": "dask", "distributed": "dask", "ipywidgets": "notebooks", "nbclient": "notebooks"}.get(err.name, "test")
        sys.stderr.write(f"flexlib: error: '{a.command}' needs the package {err.name!r}, which is "
                         f"not installed: pip install 'flexlib[{extra}]' (or run the README's "
                         f"set-up commands)\n")
        return 2
    return 0
