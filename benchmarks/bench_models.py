"""Issue 6 (a), (b), (f): per-model cost on case 3.2.

(a) 0..t_end (default 2 s): wall time, RHS evaluations, accepted steps, events, real-time factor
    (simulated s per wall s), for the compiled path (``method="DOP853"``, the default, "after") and
    the scipy path (``method="DOP853-scipy"``: scipy's solve_ivp with the same compiled kernel,
    "before"), and where the compiled run's time goes (integrator / build_result / Python loop);
(b) the first impact alone: 0 .. end of the first impact cluster (``r.impacts[0]['t_end']``);
(f) widget-like re-simulation latency: one ``simulate`` call after a parameter change
    (a new ``Case`` with mu_d nudged, so no cache can help), per model, at t_end 2 s and at the
    widget default 0.75 s.

hybrid_coulomb and hybrid_lugre stop with SimulationError (event cap of 10^4 events in one impact
cluster, a documented finding) near t = 1.1-1.2 s: the row then reports the time reached, and the
real-time factor is computed with it.

Usage (from the repository root):

    python3 benchmarks/bench_models.py [--t-end 2] [--repeat 5] [--scipy-repeat 3]
                                       [--models frictionless,lugre] [--no-scipy] [--no-latency]

Prints tables and writes benchmarks/results/models.json.  Medians of --repeat runs in one warm
process (numba functions loaded before timing; the warm-up time is reported apart).
"""
from __future__ import annotations

import argparse
import statistics
import time

from _common import (COMPILED, MODELS, SCIPY, Sections, fl, machine, machine_line, median_runs,
                     run_model, warm_up, write_json)


def timed_breakdown(model, t_end, method=COMPILED):
    """One run with the section timers; the run's dict plus the breakdown."""
    with Sections() as sec:
        r = run_model(model, t_end, method=method)
    r["sections"] = sec.report(r["cpu_s"])
    return r


def section_medians(model, t_end, repeat, method=COMPILED):
    runs = [timed_breakdown(model, t_end, method) for _ in range(repeat)]
    keys = runs[0]["sections"].keys()
    return {k: statistics.median(r["sections"][k] for r in runs) for k in keys}


def latency(model, t_end, repeat):
    """simulate() after a slider move: each call gets a new Case (mu_d nudged by 1e-6 * k)."""
    base = fl.paper_case("3.2")
    walls = []
    for k in range(repeat):
        case = base.with_(mu_d=base.coulomb.mu_d + 1e-6 * (k + 1))
        t0 = time.perf_counter()
        try:
            fl.simulate(case, model, t_end)
        except fl.SimulationError:
            pass
        walls.append(time.perf_counter() - t0)
    return dict(median_s=statistics.median(walls), min_s=min(walls), max_s=max(walls), all_s=walls)


def fmt_row(m, r):
    return (f"{m:15} {r['wall_s']:9.3f} {r['cpu_s']:8.3f} {r['n_rhs']:10.0f} {r['n_steps']:7.0f} {r['n_events']:7.0f} "
            f"{r['t_reached']:8.4f} {r['rtf']:8.3f}  {'stopped (event cap)' if r['stopped'] else 'ok'}")


