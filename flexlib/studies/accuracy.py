"""Accuracy against cost of the beam's bases (modal, finite elements, partition).

Every representation of the beam is run on one case and compared with a reference run, the
finest finite-element mesh that can be integrated (docs/model.md, "Bases of the beam"), at
tightened tolerances.  A :class:`Study` describes what one case compares; two are defined:

* :data:`PAPER`, case 3.2 over 0-1 s with the hybrid Coulomb and the frictionless model: the
  quantities the paper plots, the start times of the first five impacts, the energy after each of
  them, the normal impulse of each (jump impulse plus the integral of N), the hub angle theta(t)
  over the whole run and the first impact's peak normal force;
* :data:`DOUBLE_PENDULUM`, the flexible double pendulum with its continuous Hertz contact, from
  the release to shortly after the first impact: the impact's start time, duration, normal
  impulse, peak force, the upper link's angular rate and the strain energy at its end, and both
  links' angles over the window.

The cost is the CPU time of a warm run (the compiled kernels loaded by a short run of the same
size first), measured as the process's CPU time: a run uses one core, so on an idle core that is
its wall time, and on a shared machine it is far less disturbed by the other jobs than the wall
time (both are stored).

This module runs the simulator and condenses the runs into tables; it draws nothing (the figure
is :func:`flexlib.viz.plots.fig_accuracy_cost`, notebook 12 shows the study):

* :func:`run_one` runs one representation with one model (cached on disk by :func:`cached_run`);
* :func:`table` puts the runs into a :class:`pandas.DataFrame`, one row per run, with the
  largest angle errors against the reference;
* :func:`errors` turns that table into relative errors per quantity;
* :func:`pareto`, :func:`cheapest_within` and :func:`peak_force_convergence` answer the
  questions: which representation is on the error-cost front, which reaches 1 % cheapest, does
  the first impact's peak normal force converge as the basis is refined.

Every function takes the study as ``study`` (default :data:`PAPER`).
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..bodies.bases import basis_of
from ..outputs import Outputs, write_text
from ..params import paper_case
from ..multibody.simulate import SystemSimulationError
from ..paper import SimulationError, simulate
from ..text import percent

__all__ = ["Study", "PAPER", "DOUBLE_PENDULUM", "STUDIES", "CASE", "MODELS", "T_END",
           "N_IMPACTS", "THETA_GRID", "TIGHT", "QUANTITIES", "representations", "label",
           "coordinates", "run_one", "cache_path", "cached_run", "table", "errors", "pareto", "cheapest_within",
           "stays_within", "peak_force_convergence", "summarize", "markdown_table",
           "reference_markdown", "peak_force_markdown", "report",
           "findings_numbers", "RESULTS_CSV", "SUMMARY_JSON", "load_table", "load_reference",
           "save_reference"]

TIGHT = dict(rtol=1e-10, atol=1e-12)             # the reference's tolerances (default 1e-8, 1e-10)
ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = ROOT / "benchmarks" / "results"
_BASIS_KEYS = ("basis", "n_modes", "elements", "local_length", "local_modes")


@dataclass(frozen=True)
class Study:
    """What one case's study compares: the case and its models, the time window, how many
    impacts, the angle histories (short name -> the run's name for it) and the quantities.

    A quantity is ``(kind, column, what)``: kind ``"impacts"`` takes the largest relative error
    of ``column`` over the first ``n_impacts`` impacts the reference has, ``"first"`` the first
    impact's alone, ``"angle"`` the largest difference of an angle history over the window
    divided by the reference's range of it.  ``partition_sequence`` fixes the partition's far
    modes, local length and reduction whose element refinement is followed in
    :func:`peak_force_convergence`; ``stem`` names the results files."""
    case: str
    models: tuple
    t_end: float
    n_impacts: int
    angles: dict
    quantities: dict
    impact_keys: tuple
    stem: str
    n_grid: int = 2001
    partition_sequence: dict = field(default_factory=dict)

    @property
    def grid(self):
        return np.linspace(0.0, self.t_end, self.n_grid)

    @property
    def results_csv(self):
        return RESULTS_DIR / f"{self.stem}.csv"

    @property
    def summary_json(self):
        return RESULTS_DIR / f"{self.stem}.json"

    @property
    def reference_json(self):
        """The reference runs' angle histories (what a new run's angle error needs)."""
        return RESULTS_DIR / f"{self.stem}_reference.json"

    @property
    def cache_dir(self):
        return RESULTS_DIR / "tmp" / self.stem

    @property
    def multibody(self) -> bool:
        return self.case != "3.2"

    def simulate(self, model: str, t_end: float, **over):
        """One run of the case with the beam and solver overrides ``over``."""
        if self.multibody:
            from ..cases import simulate as simulate_case
            return simulate_case(self.case, model, t_end, **over)
        return simulate(self.case, model, t_end, **over)

    def what(self, q: str) -> str:
        return self.quantities[q][2]


PAPER = Study(
    case="3.2", models=("hybrid_coulomb", "frictionless"),
    t_end=1.0,                  # s: the first five impacts of case 3.2 fall in 0.33-0.98 s
    n_impacts=5, angles={"theta": "theta"}, stem="accuracy",
    impact_keys=("t_start", "energy_after", "normal_impulse", "peak_normal_force"),
    partition_sequence=dict(n_modes=3, local_length=0.4, local_modes=0),
    quantities={
        "t_start": ("impacts", "t_start", "start times of the first five impacts, max |dt| / t_ref"),
        "energy_after": ("impacts", "energy_after",
                         "energy after each of the first five impacts, max |dE| / E_ref"),
        "normal_impulse": ("impacts", "normal_impulse",
                           "normal impulse of each of the first five impacts, max |dI| / I_ref"),
        "theta": ("angle", "theta", "theta(t) over 0-1 s, max |d theta| / (range of theta_ref)"),
        "peak_N": ("first", "peak_normal_force", "first impact's peak normal force, |dN| / N_ref"),
        "t_start_1": ("first", "t_start", "start time of the first impact, |dt| / t_ref"),
        "energy_after_1": ("first", "energy_after", "energy after the first impact, |dE| / E_ref"),
        "normal_impulse_1": ("first", "normal_impulse",
                             "normal impulse of the first impact, |dI| / I_ref"),
    })

DOUBLE_PENDULUM = Study(
    case="double-pendulum", models=("continuous",),
    # s: point B strikes the stop at 0.607 s, leaves it 0.17 ms later and strikes it again at
    # 0.609 s; the window ends 11 ms after that (a longer one makes the reference unaffordable)
    t_end=0.62,
    n_impacts=2, angles={"theta1": "B1.theta", "theta2": "B2.theta"},
    stem="accuracy_double_pendulum", n_grid=1241,  # 0.5 ms apart
    impact_keys=("t_start", "duration", "normal_impulse", "peak_normal_force", "omega1_after",
                 "strain_energy_after"),
    quantities={
        "t_start_1": ("first", "t_start", "start time of the first impact, |dt| / t_ref"),
        "duration_1": ("first", "duration", "duration of the first impact, |dT| / T_ref"),
        "normal_impulse_1": ("first", "normal_impulse",
                             "normal impulse of the first impact, |dI| / I_ref"),
        "peak_N": ("first", "peak_normal_force", "first impact's peak normal force, |dN| / N_ref"),
        "omega1_after_1": ("first", "omega1_after",
                           "upper link's angular rate at the end of the first impact, "
                           "|d omega| / |omega_ref|"),
        "strain_energy_after_1": ("first", "strain_energy_after",
                                  "strain energy of both links at the end of the first impact, "
                                  "|dV| / V_ref"),
        "theta1": ("angle", "theta1", "upper link's angle over the window, max |d theta1| / "
                   "(range of theta1_ref)"),
        "theta2": ("angle", "theta2", "lower link's angle over the window, max |d theta2| / "
                   "(range of theta2_ref)"),
    })

STUDIES = {s.case: s for s in (PAPER, DOUBLE_PENDULUM)}

# case 3.2's study under its former names
CASE, MODELS, T_END, N_IMPACTS = PAPER.case, PAPER.models, PAPER.t_end, PAPER.n_impacts
THETA_GRID = PAPER.grid                          # 0.5 ms apart
QUANTITIES = {q: v[2] for q, v in PAPER.quantities.items()}
RESULTS_CSV, SUMMARY_JSON, CACHE_DIR = PAPER.results_csv, PAPER.summary_json, PAPER.cache_dir


def representations(modal=range(2, 11), fe=(4, 6, 8), partition=None) -> list[dict]:
    """The representations of case 3.2's study, as beam-parameter overrides (finer meshes than
    ``fe`` cost minutes per run and are run only as the reference and its check, by
    ``benchmarks/bench_accuracy.py``).  ``partition`` is a list of (N, local length [m],
    elements, local modes); by default two grids:

    * N = 2, 3, 5 far modes, local lengths 0.1, 0.2, 0.4 m, 4 elements reduced to 1, 2 or 4
      fixed-interface modes;
    * the local mesh refined, N = 3: 1, 2, 4, 8 elements reduced to 2 local modes on 0.2 and
      0.4 m, and unreduced (local modes 0) with 1, 2, 4 elements on 0.4 m and 1, 2 on 0.2 m.
      An unreduced local region is as stiff as its elements (its highest frequency grows as
      1/h^2): 8 unreduced elements on 0.4 m have a highest frequency of 6e5 rad/s, six times
      the 8-element beam's, and are left out."""
    if partition is None:
        partition = [(n, ell, 4, k) for n in (2, 3, 5) for ell in (0.1, 0.2, 0.4)
                     for k in (1, 2, 4)]
        partition += [(3, ell, ne, 2) for ell in (0.2, 0.4) for ne in (1, 2, 4, 8)]
        partition += [(3, 0.4, ne, 0) for ne in (1, 2, 4)] + [(3, 0.2, ne, 0) for ne in (1, 2)]
    reps = [dict(basis="modal", n_modes=int(n)) for n in modal]
    reps += [dict(basis="fe", elements=int(ne)) for ne in fe]
    reps += [dict(basis="partition", n_modes=int(n), local_length=float(ell), elements=int(ne),
                  local_modes=int(k)) for n, ell, ne, k in partition]
    out = []
    for r in reps:                              # each once (the two grids share N = 3, ne = 4, k = 2)
        if r not in out:
            out.append(r)
    return out


