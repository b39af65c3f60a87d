"""The command line on this checkout against the same command on a baseline commit, side by side.

Each run is a fresh process of the command line, as a user starts it, writing its JSON result:

    python -m flexlib simulate --case 3.2 --model M --t-end 2 --json out.json
    python -m flexlib simulate --case double-pendulum --json out.json     (the case's own t_end)
    python -m flexlib simulate --case falling-beam --json out.json

once with this checkout on ``PYTHONPATH`` ("current") and once with the baseline commit's tree
("baseline"; default 26b1870, the last commit with flexlib's single-beam simulator, before every
case ran on the system engine), checked out by ``git worktree add --detach`` into a temporary
directory that is removed at the end (also after an error or Ctrl-C).  Both use this Python.

For every command the two alternate round by round (A, B, A, B, ...), so that a slow spell of a
shared machine hits both alike, after one untimed run of each that fills numba's disk cache (the
baseline's cache lives in its temporary tree, so its first run compiles: minutes).  A run that
stops (exit 3: the partial JSON is still written) counts; any other exit status aborts.  The table
gives the median wall time of ``--repeat`` rounds, the ratio current / baseline, and the median of
the run's own wall time inside the process (from its JSON), which tells the simulation from the
interpreter start, the imports and numba's cache load.  ``PYTHONDONTWRITEBYTECODE`` is removed
from the children's environment, as in a user's shell: both trees import from cached bytecode
(with it set, every import recompiles the modules' source, which charges the larger tree more).

``--breakdown MODEL`` measures instead where the time of case 3.2 under MODEL goes, in each tree
(``--repeat`` fresh processes each, alternating): the imports (numba, NumPy and SciPy; then
flexlib), the first run in the process (loading the compiled code from numba's cache, then the
run), a second, warm run, and in a third run under cProfile the time inside the compiled
integration (the calls of ``integrate_phase``) and the summary's samples (``phase_eval_samples``,
and how often it is called); the rest of the warm run is Python.

Usage: python3 benchmarks/bench_one_engine.py [--repeat 3] [--baseline 26b1870]
           [--models frictionless,hybrid_coulomb,...] [--t-end 2] [--cases double-pendulum,falling-beam]
           [--breakdown hybrid_coulomb]
Writes benchmarks/results/one_engine.json (with ``--breakdown``: one_engine_breakdown.json).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from _common import ROOT, machine, machine_line, write_json

MODELS = ("frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre")
CASES = ("double-pendulum", "falling-beam")
BASELINE = "26b1870"
STOPPED = 3                    # the command line's exit status of a run that stopped


def _git(*args, cwd=ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout.strip()


@contextmanager
def baseline_tree(commit: str):
    """A detached worktree of ``commit`` in a temporary directory, removed on exit."""
    tmp = Path(tempfile.mkdtemp(prefix="flexlib-baseline-"))
    tree = tmp / "tree"
    try:
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit], cwd=ROOT,
                       check=True, capture_output=True, text=True)
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT,
                       capture_output=True, text=True)
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True, text=True)


def run(tree: Path, args: list) -> dict:
    """Wall and CPU time [s] of one fresh ``python -m flexlib simulate ... --json`` process with
    ``tree`` on PYTHONPATH (raises unless it exits 0 or 3)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)     # as a user runs it: Python caches its bytecode
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "flexlib", "simulate", *args, "--json", f"{tmp}/out.json"]
        c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = Path(tmp, "out.json")
        if p.returncode not in (0, STOPPED) or not out.exists():
            raise RuntimeError(f"{' '.join(cmd[2:])} (PYTHONPATH={tree}) exited {p.returncode}: "
                               f"{p.stderr[-800:]}")
        run_s = _run_wall(json.loads(out.read_text()))
    cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
    return dict(wall_s=wall, cpu_s=cpu, run_s=run_s, stopped=p.returncode == STOPPED)


