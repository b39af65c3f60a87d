"""Accuracy against cost of the beam's bases (modal, finite elements, partition) on case 3.2.

Every representation of the beam is run on case 3.2 over 0-1 s with the hybrid Coulomb and the
frictionless model and compared with a reference run, the finest finite-element mesh that can be
integrated (docs/model.md, "Bases of the beam"), at tightened tolerances.  The quantities
compared are those the paper plots: the start times of the first five impacts, the energy after
each of them, the normal impulse of each (jump impulse plus the integral of N), the hub angle
theta(t) over the whole run and the first impact's peak normal force.  The cost is the CPU
time of a warm run (the compiled kernels loaded by a short run of the same size first), measured
as the process's CPU time: a run uses one core, so on an idle core that is its wall time, and on
a shared machine it is far less disturbed by the other jobs than the wall time (both are stored).

This module runs the simulator and condenses the runs into tables; it draws nothing (the figure
is :func:`flexlib.plots.fig_accuracy_cost`, notebook 12 shows the study):

* :func:`run_one` runs one representation with one model (cached on disk by :func:`cached_run`);
* :func:`table` puts the runs into a :class:`pandas.DataFrame`, one row per run, with the
  maximum theta error against the reference;
* :func:`errors` turns that table into relative errors per quantity;
* :func:`pareto`, :func:`cheapest_within` and :func:`peak_force_convergence` answer the
  questions: which representation is on the error-cost front, which reaches 1 % cheapest, does
  the first impact's peak normal force converge as the basis is refined.
"""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import numpy as np

from .bases import basis_of
from .params import paper_case
from .simulate import SimulationError, simulate

__all__ = ["CASE", "MODELS", "T_END", "N_IMPACTS", "THETA_GRID", "TIGHT", "QUANTITIES",
           "representations", "label", "coordinates", "run_one", "cached_run", "table", "errors",
           "pareto", "cheapest_within", "stays_within", "peak_force_convergence", "summarize",
           "markdown_table", "report", "findings_numbers", "RESULTS_CSV", "SUMMARY_JSON",
           "load_table"]

CASE = "3.2"
MODELS = ("hybrid_coulomb", "frictionless")
T_END = 1.0                     # s: the first five impacts of case 3.2 fall in 0.33-0.98 s
N_IMPACTS = 5
THETA_GRID = np.linspace(0.0, T_END, 2001)       # 0.5 ms apart
TIGHT = dict(rtol=1e-10, atol=1e-12)             # the reference's tolerances (default 1e-8, 1e-10)
# the quantities compared, and how their relative error is formed (see errors())
QUANTITIES = {
    "t_start": "start times of the first five impacts, max |dt| / t_ref",
    "energy_after": "energy after each of the first five impacts, max |dE| / E_ref",
    "normal_impulse": "normal impulse of each of the first five impacts, max |dI| / I_ref",
    "theta": "theta(t) over 0-1 s, max |d theta| / (range of theta_ref)",
    "peak_N": "first impact's peak normal force, |dN| / N_ref",
    "t_start_1": "start time of the first impact, |dt| / t_ref",
    "energy_after_1": "energy after the first impact, |dE| / E_ref",
    "normal_impulse_1": "normal impulse of the first impact, |dI| / I_ref",
}
ROOT = Path(__file__).resolve().parent.parent
RESULTS_CSV = ROOT / "benchmarks" / "results" / "accuracy.csv"
SUMMARY_JSON = ROOT / "benchmarks" / "results" / "accuracy.json"
CACHE_DIR = ROOT / "benchmarks" / "results" / "tmp" / "accuracy"
_BASIS_KEYS = ("basis", "n_modes", "elements", "local_length", "local_modes")


def representations(modal=range(2, 9), fe=(4, 6, 8), partition=None) -> list[dict]:
    """The representations of the study, as beam-parameter overrides (N = 8 is the largest
    number of assumed modes flexlib accepts; finer meshes than ``fe`` cost minutes per run and
    are run only as the reference and its check, by ``benchmarks/bench_accuracy.py``).  ``partition`` is a list
    of (N, local length [m], elements, local modes); by default N = 2, 3, 5 far modes, local
    lengths 0.1, 0.2, 0.4 m, 4 elements reduced to 1, 2 or 4 fixed-interface modes (the
    unreduced region is as stiff as its elements: see the module docstring)."""
    if partition is None:
        partition = [(n, ell, 4, k) for n in (2, 3, 5) for ell in (0.1, 0.2, 0.4)
                     for k in (1, 2, 4)]
    reps = [dict(basis="modal", n_modes=int(n)) for n in modal]
    reps += [dict(basis="fe", elements=int(ne)) for ne in fe]
    reps += [dict(basis="partition", n_modes=int(n), local_length=float(ell), elements=int(ne),
                  local_modes=int(k)) for n, ell, ne, k in partition]
    return reps