def label(rep: dict) -> str:
    """A short name: ``modal N=3``, ``fe ne=8``, ``partition N=3 l=0.2 ne=4 k=2``."""
    if rep["basis"] == "modal":
        return f"modal N={rep['n_modes']}"
    if rep["basis"] == "fe":
        return f"fe ne={rep['elements']}"
    k = rep.get("local_modes", 0)
    return (f"partition N={rep['n_modes']} l={rep['local_length']:g} ne={rep['elements']}"
            + (f" k={k}" if k else ""))


def coordinates(rep: dict, study: Study = PAPER) -> int:
    """The number of deformation coordinates of the representation (of both links on the
    double pendulum)."""
    if study.multibody:
        from ..cases import build
        system, _ = build(study.case, **rep)
        return int(sum(nf for _, _, nf in system.coordinates()[1]))
    return int(basis_of(paper_case(study.case).with_(**rep).beam).n)


def _impacts_of(res, study: Study) -> list[dict]:
    """The first impacts of a run as plain numbers: the keys of ``study.impact_keys``; on the
    multibody cases the state at each episode's end gives the upper link's angular rate
    (``omega1_after``) and the strain energy (``strain_energy_after``)."""
    imps = res.impacts[:study.n_impacts]
    if not study.multibody:
        return [{k: float(im[k]) for k in study.impact_keys} for im in imps]
    out = []
    for im in imps:
        h = res.history([im["t_end"]])
        rec = {k: float(im[k]) for k in study.impact_keys if k in im}
        rec["omega1_after"] = float(h["B1.theta_dot"][0])
        rec["strain_energy_after"] = float(h["V_E"][0])
        out.append(rec)
    return out


