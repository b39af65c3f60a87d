"""Write notebooks/09-parameter-studies.ipynb from the cell sources below (nbformat v4, no outputs).

    .venv/bin/python scripts/build_notebook_09.py     # then: python -m flexlib notebooks notebooks/09-parameter-studies.ipynb

The grids are small so that the whole notebook runs in about a minute on 2 cores; the text shows how
to scale them up.
"""
from __future__ import annotations

from build_notebooks import OUT as NOTEBOOK_DIR, checked, code, md, write_notebook   # scripts/ is on sys.path

OUT = NOTEBOOK_DIR / "09-parameter-studies.ipynb"


CELLS = [
    md(r"""
# 09 · Parameter studies

A slider answers "what if $\mu_d$ were 0.45?". The next question is usually about a whole range:
*how does the energy lost in the second impact depend on $\mu_d$ and $\sigma_0$ together, for each
model?* This notebook adds **`fl.sweep`**, which runs every model at every point of a parameter grid
and returns the results as an [xarray](https://docs.xarray.dev) `Dataset`: one dimension per swept
parameter plus `model`, one variable per metric.

```python
study = fl.sweep("3.2", ["hybrid_coulomb", "lugre"], {"mu_d": [...], "sigma0": [...]}, t_end=0.75)
```

* Any validated parameter can be swept (`mu_d`, `sigma0`, `n_modes`, `axial_modes`, `e`, `X1`,
  `alpha`, ...). A value outside its range is refused at once; a *combination* that is refused (such
  as $\mu_s < \mu_d$) or a run that stops does not stop the sweep: its `status` says why.
* By default the points run on all cores of this machine (`engine="local"`, one worker process per
  core, each loading flexlib's compiled kernels once). `engine="dask"` sends them to a Dask cluster
  (last section). Every engine gives the same numbers, bit for bit.
* With `cache_dir=...` finished points are stored on disk and a rerun computes only what is missing;
  Ctrl-C (or the notebook's interrupt button) stops a sweep and returns what finished.
* A progress bar shows the points done and the time left; this notebook turns it off
  (`progress=False`) so that no finished bar stays in it.

The metrics per point: for the first few impacts the start time, duration, peak normal force $N$,
peak $|F_t|$ and energy lost; the number of impacts, total stick time, final energy, largest energy
audit residual, the time reached, wall and CPU time and `status`.
"""),
    code(r"""
import flexlib as fl
%matplotlib inline
import numpy as np
import matplotlib.pyplot as plt
from flexlib.viz import theme
theme.use()  # resolution and font sizes of every figure: flexlib/viz/theme.py
"""),
    md(r"""
## Energy lost over $\mu_d \times \sigma_0$, hybrid Coulomb and unified LuGre

Case 3.2 from 0 to 0.75 s covers the first two impacts (at about 0.333 s and 0.69 s). The grid is
4 × 4 values of the kinetic friction coefficient $\mu_d$ and the LuGre bristle stiffness $\sigma_0$
(eq (68), coefficient form, 1/m), for two models: 32 runs. $\mu_s = 0.5$ stays fixed, so
$\mu_d \le 0.5$.
"""),
    code(r"""
MU_D = [0.2, 0.3, 0.4, 0.5]
SIGMA0 = [1e4, 1e5, 1e6, 1e7]
study = fl.sweep("3.2", ["hybrid_coulomb", "lugre"], {"mu_d": MU_D, "sigma0": SIGMA0}, t_end=0.75,
                 progress=False)
study
"""),
    md(r"""
`status` is `"ok"` for a run that reached `t_end`. A hybrid run can stop before it (a
`SimulationError`: the event cap of an impact cluster in micro-impact chatter, or a Painlevé
singularity of the slip solve); the sweep then stores `"stopped: <cause>"`, keeps the impacts that
were complete before the stop and sets the whole-run numbers to NaN. What `status` shows for this grid
(`short` keeps the cause without its details in parentheses):
"""),
    code(r"""
def short(status):
    return str(status).split(" (")[0]

for model in study.model.values:
    values, counts = np.unique([short(s) for s in study.status.sel(model=model).values.ravel()],
                               return_counts=True)
    print(f"{model}:", "; ".join(f"{n} x {v}" for v, n in zip(values, counts)))
"""),
    checked(r"""
lugre = study.sel(model="lugre")
for k in (1, 2):
    print(f"unified LuGre, energy lost in impact {k} [J]  (rows mu_d, columns sigma0 [1/m])")
    print("mu_d \\ sigma0 " + "".join(f"{s:>9.0e}" for s in SIGMA0))
    for mu in MU_D:
        row = lugre.energy_lost.sel(impact=k, mu_d=mu).values
        print(f"{mu:>13.2f} " + "".join(f"{v:>9.4f}" for v in row))
"""),
    md(r"""
The same numbers as heat maps. $\sigma_0$ is on a logarithmic axis; each cell is one run. The first
impact depends smoothly on both parameters: a soft bristle ($\sigma_0 = 10^4$/m) dissipates more. The
second impact depends on everything that happened before it (the rebound, the flight, the state of
the beam's modes when it lands), so its map is much less regular; notebook 06 shows how sensitive the
later impacts are.
"""),
    code(r"""
def heat_map(ax, da, label, cmap="viridis", **kw):
    # One cell per grid point: mu_d along x, sigma0 (log) along y.
    m = ax.pcolormesh(np.arange(len(da.mu_d) + 1), np.arange(len(da.sigma0) + 1),
                      da.transpose("sigma0", "mu_d").values, cmap=cmap, **kw)
    ax.set_xticks(np.arange(len(da.mu_d)) + 0.5, [f"{v:g}" for v in da.mu_d.values])
    ax.set_yticks(np.arange(len(da.sigma0)) + 0.5, [f"{v:.0e}" for v in da.sigma0.values])
    ax.set_xlabel(r"$\mu_d$ [-]")
    ax.set_ylabel(r"$\sigma_0$ [1/m]")
    plt.colorbar(m, ax=ax, label=label)

fig, axes = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
for ax, k in zip(axes, (1, 2)):
    heat_map(ax, lugre.energy_lost.sel(impact=k), f"energy lost in impact {k} [J]")
    ax.set_title(f"unified LuGre, impact {k}")
plt.show()
"""),
    md(r"""
**Hybrid Coulomb against unified LuGre.** Hybrid Coulomb does not use $\sigma_0$ (its columns are
constant), so the difference shows where LuGre's bristle stiffness changes the energy balance. Cells
where either run did not give the impact are blank (NaN).
"""),
    code(r"""
diff = study.energy_lost.sel(model="hybrid_coulomb") - study.energy_lost.sel(model="lugre")
fig, axes = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
for ax, k in zip(axes, (1, 2)):
    d = diff.sel(impact=k)
    lim = float(np.nanmax(np.abs(d.values))) or 1.0
    heat_map(ax, d, "energy lost: hybrid Coulomb − LuGre [J]", cmap="RdBu_r", vmin=-lim, vmax=lim)
    ax.set_title(f"impact {k}")
plt.show()
"""),
    md(r"""
## Stick time over $\mu_s \times$ axial modes (hybrid LuGre)

With the paper's axially inextensible beam the hybrid models do not stick (notebook 07);
with `axial_modes` ≥ 1 they can. The hybrid LuGre model tests stick against $\mu_s$, so the static
coefficient matters. First impact only (0–0.4 s), $\mu_s$ from 0.4 to 0.8, 0–2 axial modes:
15 runs. Stick time is the total time in the stick state; a run that stopped has none (NaN, marked ×).
"""),
    code(r"""
MU_S = [0.4, 0.5, 0.6, 0.7, 0.8]
AXIAL = [0, 1, 2]
stick = fl.sweep("3.2", "hybrid_lugre", {"mu_s": MU_S, "axial_modes": AXIAL}, t_end=0.4,
                 progress=False).sel(model="hybrid_lugre")
for na in AXIAL:
    print(f"axial_modes = {na}:", ", ".join(
        f"mu_s {mu:g}: {short(s)}" for mu, s in zip(MU_S, stick.status.sel(axial_modes=na).values)))
"""),
    code(r"""
fig, ax = plt.subplots(figsize=(6.5, 3.6), constrained_layout=True)
ms = 1e3 * stick.stick_time.transpose("axial_modes", "mu_s").values
m = ax.pcolormesh(np.arange(len(MU_S) + 1), np.arange(len(AXIAL) + 1), ms, cmap="magma")
for i, na in enumerate(AXIAL):
    for j, mu in enumerate(MU_S):
        if stick.status.sel(axial_modes=na, mu_s=mu).item() != "ok":
            ax.plot(j + 0.5, i + 0.5, "x", color="tab:red", ms=12, mew=2)
ax.set_xticks(np.arange(len(MU_S)) + 0.5, [f"{v:g}" for v in MU_S])
ax.set_yticks(np.arange(len(AXIAL)) + 0.5, [str(v) for v in AXIAL])
ax.set_xlabel(r"static friction coefficient $\mu_s$ [-]")
ax.set_ylabel("axial modes [-]")
ax.set_title("hybrid LuGre, stick time in 0–0.4 s (× = run stopped)")
plt.colorbar(m, ax=ax, label="stick time [ms]")
plt.show()
"""),
    md(r"""
## A line study: the number of bending modes

One parameter, two models: peak normal force and energy lost in the first impact for
$N = 1 \dots 6$ assumed modes (0–0.4 s). `n_modes` is an integer coordinate.
"""),
    code(r"""
N_MODES = [1, 2, 3, 4, 5, 6]
modes = fl.sweep("3.2", ["frictionless", "lugre"], {"n_modes": N_MODES}, t_end=0.4, progress=False)
first = modes.sel(impact=1)
fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), constrained_layout=True)
for model, style in (("frictionless", "k--o"), ("lugre", "C2-s")):
    axes[0].plot(N_MODES, first.peak_normal_force.sel(model=model), style, label=model)
    axes[1].plot(N_MODES, first.energy_lost.sel(model=model), style, label=model)
axes[0].set_ylabel("peak normal force N, impact 1 [N]")
axes[1].set_ylabel("energy lost in impact 1 [J]")
for ax in axes:
    ax.set_xlabel("number of bending modes N [-]")
    ax.legend()
plt.show()
"""),
    checked(r"""
print("N   " + "".join(f"{m:>28}" for m in modes.model.values))
print("    " + "   peak N [N]  lost [J]  status" * 2)
for n in N_MODES:
    p = first.sel(n_modes=n)
    print(f"{n:<4}" + "".join(f"{p.peak_normal_force.sel(model=m).item():>13.1f}"
                              f"{p.energy_lost.sel(model=m).item():>10.4f}"
                              f"{str(p.status.sel(model=m).values):>8}" for m in modes.model.values))
"""),
    md(r"""
The peak force is not converged in $N$ (docs/findings.md says the same); the energy lost moves
less from N = 4 on.

## Saving

A study is an ordinary xarray `Dataset`: `study.to_netcdf("study.nc", engine="h5netcdf")` writes it
(parameters, grid and flexlib version are in its attributes), `xarray.open_dataset` reads it back.
`fl.sweep_table(study, "study.csv")` writes a flat table, one row per point (`.parquet` works too
when pyarrow is installed).
"""),
    code(r"""
fl.sweep_table(modes)[["model", "n_modes", "n_impacts", "peak_normal_force_1", "energy_lost_1", "status"]]
"""),
    md(r"""
## The same study on a Dask cluster

Users who outgrow one machine run studies on a [Dask](https://distributed.dask.org) cluster. The
switch is one argument: `scheduler="tcp://host:8786"` (the address of a running `dask scheduler`,
whose workers have flexlib installed), or a `distributed.Client` you made. With `engine="dask"` and
neither, `fl.sweep` starts a local cluster for the sweep and closes it afterwards. Here a two-worker
cluster on this machine (listening on 127.0.0.1 only, no dashboard) reruns the mode study; the
numbers are identical to the local process pool's.
"""),
    code(r"""
from distributed import Client, LocalCluster

with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cluster, \
        Client(cluster) as client:
    on_dask = fl.sweep("3.2", ["frictionless", "lugre"], {"n_modes": N_MODES}, t_end=0.4,
                       scheduler=client, engine="dask", progress=False)
"""),
    checked(r"""
timings = ["wall_time", "cpu_time"]      # the only variables that differ between runs
same = on_dask.drop_vars(timings).equals(modes.drop_vars(timings))
print("Dask results identical to the local pool's:", same)
"""),
    md(r"""
## Scaling up

The grids above are kept small so that this notebook runs in about a minute. A real
study uses the same calls with more values; the cost is (number of points) × (time per run) / (cores).
A 0–0.75 s unified-LuGre run takes about 0.2 s, so 64 × 64 × 2 models ≈ 8 200 runs take about
15 minutes on 2 cores, or a few minutes on a cluster (see `benchmarks/README.md`, "Parameter sweeps").

```python
study = fl.sweep("3.2", ["hybrid_coulomb", "hybrid_lugre", "lugre"],
                 {"mu_d": np.linspace(0.2, 0.5, 64), "sigma0": np.geomspace(1e4, 1e7, 64)},
                 t_end=2.0, cache_dir="study-cache",          # resumable
                 scheduler="tcp://scheduler.example.org:8786", engine="dask")
```

or from a shell, where `--scheduler` switches to Dask and `--model` can be repeated:

```bash
python -m flexlib sweep --case 3.2 --model lugre --model hybrid_coulomb \
    --grid mu_d=0.2:0.5:64 --grid sigma0=1e4:1e7:64:log --t-end 2 \
    --cache-dir study-cache --out study.nc --table study.csv
```

In a script (not a notebook), call `fl.sweep` under `if __name__ == "__main__":`: every worker
process imports the script's main module.
"""),
]


def build():
    return write_notebook(CELLS, OUT)


if __name__ == "__main__":
    print(build())