def label(rep: dict) -> str:
    """A short name: ``modal N=3``, ``fe ne=8``, ``partition N=3 l=0.2 ne=4 k=2``."""
    if rep["basis"] == "modal":
        return f"modal N={rep['n_modes']}"
    if rep["basis"] == "fe":
        return f"fe ne={rep['elements']}"
    k = rep.get("local_modes", 0)
    return (f"partition N={rep['n_modes']} l={rep['local_length']:g} ne={rep['elements']}"
            + (f" k={k}" if k else ""))


def coordinates(rep: dict) -> int:
    """The number of deformation coordinates of the representation."""
    return int(basis_of(paper_case(CASE).with_(**rep).beam).n)


def run_one(rep: dict, model: str, tight: bool = False, method: str | None = None) -> dict:
    """Run ``rep`` (beam overrides) with ``model`` on case 3.2 over 0-1 s: the first five
    impacts' start time, energy after, normal impulse and peak N, theta on :data:`THETA_GRID`
    (NaN past the end of a run that stopped) and the warm run's wall and CPU time [s].  ``tight`` uses the
    tolerances :data:`TIGHT`; ``method`` another integrator (e.g. scipy's ``"BDF"``)."""
    over = dict(rep, **(TIGHT if tight else {}), **({"method": method} if method else {}))
    simulate(CASE, model, 0.002, **over)         # load the compiled kernels for this size
    w0, c0 = time.perf_counter(), time.process_time()
    try:
        res, status = simulate(CASE, model, T_END, **over), "ok"
    except SimulationError as err:
        res, status = err.result, f"stopped: {err}"
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    grid = THETA_GRID[THETA_GRID <= res.t_end]
    theta = np.full(THETA_GRID.shape, np.nan)
    theta[:len(grid)] = res.sample(grid, "theta")
    keep = ("t_start", "energy_after", "normal_impulse", "peak_normal_force")
    return dict(label=label(rep), model=model, rep=rep, tight=tight, method=method or "DOP853",
                coordinates=coordinates(rep), wall_s=wall, cpu_s=cpu, status=status,
                n_impacts=len(res.impacts), n_steps=int(res.stats.get("n_steps", 0)),
                impacts=[{k: float(im[k]) for k in keep} for im in res.impacts[:N_IMPACTS]],
                theta=theta.tolist())


def cached_run(rep: dict, model: str, tight: bool = False, method: str | None = None,
               cache_dir=CACHE_DIR, refresh: bool = False) -> dict:
    """:func:`run_one`, stored as JSON in ``cache_dir`` (one file per run) and read back from
    there on the next call (``refresh`` runs it again)."""
    key = json.dumps([rep, model, tight, method or "DOP853"], sort_keys=True)
    name = f"{label(rep).replace(' ', '_')}_{model}_{hashlib.sha1(key.encode()).hexdigest()[:10]}.json"
    path = Path(cache_dir) / name
    if path.exists() and not refresh:
        return json.loads(path.read_text())
    rec = run_one(rep, model, tight, method)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec))
    return rec


def _theta_error(rec: dict, ref: dict) -> tuple[float, float]:
    """(max |theta - theta_ref| [rad], that divided by the range of theta_ref) over 0-1 s;
    infinite for a run that stopped before 1 s."""
    th, tr = np.asarray(rec["theta"], float), np.asarray(ref["theta"], float)
    if np.isnan(th).any():
        return np.inf, np.inf
    err = float(np.max(np.abs(th - tr)))
    return err, err / float(np.nanmax(tr) - np.nanmin(tr))