def _angles_of(res, study: Study) -> dict:
    """The angle histories on the study's grid (NaN past the end of a run that stopped)."""
    grid = study.grid
    grid = grid[grid <= res.t_end]
    out = {}
    h = res.history(grid) if study.multibody else None
    for name, key in study.angles.items():
        a = np.full(study.grid.shape, np.nan)
        a[:len(grid)] = h[key] if study.multibody else res.sample(grid, key)
        out[name] = a.tolist()
    return out


def run_one(rep: dict, model: str, tight: bool = False, method: str | None = None,
            study: Study = PAPER) -> dict:
    """Run ``rep`` (beam overrides) with ``model`` over the study's window (case 3.2: 0-1 s):
    the first impacts' values (:attr:`Study.impact_keys`), the angle histories on the study's
    grid and the warm run's wall and CPU time [s].  ``tight`` uses the tolerances
    :data:`TIGHT`; ``method`` another integrator (e.g. scipy's ``"BDF"``)."""
    over = dict(rep, **(TIGHT if tight else {}), **({"method": method} if method else {}))
    study.simulate(model, 0.002, **over)         # load the compiled kernels for this size
    w0, c0 = time.perf_counter(), time.process_time()
    try:
        res, status = study.simulate(model, study.t_end, **over), "ok"
    except (SimulationError, SystemSimulationError) as err:
        res, status = err.result, f"stopped: {err}"
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    steps = (sum(len(ph.sol.t) - 1 for ph in res.phases) if study.multibody
             else res.stats.get("n_steps", 0))
    return dict(label=label(rep), model=model, rep=rep, tight=tight, method=method or "DOP853",
                coordinates=coordinates(rep, study), wall_s=wall, cpu_s=cpu, status=status,
                n_impacts=len(res.impacts), n_steps=int(steps),
                impacts=_impacts_of(res, study), angles=_angles_of(res, study))


