"""Accuracy against cost of the beam's bases (flexlib.studies.accuracy): rerun the study.

Case 3.2 (the default): runs every representation of :func:`flexlib.studies.accuracy.representations`
with the hybrid Coulomb and the frictionless model over 0-1 s, the reference (the finest
finite-element mesh, tightened tolerances) and its self-convergence check, the cost growth of the
finite-element mesh in free flight and the implicit integrators on one finite-element mesh.
``--case double-pendulum``: the flexible double pendulum's first impact (modal N, fe n_e, the
reference a finer mesh at tight tolerances).

Every run (and each of the two timing studies) is cached in ``benchmarks/results/tmp/<stem>/``
(a rerun computes only what is missing; ``--refresh`` recomputes).  A run that is neither cached
nor to be refreshed but has a row in the committed table is taken from there: the reference's
angle histories are committed (``<stem>_reference.json``), so a run added to the study is
compared with them without running the reference again, and a reference that is run again must
reproduce its committed row to the last digit or the script stops (the committed rows were then
made by other code: rerun with ``--refresh``).  Writes ``benchmarks/results/<stem>.csv`` (one row
per run) and ``<stem>.json`` (reference, self-convergence, 1 % table, peak-force convergence,
implicit integrators, flight cost, machine); the figures command draws the figures from them.
One core, one run at a time; the cost is each run's CPU time (the machine may be shared).

    python3 benchmarks/bench_accuracy.py                  # case 3.2 (about 35 min on one core)
    python3 benchmarks/bench_accuracy.py --case double-pendulum
    python3 benchmarks/bench_accuracy.py --quick          # a small smoke version (~1 min), to /tmp
"""
import argparse
import json
import time
import warnings
from pathlib import Path

import _common  # (also puts the repository root on sys.path)
import numpy as np

from flexlib.studies import accuracy as acc
from flexlib import simulate

# The reference: the finest mesh whose two runs fit in the study's time (about 6 min of CPU each;
# 16 elements take about 25 min each, 32 elements hours: see the flight cost)
REFERENCE = dict(basis="fe", elements=12)
SECOND = dict(basis="fe", elements=8)           # its self-convergence check
TOLERANCE_CHECK = (dict(basis="fe", elements=8), dict(basis="modal", n_modes=8))
FINER = dict(basis="fe", elements=16)           # --finer: one run past the reference (hybrid Coulomb)
FLIGHT_MESHES = (4, 8, 16, 32)
FLIGHT_WINDOWS = {4: 0.1, 8: 0.1, 16: 0.02, 32: 0.002}    # s of flight timed (before the first impact)
IMPLICIT = ("LSODA", "BDF", "Radau-scipy")      # scipy's, with finite-difference Jacobians
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


# The double pendulum (see benchmarks/README.md for the measured costs behind these choices)
DP_MODAL, DP_FE = range(1, 11), (2, 3, 4, 6)
# the partition with its end region (where B lies: 0.8 L1) meshed as finely as 20 elements per
# metre, unreduced and reduced to 2 or 4 fixed-interface modes: (N, local length [m], n_e, k)
DP_PARTITION = ((3, 0.2, 4, 0), (3, 0.3, 6, 0), (3, 0.4, 8, 0), (3, 0.4, 8, 2), (3, 0.4, 8, 4))
DP_REFERENCE = dict(basis="fe", elements=12)
DP_SECOND = dict(basis="fe", elements=8)
DP_TOLERANCE_CHECK = (dict(basis="modal", n_modes=10),)


