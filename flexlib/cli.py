"""Command line: ``python -m flexlib simulate | sweep | figures | notebooks``.

User errors (unknown case or model, a parameter out of range) print one line and exit 2;
a run that stops with :class:`~flexlib.simulate.SimulationError` prints one line, still writes
the partial JSON when ``--json`` is given, and exits 3.  No traceback is shown for either.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import fields
from pathlib import Path

from .params import (RANGES, BeamParams, CoulombParams, LuGreParams, SlopeParams, SolverSettings,
                     _range_text)

_PARAM_CLASSES = (BeamParams, SlopeParams, CoulombParams, LuGreParams, SolverSettings)
_PARAM_NAMES = [f.name for c in _PARAM_CLASSES for f in fields(c)]


class _Parser(argparse.ArgumentParser):
    def error(self, message):          # one line, exit 2, no usage dump
        sys.stderr.write(f"flexlib: error: {message}\n")
        raise SystemExit(2)


def _param_value(name, text):
    kind = RANGES[name][4]
    if kind == "bool":
        low = text.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"parameter {name!r} = {text!r} is invalid: valid range is True or False")
    if isinstance(kind, tuple):
        return text
    try:
        return float(text) if kind == "float" else int(float(text)) if float(text).is_integer() else float(text)
    except ValueError:
        raise ValueError(f"parameter {name!r} = {text!r} is not a number: valid range is "
                         f"{_range_text(name)}") from None


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m flexlib", description="flexlib: oblique frictional impact of a "
                "rotating flexible beam on a rigid slope (Fan et al. 2021).")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    s = sub.add_parser("simulate", help="run one model on one case and print its impacts")
    s.add_argument("--case", default="3.2", help="paper case: 3.1 (A) or 3.2 (B); default 3.2")
    s.add_argument("--model", default="frictionless",
                   help="free, frictionless, hybrid_coulomb, hybrid_lugre or lugre (hyphens accepted)")
    s.add_argument("--t-end", default="2.0", help="end time [s], default 2")
    s.add_argument("--sample-times", default=None, help="comma-separated times [s] to sample theta, theta', tip Y")
    s.add_argument("--json", default=None, help="write the JSON summary to this file")
    s.add_argument("--save", default=None, help="write the full histories to this .npz file")
    s.add_argument("--quiet", action="store_true", help="do not print the impacts table")
    for name in _PARAM_NAMES:
        lo, hi, _a, _b, kind, unit = RANGES[name]
        s.add_argument("--" + name.replace("_", "-"), dest="p_" + name, default=None,
                       help=f"{name} [{unit}]")
    _add_sweep_parser(sub)
    f = sub.add_parser("figures", help="regenerate every figure, claims.md and the cached studies")
    f.add_argument("--out", default="figures", help="output folder (default figures/)")
    f.add_argument("--only", default=None, help="comma-separated figure names (default: all)")
    f.add_argument("--no-studies", action="store_true",
                   help="skip the expensive studies (mode table, printed multipliers, tolerance, axial modes)")
    n = sub.add_parser("notebooks", help="re-execute every notebook in notebooks/ in place")
    n.add_argument("paths", nargs="*", help="notebooks (default: notebooks/*.ipynb)")
    return p


def _cmd_simulate(a) -> int:
    from .simulate import SimulationError, canonical_model, simulate
    from .params import paper_case
    overrides = {}
    for name in _PARAM_NAMES:
        v = getattr(a, "p_" + name)
        if v is not None:
            overrides[name] = _param_value(name, v)
    sample_times = None
    if a.sample_times:
        try:
            sample_times = [float(x) for x in a.sample_times.split(",") if x.strip()]
        except ValueError:
            raise ValueError(f"--sample-times {a.sample_times!r} is not a comma-separated list of times") from None
    for opt, path in (("--json", a.json), ("--save", a.save)):
        if path and not Path(path).expanduser().resolve().parent.is_dir():
            raise ValueError(f"{opt} {path!r}: the directory {str(Path(path).parent)!r} does not exist")
    case = paper_case(a.case)
    model = canonical_model(a.model)
    try:
        t_end = float(a.t_end)
    except ValueError:
        raise ValueError(f"parameter 't_end' = {a.t_end!r} is not a number: valid range is "
                         "(0, 1000] s") from None
    if sample_times is not None and any(not (0.0 <= x <= t_end) for x in sample_times):
        raise ValueError(f"--sample-times must lie in [0, t_end = {t_end:g}] s")
    code = 0
    try:
        res = simulate(case, model, t_end, **overrides)
    except SimulationError as err:
        res = err.result
        sys.stderr.write(f"flexlib: simulation stopped: {err}\n")
        code = 3
    if not a.quiet and res is not None:
        fc = res.first_contact
        print(f"flexlib {res.version}  case {res.case.name}  model {res.model}  "
              f"t = 0..{res.t[-1]:.4g} s  ({res.stats['wall_time_s']:.2f} s wall)")
        if fc:
            print(f"first contact: t = {fc['t']:.6f} s, theta = {fc['theta']:.6f} rad, "
                  f"tip deflection = {fc['tip_deflection'] * 1e3:.4f} mm")
        print(res.impacts_table() if res.impacts else "no impacts")
        print(f"energy: initial {res.E0:.6f} J, final {res.h['E'][-1]:.6f} J, "
              f"audit residual max {res.audit_residual_max:.3g} J")
        for w in res.warnings:
            print("warning: " + w)
    try:
        if res is not None and a.json:
            Path(a.json).expanduser().write_text(json.dumps(res.summary(sample_times), indent=1))
        if res is not None and a.save:
            res.save(Path(a.save).expanduser())
    except OSError as err:
        raise ValueError(f"cannot write {err.filename or a.json or a.save!r}: {err.strerror or err}") from None
    return code


def _add_sweep_parser(sub):
    w = sub.add_parser("sweep", help="run models over a grid of parameters (in parallel) and save a netCDF file",
                       description="Run every model at every point of the product of the --grid "
                       "values and write the metrics (per-impact times, peak forces, energy lost, "
                       "stick time, status, ...) as an xarray Dataset to a netCDF file.")
    w.add_argument("--case", default="3.2", help="paper case: 3.1 (A) or 3.2 (B); default 3.2")
    w.add_argument("--model", action="append", default=None,
                   help="model(s), repeated or comma-separated: frictionless, hybrid_coulomb, "
                        "hybrid_lugre, lugre; default lugre")
    w.add_argument("--grid", action="append", default=[], metavar="NAME=VALUES",
                   help="a swept parameter: NAME=start:stop:num (linear), NAME=start:stop:num:log, "
                        "or NAME=v1,v2,...; repeat for more dimensions")
    w.add_argument("--t-end", default="2.0", help="end time of every run [s], default 2")
    w.add_argument("--out", required=True, help="netCDF file to write (.nc)")
    w.add_argument("--table", default=None, help="also write a table with one row per point (.csv or .parquet)")
    w.add_argument("--engine", default=None, choices=("serial", "local", "dask"),
                   help="local: a process per core (default); dask: a Dask cluster (default with --scheduler)")
    w.add_argument("--scheduler", default=None, help="address of a Dask scheduler, e.g. tcp://host:8786")
    w.add_argument("--workers", default=None, help="number of worker processes (local engine, or a "
                                                   "local Dask cluster); default: one per core")
    w.add_argument("--cache-dir", default=None, help="store finished points here; a rerun computes only the missing ones")
    w.add_argument("--impacts", default="3", help="per-impact metrics for the first N impacts, default 3")
    w.add_argument("--no-progress", action="store_true", help="no progress bar")
    for name in _PARAM_NAMES:
        w.add_argument("--" + name.replace("_", "-"), dest="p_" + name, default=None, metavar="VALUE",
                       help=f"fixed {name} [{RANGES[name][5]}]")


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
    from .sweep import parse_grid_values, sweep, sweep_table
    overrides = {name: _param_value(name, getattr(a, "p_" + name)) for name in _PARAM_NAMES
                 if getattr(a, "p_" + name) is not None}
    case = paper_case(a.case).with_(**overrides)
    grid = {}
    for item in a.grid:
        name, sep, values = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise ValueError(f"--grid {item!r}: expected NAME=start:stop:num[:log] or NAME=v1,v2,...")
        if name in grid:
            raise ValueError(f"--grid {name} is given twice")
        grid[name] = parse_grid_values(name, values)
    models = [m for text in (a.model or ["lugre"]) for m in text.split(",") if m.strip()]
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
        if path and not Path(path).expanduser().resolve().parent.is_dir():
            raise ValueError(f"{opt} {path!r}: the directory {str(Path(path).parent)!r} does not exist")
    if a.table and Path(a.table).suffix.lower() not in (".csv", ".parquet"):
        raise ValueError(f"--table {a.table!r}: use a .csv or .parquet name")
    ds = sweep(case, models, grid, t_end=t_end, engine=engine, scheduler=a.scheduler, workers=workers,
               cache_dir=a.cache_dir, impacts=impacts, progress=not a.no_progress)
    try:
        ds.to_netcdf(out, engine="h5netcdf")
        if a.table:
            sweep_table(ds, a.table)
    except OSError as err:
        raise ValueError(f"cannot write {err.filename or a.out!r}: {err.strerror or err}") from None
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


def main(argv=None) -> int:
    parser = build_parser()
    try:
        a = parser.parse_args(argv)
        if a.command == "simulate":
            return _cmd_simulate(a)
        if a.command == "sweep":
            return _cmd_sweep(a)
        if a.command == "figures":
            from .figures import make_all
            make_all(a.out, only=a.only.split(",") if a.only else None, studies=not a.no_studies)
            return 0
        if a.command == "notebooks":
            from .notebooks import execute_all
            return execute_all(a.paths or None)
    except ValueError as err:
        sys.stderr.write(f"flexlib: error: {err}\n")
        return 2
    return 0
