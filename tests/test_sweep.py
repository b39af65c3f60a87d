"""Parameter sweeps (flexlib.sweep): the same numbers as direct simulate calls, from every engine.

The expected values come from direct ``flexlib.simulate`` calls read through the result object
(``res.impacts``, ``res.h``), not from the sweep's own metric extraction.  Runs are short
(t_end = 0.4 s: the first impact of case 3.2 at t = 0.333 s) and use the unified LuGre and
frictionless models, so each test takes a few seconds; the Dask test starts a real
``LocalCluster`` of 2 worker processes on 127.0.0.1 (no dashboard) and closes it.
"""
import importlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

xr = pytest.importorskip("xarray")

import flexlib as fl  # noqa: E402

sweep_mod = importlib.import_module("flexlib.studies.sweep")
ROOT = Path(__file__).resolve().parents[1]
T_END = 0.4
GRID = {"mu_d": [0.3, 0.4], "sigma0": [1e4, 1e6]}


def _no_timings(ds):
    return ds.drop_vars(["wall_time", "cpu_time"])


def _run_attrs(ds):
    """The attributes that describe the study (not how it was run)."""
    return {k: v for k, v in ds.attrs.items() if k not in ("engine", "n_computed", "n_cached")}


@pytest.fixture(scope="module")
def local_2x2():
    return fl.sweep("3.2", "lugre", GRID, t_end=T_END, engine="local", workers=2, progress=False)


def test_2x2_sweep_equals_four_direct_simulate_calls(local_2x2):
    ds = local_2x2
    assert dict(ds.sizes) == {"model": 1, "mu_d": 2, "sigma0": 2, "impact": 3}
    for mu_d in GRID["mu_d"]:
        for sigma0 in GRID["sigma0"]:
            res = fl.simulate("3.2", "lugre", T_END, mu_d=mu_d, sigma0=sigma0)
            p = ds.sel(model="lugre", mu_d=mu_d, sigma0=sigma0)
            assert str(p.status.values) == "ok"
            assert p.n_impacts.item() == len(res.impacts) == 1
            im = res.impacts[0]
            first = p.sel(impact=1)
            assert first.impact_start.item() == im["t_start"]
            assert first.impact_duration.item() == im["duration"]
            assert first.peak_normal_force.item() == im["peak_normal_force"]
            assert first.peak_friction_force.item() == im["peak_friction_force"]
            assert first.energy_lost.item() == im["energy_before"] - im["energy_after"]
            assert first.normal_impulse.item() == im["normal_impulse"]
            assert first.max_penetration.item() == im["max_penetration"]
            assert np.isnan(p.sel(impact=2).energy_lost.item())
            assert p.final_energy.item() == res.h["E"][-1]
            assert p.audit_residual.item() == np.max(np.abs(res.h["audit"]))
            assert p.t_reached.item() == res.t[-1] == T_END
            assert p.stick_time.item() == 0.0        # unified LuGre has no stick state
    # the points differ: the grid really reached the simulations
    assert len(np.unique(ds.peak_friction_force.sel(impact=1).values)) == 4
    assert ds.attrs["flexlib_version"] == fl.__version__
    assert json.loads(ds.attrs["parameters"]) == fl.paper_case("3.2").as_dict()
    assert json.loads(ds.attrs["grid"]) == GRID


def test_serial_engine_is_bit_identical_to_local(local_2x2):
    ds = fl.sweep("3.2", "lugre", GRID, t_end=T_END, engine="serial", progress=False)
    xr.testing.assert_equal(_no_timings(ds), _no_timings(local_2x2))
    assert _run_attrs(ds) == _run_attrs(local_2x2)


def test_dask_local_cluster_is_bit_identical(local_2x2):
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    try:
        with distributed.Client(cluster) as client:
            addresses = [cluster.scheduler_address, *client.scheduler_info()["workers"]]
            assert len(addresses) == 3
            assert all(a.startswith("tcp://127.0.0.1:") for a in addresses), addresses
            ds = fl.sweep("3.2", "lugre", GRID, t_end=T_END, engine="dask", scheduler=client,
                          progress=False)
            assert client.status == "running"          # a Client we made is left open
    finally:
        cluster.close()
    xr.testing.assert_equal(_no_timings(ds), _no_timings(local_2x2))
    assert _run_attrs(ds) == _run_attrs(local_2x2)
    assert ds.attrs["engine"] == "dask"


