"""Parameter studies: the full product of a parameter grid, for each model, in parallel.

:func:`sweep` runs :func:`flexlib.simulate` at every point of ``grid`` x ``models`` and returns an
:class:`xarray.Dataset` with one dimension per swept parameter plus ``model`` (and ``impact`` for
the per-impact metrics).  Three engines give the same values, bit for bit:

* ``"serial"``: a loop in this process (the reference);
* ``"local"`` (default): a process pool with one worker per core of this machine.  Each worker
  imports flexlib and runs one short simulation when it starts, so numba's compiled kernels are
  loaded from the on-disk cache once per worker, never per point;
* ``"dask"``: the points are tasks on a ``dask.distributed`` cluster: ``scheduler`` is an address
  (``"tcp://host:8786"``) or a ``distributed.Client``; with neither, a ``LocalCluster`` on
  127.0.0.1 is started for the sweep and closed after it.

The worker processes start with the numerical settings of the calling process
(:func:`flexlib._numerics.worker_environment`: the pins of flexlib/_numerics.py and the calling
process's BLAS thread counts, which a Dask worker would otherwise set to 1), set in the
environment they inherit, since they load NumPy before they import flexlib.  So the local pool
and a Dask ``LocalCluster`` (the one the sweep starts, or :func:`local_cluster`) agree to the
bit, also when the calling process loaded NumPy before the pins (its workers then run pinned,
the process itself does not: only engine ``"serial"`` differs there).  Workers started
elsewhere (``dask worker``) have the environment they were started with: the sweep warns when
they run without the pins.

A point that fails never stops the sweep: ``status`` says why (``"stopped: <cause>"`` for a run
that raised :class:`~flexlib.paper.SimulationError`, ``"invalid: <message>"`` for a parameter
combination that is refused, such as mu_s < mu_d), and its metrics are NaN except those that the
partial result still gives: the impacts completed before the stop, the audit residual, the time
reached and the wall time.  Ctrl-C (or a notebook's interrupt) stops the sweep and returns the
points that finished (``status = "not run"`` for the others).

With ``cache_dir`` every finished point is written to ``cache_dir/<key>.json``, keyed by the full
parameter set, the model, t_end, the flexlib version and a hash of flexlib's source files, so a
rerun computes only the missing points (and a changed flexlib never reuses stale results).
"""
from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import math
import os
import signal
import time
import warnings
from pathlib import Path

import numpy as np

from .. import __version__, _numerics
from ..models import CONTACT_MODELS
from ..outputs import Outputs, write
from ..params import DESCRIPTIONS, RANGES, Case, check_value, paper_case, parse_value
from ..paper import SimulationError, simulate
from ..models import canonical_model
from ..cases import SystemCase, get_case
from ..cases.command import is_system_case

__all__ = ["sweep", "sweep_table", "parse_grid_values", "METRICS", "IMPACT_METRICS", "ENGINES"]

ENGINES = ("serial", "local", "dask")

# name: (long name, unit); the per-impact metrics have the extra dimension ``impact`` (1, 2, ...)
IMPACT_METRICS = {
    "impact_start": ("start time of the impact (first velocity jump)", "s"),
    "impact_duration": ("duration of the impact (first jump to last separation of its cluster)", "s"),
    "peak_normal_force": ("peak normal contact force N in the impact", "N"),
    "peak_friction_force": ("peak tangential contact force |F_t| in the impact", "N"),
    "energy_lost": ("mechanical energy lost in the impact", "J"),
    "normal_impulse": ("total normal impulse of the impact (velocity jumps + integral of N dt)",
                       "N s"),
    "max_penetration": ("largest penetration of the tip into the slope in the impact (continuous "
                        "contact models; ~0 for the constraint method)", "m"),
}
POINT_METRICS = {
    "n_impacts": ("number of impacts (clusters of contact episodes) up to t_end", "1"),
    "stick_time": ("total time in the stick state up to t_end", "s"),
    "final_energy": ("mechanical energy at t_end", "J"),
    "audit_residual": ("largest |energy audit residual| over the run", "J"),
    "t_reached": ("time the run reached (t_end unless it stopped)", "s"),
    "wall_time": ("wall time of the simulate call (set-up and run)", "s"),
    "cpu_time": ("CPU time of the simulate call (set-up and run)", "s"),
}
METRICS = (*IMPACT_METRICS, *POINT_METRICS, "status")
_IMPACT_KEYS = {"impact_start": "t_start", "impact_duration": "duration",
                "peak_normal_force": "peak_normal_force", "peak_friction_force": "peak_friction_force",
                "energy_lost": "energy_lost", "normal_impulse": "normal_impulse",
                "max_penetration": "max_penetration"}