def table(records: list[dict], ref: dict):
    """One row per run (a :class:`pandas.DataFrame`): the representation, model, coordinates,
    wall and CPU time, status, the first five impacts' values (columns ``t_start_1`` ...
    ``peak_normal_force_5``, NaN for an impact that did not happen) and ``theta_err`` [rad], the
    largest theta difference from ``ref`` (the reference run of the same model, a record of
    :func:`run_one`) over 0-1 s; ``ref`` may be a dict {model: record}."""
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
        for k in range(N_IMPACTS):
            im = rec["impacts"][k] if k < len(rec["impacts"]) else {}
            for q in ("t_start", "energy_after", "normal_impulse", "peak_normal_force"):
                row[f"{q}_{k + 1}"] = im.get(q, np.nan)
        row["theta_err"], _ = _theta_error(rec, r)
        row["theta_range_ref"] = float(np.nanmax(r["theta"]) - np.nanmin(r["theta"]))
        rows.append(row)
    return pd.DataFrame(rows)


def errors(df, reference_label: str):
    """Relative errors per quantity (:data:`QUANTITIES`) of every row of ``df`` (:func:`table`)
    against the row ``reference_label`` of the same model (and the same tolerance flag
    ``tight`` if the reference has that row, else the tight one).  An impact the reference has
    and the run does not counts as an infinite error; the reference's missing impacts are
    skipped.  Returns ``df``'s identifying columns plus one column per quantity."""
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
        for q, col in (("t_start", "t_start"), ("energy_after", "energy_after"),
                       ("normal_impulse", "normal_impulse")):
            worst = 0.0
            for k in range(1, N_IMPACTS + 1):
                r = ref[f"{col}_{k}"]
                if not np.isfinite(r):
                    continue
                v = row[f"{col}_{k}"]
                worst = max(worst, abs(v - r) / abs(r) if np.isfinite(v) else np.inf)
            e[q] = worst
        for q in ("t_start", "energy_after", "normal_impulse"):
            v, r = row[f"{q}_1"], ref[f"{q}_1"]
            e[f"{q}_1"] = abs(v - r) / abs(r) if np.isfinite(v) else np.inf
        e["theta"] = row.theta_err / ref.theta_range_ref
        v, r = row.peak_normal_force_1, ref.peak_normal_force_1
        e["peak_N"] = abs(v - r) / abs(r) if np.isfinite(v) else np.inf
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


def cheapest_within(err, tol: float = 0.01):
    """Per model and quantity, the cheapest (least CPU time) representation whose relative
    error is at most ``tol``: a :class:`pandas.DataFrame` with the label, coordinates, CPU time
    and error (label None where no run reaches ``tol``)."""
    import pandas as pd
    rows = []
    for model, d in err.groupby("model", sort=False):
        for q in QUANTITIES:
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


def stays_within(err, tol: float = 0.01) -> list[dict]:
    """Per model and quantity, the smallest modal and finite-element representation from
    which on every finer one of the same sequence (more modes, more elements; both tolerance
    settings) has a relative error of at most ``tol``: a coarse run can land within ``tol`` by
    chance, this asks that refinement keeps it there.  ``label`` is None where even the finest
    is outside."""
    rows = []
    for model, d in err.groupby("model", sort=False):
        for q in QUANTITIES:
            for basis in ("modal", "fe"):
                f = d[d.basis == basis].sort_values(["coordinates", "cpu_s"])
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


def peak_force_convergence(df, model: str = "hybrid_coulomb", tol: float = 0.01) -> dict:
    """The first impact's peak normal force [N] along each refinement sequence (modal N, fe
    n_e) of ``model`` at default tolerances, and whether it has converged: the last refinement
    changes it by at most ``tol`` (relative).  A mesh run only at tight tolerances (the
    reference and its check) enters with that run."""
    out = {}
    d = df[(df.model == model) & (df.method == "DOP853")]
    for basis, key in (("modal", "n_modes"), ("fe", "elements")):
        # one row per refinement: at default tolerances, else the tight run
        s = d[d.basis == basis].sort_values([key, "tight"]).drop_duplicates(key)
        vals = [[int(n), float(p)] for n, p in zip(s[key], s.peak_normal_force_1)]
        last = (abs(vals[-1][1] - vals[-2][1]) / abs(vals[-1][1])) if len(vals) > 1 else np.nan
        out[basis] = dict(values=vals, last_change=float(last), converged=bool(last <= tol))
    return out


def load_table(path=RESULTS_CSV):
    """The stored study table (:func:`table` written by ``benchmarks/bench_accuracy.py``)."""
    import pandas as pd
    return pd.read_csv(path, keep_default_na=True)


