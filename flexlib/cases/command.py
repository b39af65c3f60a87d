"""The command line of the multibody cases (``simulate`` and ``compare``).

``--case double-pendulum``, ``--case falling-beam`` or ``--case beam-on-slope``; the options are
those of the paper's cases plus the case's own, listed in ``python -m flexlib simulate --help``."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from . import CASES, build, get_case, simulate
from ..multibody.models import canonical
from ..outputs import npz_path, write
from ..text import DASH, fixed, num

__all__ = ["is_system_case", "add_case_options", "simulate_command", "compare_command",
           "refuse_inapplicable", "canonical_for"]

# options that only the continuous (penalty) contact reads, and those only a constraint reads
_PENALTY_ONLY = ("contact_stiffness", "contact_exponent", "contact_damping", "contact_law")
_CONSTRAINT_ONLY = ("chi", "beta")
_COULOMB = ("mu_d", "mu_s", "Dv", "stick_limit", "v0", "v1")
_LUGRE = ("sigma0", "sigma1", "sigma2", "v_s")
# the solver settings a system case does not read (the paper's histories' sampling and checks)
_SYSTEM_UNUSED_SOLVER = ("multiplier_mode", "dense_dt", "interior_points")


def episodes_table(res) -> str:
    """The contact episodes of a system run as a text table, one line per point and episode.

    An episode that is a velocity jump alone (an impulse, no finite force) shows "–" as its peak
    force, with a note under the table; small values keep their significant digits."""
    rows = [f"{'#':>4} {'point':>6} {'t_start [s]':>12} {'dur [ms]':>9} {'v_n- [m/s]':>11} "
            f"{'I_N [N s]':>13} {'peak N [N]':>11} {'pen [µm]':>9}"]
    jumps_only = 0
    for k, r in enumerate(res.impacts, 1):
        peak = r["peak_normal_force"]
        jumps_only += peak == float("inf")
        rows.append(f"{k:>4} {r['contact']:>6} {r['t_start']:>12.6f} {fixed(1e3 * r['duration'], 3):>9} "
                    f"{num(r['v_n_minus'], 4):>11} {num(r['normal_impulse'], 5):>13} "
                    f"{DASH if peak == float('inf') else num(peak, 5):>11} "
                    f"{num(1e6 * r['max_penetration'], 3):>9}")
    if jumps_only:
        rows.append(f"peak N {DASH}: a velocity jump alone (an impulse; no finite force to give)")
    return "\n".join(rows)


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


def canonical_for(case_name, model) -> str:
    """The model's name as case ``case_name`` knows it (hyphens accepted), or a ValueError."""
    if is_system_case(case_name):
        return canonical(model)
    from ..models import canonical_model
    return canonical_model(model)


def _model_kind(case_name, model):
    """(method, friction) of ``model``: method "constraint", "penalty" or "none", friction
    "none", "coulomb" (also modified Coulomb) or "lugre"."""
    if is_system_case(case_name):
        from ..multibody.models import MODELS
        spec = MODELS[model]
        if spec is None:
            return "none", "none"
        return spec[0], {"modified_coulomb": "coulomb"}.get(spec[1], spec[1])
    from .. import models
    spec = models.REGISTRY[model]
    method = "none" if not spec.has_contact else ("penalty" if spec.is_penalty else "constraint")
    friction = "none" if not spec.has_friction else ("lugre" if "lugre" in model else "coulomb")
    return method, friction


def _default_law(case_name):
    if is_system_case(case_name):
        import inspect
        return inspect.signature(get_case(case_name).system).parameters["contact_law"].default
    from ..params import SlopeParams
    return SlopeParams().contact_law


def _why_not(name, case_name, model, given) -> str | None:
    """Why option ``name`` does not apply to case ``case_name`` with ``model`` (None: it does)."""
    from ..params import RANGES
    system = is_system_case(case_name)
    spec = get_case(case_name) if system else None
    own = {k for c in CASES for k in get_case(c).OPTIONS}
    if name in own and name not in RANGES and (not system or name not in spec.OPTIONS):
        where = [c for c in CASES if name in get_case(c).OPTIONS]
        return f"it is an option of case {' and '.join(where)}, not of case {case_name}"
    if system and name not in spec.OPTIONS and (name in getattr(spec, "UNUSED_PARAMS", ())
                                                  or name in _SYSTEM_UNUSED_SOLVER):
        return f"case {spec.NAME} does not use it"
    method, friction = _model_kind(case_name, model)
    if name in _PENALTY_ONLY and method != "penalty":
        return f"it applies to the continuous (penalty) models only, and {model} is a {method} model"
    if name in _CONSTRAINT_ONLY and method != "constraint":
        return f"it applies to the constraint models only, and {model} is a {method} model"
    if name in _COULOMB and friction == "none":
        return f"model {model} has no friction"
    if name in _LUGRE and friction != "lugre":
        return f"model {model} has no LuGre friction"
    law = given.get("contact_law", _default_law(case_name))
    if name == "contact_damping" and law != "kelvin_voigt":
        return f"it is the damping of the 'kelvin_voigt' law only, and the contact law is {law!r}"
    if name == "e" and method == "penalty" and law in ("hertz", "kelvin_voigt"):
        return (f"the {law!r} law of the continuous model {model} has no restitution (the "
                f"hysteresis laws 'hunt_crossley', 'lankarani_nikravesh' and 'flores' have)")
    return None


