"""Numbers and verdicts that the notebooks' text states in words, checked against the results.

Most numbers a notebook quotes are computed in the cell beside the text (``display(Markdown(f"..."))``).
The ones written into a Markdown cell of a builder are checked here against the stored studies
(figures/data/*.json, written by the figures command) or against their formula, so that the text
cannot drift away from what the runs give.  Each test names the notebook and quotes its words.
"""
import json
from pathlib import Path

import numpy as np
import pytest

import flexlib as fl

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "figures" / "data"


def _study(name):
    path = DATA / f"{name}.json"
    if not path.exists():
        pytest.skip(f"figures/data/{name}.json is missing: run the figures command")
    return json.loads(path.read_text())


def _source(builder: str) -> str:
    return (ROOT / "scripts" / builder).read_text(encoding="utf-8")


def test_07_axial_frequencies():
    """07: "7842 and 23525 rad/s for the first two" and "(7.8, 23.5 and 39.2 krad/s for Na = 1, 2, 3)"."""
    b = fl.paper_case("3.2").beam
    w = [(2 * j - 1) * np.pi / 2 * np.sqrt(b.E / b.rho) / b.L for j in (1, 2, 3)]
    src = _source("build_notebook_07.py")
    assert f"{w[0]:.0f} and {w[1]:.0f} rad/s" in src
    assert f"({w[0] / 1e3:.1f}, {w[1] / 1e3:.1f} and {w[2] / 1e3:.1f} krad/s" in src


def test_07_first_impact_numbers_and_audit():
    """07: "the energy audit closes to ≤ 1e-7 E0"; "the first impact's duration (≈ 10.5 ms) and, for
    hybrid Coulomb, its peak N and peak |F_t| change by less than 1 %, and its total stick time
    stays near 0.7 ms"; "With Na = 0 the hybrid models never stick"."""
    s = _study("axial_study")
    src = _source("build_notebook_07.py")
    assert "≤ 1e-7 E0" in src and "(≈ 10.5 ms)" in src and "less than 1 %" in src and "near 0.7 ms" in src
    runs = s["runs"]
    assert max(r["checks"]["audit_rel"] for m in runs for r in runs[m].values()) <= 1e-7
    for m in runs:
        for na, r in runs[m].items():
            im = r["impacts"][0]
            assert abs(1e3 * (im["t_end"] - im["t_start"]) - 10.5) < 0.05, (m, na)
    hc = runs["hybrid_coulomb"]
    for q in ("peak_N", "peak_Ft"):
        v = [hc[na]["impacts"][0][q] for na in hc]
        assert (max(v) - min(v)) / min(v) < 0.01, q
    for na, r in hc.items():
        t = 1e3 * r["impacts"][0]["stick_time"]
        assert (t == 0) == (na == "0") and (na == "0" or 0.6 <= t <= 0.85), (na, t)
    assert all(im["n_stick"] == 0 for m in ("hybrid_coulomb", "hybrid_lugre") for im in runs[m]["0"]["impacts"])


def test_06_and_07_stick_ratio_about_six_or_more():
    """06: "the stick solve asks for a friction ratio |F_t|/N of about 6 or more"; 07: "asks for
    |F_t|/N ≈ 1/k ≈ 6.4" with k = tan(α − θ) ≈ 0.157 at the first contact."""
    key = _study("key_numbers")
    ratios = [im["max_stick_ratio"] for m in ("hybrid_coulomb", "hybrid_lugre")
              for im in key["runs"][m]["impacts"] if im["max_stick_ratio"] is not None]
    assert ratios and min(ratios) > 5.5
    theta_c = fl.simulate("3.2", "frictionless", 0.34).first_contact["theta"]
    k = np.tan(fl.paper_case("3.2").slope.alpha - theta_c)
    assert round(k, 3) == 0.157 and round(1 / k, 1) == 6.4


def test_02_and_05_painleve_numbers():
    """05: "k = tan(α − θ) ≈ 0.157 ... a tip sliding up-slope faster than about 6 cm/s would make it
    vanish" (μ ≈ σ1 v_t reaching 1/k with σ1 = 100 s/m)."""
    case = fl.paper_case("3.2")
    k = np.tan(case.slope.alpha - 0.15873)
    v = 1 / (k * case.lugre.sigma1)
    assert 0.055 < v < 0.07
    assert "about 6 cm/s" in _source("build_notebooks.py")


def test_08_point_mass_restitution_of_each_law():
    """Notebook 08: "A rigid point mass dropped on the slope with n = 1.5 rebounds with 0.47 at
    e = 0.5 under the Flores law, but with 0.66 (Hunt & Crossley) and 0.73 (Lankarani &
    Nikravesh)": the point-mass drop integrated independently in tests/test_continuous_contact.py."""
    import re
    from test_continuous_contact import drop_restitution
    text = " ".join(_source("build_notebook_08.py").split())
    m = re.search(r"rebounds with ([0-9.]+) at \$e = 0\.5\$ under the Flores law, but with ([0-9.]+) "
                  r"\(Hunt & Crossley\) and ([0-9.]+) \(Lankarani & Nikravesh\)", text)
    assert m, "the sentence was reworded: update this test"
    for law, quoted in zip(("flores", "hunt_crossley", "lankarani_nikravesh"), m.groups()):
        assert round(drop_restitution(law, 0.5, 0.1), 2) == float(quoted), law
