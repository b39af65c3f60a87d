"""Cost of the continuous contact force method next to the constraint method (case 3.2).

(a) **Side by side**: a whole run, t = 0..t_end (default 2 s), of the four constraint models
    (the paper's e = 0) and the two continuous models (``flores``, e = 0.5, K = 1e9 N/m^1.5),
    interleaved round by round (A, B, C, ..., A, B, C, ...) for --repeat rounds; median
    [min..max] wall time, CPU time, RHS evaluations, steps, events and the time reached.
(b) **Growth with the penalty stiffness**: each continuous model at K = 1e7, 1e8, 1e9, 1e10
    N/m^1.5 (interleaved the same way): wall time, steps, RHS evaluations and events.

Usage (from the repository root):

    python3 benchmarks/bench_continuous.py [--t-end 2] [--repeat 5] [--stiffness 1e7,1e8,1e9,1e10]

Prints tables and writes benchmarks/results/continuous.json.
"""
from __future__ import annotations

import argparse

from _common import MODELS, interleaved, machine, machine_line, run_model, warm_up, write_json

CONTINUOUS = ("continuous_coulomb", "continuous_lugre")
PENALTY = dict(e=0.5, contact_law="flores")


def fmt(m, r, extra=""):
    status = "ok" if not r["stopped"] else r["status"][:40]
    return (f"{m:20} {extra:>8} {r['wall_s']:7.3f} [{r['wall_min_s']:.3f}..{r['wall_max_s']:.3f}] "
            f"{r['cpu_s']:7.3f} {r['n_rhs']:9.0f} {r['n_steps']:7.0f} {r['n_events']:6.0f} "
            f"{r['t_reached']:7.4f}  {status}")


HEAD = (f"{'model':20} {'K':>8} {'wall [s] median [min..max]':>25} {'CPU [s]':>7} {'RHS':>9} "
        f"{'steps':>7} {'events':>6} {'t [s]':>7}  status")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--stiffness", default="1e7,1e8,1e9,1e10")
    a = ap.parse_args()
    Ks = [float(k) for k in a.stiffness.split(",")]
    mach = machine()
    print(machine_line(mach))
    warm = warm_up()
    for m in CONTINUOUS:          # load (or compile) the penalty branch before timing
        run_model(m, 0.4, **PENALTY)
    print(f"warm-up: {warm:.2f} s", flush=True)
    out = dict(machine=mach, t_end=a.t_end, repeat=a.repeat, penalty=PENALTY)

    fns = {m: (lambda m=m: run_model(m, a.t_end)) for m in MODELS}
    fns.update({m: (lambda m=m: run_model(m, a.t_end, contact_stiffness=1e9, **PENALTY))
                for m in CONTINUOUS})
    side, _ = interleaved(fns, a.repeat)
    out["side_by_side"] = side
    print(f"\n(a) case 3.2, t = 0..{a.t_end:g} s; constraint models with e = 0, continuous models "
          f"flores e = 0.5, K = 1e9 N/m^1.5; {a.repeat} interleaved rounds")
    print(HEAD)
    for m, r in side.items():
        print(fmt(m, r, "1e9" if m in CONTINUOUS else "-"))

    fns = {(m, K): (lambda m=m, K=K: run_model(m, a.t_end, contact_stiffness=K, **PENALTY))
           for m in CONTINUOUS for K in Ks}
    grow, _ = interleaved(fns, a.repeat)
    out["stiffness"] = {f"{m}@{K:g}": r for (m, K), r in grow.items()}
    print(f"\n(b) wall time against the penalty stiffness K [N/m^1.5], {a.repeat} interleaved rounds")
    print(HEAD)
    for (m, K), r in grow.items():
        print(fmt(m, r, f"{K:.0e}"))
    path = write_json("continuous", out)
    print(f"\nwritten {path}")


if __name__ == "__main__":
    main()