NOT_RUN = "not run"
_WARM_T_END = 0.34       # reaches the first contact of case 3.2 (t = 0.3329 s): every phase kind


# ---------------------------------------------------------------------- one point
def point_metrics(res, status: str = "ok") -> dict:
    """The metrics of one result as a plain dict (JSON-safe, floats exact).

    For a run that stopped (``status != "ok"``) only what the partial result still gives is
    kept: the impacts that ended at least ``t_cluster`` before the stop (no later episode could
    have joined them), the audit residual and the time reached; the whole-run numbers
    (n_impacts, stick_time, final_energy) are NaN."""
    nan = float("nan")
    t_reached = res.t_end
    impacts = res.impacts
    if status != "ok":
        t_cluster = res.case.solver.t_cluster
        impacts = [im for im in impacts if im["t_end"] + t_cluster <= t_reached]
    out = dict(status=status, t_reached=t_reached, wall_time=float(res.stats.get("wall_time_s", nan)),
               cpu_time=nan, audit_residual=res.audit_residual_max,
               impacts=[{m: float(im[k]) for m, k in _IMPACT_KEYS.items()} for im in impacts])
    if status == "ok":
        stick = sum(t1 - t0 for im in res.impacts for (t0, t1) in im["stick_intervals"])
        out.update(n_impacts=float(len(res.impacts)), stick_time=float(stick),
                   final_energy=res.E_final)
    else:
        out.update(n_impacts=nan, stick_time=nan, final_energy=nan)
    return out


def _failed(status: str) -> dict:
    nan = float("nan")
    return dict(status=status, t_reached=nan, wall_time=nan, cpu_time=nan, audit_residual=nan, impacts=[],
                n_impacts=nan, stick_time=nan, final_energy=nan)


def run_point(case: Case, model: str, t_end: float) -> dict:
    """Simulate one point and return its metrics; never raises for a failing point.  ``case`` is a
    :class:`~flexlib.params.Case` or a multibody :class:`~flexlib.cases.SystemCase`."""
    from ..multibody.simulate import SystemSimulationError
    w0, c0 = time.perf_counter(), time.process_time()
    try:
        res = case.simulate(model, t_end) if isinstance(case, SystemCase) else simulate(case, model, t_end)
        out = point_metrics(res)
    except SystemSimulationError as err:
        out = (_failed(f"stopped: {err}") if err.result is None
               else point_metrics(err.result, f"stopped: {str(err)[:200]}"))
    except SimulationError as err:
        out = (_failed(f"stopped: {err.cause}") if err.result is None
               else point_metrics(err.result, f"stopped: {err.cause}"))
    except ValueError as err:
        out = _failed(f"invalid: {err}")
    except Exception as err:          # a bug must not cost the other points of a long sweep
        out = _failed(f"error: {type(err).__name__}: {err}")
    # the whole simulate call: the model's set-up (modal integrals) as well as the run
    out["wall_time"] = time.perf_counter() - w0
    out["cpu_time"] = time.process_time() - c0
    return out


def _run_task(task):
    """Worker entry point: ``task`` = (index, case, model, t_end) -> (index, metrics)."""
    i, case, model, t_end = task
    return i, run_point(case, model, t_end)


_warm = {"done": False}


def warm_worker():
    """Load flexlib's compiled kernels in this process (numba's disk cache) by running one short
    simulation per kind of contact model, so that no point of a sweep pays for it.  Once per
    process: a worker forked from a warm process is warm already."""
    if not _warm["done"]:
        for model in ("frictionless", "hybrid_coulomb", "lugre"):
            simulate("3.2", model, _WARM_T_END)
        _warm["done"] = True
    return os.getpid()


def worker_numerics():
    """(pid, None) when this worker runs with flexlib's numerical settings, else (pid, a few
    words on what differs): what a Dask worker reports before a sweep."""
    return os.getpid(), _numerics.unpinned_summary()