def refuse_inapplicable(a, case_name, models):
    """A ValueError naming the first option given in ``a`` that applies to none of ``models`` on
    case ``case_name`` (an option of another case, a setting of a contact law the models do
    not use, ...), with the reason."""
    given = {k[2:]: v for k, v in vars(a).items() if k.startswith("p_") and v is not None}
    for name in given:
        why = [_why_not(name, case_name, m, given) for m in models]
        if all(why):
            option = "--restitution" if name == "e" else "--" + name.replace("_", "-")
            raise ValueError(f"option {option} does not apply here: {why[0]}")


def _times(a, t_end):
    """The sample times of ``--sample-times`` (or None), checked with the output step ``--dt`` by
    :func:`flexlib.params.check_run` before any run."""
    from ..params import check_run
    times = None
    if a.sample_times:
        try:
            times = [float(x) for x in a.sample_times.split(",") if x.strip()]
        except ValueError:
            raise ValueError(f"parameter 'sample_times' = {a.sample_times!r} is invalid: expected "
                             f"a comma-separated list of times [s]") from None
    _, st, _ = check_run(t_end, times, a.dt)
    return None if st is None else st.tolist()


def _export(a, res, suffix=""):
    import numpy as np
    times = None
    if a.dt is not None:
        times = np.arange(0.0, res.t_end + 0.5 * float(a.dt), float(a.dt))
        times = times[times <= res.t_end]
    name = (lambda p: p) if not suffix else (
        lambda p: str(Path(p).with_name(f"{Path(p).stem}_{suffix}{Path(p).suffix}")))
    # into the command's open set of outputs (flexlib.outputs): all of them or none
    if a.csv:
        write(name(a.csv), lambda p: res.to_csv(p, times), "--csv")
    if a.save:
        write(name(str(npz_path(a.save))), lambda p: res.save(p, times), "--save")


def simulate_command(a, t_end) -> int:
    """``python -m flexlib simulate --case double-pendulum|falling-beam ...`` (``t_end`` [s]
    already checked)."""
    case = get_case(a.case)
    model = canonical(case.DEFAULT_MODEL if a.model is None else a.model)
    refuse_inapplicable(a, case.NAME, [model])
    build(case.NAME, model, **_params(a, case))         # every value checked before the run
    times = _times(a, t_end)
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
        print(episodes_table(res) if res.impacts else "no impacts")
        print(f"energy: initial {fixed(au['E0'], 6, 'J')}, final {fixed(au['E_end'], 6, 'J')}, audit "
              f"residual max {num(au['max_residual'], 3, 'J')}; jumps {len(res.log.jumps)}, mode selections "
              f"{res.log.n_selections} ({res.log.n_ambiguous} ambiguous)")
    if a.json:
        write(a.json, lambda p: p.write_text(json.dumps(res.summary(times), indent=1)), "--json")
    _export(a, res)
    return 3 if stopped else 0


def compare_command(a, t_end) -> int:
    """``python -m flexlib compare --case double-pendulum --models continuous,frictionless``."""
    case = get_case(a.case)
    models = list(dict.fromkeys(canonical(m) for m in a.models.split(",") if m.strip()))
    if not models:
        raise ValueError(f"parameter 'models' = {a.models!r} is invalid: valid is a comma-separated "
                         f"list of models of case {case.NAME}")
    params = _params(a, case)
    refuse_inapplicable(a, case.NAME, models)
    for m in models:
        build(case.NAME, m, **params)                   # every value checked before the runs
    times = _times(a, t_end)
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
                  f"final E {fixed(au['E_end'], 6, 'J')}  audit {num(au['max_residual'], 2, 'J')}  "
                  f"{r.wall_time:.2f} s wall")
    if a.json:
        out = lambda: dict(case=case.NAME, t_end=t_end, models=models,
                           results={m: (r.summary(times) if r is not None else None)
                                    for m, r in runs.items()})
        write(a.json, lambda p: p.write_text(json.dumps(out(), indent=1)), "--json")
    return status