def _key(rec_or_row):
    get = rec_or_row.get if isinstance(rec_or_row, dict) else rec_or_row.__getitem__
    return (get("label"), get("model"), bool(get("tight")), get("method"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", default="3.2", choices=sorted(acc.STUDIES),
                    help="the study: case 3.2 (default) or the double pendulum")
    ap.add_argument("--quick", action="store_true", help="a small smoke version, written to /tmp")
    ap.add_argument("--refresh", action="store_true", help="recompute cached runs")
    ap.add_argument("--finer", action="store_true",
                    help="also run the next finer mesh (case 3.2, hybrid Coulomb, ~25 min) "
                         "against the reference")
    a = ap.parse_args()
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    study = acc.STUDIES[a.case]
    paper = study is acc.PAPER
    machine = _common.machine()
    out_csv, out_json, out_ref = study.results_csv, study.summary_json, study.reference_json
    cache, stored_csv = study.cache_dir, study.results_csv
    if a.quick:
        reps = (acc.representations(modal=(2, 3), fe=(4,), partition=[(3, 0.2, 4, 2)]) if paper
                else [dict(basis="modal", n_modes=n) for n in (1, 2)])
        ref_rep, second = dict(basis="fe", elements=6 if paper else 3), dict(basis="fe", elements=4 if paper else 2)
        tol_check, meshes, implicit = (), (4,) if paper else (), ()
        out_csv, out_json, out_ref = (Path(f"/tmp/{study.stem}_quick{x}")
                                      for x in (".csv", ".json", "_reference.json"))
        cache, stored_csv = f"/tmp/{study.stem}_quick_cache", out_csv
    elif paper:
        reps, ref_rep, second = acc.representations(), REFERENCE, SECOND
        tol_check, meshes, implicit = TOLERANCE_CHECK, FLIGHT_MESHES, IMPLICIT
    else:
        reps = ([dict(basis="modal", n_modes=n) for n in DP_MODAL]
                + [dict(basis="fe", elements=n) for n in DP_FE]
                + acc.representations(modal=(), fe=(), partition=DP_PARTITION))
        ref_rep, second, tol_check, meshes, implicit = DP_REFERENCE, DP_SECOND, DP_TOLERANCE_CHECK, (), ()
    print(_common.machine_line(machine), flush=True)
    jobs = [(r, False) for r in reps] + [(r, True) for r in tol_check]
    jobs += [(second, True), (ref_rep, True)]
    if paper and not a.quick and (a.finer or any(r.label == acc.label(FINER) for _, r in (
            acc.load_table(stored_csv).iterrows() if Path(stored_csv).exists() else ()))):
        jobs.append((FINER, True))       # a committed finer run is kept
    jobs = [j for k, j in enumerate(jobs) if j not in jobs[:k]]          # each run once
    # what the committed results already hold (rows, the reference's histories, timing studies)
    # (not in --quick: a smoke test runs everything it reports)
    stored = (acc.load_table(stored_csv) if Path(stored_csv).exists() and not a.refresh
              and not a.quick else None)
    need = {"cpu_s", "wall_s", *(f"{n}_err" for n in study.angles),
            *(f"{k}_1" for k in study.impact_keys)}
    if stored is not None and not need <= set(stored.columns):
        print(f"{stored_csv} is not this study's table: its rows are not kept", flush=True)
        stored = None
    stored_ref = (acc.load_reference(path=out_ref)
                  if stored is not None and Path(out_ref).exists() else None)
    stored_summary = (json.loads(Path(out_json).read_text())
                      if stored is not None and Path(out_json).exists() else {})
    rows = {} if stored is None else {_key(r): r for _, r in stored.iterrows()}

    def in_cache(rep, model, tight):
        return acc.cache_path(rep, model, tight, None, cache, study).exists()

    records, reused, ref = [], [], {}
    for rep, tight in jobs:
        for model in study.models if rep is not FINER else ("hybrid_coulomb",):
            key = (acc.label(rep), model, tight, "DOP853")
            is_ref = rep == ref_rep and tight
            committed = key in rows and not in_cache(rep, model, tight)
            if committed and (not is_ref or (stored_ref is not None and model in stored_ref)):
                reused.append(rows[key])
                if is_ref:
                    ref[model] = stored_ref[model]
                print(f"{key[0]:<34}{model:<16}{'tight' if tight else '':<6}"
                      f"{rows[key].cpu_s:9.2f} s CPU  (committed row)", flush=True)
                continue
            w0 = time.perf_counter()
            rec = acc.cached_run(rep, model, tight, cache_dir=cache, refresh=a.refresh, study=study)
            records.append(rec)
            if is_ref:
                ref[model] = rec
            print(f"{rec['label']:<34}{model:<16}{'tight' if tight else '':<6}"
                  f"{rec['cpu_s']:9.2f} s CPU  {rec['n_impacts']} impacts  {rec['status'][:40]}"
                  f"  ({time.perf_counter() - w0:.1f} s incl. cache)", flush=True)
    # committed rows were compared with the committed reference: a reference run again must give
    # its committed row to the last digit, else those rows are stale
    new_ref_rows = acc.table([r for r in records if r["label"] == acc.label(ref_rep) and r["tight"]],
                             ref, study)
    for _, r in new_ref_rows.iterrows():
        old = rows.get(_key(r))
        if reused and (old is None or not all(
                old[c] == r[c] or (np.isnan(old[c]) and np.isnan(r[c]))
                for c in new_ref_rows.columns if c.split("_")[-1].isdigit())):
            raise SystemExit(f"the reference {r.label} ({r.model}) does not give its committed "
                             "row: the committed rows are stale, rerun with --refresh")
    import pandas as pd
    df = pd.concat([acc.table(records, ref, study)] + ([pd.DataFrame(reused)] if reused else []),
                   ignore_index=True)
    order = {(acc.label(r), t): k for k, (r, t) in enumerate(jobs)}
    df["_order"] = [order.get((lab, bool(t)), len(order)) for lab, t in zip(df.label, df.tight)]
    mod = {m: k for k, m in enumerate(study.models)}
    df["_model"] = [mod[m] for m in df.model]
    df = df.sort_values(["_order", "_model"], kind="stable").drop(columns=["_order", "_model"])
    df = df.reset_index(drop=True)
    err = acc.errors(df, acc.label(ref_rep), study)
    old_flight = {f["elements"]: f for f in stored_summary.get("flight_cost", [])}
    flight = [old_flight[ne] if (ne in old_flight and not (Path(cache) / f"flight_fe{ne}.json").exists())
              else _common.cached(cache, f"flight_fe{ne}", flight_cost, ne, FLIGHT_WINDOWS.get(ne, 0.01),
                           refresh=a.refresh) for ne in meshes]
    for f in flight:
        print(f"  flight: fe ne={f['elements']}: {f['cpu_per_s']:.1f} s CPU per simulated s, "
              f"{f['steps_per_s']:.0f} steps/s", flush=True)
    imp = []
    if implicit:
        imp = (stored_summary["implicit"] if stored_summary.get("implicit") and not
               (Path(cache) / f"implicit_fe{IMPLICIT_MESH}.json").exists() else
               _common.cached(cache, f"implicit_fe{IMPLICIT_MESH}", implicit_study, IMPLICIT_MESH,
                       IMPLICIT_T_END, refresh=a.refresh))
    summary = acc.summarize(df, err, acc.label(ref_rep), acc.label(second), study=study)
    if paper and not a.quick:
        finer = err[(err.label == acc.label(FINER)) & err.tight]
        if len(finer):
            summary["reference"]["finer_check"] = {
                r.model: dict(label=r.label, **{q: float(r[q]) for q in study.quantities})
                for _, r in finer.iterrows()}
    summary.update(flight_cost=flight, implicit=imp, machine=machine)
    if reused:
        summary["machine_earlier_rows"] = stored_summary.get("machine_earlier_rows",
                                                             stored_summary.get("machine"))
    df.to_csv(out_csv, index=False)          # shortest repr: the numbers read back exactly
    acc.save_reference(ref, study, out_ref)
    with open(out_json, "w") as f:
        json.dump(_common._plain(summary), f, indent=1, sort_keys=True)
        f.write("\n")
    print(acc.report(summary))
    print(f"wrote {out_csv}, {out_json} and {out_ref}")


if __name__ == "__main__":
    main()
