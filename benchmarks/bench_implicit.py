"""The implicit integrator against the explicit one: the compiled Radau IIA and DOP853.

Default: the falling beam (continuous Hertz contact, ``--basis fe``) tilted (theta0 = 0.1 rad) and
flat (0), 0-0.16 s (flight, landing, the first episodes), at 4, 8, 16, 32 elements with DOP853,
Radau and ``auto`` (Radau in the phases at rest, DOP853 in the others, on stiff bases), each run a
fresh ``python -m flexlib simulate`` process.  Columns: the process's wall
time, the run's own time (``stats.wall_time_s``), accepted steps, right-hand side evaluations
(the Jacobians' difference columns included), Jacobians, and the run's time per evaluation (for
Radau it includes the Newton systems' linear algebra); the solve time is the wall time of the
0.16 s command minus that of the same command with ``--t-end 0.001`` (start-up, compilation cache
load and the first steps cancel).  DOP853 runs whose measured or extrapolated time exceeds
``--budget`` seconds are skipped (said in the table).  Writes ``benchmarks/results/implicit_fe.json``.

``--paper-case``: the earlier measurement, unified LuGre on case 3.2 over 0-0.5 s with the compiled
DOP853 and scipy's methods (``implicit.json``).

    nice python3 benchmarks/bench_implicit.py [--elements 4 8 16 32] [--theta0 0.1 0] [--budget 120]
    python3 benchmarks/bench_implicit.py --paper-case [--t-end 0.5] [--model lugre]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from unittest import mock

import _common
import scipy.integrate as si

from flexlib import SimulationError, simulate

METHODS = ("DOP853", "DOP853-scipy", "Radau-scipy", "BDF", "LSODA")
T_END = 0.16


def _command(n, theta0, method, t_end, json_path):
    return [sys.executable, "-m", "flexlib", "simulate", "--case", "falling-beam", "--model",
            "continuous", "--basis", "fe", "--elements", str(n), "--theta0", str(theta0),
            "--t-end", str(t_end), "--integrator", method, "--quiet", "--json", json_path]


def _timed(cmd):
    """(wall [s], the JSON summary) of one fresh process."""
    env = dict(os.environ, PYTHONPATH=str(_common.ROOT))
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, cwd=_common.ROOT)
    wall = time.perf_counter() - t
    with open(cmd[-1]) as fh:
        return wall, json.load(fh)


def one_run(n, theta0, method, tmp):
    """The row of one (mesh, angle, integrator)."""
    path = os.path.join(tmp, f"run_{n}_{theta0}_{method}.json")
    wall, s = _timed(_command(n, theta0, method, T_END, path))
    wall0, _ = _timed(_command(n, theta0, method, 0.001, path))
    st = s["stats"]
    return dict(elements=n, theta0=theta0, method=method, resolved=st["method"], wall_s=wall,
                solve_s=wall - wall0, run_s=st["wall_time_s"], n_steps=st["n_steps"],
                n_rhs=st["n_rhs"], n_jac=st["n_jac"], us_per_rhs=1e6 * st["wall_time_s"] / st["n_rhs"],
                v_cm_y=s["samples"]["bodies"][0]["v_cm"][-1][1],
                omega_mean=s["samples"]["bodies"][0]["omega_mean"][-1],
                impulse=sum(i["normal_impulse"] for i in s["impacts"]),
                numerical_dissipation=s["energy"]["numerical_dissipation"])


def falling_beam(a):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for theta0 in a.theta0:
            last = {}
            for n in a.elements:
                for method in a.methods:
                    guess = last.get(method, 0.0) * (4.0 if method != "auto" else 0.0)
                    if guess > a.budget:
                        rows.append(dict(elements=n, theta0=theta0, method=method, skipped=
                                         f"{method} at {n // 2} elements took {last[method]:.0f} "
                                         f"s; its steps grow like w_max ~ n_e^2: ~{guess:.0f} s"))
                        print(rows[-1], flush=True)
                        continue
                    rows.append(one_run(n, theta0, method, tmp))
                    last[method] = rows[-1]["run_s"]
                    print(rows[-1], flush=True)
    print(_common.machine_line())
    print(f"falling beam, continuous, fe, 0-{T_END} s, fresh processes")
    print(f"{'theta0':>6}{'n_e':>5} {'method':<8}{'wall [s]':>9}{'solve [s]':>10}{'steps':>9}"
          f"{'RHS':>10}{'Jac':>6}{'us/RHS':>8}{'v_cm_y':>12}{'impulse':>10}{'num.diss [J]':>13}")
    for r in rows:
        if "skipped" in r:
            print(f"{r['theta0']:>6}{r['elements']:>5} {r['method']:<8} skipped: {r['skipped']}")
            continue
        print(f"{r['theta0']:>6}{r['elements']:>5} {r['method']:<8}{r['wall_s']:9.1f}"
              f"{r['solve_s']:10.1f}{r['n_steps']:9d}{r['n_rhs']:10d}{r['n_jac']:6d}"
              f"{r['us_per_rhs']:8.1f}{r['v_cm_y']:12.7f}{r['impulse']:10.6f}"
              f"{r['numerical_dissipation']:13.2e}")
    # rows of other meshes measured earlier are kept (a long mesh can be run on its own)
    path = _common.RESULTS / "implicit_fe.json"
    keep = []
    if path.exists():
        new = {(r["elements"], r["theta0"], r["method"]) for r in rows}
        keep = [r for r in json.loads(path.read_text())["runs"]
                if (r["elements"], r["theta0"], r["method"]) not in new]
    _common.write_json("implicit_fe", dict(t_end=T_END, machine=_common.machine(),
                                           runs=keep + rows))


def paper_case(a):
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paper-case", action="store_true")
    ap.add_argument("--t-end", type=float, default=0.5)
    ap.add_argument("--model", default="lugre")
    ap.add_argument("--elements", type=int, nargs="+", default=[4, 8, 16, 32])
    ap.add_argument("--theta0", type=float, nargs="+", default=[0.1, 0.0])
    ap.add_argument("--budget", type=float, default=120.0)
    ap.add_argument("--methods", nargs="+", default=["DOP853", "Radau", "auto"],
                    help="integrators to run (e.g. only Radau for a mesh whose DOP853 run is "
                         "known to exceed the budget)")
    a = ap.parse_args()
    paper_case(a) if a.paper_case else falling_beam(a)


if __name__ == "__main__":
    main()
