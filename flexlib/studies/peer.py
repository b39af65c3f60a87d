"""Case 3.2 with a linear penalty contact, beside an independent code (Exudyn's ANCF cables)."""
from __future__ import annotations

import json
import math
import os
import time

__all__ = ["CASES", "THETA_TIMES", "DATA", "penalty_overrides", "run_flexlib", "load_exudyn",
           "comparison_table"]

CASES = ((1e6, 0.0), (1e6, 0.4), (1e7, 0.0), (1e7, 0.4))     # (k [N/m], mu_d)
THETA_TIMES = (0.1, 0.2, 0.3, 0.33)                          # s
N_INTERVALS = 3
T_END = 0.343                                                # s: after the third contact interval
DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests",
                    "data", "exudyn_peer.json")


def penalty_overrides(k: float, mu_d: float) -> dict:
    """The flexlib parameters of the linear penalty contact N = k delta [N/m] with the modified
    Coulomb friction coefficient ``mu_d`` (mu_s is set to mu_d; the law does not use it)."""
    return dict(contact_law="kelvin_voigt", contact_exponent=1.0, contact_stiffness=float(k),
                contact_damping=0.0, mu_d=float(mu_d), mu_s=max(float(mu_d), 0.5))


def run_flexlib(k: float, mu_d: float, *, basis: str = "modal", n: int = 8,
                t_end: float = T_END) -> dict:
    """flexlib on one of the problems: the first :data:`N_INTERVALS` contact intervals (start, end,
    duration [s], peak normal force [N], normal impulse [N s]), theta [rad] at
    :data:`THETA_TIMES` and the wall time [s].  ``basis`` ``"modal"`` with ``n`` modes or
    ``"fe"`` with ``n`` elements."""
    from ..paper import simulate
    size = dict(n_modes=n) if basis == "modal" else dict(basis=basis, elements=n)
    t0 = time.perf_counter()
    r = simulate("3.2", "continuous_coulomb", t_end, sample_times=list(THETA_TIMES),
                 **penalty_overrides(k, mu_d), **size)
    wall = time.perf_counter() - t0
    keys = ("t_start", "t_end", "duration", "peak_normal_force", "normal_impulse")
    return dict(k=k, mu_d=mu_d, basis=basis, n=n, wall_time=wall,
                intervals=[{q: float(e[q]) for q in keys} for e in r.episodes[:N_INTERVALS]],
                theta={f"{t:g}": float(th) for t, th in zip(THETA_TIMES, r.samples["theta"])})


def load_exudyn(path: str = DATA) -> dict:
    """The stored Exudyn results (written by ``benchmarks/exudyn_peer.py``)."""
    with open(path) as f:
        return json.load(f)


def _rows(fx: dict, ex: dict):
    label = f"k={ex['k']:.0e} N/m, mu={ex['mu_d']:g}"
    for i, (a, b) in enumerate(zip(fx["intervals"], ex["intervals"])):
        for q, unit, scale in (("t_start", "ms", 1e3), ("duration", "ms", 1e3),
                               ("peak_normal_force", "N", 1.0), ("normal_impulse", "N s", 1.0)):
            # the start is an absolute time (~0.33 s): its difference is given in us, not in %
            yield label, f"contact {i + 1}: {q} [{unit}]", a[q] * scale, b[q] * scale
    for t, th in ex["theta"].items():
        yield label, f"theta({t} s) [rad]", fx["theta"][t], th


def comparison_table(flexlib_runs=None, *, basis: str = "modal", n: int = 8, path: str = DATA):
    """flexlib beside Exudyn on the beam of the paper's section 3.2 (Fan et al. 2021) released at
    theta0 = pi/4, its tip pushed out of the slope by N = k delta (no damping; in flexlib model
    ``continuous_coulomb`` with :func:`penalty_overrides`) with the modified Coulomb friction of
    Ambrosio (2002), for k = 1e6 and 1e7 N/m and mu_d = 0 and 0.4.  Exudyn's numbers (16 ANCF
    cable elements, written by ``benchmarks/exudyn_peer.py``) are stored in
    ``tests/data/exudyn_peer.json``; benchmarks/README.md says how close the two codes are.

    Returns a pandas DataFrame (columns case, quantity, flexlib, Exudyn, difference) comparing
    flexlib with the stored Exudyn results.  ``difference`` is relative,
    (flexlib - Exudyn) / |Exudyn|, except for the contact start times (absolute, in ms; they are ~333 ms from release) and the
    angles theta (absolute, in rad).  ``flexlib_runs`` (a list of :func:`run_flexlib` results,
    one per stored case) are run here with ``basis``/``n`` if not given (~4 s per case with the
    default 8 assumed modes)."""
    import pandas as pd
    ex = load_exudyn(path)["runs"]
    if flexlib_runs is None:
        flexlib_runs = [run_flexlib(r["k"], r["mu_d"], basis=basis, n=n) for r in ex]
    rows = []
    for fx, er in zip(flexlib_runs, ex):
        for case, q, a, b in _rows(fx, er):
            absolute = q.startswith("theta") or "t_start" in q
            d = a - b if absolute else (a - b) / abs(b) if b else math.nan
            rows.append(dict(case=case, quantity=q, flexlib=a, Exudyn=b, difference=d))
    return pd.DataFrame(rows)
