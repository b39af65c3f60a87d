"""Per-model cost of a run of case 3.2 (on the system engine) in a warm process.

(a) **Whole run**, t = 0..t_end (default 2 s), each of the four contact models: wall and CPU
    time of one ``simulate`` call, RHS evaluations, accepted steps, events, velocity jumps and
    the time reached.  The models are run round by round (frictionless, hybrid_coulomb,
    hybrid_lugre, lugre, frictionless, ...) for --repeat rounds, so that a slow spell of a shared
    machine hits every model alike; each row gives the median and the min..max, and "all four" is
    the sum of one round.  Then, for each model, where the time goes (median of 3 instrumented
    runs, ``_common.Sections``): compiled integrator, the engine's set-up of each phase, history building
    (``build_result``), event actions (of which contact-mode selections) and the rest of the
    event loop (phase restarts).
(b) **First impact alone**: 0 .. the end of the first impact (``r.impacts[0]['t_end']``).
(c) **Widget-like re-simulation**: one ``simulate`` call after a parameter change (a new ``Case``
    with mu_d nudged, so no cache can help) at --latency-t-end (0.75 s, the widget's default).
(d) with --scipy, also the whole run through scipy's ``solve_ivp`` (``method="DOP853-scipy"``)
    with the same compiled right-hand side, for comparison (slow: about 5-20x the compiled path).

A run that stops with ``SimulationError`` is reported with the time it reached (status
"stopped"); with the default settings all four models reach t_end.

Usage (from the repository root):

    python3 benchmarks/bench_models.py [--t-end 2] [--repeat 7] [--models frictionless,lugre]
                                       [--latency-t-end 0.75] [--no-latency] [--scipy]

Prints tables and writes benchmarks/results/models.json.  The numba functions are loaded (or
compiled, on the very first run after installing) before timing; that warm-up is reported apart.
"""
from __future__ import annotations

import argparse
import statistics
import time

from _common import (COMPILED, MODELS, SCIPY, Sections, fl, interleaved, machine, machine_line,
                     median_runs, run_model, warm_up, write_json)


def timed_breakdown(model, t_end, method=COMPILED):
    """One run with the section timers; the run's dict plus the breakdown."""
    with Sections() as sec:
        r = run_model(model, t_end, method=method)
    r.pop("result", None)
    r["sections"] = sec.report(r["cpu_s"])
    return r


def section_medians(model, t_end, repeat, method=COMPILED):
    runs = [timed_breakdown(model, t_end, method) for _ in range(repeat)]
    keys = runs[0]["sections"].keys()
    return {k: statistics.median(r["sections"][k] for r in runs) for k in keys}


def latency_once(model, t_end, k):
    """simulate() after a slider move: a new Case (mu_d nudged by 1e-6 * k)."""
    base = fl.paper_case("3.2")
    case = base.with_(mu_d=base.coulomb.mu_d + 1e-6 * (k + 1))
    t0 = time.perf_counter()
    try:
        fl.simulate(case, model, t_end)
    except fl.SimulationError:
        pass
    return time.perf_counter() - t0


def latency(models, t_end, repeat):
    """Interleaved over the models; {model: median, min, max, all}."""
    walls = {m: [] for m in models}
    for k in range(repeat):
        for m in models:
            walls[m].append(latency_once(m, t_end, k))
    return {m: dict(median_s=statistics.median(w), min_s=min(w), max_s=max(w), all_s=w)
            for m, w in walls.items()}


def spread(r):
    return f"{r['wall_s']:.3f} [{r['wall_min_s']:.3f}..{r['wall_max_s']:.3f}]"


def fmt_row(m, r):
    status = "ok" if not r["stopped"] else r["status"][:40]
    return (f"{m:15} {spread(r):>22} {r['cpu_s']:8.3f} {r['n_rhs']:10.0f} {r['n_steps']:7.0f} "
            f"{r['n_events']:7.0f} {r['n_jumps']:6.0f} {r['n_samples']:8.0f} {r['t_reached']:8.4f}  {status}")


