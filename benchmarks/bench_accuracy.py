"""Accuracy against cost of the beam's bases on case 3.2 (flexlib.accuracy): rerun the study.

Runs every representation of :func:`flexlib.accuracy.representations` with the hybrid Coulomb
and the frictionless model over 0-1 s, the reference (the finest finite-element mesh, tightened
tolerances) and its self-convergence check, the cost growth of the finite-element mesh in free
flight and the implicit integrators on one finite-element mesh.  Every run (and each of the two
timing studies) is cached in
``benchmarks/results/tmp/accuracy/`` (a rerun computes only what is missing; ``--refresh``
recomputes).  Writes ``benchmarks/results/accuracy.csv`` (one row per run) and
``benchmarks/results/accuracy.json`` (reference, self-convergence, 1 % table, peak-force
convergence, implicit integrators, flight cost, machine); the figures command draws the figure
from them.  One core, one run at a time; the cost is each run's CPU time (the machine may be shared).

    python3 benchmarks/bench_accuracy.py                  # the study (about an hour on one core)
    python3 benchmarks/bench_accuracy.py --quick          # a small smoke version (~1 min), to /tmp
"""
import argparse
import json
import time
import warnings
from pathlib import Path

import _common  # noqa: F401  (puts the repository root on sys.path)
import numpy as np

from flexlib import accuracy as acc
from flexlib import simulate

# The reference: the finest mesh whose two runs fit in the study's time (about 6 min of CPU each;
# 16 elements take about 25 min each, 32 elements hours: see the flight cost)
REFERENCE = dict(basis="fe", elements=12)
SECOND = dict(basis="fe", elements=8)           # its self-convergence check
TOLERANCE_CHECK = (dict(basis="fe", elements=8), dict(basis="modal", n_modes=8))
FINER = dict(basis="fe", elements=16)           # --finer: one run past the reference (hybrid Coulomb)
FLIGHT_MESHES = (4, 8, 16, 32)
FLIGHT_WINDOWS = {4: 0.1, 8: 0.1, 16: 0.02, 32: 0.002}    # s of flight timed (before the first impact)
IMPLICIT = ("LSODA", "BDF", "Radau")
IMPLICIT_MESH, IMPLICIT_T_END = 8, 0.05


def flight_cost(ne: int, t_end: float) -> dict:
    """Wall time and steps of the fe mesh ``ne`` in free flight over [0, t_end] s (case 3.2
    falls from rest; the first impact is at 0.333 s), warm, and per simulated second."""
    simulate("3.2", "frictionless", 0.001, basis="fe", elements=ne)
    w0, c0 = time.perf_counter(), time.process_time()
    r = simulate("3.2", "frictionless", t_end, basis="fe", elements=ne)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return dict(elements=ne, coordinates=2 * ne, t_end=t_end, wall_s=wall, cpu_s=cpu,
                n_steps=int(r.stats["n_steps"]), cpu_per_s=cpu / t_end,
                steps_per_s=r.stats["n_steps"] / t_end, theta_end=float(r.theta[-1]))


def implicit_study(ne: int, t_end: float) -> list:
    """scipy's implicit methods against the compiled DOP853 on the fe mesh ``ne`` in free
    flight over [0, t_end] s: wall time, steps and the difference in theta at t_end."""
    rows = []
    ref = None
    for meth in ("DOP853", *IMPLICIT):
        simulate("3.2", "frictionless", 0.001, basis="fe", elements=ne, method=meth)
        w0, c0 = time.perf_counter(), time.process_time()
        r = simulate("3.2", "frictionless", t_end, basis="fe", elements=ne, method=meth)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        th = float(r.sample(np.array([t_end]), "theta")[0])
        ref = th if ref is None else ref
        rows.append(dict(method=meth, elements=ne, t_end=t_end, wall_s=wall, cpu_s=cpu,
                         n_steps=int(r.stats["n_steps"]), n_rhs=int(r.stats["n_rhs"]),
                         theta_diff=abs(th - ref)))
        print(f"  implicit: {meth:<7} fe ne={ne} 0-{t_end:g} s: {cpu:8.2f} s CPU, "
              f"{rows[-1]['n_steps']} steps", flush=True)
    return rows


