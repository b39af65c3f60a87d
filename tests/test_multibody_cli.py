"""The command line on the multibody cases: ``simulate`` and ``compare`` with ``--json``, ``--csv``
and ``--save``, ``sweep`` over a case option, and the JSON summary's ``samples.bodies`` (one entry
per body in the case's order, with theta, theta', the frame origin R and its rate at the sample
times) and the ``contact`` each impact names.  The numbers are checked against what the geometry
fixes (hinges, initial positions) and against the same run made through the library."""
import json
import math

import numpy as np
import pytest

import flexlib as fl
from flexlib.cases import simulate
from flexlib.cli import main


def _json(tmp_path, argv, name="out.json"):
    out = tmp_path / name
    assert main([*argv, "--json", str(out), "--quiet"]) == 0
    return json.loads(out.read_text())


def test_double_pendulum_summary_lists_the_bodies_and_names_the_contact(tmp_path):
    times = [0.0, 0.3, 0.65]
    csv, npz = tmp_path / "dp.csv", tmp_path / "dp.npz"
    d = _json(tmp_path, ["simulate", "--case", "double-pendulum", "--t-end", "0.65", "--sample-times",
                         ",".join(map(str, times)), "--csv", str(csv), "--save", str(npz)])
    s = d["samples"]
    assert s["t"] == times
    assert [b["name"] for b in s["bodies"]] == ["B1", "B2"]
    b1, b2 = s["bodies"]
    for b in (b1, b2):
        assert all(len(b[k]) == len(times) for k in ("theta", "theta_dot", "R", "R_dot"))
        assert b["theta"][0] == 0.0 and b["theta_dot"][0] == 0.0        # released at rest, horizontal
    # B1 hangs on the ground hinge at O; B2's origin is B1's deformed tip, at distance L1 from O up to the
    # shortening of the bent link (v^2/L ~ 1e-5 m here)
    assert np.abs(np.array(b1["R"])).max() == 0.0
    assert b2["R"][0] == [1.0, 0.0]
    assert np.abs(np.hypot(*np.array(b2["R"]).T) - 1.0).max() < 1e-3
    # the same run through the library gives the same samples and impacts
    ref = simulate("double-pendulum", t_end=0.65)
    h = ref.history(times)
    assert b2["theta"] == pytest.approx(h["B2.theta"].tolist(), abs=1e-12)
    assert [im["contact"] for im in d["impacts"]] == [im["contact"] for im in ref.impact_records()] != []
    assert set(d["impacts"][0]) >= {"contact", "t_start", "t_end", "jump_impulse", "normal_impulse",
                                    "peak_normal_force", "episodes"}
    assert d["impacts"][0]["contact"] == "B"
    header = csv.read_text().splitlines()[0]
    assert header.startswith("t [s],B1.theta [rad],B1.theta_dot [rad/s],B1.R_x [m],B1.R_y [m]")
    assert "B.N [N]" in header
    assert npz.stat().st_size > 0


def test_rigid_links_from_the_command_line(tmp_path):
    """--n-modes 0 applies to every beam of the case: the summary's bodies then swing like the
    rigid double pendulum, whose energy is conserved in free swing (model free)."""
    d = _json(tmp_path, ["simulate", "--case", "double-pendulum", "--model", "free", "--n-modes", "0",
                         "--t-end", "0.5", "--rtol", "1e-11"])
    e = d["energy"]
    assert abs(e["final"] - e["initial"]) <= 1e-8 * max(abs(e["initial"]), e["audit_scale"])


