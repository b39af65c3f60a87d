"""Parameter sweeps: points per second of flexlib.sweep, serially, on the local process pool and on Dask.

    python3 benchmarks/bench_sweep.py                 # --workers 2 --t-end 0.75 --n 8 --repeat 2

The study: unified LuGre on case 3.2, 0..t_end s, an n x n grid of mu_d (0.2..0.5) x sigma0
(1e4..1e7 1/m, logarithmic): 64 points by default.  Engines:

* serial: ``engine="serial"`` in this (warm) process, the reference;
* local: ``engine="local"``, ``workers`` processes forked from the (warm) fork server, which the
  start-up measurement below has already started;
* dask: ``engine="dask"``.  "own cluster" lets the sweep start (and close) a LocalCluster of
  ``workers`` processes; "running cluster" passes a Client of a cluster that is already up and warm.

Parallel efficiency = serial wall / (workers x engine wall).  Per-point overhead = (workers x
engine wall - sum of the points' own simulation times) / points: the worker time per point that is
not simulation (start-up, transfer, scheduling, idle tail), as seen by the pool.  Utilisation =
sum of the points' simulation times / (workers x engine wall): the share of the workers' time spent
simulating.  On an idle machine efficiency and utilisation agree; on a shared machine the points
themselves run slower in parallel (other jobs take cores), which lowers the efficiency but not the
utilisation, so the utilisation is the engine's own number.  Efficiency, idle estimate =
utilisation x (serial CPU time per point / this engine's CPU time per point): what the efficiency
would be if every worker had a core to itself (CPU time, unlike wall time, does not grow when other
jobs share the cores).
Start-up: the wall time of a sweep of ``workers`` trivial points (0.01 s of free flight) for each
process start method of the local pool: spawn, fork, and forkserver (flexlib's default; "first"
starts the server, which loads the kernels once, "again" reuses it).  Run first, in a process
that has not started a fork server yet.
Every engine's Dataset is checked to equal the serial one (all variables but wall_time).
Writes benchmarks/results/sweep.json and sweep.txt.
"""
from __future__ import annotations

import argparse
import importlib
import statistics
import time

from _common import RESULTS, machine, machine_line, warm_up, write_json

import numpy as np

import flexlib as fl

TIMINGS = ["wall_time", "cpu_time"]


def run(engine, grid, t_end, **kw):
    t0 = time.perf_counter()
    ds = fl.sweep("3.2", "lugre", grid, t_end=t_end, engine=engine, progress=False, **kw)
    wall = time.perf_counter() - t0
    return wall, ds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--t-end", type=float, default=0.75)
    ap.add_argument("--n", type=int, default=8, help="values per grid axis (n x n points)")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    import xarray as xr
    from distributed import Client, LocalCluster

    m = machine()
    sweep_mod = importlib.import_module("flexlib.studies.sweep")
    startup = {}
    for method, label in (("spawn", "spawn"), ("fork", "fork"), ("forkserver", "forkserver, first"),
                          ("forkserver", "forkserver, again")):
        sweep_mod.START_METHOD = method
        t0 = time.perf_counter()
        fl.sweep("3.2", "frictionless", {"mu_d": [0.1 * (k + 1) for k in range(a.workers)]}, t_end=0.01,
                 engine="local", workers=a.workers, progress=False)
        startup[label] = time.perf_counter() - t0
    sweep_mod.START_METHOD = None
    grid = {"mu_d": np.linspace(0.2, 0.5, a.n).tolist(), "sigma0": np.geomspace(1e4, 1e7, a.n).tolist()}
    n_pts = a.n * a.n
    warm_s = warm_up()
    rows = {}

    def record(name, wall, ds, workers, ref=None):
        sim = float(ds.wall_time.sum())
        cpu = float(ds.cpu_time.sum())
        if ref is not None:
            xr.testing.assert_equal(ds.drop_vars(TIMINGS), ref.drop_vars(TIMINGS))
        rows.setdefault(name, []).append(dict(wall_s=wall, sim_s=sim, cpu_s=cpu, workers=workers))

    ref = None
    for _ in range(a.repeat):
        wall, ref = run("serial", grid, a.t_end)
        record("serial", wall, ref, 1)
    for _ in range(a.repeat):
        wall, ds = run("local", grid, a.t_end, workers=a.workers)
        record("local", wall, ds, a.workers, ref)
    for _ in range(a.repeat):
        wall, ds = run("dask", grid, a.t_end, workers=a.workers)
        record("dask, own cluster", wall, ds, a.workers, ref)
    with LocalCluster(n_workers=a.workers, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        client.run(importlib.import_module("flexlib.studies.sweep").warm_worker)
        for _ in range(a.repeat):
            wall, ds = run("dask", grid, a.t_end, scheduler=client)
            record("dask, running cluster", wall, ds, a.workers, ref)
    wall, ds = run("serial", grid, a.t_end)
    record("serial", wall, ds, 1, ref)

    serial_wall = statistics.median(r["wall_s"] for r in rows["serial"])
    serial_sim = statistics.median(r["sim_s"] for r in rows["serial"])
    serial_cpu = statistics.median(r["cpu_s"] for r in rows["serial"])
    table = []
    for name, rs in rows.items():
        wall = statistics.median(r["wall_s"] for r in rs)
        sim = statistics.median(r["sim_s"] for r in rs)
        cpu = statistics.median(r["cpu_s"] for r in rs)
        w = rs[0]["workers"]
        table.append(dict(engine=name, workers=w, runs=len(rs), wall_s=wall, points_per_s=n_pts / wall,
                          efficiency=serial_wall / (w * wall),
                          overhead_ms_per_point=1e3 * (w * wall - sim) / n_pts,
                          utilisation=sim / (w * wall),
                          cpu_ms_per_point=1e3 * cpu / n_pts,
                          efficiency_idle_estimate=sim / (w * wall) * serial_cpu / cpu,
                          sim_s_per_point=sim / n_pts, wall_all_s=[r["wall_s"] for r in rs]))
    lines = [f"# flexlib.sweep: {n_pts}-point lugre sweep (mu_d x sigma0), case 3.2, t_end = {a.t_end} s",
             machine_line(m), f"warm-up of this process: {warm_s:.2f} s; serial simulation time per point "
             f"{1e3 * serial_sim / n_pts:.0f} ms (median)", "",
             "| engine | workers | wall [s] | points/s | parallel efficiency | utilisation | efficiency, idle estimate | simulation per point, wall / CPU [ms] | overhead per point [ms] | runs |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in table:
        lines.append(f"| {r['engine']} | {r['workers']} | {r['wall_s']:.2f} | {r['points_per_s']:.2f} | "
                     f"{r['efficiency']:.2f} | {r['utilisation']:.2f} | {r['efficiency_idle_estimate']:.2f} | "
                     f"{1e3 * r['sim_s_per_point']:.0f} / {r['cpu_ms_per_point']:.0f} | "
                     f"{r['overhead_ms_per_point']:.0f} | {r['runs']} |")
    lines += ["", f"Start-up of the local pool ({a.workers} workers, {a.workers} trivial points), by start method:", "",
              "| start method | wall [s] |", "|---|---:|"]
    lines += [f"| {k} | {v:.2f} |" for k, v in startup.items()]
    text = "\n".join(lines)
    print(text)
    write_json("sweep", dict(machine=m, n_points=n_pts, t_end=a.t_end, workers=a.workers,
                             warm_up_s=warm_s, rows=table, startup_s=startup))
    (RESULTS / "sweep.txt").write_text(text + "\n")


if __name__ == "__main__":
    main()
