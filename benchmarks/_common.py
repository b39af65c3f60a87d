"""Shared helpers of the benchmark scripts.

* puts the repository root on ``sys.path`` so that ``python3 benchmarks/<script>.py`` works from a
  checkout without installing flexlib;
* :func:`machine` describes the machine (nproc, CPU model, load, Python/NumPy/numba/SciPy versions,
  git commit and whether the tree is dirty);
* :func:`run_model` runs one simulation and never raises for a stopped run
  (:class:`~flexlib.paper.SimulationError`, e.g. an event cap or a Painleve stop): it reports
  the time reached instead;
* :func:`median_runs` repeats a measurement and keeps the median of every numeric field;
  :func:`interleaved` does the same for several measurements taken round by round (A, B, C, A,
  B, C, ...), so that a slow spell of a shared machine hits all of them alike;
* :func:`cached` computes a result once and keeps it as JSON in a cache folder;
* :func:`write_json` writes ``benchmarks/results/<name>.json``.
"""
from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import flexlib as fl  # noqa: E402
from flexlib.paper import SimulationError  # noqa: E402
from flexlib.solver import integrator  # noqa: E402


def sim_module():
    """The module flexlib.paper, which runs the paper's cases on the system engine
    (``flexlib.simulate`` is its function ``simulate``)."""
    import importlib
    return importlib.import_module("flexlib.paper")


MODELS = ("frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre")
COMPILED = "DOP853"             # the default: flexlib's compiled DOP853 (flexlib.solver.integrator)
SCIPY = "DOP853-scipy"          # scipy.integrate.solve_ivp(method="DOP853"), the same right-hand side