def _run_wall(d: dict) -> float:
    """The run's own wall time [s] as its JSON reports it (the paper's cases: stats.wall_time_s;
    a multibody case of the baseline: wall_time), NaN if it reports none."""
    for v in ((d.get("stats") or {}).get("wall_time_s"), d.get("wall_time_s"), d.get("wall_time")):
        if isinstance(v, (int, float)):
            return float(v)
    return math.nan


# the child process of --breakdown: argv = [simulate arguments as JSON, output file]
_BREAKDOWN = r"""
import cProfile, json, pstats, sys, time
t0 = time.perf_counter()
import numba, numpy, scipy
t1 = time.perf_counter()
from flexlib.cli import main
t2 = time.perf_counter()
args, out = json.loads(sys.argv[1]), sys.argv[2]
main(args)
t3 = time.perf_counter()
main(args)
t4 = time.perf_counter()
pr = cProfile.Profile()
pr.enable()
main(args)
pr.disable()
st = pstats.Stats(pr).stats
def inside(name):
    return sum(v[2] for k, v in st.items() if k[2] == name)
def calls(name):
    return sum(v[1] for k, v in st.items() if k[2] == name)
json.dump(dict(imports_ext_s=t1 - t0, import_flexlib_s=t2 - t1, first_run_s=t3 - t2,
               warm_run_s=t4 - t3, integration_s=inside("integrate_phase"),
               samples_s=inside("phase_eval_samples"),
               sample_calls=calls("phase_eval_samples")), open(out, "w"))
"""


