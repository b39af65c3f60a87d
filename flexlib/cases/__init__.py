"""The cases flexlib ships as systems, one module each, and how to build and run them by name.

A case is an :class:`Option` table, a default model and run time, the shared parameters it has
no use for (``UNUSED_PARAMS``, refused by the command line), and a function that builds its
:class:`~flexlib.multibody.system.System`.

Adding a case is writing one module like :mod:`flexlib.cases.double_pendulum` and listing it in
:data:`CASES`; nothing else in the library knows which case runs.  The paper's cases 3.1 and 3.2 are
the system of :mod:`flexlib.cases.beam_on_slope`, which :func:`flexlib.simulate` runs and reads as
the paper reports it; :func:`simulate` here reports a case as a system
(:class:`~flexlib.multibody.result.SystemResult`).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

__all__ = ["Option", "CASES", "get_case", "check_options", "SystemCase", "build", "simulate",
           "rerun"]

# the contact settings every case's system() takes (their defaults are the case's)
CONTACT_PARAMS = ("e", "v_zeno", "chi", "beta", "contact_law", "contact_damping")

CASES = {"double-pendulum": "flexlib.cases.double_pendulum",
         "falling-beam": "flexlib.cases.falling_beam",
         "beam-on-slope": "flexlib.cases.beam_on_slope"}


@dataclass(frozen=True)
class Option:
    """A case option: default, valid range [lo, hi] (``kind`` "float", "int" or "list"), unit, help."""
    default: object
    lo: float
    hi: float
    unit: str
    help: str
    kind: str = "float"

    def check(self, name, value):
        if self.kind == "list":
            try:
                vals = [float(v) for v in (value.split(",") if isinstance(value, str) else value)]
            except (TypeError, ValueError):
                vals = []           # not a list of numbers
            if not vals or not all(self.lo <= v <= self.hi for v in vals):
                raise ValueError(f"parameter {name!r} = {value!r} is invalid: valid range is a "
                                 f"non-empty list of values in [{self.lo:g}, {self.hi:g}] {self.unit}".rstrip())
            return tuple(vals)
        try:
            x = float(value)
        except (TypeError, ValueError):
            x = float("nan")
        if self.kind == "int" and x == x and x != int(x):
            x = float("nan")
        if not (self.lo <= x <= self.hi):
            raise ValueError(f"parameter {name!r} = {value!r} is invalid: valid range is "
                             f"[{self.lo:g}, {self.hi:g}] {self.unit}".rstrip())
        return int(x) if self.kind == "int" else x


def get_case(name: str):
    """The module of case ``name`` (``double-pendulum``, ``falling-beam``, ``beam-on-slope``)."""
    key = str(name).strip().lower().replace("_", "-")
    if key not in CASES:
        raise ValueError(f"parameter 'case' = {name!r} is invalid: valid range is one of "
                         + ", ".join(["3.1", "3.2", *CASES]))
    return importlib.import_module(CASES[key])


def check_options(case, options: dict) -> dict:
    """The case's options with ``options`` applied and checked (unknown names are an error)."""
    out = {k: o.default for k, o in case.OPTIONS.items()}
    for k, v in options.items():
        if k not in case.OPTIONS:
            raise ValueError(f"unknown option {k!r} of case {case.NAME!r}; valid options: "
                             + ", ".join(case.OPTIONS))
        out[k] = case.OPTIONS[k].check(k, v)
    return out


def split_params(case, params: dict) -> dict:
    """Route flat parameters to where they belong: the case's options, the beams
    (:class:`flexlib.params.BeamParams`), friction (``CoulombParams``, ``LuGreParams``), the
    solver (``SolverSettings``) and the contact settings (:data:`CONTACT_PARAMS`)."""
    from dataclasses import fields
    from ..params import BeamParams, CoulombParams, LuGreParams, SolverSettings, check_value
    groups = {"beam": BeamParams, "coulomb": CoulombParams, "lugre": LuGreParams,
              "solver": SolverSettings}
    out = {g: {} for g in groups}
    out["options"] = {}
    out["contact"] = {}
    for k, v in params.items():
        if k in case.OPTIONS:
            out["options"][k] = v
        elif k in CONTACT_PARAMS:
            out["contact"][k] = check_value(k, v)
        else:
            for g, cls in groups.items():
                if k in {f.name for f in fields(cls)}:
                    out[g][k] = v
                    break
            else:
                valid = sorted(set(case.OPTIONS) | set(CONTACT_PARAMS)
                               | {f.name for cls in groups.values() for f in fields(cls)})
                raise ValueError(f"unknown parameter {k!r} of case {case.NAME!r}; valid parameters: "
                                 + ", ".join(valid))
    return out