def cache_path(rep: dict, model: str, tight: bool = False, method: str | None = None,
               cache_dir=None, study: Study = PAPER) -> Path:
    """Where :func:`cached_run` stores the run."""
    key = json.dumps([study.case, study.t_end, rep, model, tight, method or "DOP853"],
                     sort_keys=True)
    name = f"{label(rep).replace(' ', '_')}_{model}_{hashlib.sha1(key.encode()).hexdigest()[:10]}.json"
    return Path(cache_dir or study.cache_dir) / name


def cached_run(rep: dict, model: str, tight: bool = False, method: str | None = None,
               cache_dir=None, refresh: bool = False, study: Study = PAPER) -> dict:
    """:func:`run_one`, stored as JSON in ``cache_dir`` (default: the study's, one file per
    run) and read back from there on the next call (``refresh`` runs it again)."""
    path = cache_path(rep, model, tight, method, cache_dir, study)
    if path.exists() and not refresh:
        return json.loads(path.read_text())
    rec = run_one(rep, model, tight, method, study)
    path.parent.mkdir(parents=True, exist_ok=True)
    with Outputs(join=False) as out:    # a cache: whole, and there at once for the next call
        out.write(path, lambda p: p.write_text(json.dumps(rec)))
    return rec


def save_reference(records: dict, study: Study = PAPER, path=None):
    """Store the reference runs ({model: record of :func:`run_one`}) without their timing, so
    that runs added to the study later are compared with them without running them again."""
    keep = ("label", "model", "rep", "tight", "method", "n_impacts", "impacts", "angles")
    out = {m: {k: r[k] for k in keep} for m, r in records.items()}
    write_text(Path(path or study.reference_json), json.dumps(out, sort_keys=True) + "\n")