@contextlib.contextmanager
def _worker_environ():
    """``os.environ`` as the sweep's worker processes must inherit it while they start
    (:func:`flexlib._numerics.worker_environment`: the numerical pins and this process's BLAS
    thread counts); restored afterwards.  Worker processes load NumPy before flexlib can set
    anything (a Dask worker imports NumPy with ``distributed``), so only the environment they
    start with counts."""
    def put(env):
        for key, value in env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    wanted = _numerics.worker_environment()
    saved = {k: os.environ.get(k) for k in wanted}
    put(wanted)
    try:
        yield
    finally:
        put(saved)


def _init_pool_worker():
    # Only the parent handles Ctrl-C; it then stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warm_worker()


# ---------------------------------------------------------------------- the grid
def parse_grid_values(name: str, text: str, base=None) -> list:
    """Values of one ``--grid`` option: ``start:stop:num`` (linear), ``start:stop:num:log``
    (logarithmic), or a comma-separated list; each value is checked against its valid range.
    ``base``: a multibody :class:`~flexlib.cases.SystemCase`, whose own options may be swept."""
    text = text.strip()
    if isinstance(base, SystemCase) and name in get_case(base.name).OPTIONS:
        if ":" in text:
            lo, hi, num = (float(x) for x in text.split(":")[:3])
            vals = np.linspace(lo, hi, int(num)).tolist()
        else:
            vals = [float(t) for t in text.split(",") if t.strip()]
        return [base.check_value(name, v) for v in vals]
    _check_name(name)
    kind = RANGES[name][4]
    if ":" in text and kind in ("float", "int"):
        parts = text.split(":")
        if len(parts) not in (3, 4) or (len(parts) == 4 and parts[3].strip().lower() not in ("log", "lin")):
            raise ValueError(f"--grid {name}={text!r}: expected start:stop:num or start:stop:num:log")
        try:
            lo, hi, num = float(parts[0]), float(parts[1]), float(parts[2])
        except ValueError:
            raise ValueError(f"--grid {name}={text!r}: start, stop and num must be numbers") from None
        if num != int(num) or num < 1:
            raise ValueError(f"--grid {name}={text!r}: num must be a positive integer")
        log = len(parts) == 4 and parts[3].strip().lower() == "log"
        if log and (lo <= 0 or hi <= 0):
            raise ValueError(f"--grid {name}={text!r}: a log grid needs start and stop > 0")
        vals = np.geomspace(lo, hi, int(num)) if log else np.linspace(lo, hi, int(num))
        if kind == "int":
            vals = [int(round(v)) if abs(v - round(v)) < 1e-9 else float(v) for v in vals]
        return [check_value(name, v) for v in (vals.tolist() if isinstance(vals, np.ndarray) else vals)]
    items = [t for t in text.split(",") if t.strip()]
    if not items:
        raise ValueError(f"--grid {name}={text!r}: no values")
    return [check_value(name, parse_value(name, t.strip())) for t in items]


def _check_name(name):
    if name not in RANGES:
        Case().group_of(name)          # raises "unknown parameter ...; valid parameters: ..."


def _normalise_grid(grid, base=None) -> dict:
    if grid is None:
        return {}
    system = isinstance(base, SystemCase)
    if not hasattr(grid, "items"):
        raise ValueError(f"grid must map parameter names to lists of values, not {type(grid).__name__}")
    out = {}
    for name, values in grid.items():
        if not system:
            _check_name(name)
        if isinstance(values, (str, bytes)) or np.ndim(values) == 0:
            values = [values]
        values = [v.item() if isinstance(v, np.generic) else v for v in np.asarray(values, dtype=object).ravel()]
        if not values:
            raise ValueError(f"grid parameter {name!r} has no values")
        values = [base.check_value(name, v) if system else check_value(name, v) for v in values]
        if len(set(values)) != len(values):
            raise ValueError(f"grid parameter {name!r} has repeated values: {values!r}")
        out[name] = values
    return out


def _normalise_models(models, base=None) -> list[str]:
    if isinstance(models, str):
        models = [m for m in models.split(",") if m.strip()]
    if isinstance(base, SystemCase):
        from ..multibody.models import canonical
        models = [canonical(m) for m in models]
    else:
        models = [canonical_model(m) for m in models]
    if not models:
        raise ValueError(f"no model given; valid models: {', '.join(CONTACT_MODELS)}")
    if len(set(models)) != len(models):
        raise ValueError(f"models are repeated: {models!r}")
    return models


