"""Fresh-process command-line time.

    python -m flexlib simulate --case 3.2 --model lugre --t-end 2 --quiet

* **warm**: numba's on-disk cache (the .nbi and .nbc files in flexlib's __pycache__ folders)
  filled: median of --repeat fresh processes (one untimed run first fills the cache if needed);
* **cold**: ``NUMBA_CACHE_DIR`` set to an empty temporary folder, so every numba function of the
  run is compiled in that process (the repository's own cache is not touched); median of
  --cold-repeat processes;
* the parts of a warm process: ``python -c pass`` (interpreter start), ``import flexlib``
  (NumPy, SciPy, numba import + loading the cached machine code of the system engine's kernel and integrator), and
  the simulate call itself (timed inside the process).

Usage: python3 benchmarks/bench_cli.py [--repeat 5] [--cold-repeat 1] [--model lugre]
Writes benchmarks/results/cli.json.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from _common import ROOT, machine, machine_line, write_json


LAST_CPU = [0.0]


def timed(cmd, env=None):
    """Wall time of one child process; its CPU time (user + sys, getrusage) goes to LAST_CPU."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    LAST_CPU[0] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if p.returncode not in (0, 3):
        raise RuntimeError(f"{cmd} failed ({p.returncode}): {p.stderr[-2000:]}")
    return wall, p


def med(cmd, n, env=None):
    ws, cs = [], []
    for _ in range(n):
        ws.append(timed(cmd, env)[0])
        cs.append(LAST_CPU[0])
    return dict(median_s=statistics.median(ws), min_s=min(ws), max_s=max(ws), all_s=ws,
                cpu_median_s=statistics.median(cs), cpu_all_s=cs)


INNER = ("import time; t0 = time.perf_counter(); import flexlib; t1 = time.perf_counter(); "
         "from flexlib.paper import simulate, SimulationError\n"
         "try:\n    simulate('3.2', {model!r}, {t_end})\nexcept SimulationError:\n    pass\n"
         "t2 = time.perf_counter(); print(t1 - t0, t2 - t1)")
# numba's cache load on the first call: a short run (to just after the first contact) twice
INNER_LOAD = ("import time; import flexlib; from flexlib.paper import simulate\n"
              "t0 = time.perf_counter(); simulate('3.2', {model!r}, 0.34); t1 = time.perf_counter(); "
              "simulate('3.2', {model!r}, 0.34); t2 = time.perf_counter(); print(t1 - t0, t2 - t1)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cold-repeat", type=int, default=1)
    ap.add_argument("--model", default="lugre")
    ap.add_argument("--t-end", default="2")
    a = ap.parse_args()
    mach = machine()
    print(machine_line(mach))
    py = sys.executable
    cli = [py, "-m", "flexlib", "simulate", "--case", "3.2", "--model", a.model, "--t-end", a.t_end,
           "--quiet"]
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_DISABLE_JIT", None)
    timed(cli, env)                           # fill the cache if it is stale or empty
    warm = med(cli, a.repeat, env)
    start = med([py, "-c", "pass"], a.repeat, env)
    imp = med([py, "-c", "import flexlib, flexlib.paper"], a.repeat, env)
    inner = []
    for _ in range(a.repeat):
        _w, p = timed([py, "-c", INNER.format(model=a.model, t_end=float(a.t_end))], env)
        t_imp, t_sim = map(float, p.stdout.split())
        inner.append((t_imp, t_sim))
    first_sim = dict(import_s=statistics.median(x[0] for x in inner),
                     simulate_s=statistics.median(x[1] for x in inner))
    loads = []
    for _ in range(a.repeat):
        _w, p = timed([py, "-c", INNER_LOAD.format(model=a.model)], env)
        loads.append(tuple(map(float, p.stdout.split())))
    first_sim["short_run_first_call_s"] = statistics.median(x[0] for x in loads)
    first_sim["short_run_second_call_s"] = statistics.median(x[1] for x in loads)
    first_sim["numba_cache_load_s"] = first_sim["short_run_first_call_s"] - first_sim["short_run_second_call_s"]
    cold = []
    for _ in range(a.cold_repeat):
        with tempfile.TemporaryDirectory(prefix="flexlib-numba-cold-") as d:
            env_c = dict(env, NUMBA_CACHE_DIR=d)
            cold.append((timed(cli, env_c)[0], LAST_CPU[0]))
    nan = float("nan")
    cold_d = dict(median_s=statistics.median(x[0] for x in cold) if cold else nan,
                  all_s=[x[0] for x in cold],
                  cpu_median_s=statistics.median(x[1] for x in cold) if cold else nan)
    out = dict(machine=mach, command=" ".join(["python", *cli[1:]]), warm=warm, cold=cold_d,
               python_start=start, import_flexlib=imp, in_process_warm=first_sim, repeat=a.repeat)
    print(f"\nfresh process: {out['command']}")
    print(f"  warm numba cache : median {warm['median_s']:.2f} s  [{warm['min_s']:.2f} .. {warm['max_s']:.2f}] "
          f"of {a.repeat}; CPU time (user+sys) {warm['cpu_median_s']:.2f} s")
    print(f"  cold (empty NUMBA_CACHE_DIR): {cold_d['median_s']:.2f} s  (of {a.cold_repeat}); CPU time "
          f"{cold_d['cpu_median_s']:.2f} s")
    print(f"  parts of a warm process: interpreter start {start['median_s']:.2f} s; "
          f"'import flexlib' process {imp['median_s']:.2f} s (CPU {imp['cpu_median_s']:.2f} s); inside one process: import "
          f"{first_sim['import_s']:.2f} s + first simulate call {first_sim['simulate_s']:.2f} s")
    print(f"  numba cache load on the first call: {first_sim['numba_cache_load_s']:.2f} s (a 0..0.34 s run: "
          f"first call {first_sim['short_run_first_call_s']:.2f} s, second {first_sim['short_run_second_call_s']:.2f} s)")
    print(f"\nwritten {write_json('cli', out)}")


if __name__ == "__main__":
    main()