def load_reference(study: Study = PAPER, path=None) -> dict:
    """The stored reference runs ({model: record}) of :func:`save_reference`."""
    return json.loads(Path(path or study.reference_json).read_text())


def _angle_error(rec: dict, ref: dict, name: str) -> float:
    """max |a - a_ref| [rad] of the angle history ``name`` over the window; infinite for a run
    that stopped early."""
    a, r = np.asarray(rec["angles"][name], float), np.asarray(ref["angles"][name], float)
    if np.isnan(a).any():
        return np.inf
    return float(np.max(np.abs(a - r)))


def table(records: list[dict], ref: dict, study: Study = PAPER):
    """One row per run (a :class:`pandas.DataFrame`): the representation, model, coordinates,
    wall and CPU time, status, the first impacts' values (columns ``t_start_1`` ...
    ``peak_normal_force_5``, NaN for an impact that did not happen) and per angle history
    ``{angle}_err`` [rad], its largest difference from ``ref`` (the reference run of the same
    model, a record of :func:`run_one`) over the window, and ``{angle}_range_ref``; ``ref`` may
    be a dict {model: record}."""
    import pandas as pd
    rows = []
    for rec in records:
        r = ref[rec["model"]] if rec["model"] in ref else ref
        row = dict(label=rec["label"], model=rec["model"], method=rec["method"],
                   tight=bool(rec["tight"]), coordinates=rec["coordinates"],
                   wall_s=rec["wall_s"], cpu_s=rec["cpu_s"], status=rec["status"],
                   n_impacts=rec["n_impacts"],
                   n_steps=rec["n_steps"])
        row.update({k: rec["rep"].get(k, np.nan) for k in _BASIS_KEYS})
        for k in range(study.n_impacts):
            im = rec["impacts"][k] if k < len(rec["impacts"]) else {}
            for q in study.impact_keys:
                row[f"{q}_{k + 1}"] = im.get(q, np.nan)
        for name in study.angles:
            row[f"{name}_err"] = _angle_error(rec, r, name)
            row[f"{name}_range_ref"] = float(np.nanmax(r["angles"][name])
                                             - np.nanmin(r["angles"][name]))
        rows.append(row)
    return pd.DataFrame(rows)


def _rel(v, r) -> float:
    return abs(v - r) / abs(r) if np.isfinite(v) else np.inf


def errors(df, reference_label: str, study: Study = PAPER):
    """Relative errors per quantity (:attr:`Study.quantities`) of every row of ``df``
    (:func:`table`) against the row ``reference_label`` of the same model (and the same
    tolerance flag ``tight`` if the reference has that row, else the tight one).  An impact the
    reference has and the run does not counts as an infinite error; the reference's missing
    impacts are skipped.  Returns ``df``'s identifying columns plus one column per quantity."""
    import pandas as pd
    out = []
    for _, row in df.iterrows():
        refs = df[(df.label == reference_label) & (df.model == row.model) & (df.method == "DOP853")]
        ref = refs[refs.tight] if refs.tight.any() else refs
        ref = ref.iloc[0]
        e = dict(label=row.label, model=row.model, method=row.method, tight=row.tight,
                 basis=row.basis, coordinates=row.coordinates, cpu_s=row.cpu_s,
                 wall_s=row.wall_s,
                 status=row.status)
        for q, (kind, col, _) in study.quantities.items():
            if kind == "impacts":
                e[q] = max([_rel(row[f"{col}_{k}"], ref[f"{col}_{k}"])
                            for k in range(1, study.n_impacts + 1)
                            if np.isfinite(ref[f"{col}_{k}"])], default=0.0)
            elif kind == "first":
                e[q] = _rel(row[f"{col}_1"], ref[f"{col}_1"])
            else:
                e[q] = row[f"{col}_err"] / ref[f"{col}_range_ref"]
        out.append(e)
    return pd.DataFrame(out)


