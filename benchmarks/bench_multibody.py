"""Cost of the multibody cases in a warm process.

(a) ``double-pendulum``, 0-1.5 s, each model given (default: the continuous Hertz contact, its
    default, and the constraint model ``frictionless``);
(b) ``falling-beam`` with 5 contact points (0, L/4, L/2, 3L/4, L), 0-1 s, every model, and with
    the default two end points;
(c) the paper's case 3.2, frictionless, 0-0.6 s, both on the system engine: the engine's run
    alone (case ``beam-on-slope`` of :mod:`flexlib.cases`) beside ``flexlib.simulate``, which
    reads the same run as the paper's histories, impacts and audit (the cost of that reading).

Each row: median wall and CPU time of --repeat runs (round by round, so that a slow spell of a
shared machine hits every row alike), the integrator's accepted steps, the velocity jumps and the
energy audit's residual.  Usage (from the repository root):

    python3 benchmarks/bench_multibody.py [--repeat 3] [--quick]

Prints a table and writes benchmarks/results/multibody.json.  The compiled code is loaded (or
compiled, the first time: ~1.5 min for the multibody integrator) before timing.
"""
from __future__ import annotations

import argparse
import math
import statistics
import time

from _common import fl, machine, machine_line, write_json

from flexlib.cases import simulate as simulate_case
from flexlib.multibody.simulate import SystemSimulationError

FALLING_MODELS = ("hybrid_coulomb", "frictionless", "hybrid_lugre", "lugre", "continuous",
                  "continuous_coulomb", "continuous_lugre")
FIVE = "0,0.25,0.5,0.75,1"


def rows(quick: bool):
    out = [("double-pendulum", m, 1.5, {}) for m in ("continuous", "frictionless")]
    out += [("falling-beam", m, 1.0, dict(contact_points=FIVE))
            for m in (FALLING_MODELS[:1] + FALLING_MODELS[4:5] if quick else FALLING_MODELS)]
    out += [("falling-beam", m, 1.0, {}) for m in ("hybrid_coulomb", "continuous")]
    return out


def one(case, model, t_end, params):
    w0, c0 = time.perf_counter(), time.process_time()
    status = "ok"
    try:
        res = simulate_case(case, model, t_end, **params)
    except SystemSimulationError as err:
        res, status = err.result, "stopped"
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    audit = res.audit()
    return dict(wall_s=wall, cpu_s=cpu, status=status, t_reached=res.t_end,
                steps=sum(p.sol.n_steps for p in res.phases), jumps=len(res.log.jumps),
                impacts=len(res.impacts), audit_rel=audit["max_residual"] / audit["scale"])


def paper_case_rows():
    """Case 3.2 frictionless 0-0.6 s: the engine's run alone against the paper's reading of it."""
    case = fl.paper_case("3.2")
    out = {}
    for name, run in (("system engine (beam-on-slope)", lambda: simulate_case("beam-on-slope", "frictionless", 0.6)),
                      ("flexlib.simulate (+ paper histories)", lambda: fl.simulate(case, "frictionless", 0.6))):
        run()
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
        out[name] = statistics.median(times)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="two falling-beam models only")
    a = ap.parse_args()
    t0 = time.perf_counter()
    simulate_case("double-pendulum", t_end=0.05)          # load (or compile) the compiled code
    warm = time.perf_counter() - t0
    table = rows(a.quick)
    runs = {i: [] for i in range(len(table))}
    for _ in range(a.repeat):
        for i, (case, model, t_end, params) in enumerate(table):
            runs[i].append(one(case, model, t_end, params))
    print(machine_line())
    print(f"warm-up (load or compile): {warm:.1f} s")
    print(f"{'case':<16} {'points':<10} {'model':<19} {'t_end':>5} {'wall [s]':>9} {'cpu [s]':>8} "
          f"{'steps':>7} {'jumps':>6} {'audit/E':>8} status")
    results = []
    for i, (case, model, t_end, params) in enumerate(table):
        rs = runs[i]
        med = {k: statistics.median(r[k] for r in rs) for k in ("wall_s", "cpu_s")}
        r = rs[0]
        pts = params.get("contact_points", "B" if case == "double-pendulum" else "0,1")
        print(f"{case:<16} {pts:<10} {model:<19} {t_end:>5.2g} {med['wall_s']:>9.2f} "
              f"{med['cpu_s']:>8.2f} {r['steps']:>7d} {r['jumps']:>6d} {r['audit_rel']:>8.1e} "
              f"{r['status']}")
        results.append({**r, **med, "case": case, "model": model, "t_end": t_end, "points": pts})
    pc = paper_case_rows()
    for name, t in pc.items():
        print(f"case 3.2 frictionless 0-0.6 s, {name}: {t:.3f} s")
    write_json("multibody", dict(machine=machine(), warm_up_s=warm, runs=results, paper_case=pc,
                                 repeat=a.repeat))


if __name__ == "__main__":
    main()