def test_invalid_and_stopped_points_do_not_stop_the_sweep():
    # mu_s = 0.3 < mu_d = 0.4 is refused; e = 0.5 with an event cap of 10 stops in the first
    # impact (a Zeno sequence of restitution rebounds); mu_s = 0.5, e = 0 runs to t_end.
    case = fl.paper_case("3.2").with_(event_cap=10)
    ds = fl.sweep(case, ["lugre", "frictionless"], {"mu_s": [0.3, 0.5], "e": [0.0, 0.5]},
                  t_end=T_END, engine="serial", progress=False)
    for model in ("lugre", "frictionless"):
        p = ds.sel(model=model)
        for e in (0.0, 0.5):
            bad = p.sel(mu_s=0.3, e=e)
            assert str(bad.status.values).startswith("invalid: ")
            assert "'mu_s'" in str(bad.status.values)
            assert np.all(np.isnan(bad.energy_lost.values)) and np.isnan(bad.n_impacts.item())
        ok = p.sel(mu_s=0.5, e=0.0)
        assert str(ok.status.values) == "ok" and ok.n_impacts.item() == 1
        stop = p.sel(mu_s=0.5, e=0.5)
        with pytest.raises(fl.SimulationError) as info:
            fl.simulate(case, model, T_END, mu_s=0.5, e=0.5)
        err = info.value
        assert str(stop.status.values) == f"stopped: {err.cause}"
        assert stop.t_reached.item() == err.result.t_end < T_END
        assert stop.audit_residual.item() == err.result.audit_residual_max
        # the stop came inside the first impact: no complete impact, whole-run numbers NaN
        assert np.all(np.isnan(stop.energy_lost.values))
        for name in ("n_impacts", "stick_time", "final_energy"):
            assert np.isnan(stop[name].item())
    assert ds.attrs["n_failed"] == 6 and ds.attrs["n_computed"] == 4


def test_resume_runs_no_simulation(tmp_path, monkeypatch):
    grid = {"mu_d": [0.3, 0.4]}
    first = fl.sweep("3.2", ["frictionless", "lugre"], grid, t_end=T_END, engine="serial",
                     cache_dir=tmp_path, progress=False)
    assert first.attrs["n_computed"] == 4 and first.attrs["n_cached"] == 0
    assert len(list(tmp_path.glob("*.json"))) == 4
    calls = []
    real = sweep_mod.simulate

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)
    monkeypatch.setattr(sweep_mod, "simulate", counting)
    again = fl.sweep("3.2", ["frictionless", "lugre"], grid, t_end=T_END, engine="serial",
                     cache_dir=tmp_path, progress=False)
    assert calls == []
    assert again.attrs["n_computed"] == 0 and again.attrs["n_cached"] == 4
    xr.testing.assert_identical(again.drop_attrs(), first.drop_attrs())   # timings too: cached
    # one missing point: exactly one simulation
    sorted(tmp_path.glob("*.json"))[0].unlink()
    third = fl.sweep("3.2", ["frictionless", "lugre"], grid, t_end=T_END, engine="serial",
                     cache_dir=tmp_path, progress=False)
    assert len(calls) == 1 and third.attrs["n_cached"] == 3
    xr.testing.assert_equal(_no_timings(third), _no_timings(first))
    # another t_end is another key
    fl.sweep("3.2", "frictionless", {"mu_d": [0.3]}, t_end=0.35, engine="serial",
             cache_dir=tmp_path, progress=False)
    assert len(calls) == 2


def test_interrupt_returns_the_finished_points(tmp_path, monkeypatch):
    real = sweep_mod.simulate
    calls = []

    def interrupted_at_third(*args, **kwargs):
        calls.append(args)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)
    monkeypatch.setattr(sweep_mod, "simulate", interrupted_at_third)
    ds = fl.sweep("3.2", "frictionless", {"mu_d": [0.1, 0.2, 0.3, 0.4]}, t_end=T_END,
                  engine="serial", cache_dir=tmp_path, progress=False)
    assert list(ds.status.values.ravel()) == ["ok", "ok", "not run", "not run"]
    assert ds.attrs["interrupted"] == 1 and ds.attrs["n_not_run"] == 2 and ds.attrs["n_failed"] == 0
    assert np.all(np.isnan(ds.energy_lost.values[0, 2:]))
    assert len(list(tmp_path.glob("*.json"))) == 2      # what finished is kept for a rerun


