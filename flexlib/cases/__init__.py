"""The systems flexlib ships, one module each: a case is an :class:`Option` table, a default model
and run time, and a function that builds its :class:`~flexlib.multibody.system.System`.

Adding a case is writing one module like :mod:`flexlib.cases.double_pendulum` and listing it in
:data:`CASES`; nothing else in the library knows which case runs.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

__all__ = ["Option", "CASES", "get_case", "check_options"]

CASES = {"double-pendulum": "flexlib.cases.double_pendulum",
         "falling-beam": "flexlib.cases.falling_beam"}


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
            vals = [float(v) for v in (value.split(",") if isinstance(value, str) else value)]
            if not vals or not all(self.lo <= v <= self.hi for v in vals):
                raise ValueError(f"parameter {name!r} = {value!r} is invalid: valid range is a "
                                 f"non-empty list of values in [{self.lo:g}, {self.hi:g}] {self.unit}")
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
    """The module of case ``name`` (``double-pendulum``, ``falling-beam``)."""
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
