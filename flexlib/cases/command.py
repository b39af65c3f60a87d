"""The command line of the multibody cases (``simulate`` and ``compare``).

``--case double-pendulum``, ``--case falling-beam`` or ``--case beam-on-slope``; the options are
those of the paper's cases plus the case's own, listed in ``python -m flexlib simulate --help``."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from . import CASES, get_case, simulate
from ..multibody.models import canonical

__all__ = ["is_system_case", "add_case_options", "simulate_command", "compare_command"]


def is_system_case(name) -> bool:
    return str(name).strip().lower().replace("_", "-") in CASES


def _all_options() -> dict:
    out = {}
    for name in CASES:
        for k, o in get_case(name).OPTIONS.items():
            out.setdefault(k, (o, []))[1].append(name)
    return out


def add_case_options(s, taken):
    """An option per case option not already an option of ``s`` (``taken``: their dest names)."""
    g = s.add_argument_group(f"parameters of the multibody cases ({', '.join(CASES)})")
    for k, (o, cases) in _all_options().items():
        if "p_" + k in taken:
            continue
        d = ",".join(f"{v:g}" for v in o.default) if o.kind == "list" else f"{o.default:.6g}"
        g.add_argument("--" + k.replace("_", "-"), dest="p_" + k, default=None,
                       metavar=k.upper(), help=f"{o.help}; [{o.lo:g}, {o.hi:g}] {o.unit}; "
                                               f"default {d} ({', '.join(cases)})")


def _params(a, case) -> dict:
    """The options given on the command line, for ``case``: its own and the shared parameters."""
    from ..params import RANGES, parse_value
    out = {}
    for k, v in vars(a).items():
        if not k.startswith("p_") or v is None:
            continue
        name = k[2:]
        if name in case.OPTIONS:
            out[name] = v
        elif name in RANGES:
            out[name] = parse_value(name, v)
        else:
            out[name] = v
    return out


def _run(a, case_name, model, t_end, params):
    from ..multibody.simulate import SystemSimulationError
    try:
        return simulate(case_name, model, t_end, **params), None
    except SystemSimulationError as err:
        return err.result, str(err)


def _inputs(a, case):
    """(t_end, sample times or None) of the command line, checked with the output step --dt by
    :func:`flexlib.params.check_run` before any run."""
    from ..params import check_run
    times = None
    if a.sample_times:
        times = [x.strip() for x in a.sample_times.split(",") if x.strip()]
        try:
            times = [float(x) for x in times]
        except ValueError:
            raise ValueError(f"parameter 'sample_times' = {a.sample_times!r} is invalid: expected "
                             f"a comma-separated list of times [s]") from None
    t_end, st, _ = check_run(case.T_END if a.t_end is None else a.t_end, times, a.dt)
    return t_end, (None if st is None else st.tolist())


def _export(a, res, suffix=""):
    import numpy as np
    times = None
    if a.dt is not None:
        times = np.arange(0.0, res.t_end + 0.5 * float(a.dt), float(a.dt))
        times = times[times <= res.t_end]
    name = (lambda p: p) if not suffix else (
        lambda p: str(Path(p).with_name(f"{Path(p).stem}_{suffix}{Path(p).suffix}")))
    if a.csv:
        res.to_csv(Path(name(a.csv)).expanduser(), times)
    if a.save:
        res.save(Path(name(a.save)).expanduser(), times)


def simulate_command(a) -> int:
    """``python -m flexlib simulate --case double-pendulum|falling-beam ...``."""
    case = get_case(a.case)
    model = canonical(case.DEFAULT_MODEL if a.model is None else a.model)
    t_end, times = _inputs(a, case)
    res, stopped = _run(a, a.case, model, t_end, _params(a, case))
    if stopped:
        sys.stderr.write(f"flexlib: simulation stopped: {stopped}\n")
    if res is None:
        return 3
    if not a.quiet:
        au = res.audit()
        print(f"flexlib  case {case.NAME}  model {model}  t = 0..{res.t_end:.4g} s  "
              f"({res.wall_time:.2f} s wall)  bodies {[b.name for b in res.system.bodies]}  "
              f"contact points {res.contact_names}")
        print(res.impacts_table() if res.impacts else "no impacts")
        print(f"energy: initial {au['E0']:.6f} J, final {au['E_end']:.6f} J, audit residual max "
              f"{au['max_residual']:.3g} J; jumps {len(res.log.jumps)}, mode selections "
              f"{res.log.n_selections} ({res.log.n_ambiguous} ambiguous)")
    if a.json:
        out = dict(case=case.NAME, model=model, **res.summary(times))
        Path(a.json).expanduser().write_text(json.dumps(out, indent=1))
    _export(a, res)
    return 3 if stopped else 0


def compare_command(a) -> int:
    """``python -m flexlib compare --case double-pendulum --models continuous,frictionless``."""
    case = get_case(a.case)
    models = list(dict.fromkeys(canonical(m) for m in a.models.split(",") if m.strip()))
    t_end, times = _inputs(a, case)
    params = _params(a, case)
    runs, status = {}, 0
    for m in models:
        res, stopped = _run(a, a.case, m, t_end, params)
        if stopped:
            sys.stderr.write(f"flexlib: {m}: simulation stopped: {stopped}\n")
            status = 3
        runs[m] = res
        if res is not None:
            _export(a, res, suffix=m)
    if not a.quiet:
        for m, r in runs.items():
            if r is None:
                print(f"{m}: no result")
                continue
            au = r.audit()
            first = r.impacts[0] if r.impacts else None
            at = f"{first['t_start']:.6f} s ({first['contact']})" if first else "-"
            print(f"{m:<20} impacts {len(r.impacts):>4}  first at {at:<22} "
                  f"final E {au['E_end']:.6f} J  audit {au['max_residual']:.2g} J  "
                  f"{r.wall_time:.2f} s wall")
    if a.json:
        out = dict(case=case.NAME, t_end=t_end, models=models,
                   results={m: (r.summary(times) if r is not None else None)
                            for m, r in runs.items()})
        Path(a.json).expanduser().write_text(json.dumps(out, indent=1))
    return status