def pareto(err, quantity: str):
    """The rows of ``err`` (one model) on the error-cost front of ``quantity``: sorted by cost
    (``cpu_s``), each has a smaller error than every cheaper row."""
    d = err.sort_values(["cpu_s", quantity])
    best, keep = np.inf, []
    for i, v in zip(d.index, d[quantity]):
        if v < best:
            keep.append(i)
            best = v
    return d.loc[keep]


def cheapest_within(err, tol: float = 0.01, study: Study = PAPER):
    """Per model and quantity, the cheapest (least CPU time) representation whose relative
    error is at most ``tol``: a :class:`pandas.DataFrame` with the label, coordinates, CPU time
    and error (label None where no run reaches ``tol``)."""
    import pandas as pd
    rows = []
    for model, d in err.groupby("model", sort=False):
        for q in study.quantities:
            ok = d[d[q] <= tol].sort_values("cpu_s")
            if len(ok):
                b = ok.iloc[0]
                rows.append(dict(model=model, quantity=q, label=b.label,
                                 coordinates=int(b.coordinates), cpu_s=float(b.cpu_s),
                                 error=float(b[q])))
            else:
                rows.append(dict(model=model, quantity=q, label=None, coordinates=None,
                                 cpu_s=None, error=float(d[q].min())))
    return pd.DataFrame(rows, dtype=object)          # object: a missing label stays None


def stays_within(err, tol: float = 0.01, study: Study = PAPER) -> list[dict]:
    """Per model and quantity, the smallest modal and finite-element representation from
    which on every finer one of the same sequence (more modes, more elements; both tolerance
    settings) has a relative error of at most ``tol``: a coarse run can land within ``tol`` by
    chance, this asks that refinement keeps it there.  ``label`` is None where even the finest
    is outside."""
    rows = []
    for model, d in err.groupby("model", sort=False):
        for q in study.quantities:
            for basis in ("modal", "fe"):
                f = d[d.basis == basis].sort_values(["coordinates", "cpu_s"])
                if not len(f):
                    continue
                ok = f[q].to_numpy(float) <= tol
                # the first index after which every row is within tol
                bad = np.flatnonzero(~ok)
                first = 0 if not len(bad) else bad[-1] + 1
                if first < len(f):
                    b = f.iloc[first]
                    rows.append(dict(model=model, quantity=q, basis=basis, label=b.label,
                                     coordinates=int(b.coordinates), cpu_s=float(b.cpu_s)))
                else:
                    rows.append(dict(model=model, quantity=q, basis=basis, label=None,
                                     coordinates=None, cpu_s=None))
    return rows


def peak_force_convergence(df, model: str = "hybrid_coulomb", tol: float = 0.01,
                           study: Study = PAPER) -> dict:
    """The first impact's peak normal force [N] along each refinement sequence of ``model`` at
    default tolerances (modal N, fe n_e and, where the study names one, the partition's local
    elements n_e with the far modes, local length and reduction of
    :attr:`Study.partition_sequence`), and whether it has converged: the last refinement
    changes it by at most ``tol`` (relative).  A mesh run only at tight tolerances (the
    reference and its check) enters with that run."""
    out = {}
    d = df[(df.model == model) & (df.method == "DOP853")]
    seqs = [("modal", "n_modes", d[d.basis == "modal"]), ("fe", "elements", d[d.basis == "fe"])]
    if study.partition_sequence:
        p = d[d.basis == "partition"]
        for k, v in study.partition_sequence.items():
            p = p[np.isclose(p[k].astype(float), v)]
        seqs.append(("partition", "elements", p))
    for basis, key, rows in seqs:
        # one row per refinement: at default tolerances, else the tight run
        s = rows.sort_values([key, "tight"]).drop_duplicates(key)
        if len(s) < 2:
            continue
        vals = [[int(n), float(p)] for n, p in zip(s[key], s.peak_normal_force_1)]
        last = abs(vals[-1][1] - vals[-2][1]) / abs(vals[-1][1])
        out[basis] = dict(values=vals, last_change=float(last), converged=bool(last <= tol))
    return out