def _cached(cache, name, fn, *args, refresh=False):
    """``fn(*args)``, stored as ``cache``/``name``.json and read back from there next time."""
    path = Path(cache) / f"{name}.json"
    if path.exists() and not refresh:
        return json.loads(path.read_text())
    out = fn(*args)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a small smoke version, written to /tmp")
    ap.add_argument("--refresh", action="store_true", help="recompute cached runs")
    ap.add_argument("--finer", action="store_true",
                    help="also run the next finer mesh (hybrid Coulomb, ~25 min) against the reference")
    a = ap.parse_args()
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    machine = _common.machine()
    if a.quick:
        reps = acc.representations(modal=(2, 3), fe=(4,), partition=[(3, 0.2, 4, 2)])
        ref_rep, second = dict(basis="fe", elements=6), dict(basis="fe", elements=4)
        tol_check, meshes, implicit = (), (4,), ()
        out_csv, out_json = "/tmp/accuracy_quick.csv", "/tmp/accuracy_quick.json"
        cache = "/tmp/accuracy_quick_cache"
    else:
        reps, ref_rep, second = acc.representations(), REFERENCE, SECOND
        tol_check, meshes, implicit = TOLERANCE_CHECK, FLIGHT_MESHES, IMPLICIT
        out_csv, out_json, cache = acc.RESULTS_CSV, acc.SUMMARY_JSON, acc.CACHE_DIR
    print(_common.machine_line(machine), flush=True)
    jobs = [(r, False) for r in reps] + [(r, True) for r in tol_check]
    jobs += [(second, True), (ref_rep, True)]
    jobs = [j for k, j in enumerate(jobs) if j not in jobs[:k]]          # each run once
    records = []
    for rep, tight in jobs + ([(FINER, True)] if a.finer and not a.quick else []):
        for model in acc.MODELS if rep is not FINER else ("hybrid_coulomb",):
            w0 = time.perf_counter()
            rec = acc.cached_run(rep, model, tight, cache_dir=cache, refresh=a.refresh)
            records.append(rec)
            print(f"{rec['label']:<34}{model:<16}{'tight' if tight else '':<6}"
                  f"{rec['cpu_s']:9.2f} s CPU  {rec['n_impacts']} impacts  {rec['status'][:40]}"
                  f"  ({time.perf_counter() - w0:.1f} s incl. cache)", flush=True)
    ref = {m: next(r for r in records if r["label"] == acc.label(ref_rep) and r["tight"]
                   and r["model"] == m) for m in acc.MODELS}
    df = acc.table(records, ref)
    err = acc.errors(df, acc.label(ref_rep))
    flight = [_cached(cache, f"flight_fe{ne}", flight_cost, ne, FLIGHT_WINDOWS.get(ne, 0.01),
                      refresh=a.refresh) for ne in meshes]
    for f in flight:
        print(f"  flight: fe ne={f['elements']}: {f['cpu_per_s']:.1f} s CPU per simulated s, "
              f"{f['steps_per_s']:.0f} steps/s", flush=True)
    imp = (_cached(cache, f"implicit_fe{IMPLICIT_MESH}", implicit_study, IMPLICIT_MESH,
                   IMPLICIT_T_END, refresh=a.refresh) if implicit else [])
    summary = acc.summarize(df, err, acc.label(ref_rep), acc.label(second))
    if a.finer and not a.quick:
        finer = err[(err.label == acc.label(FINER)) & err.tight]
        summary["reference"]["finer_check"] = {
            r.model: dict(label=r.label, **{q: float(r[q]) for q in acc.QUANTITIES})
            for _, r in finer.iterrows()}
    summary.update(flight_cost=flight, implicit=imp, machine=machine)
    df.to_csv(out_csv, index=False)          # shortest repr: the numbers read back exactly
    with open(out_json, "w") as f:
        json.dump(_common._plain(summary), f, indent=1, sort_keys=True)
        f.write("\n")
    print(acc.report(summary))
    print(f"wrote {out_csv} and {out_json}")


if __name__ == "__main__":
    main()
