"""Per model on case 3.2, 0..t_end: wall time, RHS evaluations, steps, events, real-time factor.

Usage: python benchmarks/bench_models.py [--t-end 2] [--repeat 3] [--json benchmarks/results/models.json]
Medians of ``--repeat`` runs in a warm process (the first, compiling call is reported apart).
"""
import argparse
import json
import platform
import statistics
import time

import flexlib as fl
from flexlib.simulate import SimulationError

MODELS = ("frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre")


def one(model, t_end, **kw):
    t0 = time.perf_counter()
    try:
        r = fl.simulate("3.2", model, t_end, **kw)
        status = "ok"
    except SimulationError as err:
        r, status = err.result, "stopped: " + err.cause
    wall = time.perf_counter() - t0
    return dict(wall_s=wall, n_rhs=r.stats["n_rhs"], n_steps=r.stats["n_steps"], n_events=r.stats["n_events"],
                t_reached=float(r.t[-1]), rtf=float(r.t[-1]) / wall, status=status,
                first_impact_end=r.impacts[0]["t_end"] if r.impacts else None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    t0 = time.perf_counter()
    fl.simulate("3.2", "frictionless", 0.01)
    warmup = time.perf_counter() - t0
    rows = {}
    for m in MODELS:
        runs = [one(m, a.t_end) for _ in range(a.repeat)]
        med = {k: statistics.median(r[k] for r in runs) for k in ("wall_s", "n_rhs", "n_steps", "n_events", "rtf")}
        med["status"] = runs[-1]["status"]
        med["t_reached"] = runs[-1]["t_reached"]
        fi_end = runs[-1]["first_impact_end"]
        if fi_end:
            fi = [one(m, fi_end) for _ in range(a.repeat)]
            med["first_impact_wall_s"] = statistics.median(r["wall_s"] for r in fi)
        rows[m] = med
    print(f"case 3.2, t = 0..{a.t_end:g} s, medians of {a.repeat} runs; first call (import + compile "
          f"check) {warmup:.2f} s; {platform.processor() or platform.machine()}, {platform.python_version()}")
    print(f"{'model':16} {'wall [s]':>9} {'RHS evals':>10} {'steps':>7} {'events':>7} {'RTF':>7} "
          f"{'1st impact [s]':>15}  status")
    for m, r in rows.items():
        print(f"{m:16} {r['wall_s']:9.3f} {r['n_rhs']:10.0f} {r['n_steps']:7.0f} {r['n_events']:7.0f} "
              f"{r['rtf']:7.3f} {r.get('first_impact_wall_s', float('nan')):15.3f}  {r['status']} "
              f"(t reached {r['t_reached']:.4g} s)")
    print(f"all four models: {sum(r['wall_s'] for r in rows.values()):.2f} s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(t_end=a.t_end, repeat=a.repeat, warmup_s=warmup, machine=platform.uname()._asdict(),
                           flexlib=fl.__version__, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