HEAD = (f"{'model':15} {'wall [s]':>9} {'CPU [s]':>8} {'RHS evals':>10} {'steps':>7} {'events':>7} "
        f"{'t [s]':>8} {'RTF':>8}  status")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=5, help="runs per compiled measurement (median)")
    ap.add_argument("--scipy-repeat", type=int, default=3, help="runs per scipy measurement (median)")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--no-scipy", action="store_true", help="skip the scipy ('before') column")
    ap.add_argument("--no-latency", action="store_true", help="skip (f)")
    ap.add_argument("--json", default="models", help="name of the JSON file in benchmarks/results/")
    a = ap.parse_args()
    models = [m.strip() for m in a.models.split(",") if m.strip()]
    mach = machine()
    print(machine_line(mach))
    warm = warm_up()
    print(f"warm-up (numba cache load or compile + 3 short runs): {warm:.2f} s")
    out = dict(machine=mach, t_end=a.t_end, repeat=a.repeat, scipy_repeat=a.scipy_repeat,
               warmup_s=warm, models={})

    # ---- (a) whole run, compiled and scipy
    for m in models:
        row = out["models"].setdefault(m, {})
        row["compiled"] = median_runs(lambda: run_model(m, a.t_end, method=COMPILED), a.repeat)
        row["compiled"]["sections"] = section_medians(m, a.t_end, max(1, min(3, a.repeat)))
        if not a.no_scipy:
            row["scipy"] = median_runs(lambda: run_model(m, a.t_end, method=SCIPY), a.scipy_repeat)
            row["speedup"] = row["scipy"]["wall_s"] / row["compiled"]["wall_s"]
        print(f"  {m}: compiled {row['compiled']['wall_s']:.3f} s"
              + (f", scipy {row['scipy']['wall_s']:.3f} s" if "scipy" in row else ""), flush=True)

    # ---- (b) first impact alone
    for m in models:
        row = out["models"][m]
        t1 = row["compiled"]["first_impact_end"]
        if t1 is None:
            continue
        row["first_impact_t_end"] = t1
        row["first_impact_compiled"] = median_runs(lambda: run_model(m, t1, method=COMPILED), a.repeat)
        if not a.no_scipy:
            row["first_impact_scipy"] = median_runs(lambda: run_model(m, t1, method=SCIPY),
                                                    a.scipy_repeat)

    # ---- (f) widget-like latency
    if not a.no_latency:
        for m in models:
            out["models"][m]["latency"] = {f"{te:g}": latency(m, te, a.repeat) for te in (a.t_end, 0.75)}

    # ---- tables
    print(f"\n(a) case 3.2, t = 0..{a.t_end:g} s. Medians of {a.repeat} (compiled) / "
          f"{a.scipy_repeat} (scipy) runs. RTF = simulated time / wall time.")
    for key, title in (("scipy", "before: method='DOP853-scipy' (scipy solve_ivp + compiled kernel)"),
                       ("compiled", "after: method='DOP853' (default, compiled integrator)")):
        if key not in out["models"][models[0]]:
            continue
        print(f"\n{title}\n{HEAD}")
        for m in models:
            print(fmt_row(m, out["models"][m][key]))
        tot = sum(out["models"][m][key]["wall_s"] for m in models)
        print(f"{'all four' if len(models) == 4 else 'sum':15} {tot:9.3f}")
    if "scipy" in out["models"][models[0]]:
        print("\nspeed-up scipy -> compiled: " + ", ".join(
            f"{m} x{out['models'][m]['speedup']:.1f}" for m in models))
    print(f"\nwhere the compiled run's time goes (median of {max(1, min(3, a.repeat))} instrumented runs)")
    print(f"{'model':15} {'total [s]':>9} {'integrator':>10} {'wrapper':>8} {'build_result':>12} "
          f"{'py loop':>8} {'phases':>7} {'loop/phase [us]':>15}")
    for m in models:
        s = out["models"][m]["compiled"]["sections"]
        print(f"{m:15} {s['total_s']:9.3f} {s['integrate_s']:10.3f} {s['solve_phase_wrapper_s']:8.3f} "
              f"{s['build_result_s']:12.3f} {s['loop_rest_s']:8.3f} {s['n_phases']:7.0f} "
              f"{s['rest_per_phase_us']:15.0f}")
    print(f"\n(b) first impact alone: t = 0 .. end of the first impact cluster")
    print(f"{'model':15} {'t_end [s]':>10} {'compiled [s]':>12} {'CPU [s]':>8} {'scipy [s]':>10} "
          f"{'RHS (comp.)':>11} {'steps':>6} {'events':>6}")
    for m in models:
        row = out["models"][m]
        if "first_impact_compiled" not in row:
            continue
        c = row["first_impact_compiled"]
        sc = row.get("first_impact_scipy", {}).get("wall_s", float("nan"))
        print(f"{m:15} {row['first_impact_t_end']:10.6f} {c['wall_s']:12.3f} {c['cpu_s']:8.3f} {sc:10.3f} "
              f"{c['n_rhs']:11.0f} {c['n_steps']:6.0f} {c['n_events']:6.0f}")
    if not a.no_latency:
        print(f"\n(f) widget-like re-simulation: simulate(new case, model, t_end), median [min..max] "
              f"of {a.repeat}")
        print(f"{'model':15} {'t_end ' + format(a.t_end, 'g') + ' s':>24} {'t_end 0.75 s':>24}")
        for m in models:
            L = out["models"][m]["latency"]
            cells = [f"{L[k]['median_s']:.3f} [{L[k]['min_s']:.3f}..{L[k]['max_s']:.3f}]"
                     for k in (f"{a.t_end:g}", "0.75")]
            print(f"{m:15} {cells[0]:>24} {cells[1]:>24}")
    path = write_json(a.json, out)
    print(f"\nwritten {path}")


if __name__ == "__main__":
    main()