def test_beam_on_slope_summary_is_the_paper_case_up_to_the_first_contact(tmp_path):
    d = _json(tmp_path, ["simulate", "--case", "beam-on-slope", "--model", "frictionless", "--t-end",
                         "0.34", "--sample-times", "0.1,0.2,0.3"])
    (beam,) = d["samples"]["bodies"]
    assert beam["name"] == "beam" and d["contacts"] == ["tip"]
    ref = fl.simulate("3.2", "frictionless", 0.34)
    assert beam["theta"] == pytest.approx(ref.sample([0.1, 0.2, 0.3], "theta").tolist(), abs=1e-11)
    assert d["impacts"][0]["contact"] == "tip"
    assert abs(d["impacts"][0]["t_start"] - ref.impacts[0]["t_start"]) <= 1e-12
    # the paper's one-body case lists the same body beside its flat keys
    p = _json(tmp_path, ["simulate", "--case", "3.2", "--model", "frictionless", "--t-end", "0.34",
                         "--sample-times", "0.1,0.2,0.3"], "p32.json")
    (pb,) = p["samples"]["bodies"]
    assert pb["name"] == "beam" and pb["theta"] == p["samples"]["theta"]
    assert pb["theta"] == pytest.approx(beam["theta"], abs=1e-11)


@pytest.mark.parametrize("argv, needle", [
    (["--contact-at", "1.5"], "'contact_at' = '1.5' is invalid: valid range is [0, 1]"),
    (["--alpha", "2"], "[-1.5, 1.5] rad"),
])
def test_beam_on_slope_bad_option_names_the_range(capsys, argv, needle):
    assert main(["simulate", "--case", "beam-on-slope", "--t-end", "0.1", *argv]) == 2
    assert needle in capsys.readouterr().err


def test_compare_on_a_case(tmp_path):
    """compare runs each model on the case; a rigid beam dropped flat from h0 = 0.1 m touches the
    ground with both ends at sqrt(2 h0 / g) under either contact method."""
    d = _json(tmp_path, ["compare", "--case", "falling-beam", "--models", "frictionless,continuous",
                         "--n-modes", "0", "--t-end", "0.2"])
    assert d["case"] == "falling-beam" and d["models"] == ["frictionless", "continuous"]
    t_land = math.sqrt(2 * 0.1 / 9.81)
    for model in d["models"]:
        first = d["results"][model]["impacts"][:2]
        assert sorted(im["contact"] for im in first) == ["P1", "P2"]
        assert all(abs(im["t_start"] - t_land) <= 1e-9 for im in first), (model, first)


def test_a_constraint_point_starting_inside_its_obstacle_is_refused():
    """A slope steeper than the released beam (alpha = 1.2 rad through X1 = 0.1 m) has the tip 0.31 m
    inside it at t = 0: an error naming the point, its gap and the obstacle, not a run (the
    Baumgarte constraint would push it out with thousands of joules from nowhere)."""
    with pytest.raises(ValueError, match=r"contact point 'tip' starts 0\.3096 m inside obstacle 'slope'"):
        simulate("beam-on-slope", "frictionless", 0.1, X1=0.1, alpha=1.2)
    with pytest.raises(ValueError, match="'P2' starts"):
        simulate("falling-beam", "hybrid_coulomb", 0.1, h0=0.0, theta0=-0.1)


def test_sweep_over_a_case_option(tmp_path):
    """sweep runs a case at each grid point: a rigid beam dropped flat from h0 lands at
    sqrt(2 h0 / g) on both ends, and the plastic (e = 0) two-point impact takes all its energy, so
    it rests with E = 0 (the ground at Y = 0)."""
    pytest.importorskip("xarray")
    import pandas as pd
    table = tmp_path / "sweep.csv"
    assert main(["sweep", "--no-progress", "--case", "falling-beam", "--model", "frictionless",
                 "--grid", "h0=0.05,0.1", "--n-modes", "0", "--t-end", "0.2", "--workers", "1",
                 "--out", str(tmp_path / "sweep.nc"), "--table", str(table)]) == 0
    df = pd.read_csv(table)
    assert list(df["h0"]) == [0.05, 0.1] and list(df["status"]) == ["ok", "ok"]
    for _, row in df.iterrows():
        t_land = math.sqrt(2 * row["h0"] / 9.81)
        assert abs(row["impact_start_1 [s]"] - t_land) <= 1e-9
        assert abs(row["impact_start_2 [s]"] - t_land) <= 1e-9
        # at rest on the ground up to the landing depth delta = 1e-12 m: |E| <= m g delta
        assert abs(row["final_energy [J]"]) <= 0.8687 * 9.81 * 2e-12
