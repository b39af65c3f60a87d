"""The accuracy-against-cost study of the bases (flexlib.studies.accuracy, benchmarks/bench_accuracy.py).

* the error computation: a run against itself has zero error, a known perturbation of a run
  gives back its size, a missing impact counts as an infinite error;
* the front and the cheapest-within-1 % choice on a small table made up for the test;
* the committed results (benchmarks/results/accuracy.csv and .json) are well formed, and every
  verdict in the JSON (1 % table, self-convergence, peak-force convergence) is what the CSV's
  numbers give;
* the numbers docs/findings.md and benchmarks/README.md quote are those of the results;
* (slow) a few rows of the CSV are made again and agree with a fresh run.
"""
import copy
import json
import math
from pathlib import Path

import numpy as np
import pytest

from findings_text import finding
from flexlib.studies import accuracy as acc

pd = pytest.importorskip("pandas")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def record():
    """One real run (modal N = 2, hybrid Coulomb, 0-1 s: five impacts)."""
    rec = acc.run_one(dict(basis="modal", n_modes=2), "hybrid_coulomb")
    assert rec["status"] == "ok" and len(rec["impacts"]) == acc.N_IMPACTS
    return rec


def _errors(rec, ref):
    df = acc.table([rec, ref], {"hybrid_coulomb": ref})
    return acc.errors(df, ref["label"]).iloc[0]


def _as_reference(rec):
    ref = copy.deepcopy(rec)
    ref["label"], ref["tight"] = "reference", True
    return ref


def test_a_run_against_itself_has_zero_error(record):
    e = _errors(record, _as_reference(record))
    for q in acc.QUANTITIES:
        assert e[q] == 0.0, q


def test_a_known_perturbation_gives_its_size(record):
    ref = _as_reference(record)
    run = copy.deepcopy(record)
    run["impacts"][2]["t_start"] *= 1.02                 # impact 3 two per cent late
    run["impacts"][0]["energy_after"] *= 0.995           # impact 1 loses 0.5 % more
    run["impacts"][4]["normal_impulse"] *= 1.1           # impact 5 ten per cent more impulse
    run["impacts"][0]["peak_normal_force"] *= 0.8
    run["angles"]["theta"] = (np.asarray(run["angles"]["theta"]) + 1e-3).tolist()
    e = _errors(run, ref)
    th = np.asarray(ref["angles"]["theta"])
    assert e["t_start"] == pytest.approx(0.02, rel=1e-9)
    assert e["t_start_1"] == 0.0
    assert e["energy_after"] == pytest.approx(0.005, rel=1e-9)
    assert e["energy_after_1"] == pytest.approx(0.005, rel=1e-9)
    assert e["normal_impulse"] == pytest.approx(0.1, rel=1e-9) and e["normal_impulse_1"] == 0.0
    assert e["peak_N"] == pytest.approx(0.2, rel=1e-9)
    assert e["theta"] == pytest.approx(1e-3 / (th.max() - th.min()), rel=1e-9)


def test_a_missing_impact_is_an_infinite_error_and_an_extra_one_is_ignored(record):
    ref = _as_reference(record)
    short = copy.deepcopy(record)
    short["impacts"] = short["impacts"][:3]
    e = _errors(short, ref)
    assert math.isinf(e["t_start"]) and e["t_start_1"] == 0.0
    ref_short = copy.deepcopy(ref)
    ref_short["impacts"] = ref_short["impacts"][:3]
    assert _errors(record, ref_short)["t_start"] == 0.0


def test_front_and_cheapest_within():
    err = pd.DataFrame(dict(label=list("abcd"), model="m", method="DOP853", tight=False, coordinates=3,
                            cpu_s=[1.0, 2.0, 3.0, 4.0], theta=[0.5, 0.6, 0.005, 0.001]))
    for q in acc.QUANTITIES:
        if q != "theta":
            err[q] = 1.0
    assert acc.pareto(err, "theta").label.tolist() == ["a", "c", "d"]
    best = acc.cheapest_within(err, 0.01).set_index("quantity")
    assert best.loc["theta", "label"] == "c" and best.loc["theta", "error"] == 0.005
    assert best.loc["peak_N", "label"] is None and best.loc["peak_N", "error"] == 1.0