def breakdown(tree: Path, args: list) -> dict:
    """Where the time of one fresh process goes (see the module's docstring), ``tree`` on
    PYTHONPATH; ``args`` the arguments of ``simulate`` (the JSON output is added)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        full = ["simulate", *args, "--quiet", "--json", f"{tmp}/run.json"]
        p = subprocess.run([sys.executable, "-c", _BREAKDOWN, json.dumps(full), f"{tmp}/b.json"],
                           cwd=tree, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"breakdown (PYTHONPATH={tree}) exited {p.returncode}: "
                               f"{p.stderr[-800:]}")
        d = json.loads(Path(tmp, "b.json").read_text())
    d["python_s"] = d["warm_run_s"] - d["integration_s"] - d["samples_s"]
    return d


def commands(models, t_end, cases) -> list:
    """(label, the arguments of ``simulate``) of every measured command."""
    out = [(f"3.2 {m}", ["--case", "3.2", "--model", m, "--t-end", f"{t_end:g}"]) for m in models]
    out += [(c, ["--case", c]) for c in cases]
    return out


def measure(trees: dict, args: list, repeat: int) -> dict:
    """One untimed run per tree, then ``repeat`` rounds alternating the trees."""
    first = {name: run(tree, args) for name, tree in trees.items()}
    runs = {name: [] for name in trees}
    for _ in range(repeat):
        for name, tree in trees.items():
            runs[name].append(run(tree, args))
    row = {}
    for name, rs in runs.items():
        row[name] = dict(wall_median_s=statistics.median(r["wall_s"] for r in rs),
                         cpu_median_s=statistics.median(r["cpu_s"] for r in rs),
                         run_median_s=statistics.median(r["run_s"] for r in rs),
                         wall_all_s=[r["wall_s"] for r in rs], cpu_all_s=[r["cpu_s"] for r in rs],
                         stopped=any(r["stopped"] for r in rs),
                         first_run_wall_s=first[name]["wall_s"])
    row["ratio"] = row["current"]["wall_median_s"] / row["baseline"]["wall_median_s"]
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", default=BASELINE, help=f"commit to compare with (default {BASELINE})")
    ap.add_argument("--t-end", type=float, default=2.0, help="t_end of case 3.2 [s] (default 2)")
    ap.add_argument("--models", default=",".join(MODELS), help="models of case 3.2, comma-separated")
    ap.add_argument("--cases", default=",".join(CASES),
                    help="multibody cases, comma-separated, each with its own t_end ('' for none)")
    ap.add_argument("--breakdown", metavar="MODEL", default=None,
                    help="measure where case 3.2's time goes under MODEL instead")
    a = ap.parse_args()
    # a kill (timeout, the session's end) unwinds like Ctrl-C, so the baseline tree is removed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    if a.repeat < 1:
        ap.error(f"parameter 'repeat' = {a.repeat} is invalid: valid range is >= 1")
    models = [m for m in a.models.split(",") if m]
    cases = [c for c in a.cases.split(",") if c]
    base = _git("rev-parse", a.baseline)
    m = machine()
    print(machine_line(m))
    print(f"baseline {base[:9]}: {_git('log', '-1', '--format=%s', base)[:100]}")
    if a.breakdown:
        return main_breakdown(a, base, m)
    rows = []
    with baseline_tree(base) as tree:
        trees = {"current": ROOT, "baseline": tree}
        for label, args in commands(models, a.t_end, cases):
            print(f"  {label} ...", flush=True)
            rows.append(dict(command=label, args=args, **measure(trees, args, a.repeat)))
    print(f"\nfresh `python -m flexlib simulate ... --json`, median wall of {a.repeat} rounds "
          f"(3.2: t_end = {a.t_end:g} s; other cases: their own t_end)")
    print("('run' = the simulation's own wall time inside the process, as its JSON reports it)")
    print(f"{'command':24s} {'current [s]':>12s} {'baseline [s]':>13s} {'current/baseline':>17s} "
          f"{'run: current':>13s} {'run: baseline':>14s}")
    for r in rows:
        c, b = r["current"], r["baseline"]
        flag = " (stopped)" if c["stopped"] or b["stopped"] else ""
        print(f"{r['command']:24s} {c['wall_median_s']:12.2f} {b['wall_median_s']:13.2f} "
              f"{r['ratio']:17.2f} {c['run_median_s']:13.2f} {b['run_median_s']:14.2f}{flag}")
    path = write_json("one_engine", dict(machine=m, baseline=base, t_end_3_2=a.t_end,
                                         repeat=a.repeat, rows=rows))
    print(f"wrote {path.relative_to(ROOT)}")


def main_breakdown(a, base, m):
    """``--breakdown``: the table of where case 3.2's time goes, both trees."""
    args = ["--case", "3.2", "--model", a.breakdown, "--t-end", f"{a.t_end:g}"]
    keys = ("imports_ext_s", "import_flexlib_s", "first_run_s", "warm_run_s", "integration_s",
            "samples_s", "python_s")
    with baseline_tree(base) as tree:
        trees = {"current": ROOT, "baseline": tree}
        for t in trees.values():                     # fill numba's caches (the baseline compiles)
            run(t, args)
        runs = {name: [] for name in trees}
        for _ in range(a.repeat):
            for name, t in trees.items():
                runs[name].append(breakdown(t, args))
    med = {name: {k: statistics.median(r[k] for r in rs) for k in keys + ("sample_calls",)}
           for name, rs in runs.items()}
    print(f"\ncase 3.2, {a.breakdown}, 0-{a.t_end:g} s: median of {a.repeat} fresh processes [s]")
    print(f"{'':34s} {'current':>9s} {'baseline':>9s}")
    labels = ("imports: numba, NumPy, SciPy", "import flexlib", "first run (cache load + run)",
              "warm run", "  of it: compiled integration", "  of it: the summary's samples",
              "  of it: Python (the rest)")
    for k, label in zip(keys, labels):
        print(f"{label:34s} {med['current'][k]:9.3f} {med['baseline'][k]:9.3f}")
    path = write_json("one_engine_breakdown", dict(machine=m, baseline=base, t_end_3_2=a.t_end,
                                                   model=a.breakdown, repeat=a.repeat,
                                                   runs=runs, median=med))
    print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