def cpu_model() -> str:
    """'model name' of /proc/cpuinfo, with family/model, clock and hypervisor when known."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if ":" in line:
                    k, v = (x.strip() for x in line.split(":", 1))
                    info.setdefault(k, v)
    except OSError:
        return platform.processor() or platform.machine()
    name = info.get("model name", platform.machine())
    extra = []
    if "cpu family" in info and "model" in info:
        extra.append(f"family {info['cpu family']} model {info['model']}")
    if "cpu MHz" in info:
        extra.append(f"{float(info['cpu MHz']):.0f} MHz")
    if "hypervisor" in info.get("flags", "").split():
        extra.append("virtual machine")
    return f"{name} ({', '.join(extra)})" if extra else name


def _git(*args) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except Exception:
        return ""


def _sources_hash() -> str:
    """sha256 of flexlib/*.py (identifies the measured code when the tree is dirty)."""
    import hashlib
    h = hashlib.sha256()
    for p in sorted((ROOT / "flexlib").glob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def machine() -> dict:
    import numba
    import scipy
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return dict(nproc=os.cpu_count(), cpu=cpu_model(), platform=platform.platform(),
                python=platform.python_version(), numpy=np.__version__, numba=numba.__version__,
                scipy=scipy.__version__, flexlib=fl.__version__,
                numba_compiled=bool(integrator.COMPILED),
                git_commit=_git("rev-parse", "--short", "HEAD"),
                git_dirty=bool(_git("status", "--porcelain", "--", "flexlib")),
                flexlib_sources_sha256=_sources_hash(),
                loadavg=load, date=time.strftime("%Y-%m-%d %H:%M:%S"))


def machine_line(m: dict | None = None) -> str:
    m = m or machine()
    load = f"; load average at start {m['loadavg'][0]:.2f}" if m.get("loadavg") else ""
    dirty = " (+ uncommitted changes in flexlib/)" if m["git_dirty"] else ""
    return (f"{m['nproc']} cores, {m['cpu']}; Python {m['python']}, NumPy {m['numpy']}, "
            f"numba {m['numba']}, SciPy {m['scipy']}; flexlib {m['flexlib']} @ {m['git_commit']}"
            f"{dirty}{load}")


def run_model(model, t_end, *, case="3.2", method=COMPILED, **overrides) -> dict:
    """One run; wall time (and process CPU time) of the ``simulate`` call and its counters.  A run that stops with
    SimulationError is reported with the time it reached (``status`` = 'stopped: ...')."""
    c0 = time.process_time()
    t0 = time.perf_counter()
    try:
        r = fl.simulate(case, model, t_end, method=method, **overrides)
        status, stopped = "ok", False
    except SimulationError as err:
        r, status, stopped = err.result, "stopped: " + str(err.cause), True
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    t_reached = float(r.t[-1])
    return dict(wall_s=wall, cpu_s=cpu, n_rhs=int(r.stats["n_rhs"]), n_steps=int(r.stats["n_steps"]),
                n_events=int(r.stats["n_events"]), n_jumps=len(r.jumps), n_segments=int(r.stats.get("n_segments", 0)),
                n_samples=int(len(r.t)), t_reached=t_reached, rtf=t_reached / wall,
                stopped=stopped, status=status, n_impacts=len(r.impacts),
                first_impact_end=float(r.impacts[0]["t_end"]) if r.impacts else None,
                result=r)


NUMERIC = ("wall_s", "cpu_s", "n_rhs", "n_steps", "n_events", "n_jumps", "n_segments", "n_samples",
           "t_reached", "rtf")


def _summary(runs: list) -> dict:
    """The median of every numeric field of ``runs`` (dicts of :func:`run_model`), the spread of
    the times (``wall_min_s``, ``wall_max_s``, ``wall_all_s``, ``cpu_all_s``) and the non-numeric
    fields of the last run."""
    out = {k: v for k, v in runs[-1].items() if k != "result"}
    for k in NUMERIC:
        if k in out and out[k] is not None:
            out[k] = statistics.median(r[k] for r in runs)
    out["wall_all_s"] = [r["wall_s"] for r in runs]
    out["cpu_all_s"] = [r["cpu_s"] for r in runs]
    out["wall_min_s"], out["wall_max_s"] = min(out["wall_all_s"]), max(out["wall_all_s"])
    out["repeat"] = len(runs)
    return out


def median_runs(fn, repeat: int) -> dict:
    """Call ``fn()`` (-> dict) ``repeat`` times; see :func:`_summary`."""
    runs = []
    for _ in range(repeat):
        r = fn()
        r.pop("result", None)        # free each run's histories before the next one
        runs.append(r)
    return _summary(runs)


def interleaved(fns: dict, repeat: int) -> tuple[dict, list]:
    """Run every ``fns[key]()`` once per round, ``repeat`` rounds.  Returns ({key: summary} as
    :func:`median_runs`, [per-round sum of the wall times of all keys])."""
    runs = {k: [] for k in fns}
    rounds = []
    for _ in range(repeat):
        tot = 0.0
        for k, fn in fns.items():
            r = fn()
            r.pop("result", None)
            runs[k].append(r)
            tot += r["wall_s"]
        rounds.append(tot)
    return {k: _summary(v) for k, v in runs.items()}, rounds


def warm_up():
    """Load (or compile) the numba functions once; returns the seconds it took."""
    t0 = time.perf_counter()
    for m in ("frictionless", "hybrid_coulomb", "lugre"):
        run_model(m, 0.34)       # reaches the first contact (t = 0.3329 s): every phase kind
    return time.perf_counter() - t0


def cached(cache, name, fn, *args, refresh=False):
    """``fn(*args)``, stored as ``cache``/``name``.json and read back from there next time
    (``refresh`` computes it again)."""
    path = Path(cache) / f"{name}.json"
    if path.exists() and not refresh:
        return json.loads(path.read_text())
    out = fn(*args)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out))
    return out


def write_json(name: str, data: dict) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(_plain(data), indent=1))
    return path


def _plain(x):
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return None
    return x


class Sections:
    """Time spent in the main parts of a run on the system engine, measured by wrapping module
    and class attributes (no source change):

    * ``integrate``: the compiled phase integrator (the ``integrate_phase`` that
      ``flexlib.solver.integrator.specialize`` compiles around ``flexlib.multibody.kernel``) or,
      for scipy's methods, ``flexlib.solver.integrator.ScipyPhase`` (``solve_ivp``);
    * ``phase``: ``SystemSimulator._phase``, the Python set-up of a phase (its start's
      evaluation, the watched events) around the integrator (includes integrate);
    * ``build_result``: the paper's histories, impacts and audit from the run's phases
      (``flexlib.history.build_result`` as ``flexlib.paper`` calls it);
    * ``actions``: the event actions (``SystemSimulator._handle``: velocity jump, onset,
      separation, slip stop ...), which include
    * ``select``: the contact-mode selections (``SystemSimulator._choose``: the candidates'
      trial solves);
    * ``rest`` = total - integrate - wrapper - build_result - actions: the rest of the Python
      event loop (restarting each phase, the log) and the paper's reading of the log.

    Only runs whose engine is created inside the ``with`` block are measured (the compiled
    integrator is wrapped where the engine asks for it).  Use as ``with Sections() as s: ...;
    s.report(total)``.  The clock is the process CPU time (``time.process_time``; pass ``total``
    = the run's ``cpu_s``): on a shared machine it is far less disturbed by other jobs than wall
    time.
    """
    clock = staticmethod(time.process_time)
    KEYS = ("integrate", "phase", "build_result", "actions", "select")

    def __init__(self):
        self.t = {k: 0.0 for k in self.KEYS}
        self.n = {k: 0 for k in self.KEYS}
        self._saved = []

    def _timed(self, fn, key):
        acc, cnt, clock = self.t, self.n, self.clock

        def wrapper(*a, **k):
            t0 = clock()
            try:
                return fn(*a, **k)
            finally:
                acc[key] += clock() - t0
                cnt[key] += 1
        return wrapper

    def _wrap(self, owner, name, key):
        orig = getattr(owner, name)
        self._saved.append((owner, name, orig))
        setattr(owner, name, self._timed(orig, key))

    def __enter__(self):
        from flexlib import paper
        from flexlib.multibody.simulate import SystemSimulator
        specialize = integrator.specialize
        self._saved.append((integrator, "specialize", specialize))
        integrator.specialize = lambda kern: self._timed(specialize(kern), "integrate")
        self._wrap(integrator, "ScipyPhase", "integrate")
        self._wrap(SystemSimulator, "_phase", "phase")
        self._wrap(paper, "build_result", "build_result")
        self._wrap(SystemSimulator, "_handle", "actions")
        self._wrap(SystemSimulator, "_choose", "select")
        return self

    def __exit__(self, *exc):
        for owner, name, orig in reversed(self._saved):
            setattr(owner, name, orig)
        return False

    def report(self, total: float) -> dict:
        integ = self.t["integrate"]
        wrapper = max(self.t["phase"] - integ, 0.0) if self.n["phase"] else 0.0
        rest = total - integ - wrapper - self.t["build_result"] - self.t["actions"]
        n_ph = max(self.n["integrate"], 1)
        return dict(total_s=total, integrate_s=integ, phase_wrapper_s=wrapper,
                    build_result_s=self.t["build_result"], actions_s=self.t["actions"],
                    n_actions=self.n["actions"], select_s=self.t["select"],
                    n_selections=self.n["select"], loop_rest_s=rest,
                    n_phases=self.n["integrate"], rest_per_phase_us=1e6 * rest / n_ph,
                    wrapper_per_phase_us=1e6 * wrapper / n_ph)