_CTRL_C_SCRIPT = """
import json, signal, sys, threading, time
from pathlib import Path
import numpy as np
import flexlib as fl

def main(folder, n):
    # Python installs its Ctrl-C handler only where SIGINT is not ignored at start-up, and a
    # command started in the background by a non-interactive shell (`cmd &`) inherits SIGINT
    # ignored: as in a terminal, Ctrl-C raises KeyboardInterrupt
    signal.signal(signal.SIGINT, signal.default_int_handler)
    main_thread = threading.main_thread().ident

    def interrupt_after_first_point():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not list(folder.glob("*.json")):
            time.sleep(0.02)
        signal.pthread_kill(main_thread, signal.SIGINT)     # where a terminal's Ctrl-C goes
    watcher = threading.Thread(target=interrupt_after_first_point, daemon=True)
    watcher.start()
    ds = fl.sweep("3.2", "lugre", {"mu_d": np.linspace(0.1, 0.5, n).tolist()}, t_end=2.0,
                  engine="local", workers=2, cache_dir=folder, progress=False)
    watcher.join(10)
    print(json.dumps(dict(interrupted=int(ds.attrs["interrupted"]),
                          status=[str(x) for x in ds.status.values.ravel()],
                          cached=len(list(folder.glob("*.json"))))))

if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
"""


def test_ctrl_c_stops_a_local_sweep_and_returns_what_finished(tmp_path):
    """SIGINT (Ctrl-C, a notebook's interrupt) while the pool works: the sweep returns at once
    with the finished points (also in the cache) and 'not run' for the rest.

    Run in a fresh interpreter with Python's own Ctrl-C handler, as in a terminal: a test run
    started in the background (``bash .ci/run &``) inherits SIGINT ignored, and the sweep then
    never sees the interrupt (it finished all points in two such runs)."""
    script = tmp_path / "ctrl_c.py"
    script.write_text(_CTRL_C_SCRIPT)
    cache = tmp_path / "cache"
    cache.mkdir()
    n = 16
    run = subprocess.run([sys.executable, str(script), str(cache), str(n)], capture_output=True,
                         text=True, timeout=600, cwd=str(ROOT))
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    status = out["status"]
    n_ok = status.count("ok")
    assert out["interrupted"] == 1, status
    assert 1 <= n_ok < n and status.count("not run") == n - n_ok
    assert out["cached"] in (n_ok - 1, n_ok)   # the last write may be cut


def test_netcdf_round_trip(local_2x2, tmp_path):
    path = tmp_path / "study.nc"
    local_2x2.to_netcdf(path, engine="h5netcdf")
    with xr.open_dataset(path, engine="h5netcdf") as back:
        xr.testing.assert_identical(back.load(), local_2x2)


def test_table_has_one_row_per_point(local_2x2, tmp_path):
    pd = pytest.importorskip("pandas")
    df = fl.sweep_table(local_2x2, tmp_path / "study.csv")
    assert len(df) == 4
    assert list(df.columns[:3]) == ["model", "mu_d", "sigma0"]
    for _, row in df.iterrows():
        p = local_2x2.sel(model=row["model"], mu_d=row["mu_d"], sigma0=row["sigma0"])
        assert row["energy_lost_1"] == p.energy_lost.sel(impact=1).item()
        assert row["status"] == "ok"
    back = pd.read_csv(tmp_path / "study.csv")
    assert np.array_equal(back["peak_normal_force_1 [N]"].to_numpy(), df["peak_normal_force_1"].to_numpy())
    # every column of the file but the two text columns says its unit
    header = (tmp_path / "study.csv").read_text().splitlines()[0].split(",")
    assert header[0] == "model" and header[-1] != "status" and "status" in header
    for name in header:
        if name not in ("model", "status"):
            assert name.endswith("]") and " [" in name, name
    assert {"energy_lost_1 [J]", "impact_start_2 [s]", "n_impacts [-]", "wall_time [s]"} <= set(header)


