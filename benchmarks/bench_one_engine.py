"""The paper's case 3.2 on the single-beam simulator and on the system engine, side by side.

Each run is a fresh process of the command line, as a user starts it, writing its JSON result:

    python -m flexlib simulate --case 3.2           --model M --t-end 2 --json out.json
    python -m flexlib simulate --case beam-on-slope --model M --t-end 2 --json out.json

(the same beam, slope, laws and tolerances: tests/test_parity_gate.py holds the two to 1e-9 rad).
The two commands alternate round by round (A, B, A, B, ...), so that a slow spell of a shared
machine hits both alike, after one untimed round that fills numba's disk cache; the table gives
the median wall time of ``--repeat`` rounds per model and the ratio system / single-beam.

Usage: python3 benchmarks/bench_one_engine.py [--repeat 3] [--models frictionless,hybrid_coulomb]
Writes benchmarks/results/one_engine.json.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time

from _common import ROOT, machine, machine_line, write_json

MODELS = ("frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre")
ENGINES = {"single-beam": "3.2", "system": "beam-on-slope"}


def run(case: str, model: str, t_end: float) -> float:
    """Wall time [s] of one fresh ``simulate --json`` process (raises if it fails)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "flexlib", "simulate", "--case", case, "--model", model,
               "--t-end", str(t_end), "--json", f"{tmp}/out.json"]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[2:])} exited {p.returncode}: {p.stderr[-500:]}")
    return wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--models", default=",".join(MODELS))
    a = ap.parse_args()
    models = [m for m in a.models.split(",") if m]
    m = machine()
    print(machine_line(m))
    rows = []
    for model in models:
        for case in ENGINES.values():        # fill the disk cache, untimed
            run(case, model, a.t_end)
        times = {k: [] for k in ENGINES}
        for _ in range(a.repeat):
            for name, case in ENGINES.items():
                times[name].append(run(case, model, a.t_end))
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append(dict(model=model, **{f"{k} [s]": v for k, v in med.items()},
                         ratio=med["system"] / med["single-beam"]))
    print(f"\ncase 3.2, 0-{a.t_end:g} s, fresh `simulate --json`, median of {a.repeat} rounds")
    print(f"{'model':16s} {'single-beam [s]':>16s} {'system [s]':>11s} {'system/single':>14s}")
    for r in rows:
        print(f"{r['model']:16s} {r['single-beam [s]']:16.2f} {r['system [s]']:11.2f} "
              f"{r['ratio']:14.2f}")
    path = write_json("one_engine", dict(machine=m, t_end=a.t_end, repeat=a.repeat, rows=rows))
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