# ------------------------------------------------------------------ the committed results
@pytest.fixture(scope="module")
def stored():
    assert acc.RESULTS_CSV.exists() and acc.SUMMARY_JSON.exists(), \
        "run python3 benchmarks/bench_accuracy.py"
    return acc.load_table(), json.loads(acc.SUMMARY_JSON.read_text())


def test_results_are_well_formed(stored):
    df, s = stored
    need = {"label", "model", "basis", "coordinates", "cpu_s", "wall_s", "status", "tight",
            "theta_err", "peak_normal_force_1", *(f"t_start_{k}" for k in range(1, 6))}
    assert need <= set(df.columns)
    assert not df.duplicated(["label", "model", "tight", "method"]).any()
    assert set(df.model) == set(acc.MODELS) == set(s["models"])
    assert (df.cpu_s > 0).all() and (df.coordinates >= 1).all()
    ref = df[(df.label == s["reference"]["label"]) & df.tight]
    assert len(ref) == len(acc.MODELS) and (ref.theta_err == 0).all()
    assert (ref.status == "ok").all()
    for fam in ("modal", "fe", "partition"):
        assert (df.basis == fam).sum() >= 4, fam


def test_verdicts_agree_with_the_numbers(stored):
    df, s = stored
    ref, second = s["reference"]["label"], s["reference"]["second"]
    err = acc.errors(df, ref)
    again = acc.summarize(df, err, ref, second, s["tolerance"])
    assert again["one_percent"] == s["one_percent"]
    assert again["peak_force"] == s["peak_force"]
    assert again["pareto"] == s["pareto"]
    assert again["stays_within"] == s["stays_within"]
    for m, e in s["reference"]["self_convergence"].items():
        assert e == pytest.approx(again["reference"]["self_convergence"][m])
    cand = err[(err.label != ref) & (err.method == "DOP853")]
    for row in s["one_percent"]:
        d = cand[cand.model == row["model"]]
        q = row["quantity"]
        if row["label"] is None:
            assert (d[q] > s["tolerance"]).all()
        else:
            chosen = d[d.label == row["label"]].iloc[0]
            assert chosen[q] <= s["tolerance"]
            assert not (d[(d.cpu_s < chosen.cpu_s)][q] <= s["tolerance"]).any()
    for m, pf in s["peak_force"].items():
        for basis, v in pf.items():
            (_, a), (_, b) = v["values"][-2:]
            assert v["converged"] == (abs(b - a) / abs(b) <= s["tolerance"])