def _check_t_end(t_end) -> float:
    bad = ValueError(f"parameter 't_end' = {t_end!r} is invalid: valid range is (0, 1000] s")
    if isinstance(t_end, (bool, np.bool_)):
        raise bad
    try:
        t = float(t_end)
    except (TypeError, ValueError):
        raise bad from None
    if not (math.isfinite(t) and 0.0 < t <= 1000.0):
        raise bad
    return t


# ---------------------------------------------------------------------- the cache
def _sources_hash() -> str:
    h = hashlib.sha256()
    for p in sorted(Path(__file__).resolve().parents[1].rglob("*.py")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def point_key(case: Case, model: str, t_end: float, sources: str) -> str:
    """The cache key of one point: every parameter, the model, t_end and the flexlib version."""
    text = json.dumps(dict(case=case.as_dict(), model=model, t_end=repr(float(t_end)),
                           flexlib_version=__version__, flexlib_sources=sources), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class _Cache:
    def __init__(self, folder):
        self.folder = None if folder is None else Path(folder).expanduser()
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.sources = _sources_hash()

    def get(self, key):
        if self.folder is None:
            return None
        try:
            return json.loads((self.folder / f"{key}.json").read_text())
        except (OSError, ValueError):
            return None

    def put(self, key, record):
        if self.folder is None or record["status"] == NOT_RUN:
            return
        text = json.dumps(record)                    # floats as repr: they read back bit for bit
        with Outputs(join=False) as out:             # whole, and there at once for the next run
            out.write(self.folder / f"{key}.json", lambda p: p.write_text(text))


# ---------------------------------------------------------------------- engines
def _progress(total, initial, enabled):
    from tqdm.auto import tqdm
    return tqdm(total=total, initial=initial, desc="sweep", unit="pt", disable=not enabled,
                dynamic_ncols=True, smoothing=0.1)


def _run_serial(tasks, on_done, workers=None, scheduler=None):
    for task in tasks:
        on_done(*_run_task(task))


START_METHOD = None      # None: "forkserver" where available, else "spawn" (see _pool_context)


def _pool_context():
    import multiprocessing as mp
    # "forkserver": workers are forked from a clean single-threaded server process, never from
    # this one (which may hold threads: tqdm's monitor, a notebook kernel's, dask's), so no lock
    # can be inherited in a held state.  Not available on Windows: spawn there.
    method = START_METHOD or ("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
    ctx = mp.get_context(method)
    if method == "forkserver":
        # the server imports flexlib and loads the compiled kernels once (flexlib/_warm.py); the
        # workers forked from it inherit them.  No effect if the server already runs.
        ctx.set_forkserver_preload(["flexlib._warm"])
    return ctx


def _run_local(tasks, on_done, workers=None, scheduler=None):
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool
    n = max(1, min(int(workers or _cpu_count()), len(tasks)))
    pool = ProcessPoolExecutor(max_workers=n, mp_context=_pool_context(), initializer=_init_pool_worker)
    finished = False
    try:
        with _worker_environ():      # the fork server and the workers start on the first submits
            pending = {pool.submit(_run_task, t) for t in tasks}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                try:
                    on_done(*f.result())
                except BrokenProcessPool:
                    raise RuntimeError(
                        "the sweep's worker processes stopped: in a script, call flexlib.sweep "
                        "under `if __name__ == \"__main__\":` (each worker imports the main "
                        "module), or use engine='serial'") from None
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:                          # Ctrl-C or an error: drop the queue, stop the workers now
            procs = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                if p.is_alive():
                    p.terminate()


def _run_dask(tasks, on_done, workers=None, scheduler=None):
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ValueError("engine 'dask' needs dask.distributed: pip install 'flexlib[dask]'") from None
    cluster = client = None
    own = not isinstance(scheduler, Client)
    try:
        if isinstance(scheduler, Client):
            client = scheduler
        elif scheduler is not None:
            try:
                client = Client(str(scheduler), timeout="20s")
            except (OSError, TimeoutError) as err:
                raise ValueError(f"cannot connect to the Dask scheduler {str(scheduler)!r}: {err}") from None
        else:
            cluster = local_cluster(max(1, min(int(workers or _cpu_count()), len(tasks))))
            client = Client(cluster)
        client.run(warm_worker)
        _check_worker_numerics(client.run(worker_numerics))
        futures = client.map(_run_task, tasks, pure=False)
        try:
            for f in as_completed(futures):
                on_done(*f.result())
        finally:
            client.cancel([f for f in futures if not f.done()])
    finally:
        if own and client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


def local_cluster(n_workers: int):
    """A ``distributed.LocalCluster`` of ``n_workers`` single-threaded worker processes that
    compute as this process does: they start with :func:`_worker_environ` and keep this
    process's BLAS thread counts (Dask's default sets them to 1).  Loopback only, no
    dashboard; its logs are silenced because closing it right after a sweep makes the workers
    log their lost heartbeats as errors."""
    import dask
    from distributed import LocalCluster
    keep = {f"distributed.nanny.pre-spawn-environ.{k}": None for k in _numerics.THREAD_VARIABLES}
    with _worker_environ(), dask.config.set(keep):
        return LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                            host="127.0.0.1", dashboard_address=None, silence_logs=logging.CRITICAL)


def _check_worker_numerics(reports):
    """Warn when Dask workers (``{address: (pid, unpinned_summary)}``) run without flexlib's
    numerical settings although this process gives them (workers started elsewhere, by
    ``dask worker``, get only the environment they were started with)."""
    bad = {addr: why for addr, (_, why) in reports.items() if why}
    given = _numerics.worker_environment()
    if bad and all(given[k] == v for k, v in _numerics.pins().items()):   # none set by the user
        addr, why = next(iter(bad.items()))
        warnings.warn(f"{len(bad)} of the {len(reports)} Dask workers do not run with flexlib's "
                      f"numerical settings ({addr}: {why}), so their points can differ from a "
                      "local run in the last digits, and late impacts visibly: start the workers "
                      "with the settings in their environment (eval \"$(python "
                      "flexlib/_numerics.py)\" in bash before `dask worker`)",
                      RuntimeWarning, stacklevel=4)


_ENGINE_RUN = {"serial": _run_serial, "local": _run_local, "dask": _run_dask}


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# ---------------------------------------------------------------------- the sweep
def sweep(case, models, grid, *, t_end, metrics=None, engine="local", scheduler=None, workers=None,
          cache_dir=None, impacts: int = 3, progress: bool = True):
    """Run every model at every point of the product of ``grid``; an :class:`xarray.Dataset`.

    ``case``: a :class:`~flexlib.params.Case` or a paper case name (``"3.2"``), or a multibody
    case (``"double-pendulum"``, ``"falling-beam"``, a :class:`~flexlib.cases.SystemCase`; its
    impacts are the contact episodes of all its points in time order).  ``models``: one
    model name or a list (``"lugre"``, ``["hybrid_coulomb", "lugre"]``).  ``grid``: parameter name
    -> values, any validated parameter (``{"mu_d": [0.3, 0.4], "n_modes": [2, 3, 4]}``); a value
    outside its valid range is refused at once (``ValueError``), a combination refused by the
    cross-parameter rules (mu_s < mu_d, ...) becomes that point's ``status``.  ``t_end`` [s].

    ``metrics``: names from :data:`METRICS` (default: all).  The per-impact metrics (start time,
    duration, peak normal force, peak |F_t|, energy lost) are given for the first ``impacts``
    impacts (NaN where a run has fewer); ``status`` is always included.

    ``engine``: ``"local"`` (a process pool, ``workers`` processes, default one per core),
    ``"dask"`` (``scheduler``: an address or a ``distributed.Client``; with neither, a
    ``LocalCluster`` of ``workers`` processes on 127.0.0.1) or ``"serial"``; giving a
    ``scheduler`` selects ``"dask"``.  The values do not depend on the engine.  In a script, call
    ``sweep`` under ``if __name__ == "__main__":`` (the workers import the main module).
    ``cache_dir``: store finished points there and reuse them on a rerun.
    ``progress``: show a progress bar (tqdm; the widget form in a notebook).

    The Dataset's attributes record the base parameters (``parameters``, JSON), the grid,
    ``t_end``, the flexlib version and how the points were obtained (``n_computed``, ``n_cached``,
    ``n_failed``, ``n_not_run``, ``interrupted``).
    """
    import xarray as xr
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; valid engines: {', '.join(ENGINES)}")
    if scheduler is not None:
        if engine == "serial":
            raise ValueError("a scheduler is only used by engine 'dask', not 'serial'")
        engine = "dask"             # the one-argument switch: a scheduler means Dask
    if workers is not None and (isinstance(workers, bool) or int(workers) != workers or workers < 1):
        raise ValueError(f"parameter 'workers' = {workers!r} is invalid: valid range is an integer >= 1")
    if isinstance(impacts, bool) or int(impacts) != impacts or impacts < 1:
        raise ValueError(f"parameter 'impacts' = {impacts!r} is invalid: valid range is an integer >= 1")
    if isinstance(case, (Case, SystemCase)):
        base = case
    elif is_system_case(case):
        base = SystemCase(get_case(case).NAME)
    else:
        base = paper_case(case)
    model_list = _normalise_models(models, base)
    axes = _normalise_grid(grid, base)
    t_end = _check_t_end(t_end)
    chosen = _chosen_metrics(metrics)
    names = list(axes)
    combos = list(itertools.product(*axes.values()))
    n = len(model_list) * len(combos)
    records: list = [None] * n
    cache = _Cache(cache_dir)
    keys: list = [None] * n
    tasks = []
    n_cached = 0
    for i, (model, combo) in enumerate(itertools.product(model_list, combos)):
        try:
            pcase = base.with_(**dict(zip(names, combo)))
        except ValueError as err:
            records[i] = _failed(f"invalid: {err}")
            continue
        if cache.folder is not None:
            keys[i] = point_key(pcase, model, t_end, cache.sources)
            hit = cache.get(keys[i])
            if hit is not None:
                records[i] = hit
                n_cached += 1
                continue
        tasks.append((i, pcase, model, t_end))
    bar = _progress(n, n - len(tasks), progress)
    failed = sum(r["status"] != "ok" for r in records if r is not None)
    counts = dict(failed=failed, computed=0)

    def on_done(i, record):
        records[i] = record
        if keys[i] is not None:
            cache.put(keys[i], record)
        counts["computed"] += 1
        if record["status"] != "ok":
            counts["failed"] += 1
        bar.set_postfix(failed=counts["failed"], refresh=False)
        bar.update(1)

    interrupted = False
    try:
        if failed:
            bar.set_postfix(failed=failed)
        if tasks:
            _ENGINE_RUN[engine](tasks, on_done, workers=workers, scheduler=scheduler)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    records = [r if r is not None else _failed(NOT_RUN) for r in records]
    attrs = dict(
        title="flexlib parameter study", flexlib_version=__version__, case=base.name,
        parameters=json.dumps(base.as_dict()), grid=json.dumps(axes), models=",".join(model_list),
        t_end=t_end, engine=engine, n_points=n, n_computed=counts["computed"], n_cached=n_cached,
        n_failed=sum(r["status"] not in ("ok", NOT_RUN) for r in records),
        n_not_run=sum(r["status"] == NOT_RUN for r in records), interrupted=int(interrupted))
    return _dataset(xr, model_list, axes, records, chosen, int(impacts), attrs)


def _chosen_metrics(metrics):
    if metrics is None:
        return list(METRICS)
    if isinstance(metrics, str):
        metrics = [m for m in metrics.split(",") if m.strip()]
    bad = [m for m in metrics if m not in METRICS]
    if bad:
        raise ValueError(f"unknown metric {bad[0]!r}; valid metrics: {', '.join(METRICS)}")
    chosen = [m for m in METRICS if m in metrics]
    return chosen if "status" in chosen else chosen + ["status"]


def _dataset(xr, models, axes, records, chosen, n_imp, attrs):
    shape = (len(models), *(len(v) for v in axes.values()))
    dims = ("model", *axes)
    coords = {"model": ("model", np.array(models, dtype=str))}
    for name, values in axes.items():
        if name in RANGES:
            long, unit = DESCRIPTIONS[name], RANGES[name][5]
        else:                                   # an option of a multibody case
            opt = get_case(json.loads(attrs["parameters"])["case"]).OPTIONS[name]
            long, unit = opt.help, opt.unit or "-"
        coords[name] = (name, np.array(values), {"long_name": long,
                                                 "units": unit if not unit.startswith("-") else "1"})
    data = {}
    for m in chosen:
        if m in IMPACT_METRICS:
            arr = np.full((len(records), n_imp), np.nan)
            for i, r in enumerate(records):
                for k, im in enumerate(r["impacts"][:n_imp]):
                    arr[i, k] = im[m]
            long, unit = IMPACT_METRICS[m]
            data[m] = ((*dims, "impact"), arr.reshape(*shape, n_imp), {"long_name": long, "units": unit})
        elif m in POINT_METRICS:
            arr = np.array([r[m] for r in records], dtype=float).reshape(shape)
            long, unit = POINT_METRICS[m]
            data[m] = (dims, arr, {"long_name": long, "units": unit})
    status = np.array([r["status"] for r in records], dtype=str).reshape(shape)
    data["status"] = (dims, status, {"long_name": "'ok', 'stopped: <cause>', 'invalid: <reason>', "
                                                  "'error: <exception>' or 'not run'"})
    if any(m in IMPACT_METRICS for m in chosen):
        coords["impact"] = ("impact", np.arange(1, n_imp + 1), {"long_name": "impact number"})
    return xr.Dataset(data, coords=coords, attrs=attrs)


def column_units(columns) -> dict:
    """{column of :func:`sweep_table`: its unit} ("-" for dimensionless numbers, "" for text):
    the swept parameters' units from :data:`flexlib.params.RANGES`, the metrics' from
    :data:`IMPACT_METRICS` and :data:`POINT_METRICS` (``energy_lost_2``: J)."""
    out = {}
    for c in columns:
        base = c.rsplit("_", 1)[0] if c.rsplit("_", 1)[-1].isdigit() else c
        if c in ("model", "status"):
            out[c] = ""
        elif base in IMPACT_METRICS:
            out[c] = IMPACT_METRICS[base][1]
        elif c in POINT_METRICS:
            out[c] = "-" if POINT_METRICS[c][1] == "1" else POINT_METRICS[c][1]
        elif c in RANGES:
            out[c] = RANGES[c][5]
        else:
            out[c] = ""
    return out


def sweep_table(ds, path=None):
    """A tidy table of a sweep: one row per point (model and parameter values, then the metrics;
    per-impact metrics as ``energy_lost_1``, ``energy_lost_2``, ...).  Returns a
    :class:`pandas.DataFrame`; with ``path`` also writes it: ``.csv``, whose header gives each
    column its unit, ``mu_d [-],energy_lost_1 [J],...``, or ``.parquet`` (needs pyarrow), whose
    columns have the bare names and no units: :func:`column_units` gives them, and the sweep's
    dataset ``ds`` holds them with a description of each swept parameter (its ``units`` and
    ``long_name`` attributes; ``n_gauss``: 0 = automatic)."""
    import pandas as pd
    point_dims = [d for d in ds.dims if d != "impact"]
    flat = ds.drop_dims("impact") if "impact" in ds.dims else ds
    df = flat.to_dataframe(dim_order=point_dims).reset_index()
    df = df[[*point_dims, *[c for c in df.columns if c not in point_dims]]]
    if "impact" in ds.dims:
        for name, var in ds.data_vars.items():
            if "impact" not in var.dims:
                continue
            for k in ds["impact"].values:
                col = var.sel(impact=k).transpose(*point_dims).values.ravel()
                df[f"{name}_{int(k)}"] = col
    if path is not None:
        p = Path(path).expanduser()
        if p.suffix.lower() == ".parquet":
            try:
                import pyarrow  # noqa: F401
            except ImportError as err:
                raise ValueError(f"cannot write {str(p)!r}: {err}") from None
            write(p, lambda tmp: df.to_parquet(tmp, index=False))
        elif p.suffix.lower() == ".csv":
            units = column_units(df.columns)
            named = df.rename(columns={c: f"{c} [{u}]" for c, u in units.items() if u})
            write(p, lambda tmp: named.to_csv(tmp, index=False))
        else:
            raise ValueError(f"table file {str(p)!r}: use a .csv or .parquet name")
    return pd.DataFrame(df)
