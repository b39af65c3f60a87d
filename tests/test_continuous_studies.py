"""The constraint-vs-continuous studies (flexlib.studies.continuous), their figures and the panel controls
of the continuous models.  Short runs (the first impact of case 3.2) keep this file fast; the full
studies run in ``python -m flexlib figures`` and notebook 08."""
import json
import math
import re
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from flexlib.studies import continuous  # noqa: E402
from flexlib.contact import penalty
from flexlib.viz import plots, widgets

UNIT = re.compile(r"\[[^\]]+\]")
T_FIRST = 0.3329          # first contact of case 3.2 [s]


@pytest.fixture(scope="module")
def comparison():
    return continuous.compare_methods("3.2", t_end=0.45)


@pytest.fixture(scope="module")
def stiffness():
    return continuous.stiffness_study(Ks=(1e7, 1e9, 1e10), models=("continuous_coulomb",),
                                      t_end=0.36, reference_e=(0.0,))


@pytest.fixture(scope="module")
def creep():
    # the first stick interval of hybrid Coulomb with one axial mode is at 0.3395-0.3402 s
    return continuous.creep_study(axial_modes=1, t_end=0.36)


def test_compare_methods_runs_both_methods(comparison):
    res = comparison["results"]
    assert set(res) == set(continuous.CONSTRAINT_MODELS) | set(continuous.CONTINUOUS_MODELS)
    assert all(msg == "reached t_end" for msg in comparison["messages"].values())
    # the constraint models keep the paper's e = 0, the continuous ones get the penalty settings
    for m, r in res.items():
        pen = m in continuous.CONTINUOUS_MODELS
        assert r.case.slope.e == (0.5 if pen else 0.0), m
        if pen:
            assert (r.case.slope.contact_law, r.case.slope.contact_stiffness) == ("flores", 1e9)
    assert comparison["params"]["mu_d"] == 0.4
    methods = {row["model"]: row["method"] for row in comparison["rows"]}
    assert methods["hybrid_coulomb"] == "constraint" and methods["continuous_lugre"] == "continuous"
    assert set(comparison["wall_time_s"]) == set(res)
    assert all(w > 0 for w in comparison["wall_time_s"].values())


def test_first_impact_same_start_penetration_only_for_penalty(comparison):
    imp = comparison["impacts"]
    for m, rows in imp.items():
        assert rows and abs(rows[0]["t_start"] - T_FIRST) < 1e-3, m
        assert rows[0]["energy_lost"] > 0 and rows[0]["peak_N"] > 0
        if m in continuous.CONTINUOUS_MODELS:
            assert 1e-5 < rows[0]["max_penetration"] < 1e-3, m        # 0.2 mm at K = 1e9
        else:
            assert rows[0]["max_penetration"] < 1e-9, m


def test_side_by_side_table(comparison):
    df = continuous.side_by_side(comparison, "energy_lost")
    assert list(df.columns) == list(comparison["results"])
    n = max(len(v) for v in comparison["impacts"].values())
    assert df.shape == (n, len(comparison["results"])) and df.index.name == "impact"
    assert df.loc[1, "hybrid_coulomb"] == comparison["impacts"]["hybrid_coulomb"][0]["energy_lost"]
    short = min(comparison["impacts"], key=lambda m: len(comparison["impacts"][m]))
    if len(comparison["impacts"][short]) < n:                     # fewer impacts: NaN
        assert math.isnan(df.loc[n, short])
    assert continuous.side_by_side(comparison, "peak_N", n_impacts=1).shape[0] == 1


def test_compare_methods_uses_the_same_mu_d():
    cmp = continuous.compare_methods(mu_d=0.3, t_end=0.34, constraint_models=("hybrid_coulomb",),
                                     continuous_models=("continuous_coulomb",))
    assert {r.case.coulomb.mu_d for r in cmp["results"].values()} == {0.3}
    assert cmp["params"]["mu_d"] == 0.3


