"""Jacobian evaluations: the explicit compiled DOP853 against scipy's implicit methods.

flexlib integrates every phase with an explicit method, so it evaluates no Jacobian.  This script
measures what the implicit alternatives (scipy's Radau, BDF and LSODA with finite-difference
Jacobians, selected by ``method=``) cost on the same run: unified LuGre on case 3.2 over
0-0.5 s (the first impact), one run each.  Prints a table and writes
``benchmarks/results/implicit.json``.

    python3 benchmarks/bench_implicit.py [--t-end 0.5] [--model lugre]
"""
import argparse
import time
from unittest import mock

import _common  # noqa: F401  (puts the repository root on sys.path)
import scipy.integrate as si

from flexlib import SimulationError, simulate

METHODS = ("DOP853", "DOP853-scipy", "Radau", "BDF", "LSODA")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--t-end", type=float, default=0.5)
    ap.add_argument("--model", default="lugre")
    a = ap.parse_args()
    counts = {"njev": 0, "nlu": 0}
    orig = si.solve_ivp

    def counted(*args, **kw):           # flexlib imports solve_ivp from scipy at call time
        sol = orig(*args, **kw)
        for k in counts:
            counts[k] += int(getattr(sol, k, 0) or 0)
        return sol

    simulate("3.2", a.model, 0.01)      # load the numba cache
    rows = {}
    with mock.patch.object(si, "solve_ivp", counted):
        for meth in METHODS:
            counts.update(njev=0, nlu=0)
            t = time.perf_counter()
            try:
                r, status = simulate("3.2", a.model, a.t_end, method=meth), "ok"
            except SimulationError as err:
                r, status = err.result, "stopped"
            wall = time.perf_counter() - t
            im = r.impacts[0] if r.impacts else {}
            rows[meth] = dict(wall_s=wall, status=status, n_rhs=r.stats["n_rhs"],
                              n_steps=r.stats["n_steps"], n_jac=counts["njev"], n_lu=counts["nlu"],
                              t_start=im.get("t_start"), peak_N=im.get("peak_normal_force"))
    ref = rows["DOP853"]
    print(_common.machine_line())
    print(f"{a.model}, case 3.2, t = 0..{a.t_end} s, one run each")
    print(f"{'method':<14}{'wall [s]':>9}{'RHS':>9}{'steps':>8}{'Jacobians':>10}{'LU':>7}"
          f"{'d t_start [s]':>15}{'d peak N':>10}")
    for meth, w in rows.items():
        dt = abs(w["t_start"] - ref["t_start"]) if w["t_start"] is not None else float("nan")
        dp = abs(w["peak_N"] / ref["peak_N"] - 1.0) if w["peak_N"] is not None else float("nan")
        print(f"{meth:<14}{w['wall_s']:9.2f}{w['n_rhs']:9d}{w['n_steps']:8d}{w['n_jac']:10d}"
              f"{w['n_lu']:7d}{dt:15.2e}{dp:10.2e}")
    _common.write_json("implicit", dict(model=a.model, t_end=a.t_end, machine=_common.machine(),
                                        runs=rows))


if __name__ == "__main__":
    main()