def test_every_parameter_column_has_a_bare_unit(local_2x2):
    """The CSV header shows a unit in brackets (``n_gauss [-]``), never a meaning such as
    "0 = automatic": that is in the parameter's description, the coordinate's long_name."""
    import re
    from flexlib.params import DESCRIPTIONS, RANGES
    from flexlib.studies.sweep import column_units
    units = column_units(list(RANGES))
    for name, unit in units.items():
        assert re.fullmatch(r"[-\w/^ ]*", unit) and "automatic" not in unit, (name, unit)
    assert units["n_gauss"] == "-" and "0 = automatic" in DESCRIPTIONS["n_gauss"]
    for name in ("mu_d", "sigma0"):
        assert local_2x2[name].attrs["long_name"] == DESCRIPTIONS[name]


def test_int_and_angle_parameters_and_metric_selection():
    ds = fl.sweep("3.2", "frictionless", {"n_modes": [2, 3], "alpha": [0.3]}, t_end=0.36,
                  engine="serial", metrics=["peak_normal_force", "n_impacts"], progress=False)
    assert ds["n_modes"].dtype.kind == "i"
    assert sorted(ds.data_vars) == ["n_impacts", "peak_normal_force", "status"]
    res = fl.simulate("3.2", "frictionless", 0.36, n_modes=2, alpha=0.3)
    assert ds.peak_normal_force.sel(model="frictionless", n_modes=2, alpha=0.3, impact=1).item() == \
        res.impacts[0]["peak_normal_force"]


@pytest.mark.parametrize("kwargs, words", [
    (dict(grid={"foo": [1]}), ["unknown parameter 'foo'"]),
    (dict(grid={"n_modes": [3, 13]}), ["'n_modes'", "13", "[0, 12]"]),
    (dict(grid={"mu_d": []}), ["'mu_d'", "no values"]),
    (dict(grid={"mu_d": [0.3, 0.3]}), ["'mu_d'", "repeated"]),
    (dict(models="coulomb"), ["unknown model 'coulomb'"]),
    (dict(engine="mpi"), ["unknown engine 'mpi'", "local", "dask"]),
    (dict(t_end=0), ["'t_end'", "(0, 1000] s"]),
    (dict(metrics=["peak"]), ["unknown metric 'peak'", "energy_lost"]),
    (dict(workers=0), ["'workers'"]),
    (dict(scheduler="tcp://127.0.0.1:8786"), ["scheduler", "'dask'", "'serial'"]),
])
def test_bad_input_is_refused_before_any_run(kwargs, words, monkeypatch):
    monkeypatch.setattr(sweep_mod, "simulate", lambda *a, **k: pytest.fail("simulated"))
    args = dict(case="3.2", models="lugre", grid={"mu_d": [0.3]}, t_end=T_END, engine="serial",
                progress=False)
    args.update(kwargs)
    with pytest.raises(ValueError) as info:
        fl.sweep(args.pop("case"), args.pop("models"), args.pop("grid"), **args)
    for w in words:
        assert w in str(info.value)


def test_grid_syntax():
    parse = sweep_mod.parse_grid_values
    assert parse("mu_d", "0.2:0.6:5") == pytest.approx([0.2, 0.3, 0.4, 0.5, 0.6])
    assert parse("sigma0", "1e4:1e6:3:log") == pytest.approx([1e4, 1e5, 1e6])
    assert parse("n_modes", "1:4:4") == [1, 2, 3, 4]
    assert parse("method", "DOP853,RK45") == ["DOP853", "RK45"]
    with pytest.raises(ValueError, match=r"'n_modes' = 2.5"):
        parse("n_modes", "1:4:3")
    with pytest.raises(ValueError, match="log grid"):
        parse("sigma0", "0:1e6:3:log")


# ---------------------------------------------------------------------- command line
def _cli(*argv, cwd):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "flexlib", "sweep", "--no-progress", *argv], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=300)