def test_stiffness_study_shape_and_trends(stiffness):
    ds = stiffness
    assert dict(ds.sizes) == {"model": 1, "K": 3, "e_ref": 1}
    for name in continuous.STIFFNESS_VARIABLES:
        assert ds[name].dims == ("model", "K") and ds[f"ref_{name}"].dims == ("model", "e_ref")
        assert ds[name].attrs["units"]
    assert (ds.status.values == "reached t_end").all()
    pen = ds.max_penetration.sel(model="continuous_coulomb").values
    peak = ds.peak_N.sel(model="continuous_coulomb").values
    assert (np.diff(pen) < 0).all(), pen                 # stiffer: less penetration
    assert (np.diff(peak) > 0).all(), peak               # and a higher force spike
    # Hertz: delta ~ K^(-1/(n+1)) = K^-0.4 for n = 1.5 (the first contact sets the maximum)
    slope = np.polyfit(np.log10(ds.K.values), np.log10(pen), 1)[0]
    assert -0.5 < slope < -0.3, slope
    # the rigid limit: the constraint counterpart, no penetration, a first impact of ~10.5 ms
    assert str(ds.ref_model.sel(model="continuous_coulomb").values) == "hybrid_coulomb"
    assert float(ds.ref_max_penetration.max()) < 1e-9
    ref_dur = float(ds.ref_duration.sel(model="continuous_coulomb", e_ref=0.0))
    assert 0.009 < ref_dur < 0.012
    dur = ds.duration.sel(model="continuous_coulomb").values
    assert abs(dur[-1] - ref_dur) < abs(dur[0] - ref_dur)     # closer to it at the largest K
    assert (ds.n_steps.values > 0).all() and (ds.wall_time.values > 0).all()
    assert 0.1 < float(ds.theta_after.max()) < 0.2


def test_creep_study_stick_against_creep(creep):
    assert set(creep["messages"].values()) == {"reached t_end"}
    rows = creep["intervals"]
    assert rows, "hybrid Coulomb with one axial mode should stick in the first impact"
    first = rows[0]
    assert first["impact"] == 1 and 0.339 < first["a"] < first["b"] < 0.341
    assert abs(first["ds_hybrid"]) < 1e-9                             # stuck: s constant
    assert 0.5 < first["contact_continuous"] <= 1.0                   # both in contact, mostly
    assert 0.0 <= first["land_delay"] < first["duration"]
    assert abs(first["ds_continuous"]) > 1e-6                         # the continuous tip moves
    assert first["path_continuous"] >= abs(first["ds_continuous"]) * 0.99
    # it does not come to rest: below v1 for a small part of the interval only
    assert first["slow_time"] < 0.5 * first["duration"] and first["min_speed"] > 0.0
    assert creep["overlap"]["n_intervals"] >= 1
    c = creep["continuous"]
    assert 0 <= c["no_friction_time"] <= c["slow_time"] <= c["contact_time"]
    assert c["slow_path"] <= c["path"] and (c["v0"], c["v1"]) == (1e-4, 1e-3)
    assert creep["hybrid"]["n_stick"] == len(rows)


def test_study_data_is_json_without_wall_times(comparison, stiffness, creep):
    data = continuous.study_data(comparison, stiffness, creep)
    text = json.dumps(data, sort_keys=True)
    assert "wall" not in text
    back = json.loads(text)
    assert back["stiffness"]["K"] == [1e7, 1e9, 1e10]
    assert back["comparison"]["impacts"]["hybrid_coulomb"][0]["impact"] == 1


def test_panel_simulate_keeps_constraint_models_at_paper_e(monkeypatch):
    seen = []
    monkeypatch.setattr(continuous, "simulate", lambda case, m, t_end, **kw: seen.append(
        (m, case.slope.e)))
    from flexlib.params import paper_case
    case = paper_case("3.2").with_(e=0.5)
    continuous.panel_simulate(case, "hybrid_coulomb", 0.4)
    continuous.panel_simulate(case, "continuous_coulomb", 0.4)
    assert seen == [("hybrid_coulomb", 0.0), ("continuous_coulomb", 0.5)]


# ------------------------------------------------------------------ figures
from test_figures import _texts  # noqa: E402  (every text a figure shows; tests/ is on sys.path)


@pytest.fixture(scope="module")
def continuous_figures(comparison, stiffness, creep):
    studies = dict(comparison=comparison, stiffness=stiffness, creep=creep)
    figs = {name: fn(studies[which]) for name, (fn, which, _c) in plots.CONTINUOUS_FIGURES.items()}
    yield figs
    for f in figs.values():
        plt.close(f)


