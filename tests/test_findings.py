"""docs/findings.md, Part I: the numbers it quotes for case 3.2 are those of the figures' runs.

The figures command writes every run's impacts, energies and statistics to
figures/data/key_numbers.json; the findings quote them rounded.  A change in the code that moves
them fails here until the finding's Numbers block is updated (the claims and the studies of the
bases are held to their data in tests/test_claims.py and tests/test_accuracy_study.py).
"""
import json
import math
import re
from pathlib import Path

import pytest

from findings_text import finding

ROOT = Path(__file__).resolve().parents[1]
MODELS = ["frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre"]     # the table's column order


@pytest.fixture(scope="module")
def runs():
    return json.loads((ROOT / "figures" / "data" / "key_numbers.json").read_text())["runs"]


def test_energy_table_is_the_runs(runs):
    text = finding("All four models run the whole case")
    rows = dict(re.findall(r"\| (\d|final E) \|((?: [^|]+ \|){4})", text))
    for k in range(1, 6):
        cells = [c.strip() for c in rows[str(k)].split("|")[:4]]
        for model, cell in zip(MODELS, cells):
            im = runs[model]["impacts"][k - 1]
            assert cell == f"{im['t_start']:.4f} s: {im['energy_lost']:.4f} J", (model, k)
    finals = [c.strip() for c in rows["final E"].split("|")[:4]]
    assert finals == [f"{runs[m]['final_E']:.4f} J" for m in MODELS]


def test_event_counts_and_audit_bound_are_the_runs(runs):
    text = finding("All four models run the whole case")
    events = [runs[m]["stats"]["n_events"] for m in MODELS]
    assert f"Events per run: {min(events)}–{max(events)}" in text
    bound = float(re.search(r"audit residual ≤ ([\d.e-]+) E0", text).group(1))
    worst = max(runs[m]["audit_rel"] for m in MODELS)
    assert worst <= bound and bound - worst < 0.1 * 10 ** math.floor(math.log10(worst))   # rounded up


def test_first_impact_numbers_are_the_runs(runs):
    text = finding("The first impact is the same")
    fc = runs["hybrid_coulomb"]["first_contact"]
    assert all(runs[m]["first_contact"] == fc for m in MODELS)
    assert f"t = {fc['t']:.6f} s, θ = {fc['theta']:.5f} rad" in text
    peak = {m: runs[m]["impacts"][0]["peak_N"] for m in MODELS[1:]}
    assert f"{peak['hybrid_coulomb']:.3f} N hybrid Coulomb" in text
    assert f"{peak['hybrid_lugre']:.3f} N both LuGre models" in text
    assert f"{peak['lugre']:.3f}" == f"{peak['hybrid_lugre']:.3f}"
    assert f"(spread {max(peak.values()) - min(peak.values()):.3f} N)" in text


def test_selection_counts_are_the_runs(runs):
    text = finding("exactly one consistent contact state")
    sel = {m: runs[m]["stats"]["selections"] for m in ("hybrid_coulomb", "hybrid_lugre")}
    assert all(s["selections_unique"] == s["n_selections"] for s in sel.values())
    assert (f"Selections: {sel['hybrid_coulomb']['n_selections']} hybrid Coulomb, "
            f"{sel['hybrid_lugre']['n_selections']} hybrid LuGre") in text
    c = sel["hybrid_coulomb"]
    assert c["slip_dir_disagree"] == 0
    assert f"{c['slip_dir_agree']} of {c['slip_dir_agree']}" in text


def test_no_stick_with_the_papers_beam(runs):
    text = finding("Stick is never reached")
    assert "Stick intervals in 0–2 s: 0 for both hybrid models" in text
    for m in ("hybrid_coulomb", "hybrid_lugre"):
        assert all(im["n_stick"] == 0 and im["stick_time"] == 0 for im in runs[m]["impacts"]), m