def test_the_findings_and_benchmarks_quote_the_results(stored):
    df, s = stored
    table = acc.markdown_table(s)
    assert table in (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    findings = finding("How many coordinates each quantity needs")
    for phrase in acc.findings_numbers(s):
        assert phrase in findings, phrase
    # the costs and the self-convergence in theta it quotes
    hc = df[(df.model == "hybrid_coulomb") & ~df.tight].set_index("label")
    sc = s["reference"]["self_convergence"]["hybrid_coulomb"]
    flight = {f["elements"]: f["cpu_per_s"] for f in s["flight_cost"]}
    assert f"N = 3 modes take {hc.cpu_s['modal N=3']:.2f} s, N = 8 {hc.cpu_s['modal N=8']:.1f} s" in findings
    assert f"8 elements {hc.cpu_s['fe ne=8']:.0f} s, 12 elements about {s['reference']['cpu_s']['hybrid_coulomb'] / 60:.0f} min" in findings
    assert f"by {100 * sc['theta']:.2g} % in θ(t)" in findings
    fc = s["reference"]["finer_check"]["hybrid_coulomb"]
    finer_cpu = df[(df.label == fc["label"]) & (df.model == "hybrid_coulomb")].cpu_s.iloc[0]
    assert (f"one run on {fc['label'].split('=')[1]} elements ({finer_cpu / 60:.0f} min of CPU) by "
            f"{100 * fc['energy_after_1']:.2g} %, {100 * fc['normal_impulse_1']:.2g} % and "
            f"{100 * fc['theta']:.2g} %") in findings
    assert (f"{flight[8]:.0f} s of CPU per simulated second with 8 elements, {flight[16] / 60:.0f} min with "
            f"16 and {flight[32] / 3600:.0f} h with 32") in findings
    # "every run of the study has it within 1e-4 (relative)"
    err = acc.errors(df, s["reference"]["label"])
    assert err.t_start_1.max() < 1e-4
    # "about nine times as many steps ..., 5-15 times the CPU time"
    imp = {r["method"]: r for r in s["implicit"]}
    steps = [imp[m]["n_steps"] / imp["DOP853"]["n_steps"] for m in ("LSODA", "BDF", "Radau-scipy")]
    cpu = [imp[m]["cpu_s"] / imp["DOP853"]["cpu_s"] for m in ("LSODA", "BDF", "Radau-scipy")]
    assert all(8 <= r < 10 for r in steps) and round(min(cpu)) == 5 and round(max(cpu)) == 15
    assert "about nine times as many steps" in findings and "5–15 times the CPU time" in findings


@pytest.mark.slow
def test_stored_rows_are_reproduced(stored):
    """The cheap rows of the CSV made again: the same impacts and theta error (not the times)."""
    df, _ = stored
    reps = [dict(basis="modal", n_modes=3), dict(basis="fe", elements=4),
            dict(basis="partition", n_modes=3, local_length=0.2, elements=4, local_modes=2)]
    for rep in reps:
        rec = acc.run_one(rep, "hybrid_coulomb")
        row = df[(df.label == rec["label"]) & (df.model == "hybrid_coulomb") & ~df.tight].iloc[0]
        assert rec["n_impacts"] == row.n_impacts
        im = rec["impacts"][0]
        assert im["t_start"] == pytest.approx(row.t_start_1, rel=1e-7)
        assert im["peak_normal_force"] == pytest.approx(row.peak_normal_force_1, rel=1e-4)
        assert im["energy_after"] == pytest.approx(row.energy_after_1, rel=1e-6)


def test_figure_draws_every_quantity_with_units(stored):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from flexlib.viz import plots
    df, s = stored
    err = acc.errors(df, s["reference"]["label"])
    fig = plots.fig_accuracy_cost(err, "hybrid_coulomb", s["reference"]["label"])
    try:
        assert len(fig.axes) == len(acc.QUANTITIES)
        assert fig.axes[-1].get_xlabel().endswith("[s]") and fig.axes[0].get_ylabel().endswith("[-]")
        assert all(ax.get_title() for ax in fig.axes)
        # the front of each panel is drawn: one line labelled so per panel
        for ax in fig.axes:
            assert any(line.get_label() == "error-cost front" for line in ax.get_lines())
    finally:
        plt.close(fig)


def test_what_the_texts_say_about_the_integrators(stored):
    """Notebook 12 and benchmarks/README.md: the implicit methods "take more steps than the
    explicit method, not fewer" and are slower; the flight cost grows with every refinement."""
    _, s = stored
    rows = {r["method"]: r for r in s["implicit"]}
    assert set(rows) == {"DOP853", "LSODA", "BDF", "Radau-scipy"}
    for m in ("LSODA", "BDF", "Radau-scipy"):
        assert rows[m]["n_steps"] > rows["DOP853"]["n_steps"] and rows[m]["cpu_s"] > rows["DOP853"]["cpu_s"]
        assert rows[m]["theta_diff"] < 1e-6          # the same solution
    cost = [f["cpu_per_s"] for f in sorted(s["flight_cost"], key=lambda f: f["elements"])]
    assert all(b > 4 * a for a, b in zip(cost, cost[1:]))


# ------------------------------------------------------------------ what the study covers now
def test_the_table_has_modal_nine_and_ten_and_the_local_mesh_grid(stored):
    """Case 3.2's table: the assumed modes N = 2-10 and the partition's end region refined
    (n_e = 1, 2, 4, 8 reduced to k = 2 local modes, 1, 2, 4 unreduced), both models."""
    df, _ = stored
    for model in acc.MODELS:
        d = df[(df.model == model) & ~df.tight]
        assert sorted(d[d.basis == "modal"].n_modes.astype(int)) == list(range(2, 11)), model
        p = d[(d.basis == "partition") & (d.n_modes == 3) & (d.local_length == 0.4)]
        assert set(p[p.local_modes == 2].elements.astype(int)) == {1, 2, 4, 8}
        assert set(p[p.local_modes == 0].elements.astype(int)) == {1, 2, 4}
    for rep in acc.representations():
        assert ((df.label == acc.label(rep)) & ~df.tight).sum() == len(acc.MODELS), acc.label(rep)


@pytest.mark.parametrize("study", list(acc.STUDIES.values()), ids=list(acc.STUDIES))
def test_the_stored_reference_histories_are_the_reference_rows(study):
    """The committed reference histories (what a run added later is compared with) are those of
    the committed reference rows: same impacts, same angle ranges, and zero error against them."""
    df = acc.load_table(study=study)
    s = json.loads(study.summary_json.read_text())
    refs = acc.load_reference(study)
    assert set(refs) == set(study.models)
    for model, rec in refs.items():
        row = df[(df.label == s["reference"]["label"]) & df.tight & (df.model == model)].iloc[0]
        assert rec["label"] == row.label and rec["tight"]
        for k, im in enumerate(rec["impacts"][:study.n_impacts], start=1):
            for key in study.impact_keys:
                assert im[key] == row[f"{key}_{k}"], (model, key, k)
        for name in study.angles:
            a = np.asarray(rec["angles"][name])
            assert len(a) == study.n_grid and not np.isnan(a).any()
            assert float(a.max() - a.min()) == row[f"{name}_range_ref"]
            assert row[f"{name}_err"] == 0.0


def test_the_double_pendulum_study():
    """The double pendulum's committed study: modal N = 1-10 and fe meshes against the finest
    mesh at tight tolerances, every run reaching the end of the window with its first contact,
    and the JSON's verdicts what the CSV's numbers give."""
    study = acc.DOUBLE_PENDULUM
    df = acc.load_table(study=study)
    s = json.loads(study.summary_json.read_text())
    assert s["case"] == "double-pendulum" and s["t_end"] == study.t_end
    assert set(df.model) == {"continuous"} and (df.status == "ok").all()
    assert sorted(df[(df.basis == "modal") & ~df.tight].n_modes.astype(int)) == list(range(1, 11))
    assert (df[~df.tight].basis == "fe").sum() >= 3
    assert df.t_start_1.notna().all() and (df.t_start_1 < study.t_end).all()
    ref, second = s["reference"]["label"], s["reference"]["second"]
    fe_sizes = df[df.basis == "fe"].elements.astype(int)
    assert ref == f"fe ne={fe_sizes.max()}"                   # the finest mesh run
    err = acc.errors(df, ref, study)
    again = acc.summarize(df, err, ref, second, s["tolerance"], study)
    for key in ("one_percent", "pareto", "stays_within", "peak_force"):
        assert again[key] == s[key], key
    assert set(s["quantities"]) == set(study.quantities)


def test_the_findings_quote_the_double_pendulum_study():
    """docs/findings.md's double-pendulum finding quotes the committed study's numbers."""
    study = acc.DOUBLE_PENDULUM
    df = acc.load_table(study=study)
    s = json.loads(study.summary_json.read_text())
    found = finding("The double pendulum's first contact, against the basis")
    ref = s["reference"]
    err = acc.errors(df, ref["label"], study)
    row = df.set_index(["label", "tight"])
    sc = ref["self_convergence"]["continuous"]
    stay = {(r["quantity"], r["basis"]): r for r in s["stays_within"]}
    runs = df[df.label != ref["label"]]
    pf = s["peak_force"]["continuous"]
    phrases = [
        f"0.62 s", f"against {ref['label']} ({ref['coordinates']} coordinates)",
        f"{ref['cpu_s']['continuous']:.0f} s of CPU",
        f"within {100 * err.t_start_1.max():.2g} %",
        *(f"{stay[(q, b)]['label']} ({stay[(q, b)]['cpu_s']:.2f} s)" for q in ("theta1", "theta2")
          for b in ("modal", "fe")),
        f"({runs.n_impacts.min()} to {runs.n_impacts.max()} in the window, "
        f"{row.loc[(ref['label'], True)].n_impacts} in the reference)",
        f"{100 * sc['duration_1']:.2g} % in its duration, {100 * sc['normal_impulse_1']:.2g} % in its "
        f"impulse and {100 * sc['peak_N']:.2g} % in its peak force",
        f"(N = 10: {1e3 * row.loc[('modal N=10', False)].duration_1:.3g} ms and "
        f"{row.loc[('modal N=10', False)].normal_impulse_1:.3g} N s; 12 elements: "
        f"{1e3 * row.loc[(ref['label'], True)].duration_1:.3g} ms and "
        f"{row.loc[(ref['label'], True)].normal_impulse_1:.3g} N s)",
        f"{pf['modal']['values'][0][1]:.0f} N with one mode to {pf['modal']['values'][-1][1]:.0f} N with ten",
        f"{pf['fe']['values'][0][1]:.0f} N with 2 elements to {pf['fe']['values'][-1][1]:.0f} N with 12",
        f"{100 * pf['modal']['last_change']:.1f} % and {100 * pf['fe']['last_change']:.1f} %",
        f"N = 3 modes {row.loc[('modal N=3', False)].cpu_s:.2f} s, N = 10 "
        f"{row.loc[('modal N=10', False)].cpu_s:.0f} s, 4 elements {row.loc[('fe ne=4', False)].cpu_s:.0f} s, "
        f"8 elements at the tight tolerances {row.loc[('fe ne=8', True)].cpu_s:.0f} s",
    ]

    def pc(x, sign=True):
        return f"{100 * x:{'+' if sign else ''}.2g} %".replace("-", "\u2212")

    def rel(label, col):
        return row.loc[(label, False)][col] / row.loc[(ref["label"], True)][col] - 1

    def listed(items):
        return ", ".join(items[:-1]) + " and " + items[-1]

    unreduced = [f"partition N=3 l={ell} ne={n}" for ell, n in ((0.2, 4), (0.3, 6), (0.4, 8))]
    reduced = [f"partition N=3 l=0.4 ne=8 k={k}" for k in (2, 4)]
    phrases += [
        "unreduced it costs " + listed([f"{row.loc[(u, False)].cpu_s:.0f}" for u in unreduced]) + " s",
        "impulse is off by " + listed([pc(rel(u, "normal_impulse_1")) for u in unreduced]),
        "peak force by " + listed([pc(rel(u, "peak_normal_force_1")) for u in unreduced]),
        f"6 elements per link ({row.loc[('fe ne=6', False)].cpu_s:.0f} s) are off by "
        f"{pc(rel('fe ne=6', 'normal_impulse_1'))} and {pc(rel('fe ne=6', 'peak_normal_force_1'))}",
        "(" + " and ".join(f"{row.loc[(r, False)].cpu_s:.2g}" for r in reduced) + " s)",
        " and ".join(pc(-rel(r, "duration_1"), False) for r in reduced) + " short",
        f"the {pc(abs(rel(reduced[0], 'normal_impulse_1')), False)} in impulse with 2 modes",
        f"N = 7's {pc(abs(rel('modal N=7', 'normal_impulse_1')), False)}",
    ]
    for phrase in phrases:
        assert phrase in found, phrase
    assert not any(v["converged"] for v in pf.values())
    assert acc.markdown_table(s) in (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