HEAD = (f"{'model':15} {'wall [s] median [min..max]':>22} {'CPU [s]':>8} {'RHS evals':>10} {'steps':>7} "
        f"{'events':>7} {'jumps':>6} {'samples':>8} {'t [s]':>8}  status")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=7, help="interleaved rounds (median, min..max)")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--latency-t-end", type=float, default=0.75)
    ap.add_argument("--no-latency", action="store_true", help="skip (c)")
    ap.add_argument("--scipy", action="store_true", help="also time scipy's solve_ivp path (slow)")
    ap.add_argument("--scipy-repeat", type=int, default=3)
    ap.add_argument("--json", default="models", help="name of the JSON file in benchmarks/results/")
    a = ap.parse_args()
    models = [m.strip() for m in a.models.split(",") if m.strip()]
    mach = machine()
    print(machine_line(mach))
    warm = warm_up()
    print(f"warm-up (numba cache load or compile + 3 short runs): {warm:.2f} s", flush=True)
    out = dict(machine=mach, t_end=a.t_end, repeat=a.repeat, warmup_s=warm, models={m: {} for m in models})

    # ---- (a) whole run, interleaved rounds
    runs, rounds = interleaved({m: (lambda m=m: run_model(m, a.t_end)) for m in models}, a.repeat)
    for m in models:
        out["models"][m]["compiled"] = runs[m]
        out["models"][m]["compiled"]["sections"] = section_medians(m, a.t_end, 3)
    out["all_models_round_s"] = dict(median_s=statistics.median(rounds), min_s=min(rounds),
                                     max_s=max(rounds), all_s=rounds)
    if a.scipy:
        for m in models:
            row = out["models"][m]
            row["scipy"] = median_runs(lambda: run_model(m, a.t_end, method=SCIPY), a.scipy_repeat)
            row["speedup"] = row["scipy"]["wall_s"] / row["compiled"]["wall_s"]

    # ---- (b) first impact alone, interleaved
    t1 = {m: out["models"][m]["compiled"]["first_impact_end"] for m in models}
    fi, _ = interleaved({m: (lambda m=m: run_model(m, t1[m])) for m in models if t1[m] is not None},
                        a.repeat)
    for m, r in fi.items():
        out["models"][m]["first_impact_t_end"] = t1[m]
        out["models"][m]["first_impact_compiled"] = r

    # ---- (c) widget-like latency
    if not a.no_latency:
        lat = latency(models, a.latency_t_end, a.repeat)
        for m in models:
            out["models"][m]["latency"] = {f"{a.latency_t_end:g}": lat[m]}

    # ---- tables
    print(f"\n(a) case 3.2, t = 0..{a.t_end:g} s, compiled path (method='DOP853', the default). "
          f"{a.repeat} interleaved rounds: median [min..max] wall time, median CPU time.")
    print(HEAD)
    for m in models:
        print(fmt_row(m, out["models"][m]["compiled"]))
    R = out["all_models_round_s"]
    print(f"{'all ' + str(len(models)) + ' (a round)':15} {R['median_s']:.3f} [{R['min_s']:.3f}..{R['max_s']:.3f}]")
    if a.scipy:
        print(f"\n(d) the same through scipy's solve_ivp (method='DOP853-scipy'), median of {a.scipy_repeat}")
        print(HEAD)
        for m in models:
            print(fmt_row(m, out["models"][m]["scipy"]))
        print("speed-up scipy -> compiled: " + ", ".join(
            f"{m} x{out['models'][m]['speedup']:.1f}" for m in models))
    print("\nwhere the time goes: CPU seconds, median of 3 instrumented runs "
          "('actions' includes 'selections'; 'rest' = phase restarts and the rest of the event loop)")
    print(f"{'model':15} {'total':>7} {'integrator':>10} {'phase':>8} {'build_result':>12} "
          f"{'actions':>8} {'selections':>10} {'rest':>7} {'phases':>7} {'n select':>8}")
    for m in models:
        s = out["models"][m]["compiled"]["sections"]
        print(f"{m:15} {s['total_s']:7.3f} {s['integrate_s']:10.3f} {s['phase_wrapper_s']:8.3f} "
              f"{s['build_result_s']:12.3f} {s['actions_s']:8.3f} {s['select_s']:10.3f} "
              f"{s['loop_rest_s']:7.3f} {s['n_phases']:7.0f} {s['n_selections']:8.0f}")
    print(f"\n(b) first impact alone: t = 0 .. end of the first impact, {a.repeat} interleaved rounds")
    print(f"{'model':15} {'t_end [s]':>10} {'wall [s] median [min..max]':>26} {'CPU [s]':>8} "
          f"{'RHS':>8} {'steps':>6} {'events':>6}")
    for m in models:
        row = out["models"][m]
        if "first_impact_compiled" not in row:
            continue
        c = row["first_impact_compiled"]
        print(f"{m:15} {row['first_impact_t_end']:10.6f} {spread(c):>26} {c['cpu_s']:8.3f} "
              f"{c['n_rhs']:8.0f} {c['n_steps']:6.0f} {c['n_events']:6.0f}")
    if not a.no_latency:
        print(f"\n(c) widget-like re-simulation: simulate(new case, model, {a.latency_t_end:g}), "
              f"median [min..max] of {a.repeat} interleaved")
        for m in models:
            L = out["models"][m]["latency"][f"{a.latency_t_end:g}"]
            print(f"{m:15} {L['median_s']:.3f} [{L['min_s']:.3f}..{L['max_s']:.3f}]")
    path = write_json(a.json, out)
    print(f"\nwritten {path}")


if __name__ == "__main__":
    main()