def build(case_name: str, model: str | None = None, **params):
    """(system, solver settings) of case ``case_name`` with ``model`` (default: the case's) and
    flat parameter changes (``n_modes=0``, ``mu_d=0.2``, ``contact_points=(0, 0.5, 1)``)."""
    from ..params import BeamParams, CoulombParams, LuGreParams, SolverSettings
    case = get_case(case_name)
    p = split_params(case, params)
    opts = check_options(case, p["options"])
    fr = dict(getattr(case, "DEFAULT_FRICTION", {}))
    fr.update(p["coulomb"])
    system = case.system(case.DEFAULT_MODEL if model is None else model, beam=BeamParams(**p["beam"]),
                         coulomb=CoulombParams(**fr), lugre=LuGreParams(**p["lugre"]),
                         **p["contact"], **opts)
    return system, SolverSettings(**p["solver"])


def simulate(case_name: str, model: str | None = None, t_end: float | None = None, **params):
    """Run case ``case_name`` (see :func:`build`) over [0, t_end] s (default: the case's run time);
    returns a :class:`flexlib.multibody.result.SystemResult`.  The beam parameters apply to every
    body, the basis among them (``basis="fe", elements=4``; see :func:`flexlib.paper.simulate`)."""
    from ..multibody.simulate import SystemSimulationError, SystemSimulator
    from ..params import check_run
    case = get_case(case_name)
    t_end, _, _ = check_run(case.T_END if t_end is None else t_end)
    system, solver = build(case_name, model, **params)
    inputs = resolved_params(case_name, model, **params)
    try:
        res = SystemSimulator(system, t_end, solver).run()
    except SystemSimulationError as err:
        if err.result is not None:
            err.result.inputs = inputs
            err.result.success, err.result.message = False, str(err)
        raise
    res.inputs = inputs
    return res


def resolved_params(case_name: str, model: str | None = None, **params) -> dict:
    """Every input of a run of case ``case_name`` at its value: ``case``, ``model``, the case's
    ``options``, the ``beam``, ``coulomb`` and ``lugre`` parameters every body and contact point
    shares, and the ``contact`` settings (:data:`CONTACT_PARAMS`); :func:`rerun` takes it back."""
    import inspect
    from dataclasses import asdict
    from ..multibody.models import canonical
    from ..params import BeamParams, CoulombParams, LuGreParams
    case = get_case(case_name)
    p = split_params(case, params)
    fr = dict(getattr(case, "DEFAULT_FRICTION", {}))
    fr.update(p["coulomb"])
    defaults = inspect.signature(case.system).parameters
    contact = {k: p["contact"].get(k, defaults[k].default) for k in CONTACT_PARAMS}
    opts = check_options(case, p["options"])
    return dict(case=case.NAME, model=canonical(model or case.DEFAULT_MODEL),
                options={k: list(v) if isinstance(v, tuple) else v for k, v in opts.items()},
                beam={k: v for k, v in asdict(BeamParams(**p["beam"])).items()
                      if k not in case.OPTIONS}, coulomb=asdict(CoulombParams(**fr)),
                lugre=asdict(LuGreParams(**p["lugre"])), contact=contact)


def rerun(params: dict):
    """Run again the run whose ``params`` (a result's :attr:`~flexlib.multibody.result.SystemResult.params`,
    or the ``params`` of its JSON summary) are given: the same system, solver settings and t_end."""
    flat = {}
    for group in ("beam", "coulomb", "lugre", "contact", "solver", "options"):
        flat.update(params.get(group, {}))
    return simulate(params["case"], params["model"], params["t_end"], **flat)


@dataclass(frozen=True)
class SystemCase:
    """A multibody case with parameter changes, shaped like :class:`flexlib.params.Case` where
    the parameter studies need it (``name``, ``with_``, ``as_dict``): what
    :func:`flexlib.studies.sweep.sweep` runs at each point."""
    name: str
    params: tuple = ()          # sorted (name, value) pairs

    def with_(self, **changes) -> "SystemCase":
        p = dict(self.params)
        p.update(changes)
        build(self.name, None, **p)                 # validates every value now
        return SystemCase(get_case(self.name).NAME, tuple(sorted(p.items())))

    def as_dict(self) -> dict:
        return {"case": self.name, **dict(self.params)}

    def simulate(self, model: str, t_end: float):
        return simulate(self.name, model, t_end, **dict(self.params))

    def check_value(self, name: str, value):
        """``value`` of parameter ``name`` validated (a case option or a shared parameter)."""
        from ..params import check_value
        case = get_case(self.name)
        if name in case.OPTIONS:
            return case.OPTIONS[name].check(name, value)
        split_params(case, {name: value})           # unknown names are an error
        return check_value(name, value)