def load_table(path=None, study: Study = PAPER):
    """The stored study table (:func:`table` written by ``benchmarks/bench_accuracy.py``)."""
    import pandas as pd
    return pd.read_csv(path or study.results_csv, keep_default_na=True)


def summarize(df, err, reference_label: str, second_label: str, tol: float = 0.01,
              study: Study = PAPER) -> dict:
    """The study's answers as plain data (``benchmarks/results/accuracy.json``): the reference
    and its self-convergence (the second-finest mesh's errors against it), the effect of the
    tightened tolerances, the cheapest representation within ``tol`` per model and quantity,
    the error-cost front and the peak-force convergence."""
    qs = study.quantities
    ref_rows = df[(df.label == reference_label) & df.tight]
    selfconv = err[(err.label == second_label) & err.tight]
    tolerance = []
    for lab in sorted(set(df.label[df.tight]) - {reference_label}):
        pair = df[df.label == lab]
        if pair.tight.all() or not pair.tight.any():
            continue
        e = errors(pair, lab, study)
        for _, row in e[~e.tight].iterrows():
            tolerance.append(dict(label=lab, model=row.model, **{q: float(row[q]) for q in qs}))
    candidates = err[(err.label != reference_label) & (err.method == "DOP853")]
    front = {m: {q: pareto(d, q).label.tolist() for q in qs}
             for m, d in candidates.groupby("model", sort=False)}
    return dict(
        case=study.case, models=list(study.models), t_end=study.t_end,
        n_impacts=study.n_impacts, tolerance=tol,
        quantities={q: v[2] for q, v in qs.items()}, tight=TIGHT,
        reference=dict(label=reference_label, second=second_label,
                       coordinates=int(ref_rows.coordinates.iloc[0]),
                       cpu_s={r.model: float(r.cpu_s) for _, r in ref_rows.iterrows()},
                       n_impacts={r.model: int(r.n_impacts) for _, r in ref_rows.iterrows()},
                       self_convergence={r.model: {q: float(r[q]) for q in qs}
                                         for _, r in selfconv.iterrows()}),
        tolerance_check=tolerance,
        one_percent=cheapest_within(candidates, tol, study).to_dict("records"),
        stays_within=stays_within(candidates, tol, study),
        pareto=front,
        peak_force={m: peak_force_convergence(df, m, tol, study) for m in study.models})


def markdown_table(summary: dict) -> str:
    """The 1 % table of ``summary`` as Markdown: per model and quantity, the cheapest
    representation within the tolerance, its coordinates, warm CPU time and error, and from which
    modal and finite-element representation on refinement stays within it (:func:`stays_within`;
    "never": not even the finest run of the study)."""
    stay = {(r["model"], r["quantity"], r["basis"]): r for r in summary.get("stays_within", ())}

    def within(model, q, basis):
        r = stay.get((model, q, basis))
        if r is None:
            return ""
        return "never" if r["label"] is None else f"{r['label']} ({r['cpu_s']:.2f} s)"

    lines = ["| model | quantity | cheapest within 1 % | coordinates | CPU [s] | error "
             "| modal within 1 % from | fe within 1 % from |",
             "|---|---|---|---:|---:|---:|---|---|"]
    for r in summary["one_percent"]:
        m, q = r["model"], r["quantity"]
        tail = f" {within(m, q, 'modal')} | {within(m, q, 'fe')} |"
        if r["label"] is None:
            lines.append(f"| {m} | {q} | none (best {percent(100 * r['error'])}) | | | |" + tail)
        else:
            lines.append(f"| {m} | {q} | {r['label']} | {int(r['coordinates'])} | "
                         f"{r['cpu_s']:.2f} | {percent(100 * r['error'])} |" + tail)
    return "\n".join(lines)