def test_cli_sweep_writes_the_same_dataset(local_2x2, tmp_path):
    p = _cli("--case", "3.2", "--model", "lugre", "--model", "frictionless", "--grid", "mu_d=0.3,0.4", "--grid",
             "sigma0=1e4:1e6:2:log", "--t-end", str(T_END), "--workers", "2", "--out", "study.nc",
             "--table", "study.csv", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "8 points" in p.stdout and "8 ok" in p.stdout
    with xr.open_dataset(tmp_path / "study.nc", engine="h5netcdf") as ds:
        ds = ds.load()
    assert list(ds.model.values) == ["lugre", "frictionless"]
    xr.testing.assert_equal(_no_timings(ds.sel(model=["lugre"])), _no_timings(local_2x2))
    assert ds.attrs["models"] == "lugre,frictionless"
    assert (tmp_path / "study.csv").read_text().startswith("model,mu_d [-],sigma0 [1/m],")


@pytest.mark.parametrize("argv, words", [
    (["--grid", "n_modes=1:13:13"], ["'n_modes'", "13", "[0, 12]"]),
    (["--grid", "foo=1,2"], ["unknown parameter 'foo'"]),
    (["--grid", "mu_d"], ["--grid 'mu_d'", "NAME=start:stop:num"]),
    (["--grid", "mu_d=0.1:0.2:x"], ["--grid mu_d=", "numbers"]),
    (["--grid", "mu_d=abc"], ["'mu_d'", "'abc'", "not a number"]),
    (["--model", "lugre,coulomb"], ["unknown model 'coulomb'"]),
    (["--workers", "0"], ["--workers"]),
    (["--t-end", "-1"], ["'t_end'", "(0, 1000] s"]),
    (["--mu-s", "0.1"], ["'mu_s'", "mu_d = 0.4"]),
    (["--out", "/nonexistent-flexlib-dir/x.nc"], ["--out", "does not exist"]),
])
def test_cli_user_errors_are_one_line_exit_2(argv, words, tmp_path):
    argv = ["--out", "x.nc", *argv] if "--out" not in argv else argv
    p = _cli(*argv, cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flexlib: error: "), p.stderr
    assert "Traceback" not in p.stderr
    for w in words:
        assert w in lines[0]
    assert not (tmp_path / "x.nc").exists()


def test_cluster_started_by_sweep_listens_on_loopback_only(monkeypatch):
    """With no scheduler, sweep starts its own LocalCluster: every socket it (and its worker
    processes) listens on is on 127.0.0.1, and it is closed afterwards."""
    distributed = pytest.importorskip("distributed")
    psutil = pytest.importorskip("psutil")
    listening, made = [], []

    class Recording(distributed.LocalCluster):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)
            me = psutil.Process()
            for proc in [me, *me.children(recursive=True)]:
                listening.extend(c.laddr.ip for c in proc.net_connections(kind="inet")
                                 if c.status == psutil.CONN_LISTEN)
    monkeypatch.setattr(distributed, "LocalCluster", Recording)
    ds = fl.sweep("3.2", "frictionless", {"mu_d": [0.3]}, t_end=0.35, engine="dask", workers=1,
                  progress=False)
    assert str(ds.status.values.ravel()[0]) == "ok"
    assert math.isfinite(ds.peak_normal_force.values.ravel()[0])
    assert len(made) == 1 and made[0].status.name == "closed"
    assert listening and set(listening) == {"127.0.0.1"}, listening


def test_a_stiffness_sweep_of_a_continuous_model():
    """The continuous contact models sweep like the others; over the penalty stiffness the first
    impact's penetration is the run's and falls as K grows (Hertz: ~K^-0.4)."""
    Ks = [1e8, 1e10]
    ds = fl.sweep(fl.paper_case("3.2").with_(e=0.5), "continuous_coulomb",
                  {"contact_stiffness": Ks}, t_end=0.4, engine="serial", progress=False)
    pen = []
    for K in Ks:
        res = fl.simulate("3.2", "continuous_coulomb", 0.4, e=0.5, contact_stiffness=K)
        p = ds.sel(model="continuous_coulomb", contact_stiffness=K, impact=1)
        assert str(p.status.values) == "ok"
        assert p.max_penetration.item() == res.impacts[0]["max_penetration"]
        assert p.normal_impulse.item() == res.impacts[0]["normal_impulse"]
        pen.append(p.max_penetration.item())
    assert pen[1] < 0.3 * pen[0]          # 100x stiffer: (1/100)^0.4 = 0.16 for Hertz


def test_cli_sweep_help_lists_every_model(tmp_path):
    p = _cli("--help", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    option = p.stdout.split("\n  --model MODEL", 1)[1].split("\n  --grid", 1)[0]
    for m in fl.MODELS:
        assert m in " ".join(option.split()), m
        assert f"\n  {m} " in p.stdout, f"model {m} has no line in the models list"


# Run in a fresh process that loaded NumPy before flexlib, without the numerical pins in its
# environment (a notebook on a plain kernel that imports NumPy first, say): the case in which
# worker processes used to start with other settings than the pool's (the local pool's fork
# server imports flexlib first and runs pinned; a Dask worker imports NumPy with distributed
# and ran unpinned, 1.5e-9 apart in peak friction force on an AVX-512 CPU).
_ENGINES_SCRIPT = """
import numpy, os, sys, warnings
import flexlib as fl
from flexlib.studies import sweep as sweep_mod
import distributed

def main(out):
    grid = {"mu_d": [0.3, 0.4]}
    run = dict(t_end=%(t_end)r, progress=False, metrics=["peak_normal_force", "peak_friction_force",
               "energy_lost", "final_energy", "audit_residual"])
    local = fl.sweep("3.2", "lugre", grid, engine="local", workers=2, **run)
    threads = os.environ.get("OPENBLAS_NUM_THREADS")
    cluster = sweep_mod.local_cluster(2)
    try:
        with distributed.Client(cluster) as client:
            addresses = [cluster.scheduler_address, *client.scheduler_info()["workers"]]
            assert all(a.startswith("tcp://127.0.0.1:") for a in addresses), addresses
            worker_threads = set(client.run(os.environ.get, "OPENBLAS_NUM_THREADS").values())
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                dask = fl.sweep("3.2", "lugre", grid, engine="dask", scheduler=client, **run)
    finally:
        cluster.close()
    after = os.environ.get("OPENBLAS_NUM_THREADS")     # this process's environment is left alone
    # a cluster started without flexlib's help: its workers load NumPy unpinned; sweep says so
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None) as plain, distributed.Client(plain) as c:
        with warnings.catch_warnings(record=True) as plain_caught:
            warnings.simplefilter("always")
            fl.sweep("3.2", "lugre", {"mu_d": [0.3]}, engine="dask", scheduler=c, **run)
    numpy.savez(out, **{f"local_{k}": local[k].values for k in run["metrics"]},
                **{f"dask_{k}": dask[k].values for k in run["metrics"]},
                threads=[repr(threads), repr(worker_threads), repr(after)],
                warned=[str(w.message) for w in caught if "numerical settings" in str(w.message)] + [""],
                plain_warned=[str(w.message) for w in plain_caught
                              if "numerical settings" in str(w.message)] + [""])

if __name__ == "__main__":
    main(sys.argv[1])
"""


def test_local_pool_and_dask_cluster_are_bit_identical_whatever_the_parent_loaded(tmp_path):
    """A sweep on the local pool and the same sweep on a Dask LocalCluster (started on 127.0.0.1
    by the test through :func:`flexlib.studies.sweep.local_cluster`, and closed) give the same
    bits, also when the calling process runs without the pins; the workers keep the caller's
    BLAS thread count (unset here; Dask's default would set it to 1).  A cluster started
    without flexlib's help has unpinned workers there, and the sweep warns about them."""
    pytest.importorskip("distributed")
    script = tmp_path / "engines.py"
    script.write_text(_ENGINES_SCRIPT % {"t_end": T_END})
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "OPENBLAS_NUM_THREADS",
                        "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    out = tmp_path / "out.npz"
    run = subprocess.run([sys.executable, str(script), str(out)], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    data = np.load(out)
    for name in ("peak_normal_force", "peak_friction_force", "energy_lost", "final_energy",
                 "audit_residual"):
        local, dask = data[f"local_{name}"], data[f"dask_{name}"]
        assert np.isfinite(local).any()
        assert np.array_equal(local, dask, equal_nan=True), (name, local, dask)
    assert list(data["threads"]) == ["None", "{None}", "None"]
    assert list(data["warned"]) == [""]
    if "NPY_DISABLE_CPU_FEATURES" in fl._numerics.pins():     # only AVX-512 CPUs differ unpinned
        assert "Dask workers do not run with flexlib's numerical settings" in data["plain_warned"][0]