def summarize(df, err, reference_label: str, second_label: str, tol: float = 0.01) -> dict:
    """The study's answers as plain data (``benchmarks/results/accuracy.json``): the reference
    and its self-convergence (the second-finest mesh's errors against it), the effect of the
    tightened tolerances, the cheapest representation within ``tol`` per model and quantity,
    the error-cost front and the peak-force convergence."""
    ref_rows = df[(df.label == reference_label) & df.tight]
    selfconv = err[(err.label == second_label) & err.tight]
    tolerance = []
    for lab in sorted(set(df.label[df.tight]) - {reference_label}):
        pair = df[df.label == lab]
        if pair.tight.all() or not pair.tight.any():
            continue
        e = errors(pair, lab)
        for _, row in e[~e.tight].iterrows():
            tolerance.append(dict(label=lab, model=row.model,
                                  **{q: float(row[q]) for q in QUANTITIES}))
    candidates = err[(err.label != reference_label) & (err.method == "DOP853")]
    front = {m: {q: pareto(d, q).label.tolist() for q in QUANTITIES}
             for m, d in candidates.groupby("model", sort=False)}
    return dict(
        case=CASE, models=list(MODELS), t_end=T_END, n_impacts=N_IMPACTS, tolerance=tol,
        quantities=QUANTITIES, tight=TIGHT,
        reference=dict(label=reference_label, second=second_label,
                       coordinates=int(ref_rows.coordinates.iloc[0]),
                       cpu_s={r.model: float(r.cpu_s) for _, r in ref_rows.iterrows()},
                       n_impacts={r.model: int(r.n_impacts) for _, r in ref_rows.iterrows()},
                       self_convergence={r.model: {q: float(r[q]) for q in QUANTITIES}
                                         for _, r in selfconv.iterrows()}),
        tolerance_check=tolerance,
        one_percent=cheapest_within(candidates, tol).to_dict("records"),
        stays_within=stays_within(candidates, tol),
        pareto=front,
        peak_force={m: peak_force_convergence(df, m, tol) for m in MODELS})


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
            lines.append(f"| {m} | {q} | none (best {100 * r['error']:.2g} %) | | | |" + tail)
        else:
            lines.append(f"| {m} | {q} | {r['label']} | {int(r['coordinates'])} | "
                         f"{r['cpu_s']:.2f} | {100 * r['error']:.2g} % |" + tail)
    return "\n".join(lines)


def report(summary: dict) -> str:
    """A readable account of ``summary``: reference, self-convergence, 1 % table, peak force."""
    ref = summary["reference"]
    out = [f"reference: {ref['label']} ({ref['coordinates']} coordinates), rtol "
           f"{summary['tight']['rtol']:g}, atol {summary['tight']['atol']:g}; CPU "
           + ", ".join(f"{m} {w:.0f} s" for m, w in ref["cpu_s"].items())]
    for m, e in ref["self_convergence"].items():
        out.append(f"  {ref['second']} against it, {m}: "
                   + ", ".join(f"{q} {100 * v:.2g} %" for q, v in e.items()))
    out.append(markdown_table(summary))
    for m, pf in summary["peak_force"].items():
        for basis, d in pf.items():
            out.append(f"peak N of the first impact, {m}, {basis}: "
                       + ", ".join(f"{n}: {p:.1f}" for n, p in d["values"])
                       + f" N; last change {100 * d['last_change']:.1f} %"
                       + (" (converged)" if d["converged"] else " (not converged)"))
    return "\n".join(out)


def findings_numbers(summary: dict, model: str = "hybrid_coulomb") -> list[str]:
    """The phrases with numbers that README.md's findings quote from ``summary`` (its test
    checks that each is there): the reference and its CPU time, the second-finest mesh's
    differences in the first impact's energy and impulse, the smallest modal basis that keeps the
    first impact's start time within 1 % and the peak forces along the refinements."""
    ref = summary["reference"]
    sc = ref["self_convergence"][model]
    out = [ref["label"], f"{ref['cpu_s'][model]:.0f} s",
           f"{100 * sc['energy_after_1']:.2g} % and {100 * sc['normal_impulse_1']:.2g} %"]
    for r in summary["stays_within"]:
        if (r["model"], r["quantity"], r["basis"]) == (model, "t_start_1", "modal"):
            out.append(f"{r['label']} ({r['coordinates']} coordinates, {r['cpu_s']:.2f} s)")
    for basis, d in summary["peak_force"][model].items():
        out.append(", ".join(f"{p:.0f}" for _, p in d["values"]) + " N")
    return out