def reference_markdown(summary: dict) -> str:
    """The reference of ``summary`` as Markdown: its label, coordinates and CPU time, and the
    second-finest mesh's relative errors against it per model and quantity."""
    ref, qs = summary["reference"], list(summary["quantities"])
    lines = [f"Reference: **{ref['label']}** ({ref['coordinates']} coordinates), CPU time "
             + ", ".join(f"{m} {c:.0f} s" for m, c in ref["cpu_s"].items()) + ".",
             "", f"The second-finest mesh, {ref['second']}, against it (relative errors):", "",
             "| model | " + " | ".join(qs) + " |", "|---" * (len(qs) + 1) + "|"]
    for m, e in ref["self_convergence"].items():
        lines.append(f"| {m} | " + " | ".join(f"{percent(100 * e[q])}" for q in qs) + " |")
    return "\n".join(lines)


def peak_force_markdown(summary: dict) -> str:
    """The peak-force convergence of ``summary`` as a Markdown list: per model and refinement
    sequence the peak forces [N], the last refinement's change and the verdict."""
    lines = []
    for model, pf in summary["peak_force"].items():
        for basis, d in pf.items():
            vals = ", ".join(f"{n}: {p:.0f}" for n, p in d["values"])
            lines.append(f"* {model}, {basis} ({'N' if basis == 'modal' else 'n_e'} = {vals} N): "
                         f"the last refinement changes it by {100 * d['last_change']:.1f} %, "
                         + ("converged to 1 %." if d["converged"] else "**not converged** to 1 %."))
    return "\n".join(lines)


def report(summary: dict) -> str:
    """A readable account of ``summary``: reference, self-convergence, 1 % table, peak force."""
    ref = summary["reference"]
    out = [f"reference: {ref['label']} ({ref['coordinates']} coordinates), rtol "
           f"{summary['tight']['rtol']:g}, atol {summary['tight']['atol']:g}; CPU "
           + ", ".join(f"{m} {w:.0f} s" for m, w in ref["cpu_s"].items())]
    for m, e in ref["self_convergence"].items():
        out.append(f"  {ref['second']} against it, {m}: "
                   + ", ".join(f"{q} {percent(100 * v)}" for q, v in e.items()))
    out.append(markdown_table(summary))
    for m, pf in summary["peak_force"].items():
        for basis, d in pf.items():
            out.append(f"peak N of the first impact, {m}, {basis}: "
                       + ", ".join(f"{n}: {p:.1f}" for n, p in d["values"])
                       + f" N; last change {100 * d['last_change']:.1f} %"
                       + (" (converged)" if d["converged"] else " (not converged)"))
    return "\n".join(out)


def findings_numbers(summary: dict, model: str = "hybrid_coulomb") -> list[str]:
    """The phrases with numbers that README.md's findings quote from case 3.2's ``summary``
    (its test checks that each is there): the reference and its CPU time, the second-finest
    mesh's differences in the first impact's energy and impulse, the smallest modal basis that
    keeps the first impact's start time within 1 % and the peak forces along the refinements."""
    ref = summary["reference"]
    sc = ref["self_convergence"][model]
    out = [ref["label"], f"{ref['cpu_s'][model]:.0f} s",
           f"{percent(100 * sc['energy_after_1'])} and {percent(100 * sc['normal_impulse_1'])}"]
    for r in summary["stays_within"]:
        if (r["model"], r["quantity"], r["basis"]) == (model, "t_start_1", "modal"):
            out.append(f"{r['label']} ({r['coordinates']} coordinates, {r['cpu_s']:.2f} s)")
    for basis, d in summary["peak_force"][model].items():
        out.append(", ".join(f"{p:.0f}" for _, p in d["values"]) + " N")
    return out
