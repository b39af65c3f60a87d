"""flexlib.studies.outside (the stored Exudyn levels and flexlib's convergence study as series) and
its figure, flexlib.viz.multibody_plots.fig_beside_outside."""
import json
import math
from types import SimpleNamespace

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from flexlib.studies import outside                                         # noqa: E402
from flexlib.viz.multibody_plots import CODE_STYLES, fig_beside_outside     # noqa: E402

G0 = 9.81


def test_exudyn_falling_beam_series():
    """The 1 us levels at 8-64 elements; the end x = 0 lands at sqrt(2 h0 / g) (uniform free
    fall of an undeformed beam), and the landing impulse is the sum of its episodes' impulses."""
    s = outside.exudyn_falling_beam()
    assert list(s) == [8, 16, 32, 64]
    raw = json.load(open(outside.EXUDYN_FALLING_BEAM))
    h0 = raw["case"]["h0"]
    for n, v in s.items():
        assert abs(v["first t_start"] - math.sqrt(2 * h0 / G0)) < 2e-9
        lv = next(lv for lv in raw["cases"]["0.1"]["levels"] if lv["elements"] == n and lv["h"] == 1e-6)
        assert v["impulse"] == pytest.approx(sum(e["impulse"] for e in lv["points"][0]["episodes"]))
        assert 0 < v["first impulse"] < v["first peak force"] * v["first duration"]


def test_exudyn_double_pendulum_series_and_converged():
    s = outside.exudyn_double_pendulum()
    assert list(s) == [8, 16, 32, 64]
    for v in s.values():
        assert v["impulse"] >= v["first impulse"] > 0 and v["episodes"] >= 1
    c = outside.exudyn_converged("double-pendulum")
    assert c["elements_per_metre"] == 64 and c["h"] == 1e-6
    # the finest level is the 64-per-metre, 1 us level of the series
    for q in ("impulse", "first duration", "first impulse", "first peak force"):
        assert c[q] == pytest.approx(s[64][q], rel=1e-12)
    f = outside.exudyn_converged("falling-beam")
    assert f["h"] == 5e-7 and abs(f["first t_start"] - math.sqrt(0.2 / G0)) < 2e-9
    with pytest.raises(ValueError, match="system='pendulum'"):
        outside.exudyn_converged("pendulum")


def test_flexlib_levels_absent_and_present(tmp_path):
    assert outside.flexlib_levels("falling-beam", path=str(tmp_path / "none.json")) is None
    p = tmp_path / "conv.json"
    p.write_text(json.dumps({"falling-beam": {"levels": [
        {"elements": 8, "wall_time": 2.0, "values": {"impulse": 0.5, "beam v_cm_y": -0.9,
                                                      "beam omega_mean": -3.7}},
        {"elements": 4, "wall_time": 1.0, "values": {"impulse": 0.6, "beam v_cm_y": -0.8,
                                                      "beam omega_mean": -3.6}}]}}))
    assert outside.flexlib_levels("double-pendulum", path=str(p)) is None
    s = outside.flexlib_levels("falling-beam", path=str(p))
    assert list(s) == [4, 8]
    assert (s[8]["v_cm_y"], s[8]["omega_mean"], s[8]["wall_time"]) == (-0.9, -3.7, 2.0)


def test_relative_differences():
    a = {8: {"x": 1.1}, 16: {"x": 2.0}}
    b = {16: {"x": -4.0}, 32: {"x": 1.0}}
    assert outside.relative_differences(a, b, ["x"]) == {16: {"x": 1.5}}


def _impact(point, t0, dt, imp, peak):
    return dict(contact=point, t_start=t0, t_end=t0 + dt, duration=dt, normal_impulse=imp,
                peak_normal_force=peak)


def test_contact_measures_burst_and_motion():
    """Episodes less than the gap apart form the first burst; another point's do not count."""
    impacts = [_impact("B", 0.600, 1e-3, 1.0, 10.0), _impact("A", 0.6012, 1e-4, 9.0, 90.0),
               _impact("B", 0.603, 1e-3, 2.0, 20.0), _impact("B", 0.610, 1e-3, 4.0, 40.0)]
    body = SimpleNamespace(name="B1")
    res = SimpleNamespace(impacts=impacts, system=SimpleNamespace(bodies=[body]),
                          history=lambda ts: {"B1.v_cm": np.array([[0.5, -1.5]]),
                                              "B1.omega_mean": np.array([2.5])})
    m = outside.contact_measures(res, "B", 0.65, burst_gap=5e-3)
    assert (m["episodes"], m["impulse"]) == (2, 3.0)
    assert (m["first impulse"], m["first peak force"], m["first duration"]) == (1.0, 10.0, 1e-3)
    assert (m["B1 v_cm_x"], m["B1 v_cm_y"], m["B1 omega_mean"]) == (0.5, -1.5, 2.5)
    assert outside.contact_measures(res, "B", 0.65)["impulse"] == 7.0
    assert "first impulse" not in outside.contact_measures(res, "C", 0.65)


def test_fig_beside_outside():
    panels = [dict(ylabel="impulse [N s]", series={"flexlib": {4: 1.0, 8: 2.0},
                                                   "Exudyn": {8: 2.1, 16: 2.2}},
                   converged=2.3, converged_label="Exudyn, finest level"),
              dict(ylabel="peak [N]", series={"flexlib": {8: 5.0}, "other": {8: 6.0}, "Exudyn": {}}),
              dict(ylabel="duration [ms]", series={"Exudyn": {8: 1.0}})]
    fig = fig_beside_outside(panels, title="t", xlabel="elements [-]")
    ax = fig.axes
    assert len(ax) == 4 and not ax[3].get_visible()
    lines = {ln.get_label(): ln for ln in ax[0].get_lines()}
    assert set(lines) == {"flexlib", "Exudyn", "Exudyn, finest level"}
    assert matplotlib.colors.same_color(lines["flexlib"].get_color(), CODE_STYLES["flexlib"]["color"])
    assert matplotlib.colors.same_color(lines["Exudyn"].get_color(), CODE_STYLES["Exudyn"]["color"])
    assert list(lines["flexlib"].get_xdata()) == [4, 8]
    assert list(lines["Exudyn, finest level"].get_ydata()) == [2.3, 2.3]
    assert ax[0].get_xlabel() == "elements [-]" and ax[0].get_ylabel() == "impulse [N s]"
    assert ax[0].get_xscale() == "log"
    assert [ln.get_label() for ln in ax[1].get_lines()] == ["flexlib", "other"]    # empty skipped
    matplotlib.pyplot.close(fig)
    with pytest.raises(ValueError, match="panels"):
        fig_beside_outside([])
