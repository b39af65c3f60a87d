"""flexlib's own converged references of the two systems (tests/data/converged_references.json,
written by scripts/converged_references.py): the mesh-convergence study of the finite-element
basis, held to what it claims and to physics it must obey.

* every level is the script's output for that mesh: the coarsest level, rerun here, gives the
  stored numbers again (to the integrator's tolerance: the run is the same code);
* each level obeys the vertical momentum balance of a free body, m v_cm,y(t) = I_N - m g t (the
  ground pushes only along its normal, +Y), written here from the stored numbers alone;
* the stored ``converged`` block is the changes between its last two levels, recomputed here, and
  a level that the study calls converged moved by at most the stored tolerance (0.5 %).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "converged_references.json"
RHO, S, G0 = 2766.67, 3.14e-4, 9.81          # the paper's section and material, gravity


@pytest.fixture(scope="module")
def data():
    return json.loads(DATA.read_text())


def _change(a, b):
    import importlib.util
    spec = importlib.util.spec_from_file_location("converged_references",
                                                  ROOT / "scripts" / "converged_references.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.change(a, b)


def test_the_study_names_its_script_and_settings(data):
    assert data["settings"]["script"] == "scripts/converged_references.py"
    assert data["settings"]["tol"] == 5e-3
    for name in ("falling-beam", "double-pendulum"):
        assert set(data[name]["settings"]) == {"rtol", "atol", "integrator"}, name
    fb = data["falling-beam"]
    assert [lv["elements"] for lv in fb["levels"]] == sorted(lv["elements"] for lv in fb["levels"])
    assert all(lv["success"] for lv in fb["levels"])


def test_every_falling_beam_level_obeys_the_momentum_balance(data):
    """m v_cm,y(0.16 s) = I_N - m g t: the landing impulse and the centre's velocity are measured
    independently (episodes' integral of N; the mean motion of the deformed beam)."""
    fb = data["falling-beam"]
    m = RHO * S * 1.0
    for lv in fb["levels"]:
        v = lv["values"]
        assert m * v["beam v_cm_y"] == pytest.approx(v["impulse"] - m * G0 * fb["t_end"], rel=2e-4), \
            lv["elements"]
        assert abs(v["beam v_cm_x"]) < 1e-6             # frictionless: no horizontal impulse


def test_the_converged_block_is_the_last_refinement(data):
    for name in ("falling-beam", "double-pendulum"):
        if name not in data:
            continue
        st = data[name]
        a, b = st["levels"][-2]["values"], st["levels"][-1]["values"]
        moved = _change(a, b)
        assert moved == pytest.approx(st["converged"]["change"], rel=1e-12)
        for k, ok in st["converged"]["within"].items():
            assert ok == (moved[k] <= (0 if k == "episodes" else data["settings"]["tol"])), k


def test_both_studies_reached_a_converged_level(data):
    """The stored studies end where every quantity moved by at most the tolerance: the contact
    answers and the bodies' motion after them (the double pendulum from 128 to 256 elements per
    link), recomputed from the last two levels."""
    tol = data["settings"]["tol"]
    for name in ("falling-beam", "double-pendulum"):
        levels = data[name]["levels"]
        moved = _change(levels[-2]["values"], levels[-1]["values"])
        assert moved["episodes"] == 0, name
        assert max(v for k, v in moved.items() if k != "episodes") <= tol, (name, moved)
        assert any(k.endswith("omega_mean") for k in moved), name       # the motion is checked
    assert data["double-pendulum"]["levels"][-1]["elements"] == 256


def test_the_coarsest_level_is_reproduced(data):
    """The fe 4 falling beam rerun with the stored settings gives the stored numbers."""
    from flexlib.cases import simulate
    fb = data["falling-beam"]
    lv = fb["levels"][0]
    res = simulate("falling-beam", fb["model"], fb["t_end"], basis="fe", elements=lv["elements"],
                   rtol=fb["settings"]["rtol"], atol=fb["settings"]["atol"],
                   method=fb["settings"]["integrator"], **fb["params"])
    h = res.history([fb["t_end"]])
    eps = [i for i in res.impacts if i["contact"] == fb["point"]]
    assert len(eps) == lv["values"]["episodes"]
    assert sum(e["normal_impulse"] for e in eps) == pytest.approx(lv["values"]["impulse"], rel=1e-6)
    assert h["beam.omega_mean"][0] == pytest.approx(lv["values"]["beam omega_mean"], rel=1e-6)


def test_the_finest_falling_beam_levels_agree_with_the_outside_code():
    """At 32 elements flexlib's first landing episode and motion at 0.16 s are the outside code's
    (Exudyn, 32 ANCF elements, 1 us) within 0.5 % (figures/data/exudyn_falling_beam.json)."""
    data = json.loads(DATA.read_text())
    ex = json.loads((ROOT / "figures" / "data" / "exudyn_falling_beam.json").read_text())
    lv = next(x for x in data["falling-beam"]["levels"] if x["elements"] == 32)["values"]
    e = next(x for x in ex["cases"]["0.1"]["levels"] if x["elements"] == 32 and x["h"] == 1e-6)
    first = e["points"][0]["episodes"][0]
    assert lv["first duration"] == pytest.approx(first["duration"], rel=5e-3)
    assert lv["first impulse"] == pytest.approx(first["impulse"], rel=5e-3)
    assert lv["first peak force"] == pytest.approx(first["peak_force"], rel=5e-3)
    assert lv["impulse"] == pytest.approx(e["landing_impulse"], rel=5e-3)
    assert lv["beam v_cm_y"] == pytest.approx(e["v_cm"][1], rel=5e-3)
    assert lv["beam omega_mean"] == pytest.approx(e["omega_mean"], rel=5e-3)


def test_stored_levels_are_kept_and_only_the_others_run(data, tmp_path, monkeypatch):
    """``--keep``: a level stored with the same settings is taken as stored (no run), one stored
    with other settings is not, and a level missing from every file is run."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("converged_references",
                                                  ROOT / "scripts" / "converged_references.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    st = data["double-pendulum"]["settings"]
    tol = data["settings"]["tol"]
    kept = mod.kept_levels([DATA], "double-pendulum", st)
    assert sorted(kept) == [lv["elements"] for lv in data["double-pendulum"]["levels"]]
    assert mod.kept_levels([DATA], "double-pendulum", dict(st, rtol=10 * st["rtol"])) == {}
    assert mod.kept_levels([DATA], "double-pendulum", dict(st, atol=10 * st["atol"])) == {}
    other = dict(data)
    other["double-pendulum"] = dict(data["double-pendulum"], settings=dict(st, integrator="x"))
    path = tmp_path / "other.json"
    path.write_text(json.dumps(other))
    assert mod.kept_levels([path], "double-pendulum", st) == {}
    runs = []
    import flexlib.cases

    def fake(name, model, t_end, **kw):
        runs.append(kw["elements"])
        raise RuntimeError("stop here")
    monkeypatch.setattr(flexlib.cases, "simulate", fake)
    got = mod.study("double-pendulum", [4, 8], st, tol, kept)
    assert runs == [] and [lv["elements"] for lv in got["levels"]] == [4, 8]
    assert got["levels"][1] == data["double-pendulum"]["levels"][1]
    with pytest.raises(RuntimeError, match="stop here"):
        mod.study("double-pendulum", [4, 6], st, tol, kept)
    assert runs == [6]