def test_continuous_figures_are_labelled(continuous_figures):
    assert set(continuous_figures) == {"continuous_method_comparison", "continuous_energy_per_impact",
                                       "continuous_stiffness", "continuous_creep"}
    for name, fig in continuous_figures.items():
        for ax in fig.axes:
            assert UNIT.search(ax.get_xlabel()) and UNIT.search(ax.get_ylabel()), name
        assert any(ax.get_legend() is not None for ax in fig.axes), name
        texts = " ".join(_texts(fig))
        assert not re.search(r"MODEL\.md|\bissue\b|\b[DRT]\d{1,2}\b", texts), name


def test_continuous_figures_use_the_model_styles(continuous_figures):
    fig = continuous_figures["continuous_method_comparison"]
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    for m in ("hybrid_coulomb", "continuous_coulomb", "continuous_lugre"):
        st = plots.style(m)
        assert st["label"] in lines, m
        assert matplotlib.colors.same_color(lines[st["label"]].get_color(), st["color"]), m


def test_stiffness_figure_has_log_k_axis(continuous_figures):
    fig = continuous_figures["continuous_stiffness"]
    assert all(ax.get_xscale() == "log" for ax in fig.axes)


def test_continuous_figure_is_byte_reproducible(comparison, tmp_path):
    digests = []
    for d in ("a", "b"):
        plots.save_figure(plots.fig_energy_per_impact(comparison), "fig", tmp_path / d,
                          comparison["results"])
        digests.append(tuple((tmp_path / d / f"fig.{ext}").read_bytes() for ext in ("png", "svg")))
    assert digests[0] == digests[1]


def test_method_comparison_takes_panel_results(comparison):
    res = {m: comparison["results"][m] for m in ("hybrid_coulomb", "continuous_coulomb")}
    fig = plots.fig_method_comparison(res, models=None)
    assert "flores" in " ".join(t.get_text() for t in fig.texts)
    plt.close(fig)


# ------------------------------------------------------------------ panel controls
class _Stub:
    def __init__(self):
        self.calls = []

    def __call__(self, case, model, t_end, **kw):
        s = case.slope
        self.calls.append((model, s.contact_law, s.contact_stiffness, case.coulomb.v0, case.coulomb.v1))
        impact = dict(t_start=T_FIRST, peak_normal_force=1.0, peak_friction_force=1.0, energy_lost=0.1)
        return SimpleNamespace(model=model, case=case, t=np.array([0.0, t_end]), impacts=[impact])


def _panel():
    from flexlib.params import paper_case
    stub = _Stub()
    p = widgets.panel(fields=["contact_law", "contact_stiffness", "e", "v0", "v1"],
                      models=["continuous_coulomb", "continuous_lugre"],
                      case=paper_case("3.2").with_(e=0.5), t_end=0.4,
                      plot=lambda r: plt.figure(), simulate_fn=stub)
    return p, stub


def test_contact_law_dropdown_and_penalty_sliders():
    p, stub = _panel()
    law = p.sliders["contact_law"]
    assert tuple(law.options) == penalty.LAWS and law.value == "flores"
    assert p.sliders["contact_stiffness"].value == pytest.approx(1e9)
    assert p.sliders["v0"].value == pytest.approx(1e-4) and p.sliders["v1"].value == pytest.approx(1e-3)
    for name in ("contact_stiffness", "v0", "v1"):
        s = p.sliders[name]
        assert s.continuous_update is False
        assert "[" in s.description and "]" in s.description
    stub.calls.clear()
    law.value = "hunt_crossley"                          # one run per model
    assert sorted(c[0] for c in stub.calls) == ["continuous_coulomb", "continuous_lugre"]
    assert {c[1] for c in stub.calls} == {"hunt_crossley"}
    stub.calls.clear()
    p.sliders["contact_stiffness"].value = 1e10
    assert {c[2] for c in stub.calls} == {1e10} and len(stub.calls) == 2
    assert "contact law [–]" in p.describe()


def test_v0_above_v1_is_a_message_not_a_run():
    p, stub = _panel()
    stub.calls.clear()
    p.sliders["v0"].value = 1e-2                          # v0 >= v1 = 1e-3: refused
    assert stub.calls == [] and "v0" in p.error


def test_flores_with_zero_restitution_is_reported():
    """The Flores law is undefined at e = 0: a real run refuses it, the panel shows why."""
    from flexlib.params import paper_case
    p = widgets.panel(fields=["e"], models=["continuous_coulomb"], case=paper_case("3.2").with_(e=0.5),
                      t_end=0.05, plot=lambda r: plt.figure())
    assert p.error is None
    p.sliders["e"].value = 0.0
    assert p.error and "flores" in p.error
