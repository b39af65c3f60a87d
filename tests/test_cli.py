"""The command line end to end through ``python -m flexlib``: error handling, the JSON summary,
``--help`` (a description, unit and default for every option), ``compare`` and ``--csv``.

Every command runs in its own subprocess (``sys.executable -m flexlib`` with cwd = the project
root).  All of them are started together by one module fixture and run concurrently (each pays the
~1 s import of numpy/scipy/numba once), then the tests look at the results.

Contract (flexlib/cli.py): a user error prints one line ``flexlib: error: ...`` naming the bad
parameter and its valid range (or the valid names) and exits 2; a run that stops with
SimulationError prints one line ``flexlib: simulation stopped: ...``, still writes the partial JSON
and exits 3; neither shows a traceback.
"""
import io
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from flexlib.cli import _Progress
from flexlib.params import RANGES, paper_case

ROOT = Path(__file__).resolve().parents[1]

# (id, argv after "simulate --quiet", substrings the one-line message must contain)
BAD_INPUTS = [
    ("model-unknown", ["--model", "coulomb"],
     ["unknown model 'coulomb'", "frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre"]),
    ("model-empty", ["--model", ""], ["unknown model ''", "hybrid_coulomb", "lugre"]),
    ("case-unknown", ["--case", "3.3"], ["'case' = '3.3'", "3.1 (or A)", "3.2 (or B)", "double-pendulum",
                                         "falling-beam", "beam-on-slope"]),
    ("case-C", ["--case", "C"], ["'case' = 'C'", "3.1", "3.2"]),
    ("mu_s-below-mu_d", ["--mu-s", "0.1"], ["'mu_s'", "0.1", "mu_d = 0.4", "10]"]),
    ("n_modes-13", ["--n-modes", "13"], ["'n_modes'", "13", "[0, 12]"]),
    ("n_modes-2.5", ["--n-modes", "2.5"], ["'n_modes'", "2.5", "[0, 12]"]),
    ("n_modes-text", ["--n-modes", "three"], ["'n_modes'", "'three'", "not a number", "[0, 12]"]),
    ("t_end-negative", ["--t-end", "-1"], ["'t_end'", "-1", "(0, 1000] s"]),
    ("t_end-zero", ["--t-end", "0"], ["'t_end'", "(0, 1000] s"]),
    ("t_end-inf", ["--t-end", "inf"], ["'t_end'", "inf", "(0, 1000] s"]),
    ("t_end-text", ["--t-end", "abc"], ["'t_end'", "'abc'", "not a number", "(0, 1000] s"]),
    ("sigma0-zero", ["--sigma0", "0"], ["'sigma0'", "(0, 1e+09] 1/m"]),
    ("sigma1-negative", ["--sigma1", "-1"], ["'sigma1'", "[0, 1e+06] s/m"]),
    ("alpha-nan", ["--alpha", "nan"], ["'alpha'", "nan", "[-1.5, 1.5] rad"]),
    ("e-2", ["--restitution", "2"], ["'e'", "2", "[0, 1]"]),
    ("mu_d-text", ["--mu-d", "abc"], ["'mu_d'", "'abc'", "not a number", "[0, 10]"]),
    ("mu_d-negative", ["--mu-d", "-0.1"], ["'mu_d'", "-0.1", "[0, 10]"]),
    ("event_cap-5", ["--event-cap", "5"], ["'event_cap'", "[10, 1e+07]"]),
    ("foreshortening-maybe", ["--foreshortening", "maybe"], ["'foreshortening'", "True or False"]),
    ("method-unknown", ["--integrator", "Euler"], ["'method'", "'Euler'", "'DOP853'", "'Radau'"]),
    ("multiplier_mode-unknown", ["--multiplier-mode", "printed"], ["'multiplier_mode'", "'printed'", "'coupled'"]),
    ("stick_limit-unknown", ["--stick-limit", "foo"], ["'stick_limit'", "'mu_d'", "'mu_s'"]),
    ("n_gauss-too-small", ["--n-gauss", "5"], ["'n_gauss'", "n_modes = 3", "[14, 400]"]),
    ("lugre-mu_s-zero", ["--model", "lugre", "--mu-d", "0", "--mu-s", "0"],
     ["'mu_d'", "LuGre", "(0, 10]"]),
    ("start-below-slope", ["--theta0", "0.1"], ["point 'tip' starts", "inside obstacle 'slope'"]),
    ("sample-times-text", ["--sample-times", "0.1,x"], ["'sample_times'", "'x'", "not a number"]),
    ("sample-times-outside", ["--sample-times", "5", "--t-end", "0.5"], ["'sample_times'", "'5'", "[0, 0.5] s"]),
    ("json-missing-dir", ["--json", "/nonexistent-flexlib-dir/x.json"], ["--json", "does not exist"]),
    ("save-missing-dir", ["--save", "/nonexistent-flexlib-dir/x.npz"], ["--save", "does not exist"]),
    ("unknown-option", ["--bogus", "1"], ["unknown option '--bogus'"]),
    ("dt-zero", ["--dt", "0", "--t-end", "0.5"], ["'dt'", "'0'", "(0, 0.5] s"]),
]

# (id, argv after "modes", substrings of the one-line message)
BAD_MODES = [
    ("elements-negative", ["--basis", "fe", "--elements", "-4"], ["'elements'", "-4", "[1, 256]"]),
    ("local-length-above-L", ["--basis", "partition", "--local-length", "1.5"],
     ["'local_length'", "1.5", "[0, L = 1.0] m"]),
    ("local-modes-above-available", ["--basis", "partition", "--elements", "3", "--local-modes", "7"],
     ["'local_modes'", "7", "[0, 6]"]),
    ("basis-unknown", ["--basis", "rods"], ["'basis'", "'rods'", "'modal'", "'fe'", "'partition'"]),
]


def _run(argv, cwd=ROOT):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, "-m", "flexlib", *argv], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=300)
    return p


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Start every command of this module concurrently; {id: CompletedProcess} plus file paths."""
    tmp = tmp_path_factory.mktemp("cli")
    jobs = {k: ["simulate", "--quiet", *argv] for k, argv, _ in BAD_INPUTS}
    jobs["no-command"] = []
    paths = dict(stopped=tmp / "stopped.json", ok=tmp / "ok.json", hyphen=tmp / "hyphen.json",
                 ok_npz=tmp / "ok.npz", csv=tmp / "run.csv", csv_npz=tmp / "run.npz",
                 compare=tmp / "compare.json", compare_csv=tmp / "compare.csv",
                 compare_stopped=tmp / "compare_stopped.json", dt_csv=tmp / "dt.csv")
    # a run that stops with SimulationError: the event cap is reached in the third impact (0.69 s)
    jobs["stopped"] = ["simulate", "--quiet", "--model", "hybrid_coulomb", "--event-cap", "10",
                       "--t-end", "1.2", "--json", str(paths["stopped"])]
    jobs["stopped-verbose"] = ["simulate", "--model", "hybrid_coulomb", "--event-cap", "10",
                               "--t-end", "0.8"]
    jobs["ok"] = ["simulate", "--quiet", "--model", "frictionless", "--t-end", "0.5",
                  "--sample-times", "0.1,0.2,0.3", "--json", str(paths["ok"]),
                  "--save", str(paths["ok_npz"])]
    jobs["hyphen"] = ["simulate", "--model", "Hybrid-LuGre", "--t-end", "0.05",
                      "--json", str(paths["hyphen"])]
    for k, argv, _ in BAD_MODES:
        jobs["modes-" + k] = ["modes", *argv]
    paths["modes_fe"] = tmp / "modes_fe.json"
    jobs["modes-fe"] = ["modes", "--basis", "fe", "--elements", "4", "--json", str(paths["modes_fe"])]
    jobs["modes-modal"] = ["modes", "--case", "A", "--n-modes", "4"]
    for command in ("simulate", "compare", "modes", "figures", "notebooks"):
        jobs["help-" + command] = [command, "--help"]
    jobs["csv"] = ["simulate", "--quiet", "--model", "frictionless", "--t-end", "0.4",
                   "--csv", str(paths["csv"]), "--save", str(paths["csv_npz"])]
    jobs["dt"] = ["simulate", "--quiet", "--model", "hybrid_coulomb", "--t-end", "0.4", "--dt",
                  "1e-3", "--csv", str(paths["dt_csv"])]
    jobs["compare"] = ["compare", "--models", "frictionless,lugre", "--t-end", "0.4",
                       "--json", str(paths["compare"]), "--csv", str(paths["compare_csv"])]
    # one model stops (event cap in the second impact), the other still runs
    jobs["compare-stopped"] = ["compare", "--models", "hybrid-coulomb,frictionless", "--event-cap",
                               "10", "--t-end", "0.8", "--json", str(paths["compare_stopped"])]
    jobs["compare-bad-model"] = ["compare", "--models", "frictionless,coulomb"]
    jobs["compare-bad-param"] = ["compare", "--models", "frictionless,lugre", "--mu-d", "-1"]
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as ex:
        futs = {k: ex.submit(_run, argv) for k, argv in jobs.items()}
        out = {k: f.result() for k, f in futs.items()}
    out["_paths"] = paths
    return out


def _one_line(text):
    lines = text.strip().splitlines()
    assert len(lines) == 1, f"expected one line, got {len(lines)}:\n{text}"
    return lines[0]


# ---------------------------------------------------------------------------- user errors
def _assert_user_error(p, needles):
    """One line ``flexlib: error: ...`` containing every needle, exit 2, no traceback, no output."""
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2, (p.returncode, p.stderr)
    line = _one_line(p.stderr)
    assert line.startswith("flexlib: error: "), line
    for n in needles:
        assert n in line, f"{n!r} not in {line!r}"
    assert p.stdout == ""


@pytest.mark.parametrize("key, argv, needles", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_one_line_exit_2(runs, key, argv, needles):
    _assert_user_error(runs[key], needles)


def test_no_command(runs):
    p = runs["no-command"]
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert _one_line(p.stderr).startswith("flexlib: error: ")


# ---------------------------------------------------------------------------- stopped run
def test_stopped_run_exit_3_with_partial_json(runs):
    p = runs["stopped"]
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 3, (p.returncode, p.stderr)
    line = _one_line(p.stderr)
    assert line.startswith("flexlib: simulation stopped: ")
    assert "event cap" in line and "hybrid_coulomb" in line
    d = json.loads(runs["_paths"]["stopped"].read_text())
    assert d["success"] is False
    assert "event cap" in d["message"]
    assert d["model"] == "hybrid_coulomb" and d["case"] == "3.2"
    assert d["first_contact"]["t"] == pytest.approx(0.3329, abs=1e-3)
    assert len(d["impacts"]) >= 1


def test_stopped_run_still_prints_table(runs):
    p = runs["stopped-verbose"]
    assert p.returncode == 3 and "Traceback" not in p.stderr
    assert _one_line(p.stderr).startswith("flexlib: simulation stopped: ")
    assert "first contact: t = 0.33" in p.stdout
    assert "energy: initial" in p.stdout


# ---------------------------------------------------------------------------- successful run
def test_json_summary_stable_keys(runs):
    p = runs["ok"]
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    d = json.loads(runs["_paths"]["ok"].read_text())
    for k in ("case", "model", "params", "first_contact", "impacts", "samples", "energy", "wall_time_s",
              "success"):
        assert k in d, k
    assert d["case"] == "3.2" and d["model"] == "frictionless" and d["success"] is True
    params = paper_case("3.2").as_dict()
    del params["name"]
    assert d["params"] == json.loads(json.dumps(dict(case="3.2", model="frictionless", t_end=0.5,
                                                     **params)))
    assert set(d["first_contact"]) >= {"t", "theta", "tip_deflection"}
    assert d["first_contact"]["t"] == pytest.approx(0.3329, abs=1e-3)
    assert len(d["impacts"]) >= 1
    for im in d["impacts"]:
        assert set(im) >= {"contact", "t_start", "t_end", "peak_normal_force", "episodes",
                           "energy_before", "energy_after", "jump_impulse", "normal_impulse",
                           "jump_loss", "stick_intervals", "slip_intervals"}
        assert "impulse" not in im and isinstance(im["episodes"], list)
        assert im["t_start"] <= im["t_end"] and im["peak_normal_force"] > 0
        assert isinstance(im["stick_intervals"], list) and isinstance(im["slip_intervals"], list)
    s = d["samples"]
    assert set(s) >= {"t", "theta", "theta_dot", "tip_y"}
    assert s["t"] == [0.1, 0.2, 0.3]
    assert all(len(s[k]) == 3 for k in ("theta", "theta_dot", "tip_y"))
    assert s["theta"][0] < 3.1416 / 4 and s["theta_dot"][1] < 0        # falling clockwise
    e = d["energy"]
    assert set(e) >= {"initial", "final", "audit_residual_max"}
    assert e["initial"] == pytest.approx(3.013082, rel=1e-6)
    assert e["audit_residual_max"] < 1e-6 * e["initial"]
    assert d["wall_time_s"] > 0
    assert runs["_paths"]["ok_npz"].stat().st_size > 0


def test_hyphenated_model_id_is_canonical_in_json(runs):
    p = runs["hyphen"]
    assert p.returncode == 0, p.stderr
    d = json.loads(runs["_paths"]["hyphen"].read_text())
    assert d["model"] == "hybrid_lugre"
    assert "model hybrid_lugre" in p.stdout



# ---------------------------------------------------------------------------- --help
def _help_entries(text):
    """{option: [metavar or None, help text]} of an argparse help page (wrapped lines joined)."""
    entries, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^  (-[^ ,]+(?:, --[^ ]+)?)(?: ([A-Z][A-Z0-9_]*))?(?: {2,}(.*))?$", line)
        if m:
            cur = m.group(1).split(", ")[-1]
            entries[cur] = [m.group(2), m.group(3) or ""]
        elif cur and line.startswith(" " * 6) and line.strip():
            entries[cur][1] += " " + line.strip()
        else:
            cur = None
    return entries


@pytest.mark.parametrize("key, argv, needles", BAD_MODES, ids=[b[0] for b in BAD_MODES])
def test_modes_bad_input_one_line_exit_2(runs, key, argv, needles):
    _assert_user_error(runs["modes-" + key], needles)


def test_modes_prints_and_writes_the_frequencies(runs):
    """The modal basis reproduces the exact cantilever values lambda_i^2 sqrt(EI/(rho S L^4))
    (table of roots: docs/model.md); 4 Hermite elements give upper bounds, in the JSON too."""
    roots = np.array([1.875104068712, 4.694091132974, 7.854757438238, 10.995540734875])
    unit = np.sqrt(68.952e9 * 7.85e-9 / (2766.67 * 3.14e-4))
    p = runs["modes-modal"]
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines()[2:]]
    assert len(rows) == 4 and "basis modal" in p.stdout and "case 3.1" in p.stdout
    np.testing.assert_allclose([float(r[1]) for r in rows], roots**2 * unit, rtol=1e-8)
    np.testing.assert_allclose([float(r[2]) for r in rows], roots**2 * unit, rtol=1e-8)
    assert all(abs(float(r[3])) < 1e-10 for r in rows)
    p = runs["modes-fe"]
    assert p.returncode == 0, p.stderr
    out = json.loads(runs["_paths"]["modes_fe"].read_text())
    assert out["basis"] == "fe" and out["coordinates"] == 8 and len(out["frequencies"]) == 8
    w, exact = np.array(out["frequencies"]), np.array(out["exact"])
    np.testing.assert_allclose(exact[:4], roots**2 * unit, rtol=1e-10)
    assert np.all(w > exact) and w[0] / exact[0] - 1 < 1e-4
    np.testing.assert_allclose(out["relative_error"], (w - exact) / exact, rtol=1e-12)
    assert out["parameters"]["elements"] == 4


@pytest.mark.parametrize("command", ["simulate", "compare", "modes", "figures"])
def test_help_every_option_has_a_description_and_a_default(runs, command):
    p = runs["help-" + command]
    assert p.returncode == 0, p.stderr
    entries = _help_entries(p.stdout)
    assert "--help" in entries
    del entries["--help"]
    assert len(entries) >= 3
    for opt, (_metavar, text) in entries.items():
        assert "default" in text, f"{opt}: no default in {text!r}"
        description = text.split("default")[0].strip(" ;:(")
        assert len(description) >= 10, f"{opt}: no description in {text!r}"


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_help_parameters_units_ranges_metavars_and_choices(runs, command):
    p = runs["help-" + command]
    entries = _help_entries(p.stdout)
    for name, (_lo, _hi, _a, _b, kind, unit) in RANGES.items():
        opt = "--" + {"e": "restitution", "method": "integrator"}.get(name, name).replace("_", "-")
        assert opt in entries, opt
        text = entries[opt][1]
        if not unit.startswith("-"):
            assert f" {unit}" in text, f"{opt}: unit {unit!r} not in {text!r}"
        if isinstance(kind, tuple):                         # method, multiplier_mode, stick_limit
            for choice in kind:
                assert f"'{choice}'" in text, f"{opt}: choice {choice!r} not listed"
    # case-dependent defaults: case 3.2's value, and case 3.1's where it differs
    assert "default 0.4 (case 3.1: 0.3)" in entries["--mu-d"][1]
    assert "default 0.5 m (case 3.1: 0.3 m)" in entries["--X1"][1]
    metavars = [mv for mv, _ in entries.values() if mv is not None]
    assert len(metavars) == len(set(metavars)), sorted(metavars)
    assert entries["--E"][0] != entries["--restitution"][0]
    models = ("free", "frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre")
    model_opt = "--model" if command == "simulate" else "--models"
    for m in models:
        assert m in entries[model_opt][1]
        assert re.search(rf"^  {m} +\S", p.stdout, re.M), f"model {m} has no line in the models list"
    if command == "simulate":
        assert "default frictionless" in entries["--model"][1]


def test_help_main_points_to_the_commands(runs):
    p = _run(["--help"])
    assert p.returncode == 0
    for command in ("simulate", "compare", "sweep", "modes", "figures", "notebooks"):
        assert command in p.stdout
    assert "default" in p.stdout


# ---------------------------------------------------------------------------- --csv
def test_csv_holds_every_history_with_units(runs):
    from flexlib.result import load_result
    p = runs["csv"]
    assert p.returncode == 0 and p.stderr == "", p.stderr
    r = load_result(runs["_paths"]["csv_npz"])            # the same run, written by --save
    with open(runs["_paths"]["csv"]) as f:
        header = f.readline().rstrip("\n").split(",")
    data = np.loadtxt(runs["_paths"]["csv"], delimiter=",", skiprows=1, ndmin=2)
    assert data.shape == (len(r.t), len(header))
    parsed = [re.fullmatch(r"(\w+) \[(.+)\]", h) for h in header]
    assert all(parsed), [h for h, m in zip(header, parsed) if not m]
    assert header[0] == "t [s]"
    units = {m.group(1): m.group(2) for m in parsed}
    for name, unit in dict(theta="rad", theta_dot="rad/s", B_1="m", B_3="m", B_dot_2="m/s",
                           tip_Y="m", tip_Ydot="m/s", N="N", F_t="N", E="J", audit="J",
                           gap="m", v_t="m/s", mu_eff="-").items():
        assert units.get(name) == unit, (name, units.get(name))
    assert "B" not in units and "B_4" not in units             # N = 3 modes, one column each
    seen = set()
    for col, m in enumerate(parsed):
        name = m.group(1)
        vec = re.fullmatch(r"(B|B_dot|C|C_dot)_(\d+)", name)
        expected = r.h[vec.group(1)][:, int(vec.group(2)) - 1] if vec else r.h[name]
        seen.add(vec.group(1) if vec else name)
        np.testing.assert_array_equal(data[:, col], np.asarray(expected, float), err_msg=name)
    assert seen == set(r.h)                                  # every history, nothing else


def test_dt_writes_the_histories_on_a_uniform_grid_of_the_interpolant(runs):
    """--dt 1 ms: 401 rows at t = 0, 1 ms, ..., 0.4 s, each the state of the run at that instant
    (read from the interpolant: equal to the library's own sample of the same run)."""
    import flexlib as fl
    p = runs["dt"]
    assert p.returncode == 0 and p.stderr == "", p.stderr
    with open(runs["_paths"]["dt_csv"]) as f:
        header = f.readline().rstrip("\n").split(",")
    data = np.loadtxt(runs["_paths"]["dt_csv"], delimiter=",", skiprows=1, ndmin=2)
    t = data[:, header.index("t [s]")]
    np.testing.assert_allclose(t, np.arange(401) * 1e-3, rtol=0, atol=1e-15)
    r = fl.simulate("3.2", "hybrid_coulomb", 0.4)
    for key in ("theta", "theta_dot", "N", "E"):
        np.testing.assert_array_equal(data[:, header.index(f"{key} [{fl.result.HISTORY_UNITS[key]}]")],
                                      r.sample(t, key), err_msg=key)


# ---------------------------------------------------------------------------- compare
def test_compare_prints_both_models_impacts_and_writes_json(runs):
    p = runs["compare"]
    assert p.returncode == 0 and p.stderr == "", p.stderr
    d = json.loads(runs["_paths"]["compare"].read_text())
    assert d["models"] == ["frictionless", "lugre"] and d["case"] == "3.2" and d["t_end"] == 0.4
    rows = re.findall(r"^ *(\d*) +(frictionless|lugre) +([\d.]+) +([\d.]+) +([\d.e+-]+) +([\d.e+-]+)$",
                      p.stdout, re.M)
    for m in ("frictionless", "lugre"):
        s = d["results"][m]
        assert s["model"] == m and s["success"] is True and s["case"] == "3.2"
        assert len(s["impacts"]) >= 1
        assert s["first_contact"]["t"] == pytest.approx(0.3329, abs=1e-3)     # rigid rod: 0.33293 s
        mine = [r for r in rows if r[1] == m]
        assert len(mine) == len(s["impacts"]), p.stdout
        for (_k, _m, t0, dur, peak, lost), im in zip(mine, s["impacts"]):
            assert float(t0) == pytest.approx(im["t_start"], abs=1e-6)
            assert float(dur) == pytest.approx(1e3 * im["duration"], abs=1e-3)
            assert float(peak) == pytest.approx(im["peak_normal_force"], rel=1e-3)
            assert float(lost) == pytest.approx(im["energy_lost"], rel=1e-3)
        assert re.search(rf"^ +{m} +0\.4 +{len(s['impacts'])} .* ok$", p.stdout, re.M), p.stdout
        csv = runs["_paths"]["compare_csv"].with_name(f"compare_{m}.csv")
        assert csv.read_text().startswith("t [s],mode [")
    assert rows[0][0] == "1" and rows[0][1] == "frictionless" and rows[1][:2] == ("", "lugre")


def test_compare_a_stopped_model_is_reported_and_the_others_run(runs):
    p = runs["compare-stopped"]
    assert "Traceback" not in p.stderr
    assert p.returncode == 3, (p.returncode, p.stderr)
    line = _one_line(p.stderr)
    assert line.startswith("flexlib: simulation stopped: hybrid_coulomb: event cap")
    assert re.search(r"^ +hybrid_coulomb .*stopped: event cap", p.stdout, re.M), p.stdout
    assert re.search(r"^ +frictionless +0\.8 .* ok$", p.stdout, re.M), p.stdout
    d = json.loads(runs["_paths"]["compare_stopped"].read_text())
    assert d["results"]["hybrid_coulomb"]["success"] is False
    assert d["results"]["frictionless"]["success"] is True


@pytest.mark.parametrize("key, needles", [("compare-bad-model", ["unknown model 'coulomb'", "lugre"]),
                                          ("compare-bad-param", ["'mu_d'", "-1", "[0, 10]"])])
def test_compare_user_error_one_line_exit_2(runs, key, needles):
    p = runs[key]
    assert p.returncode == 2 and "Traceback" not in p.stderr and p.stdout == ""
    line = _one_line(p.stderr)
    for n in needles:
        assert n in line, line


# ---------------------------------------------------------------------------- progress line
def test_progress_line_waits_two_seconds_throttles_and_clears():
    now = [0.0]
    out = io.StringIO()
    prog = _Progress(out, "lugre: ", clock=lambda: now[0])
    for t_wall, t in ((0.5, 0.1), (1.9, 0.5)):
        now[0] = t_wall
        prog(t, 2.0)
    assert out.getvalue() == ""                              # a run under 2 s prints nothing
    now[0] = 2.1
    prog(1.0, 2.0)
    first = out.getvalue()
    assert first.startswith("\r") and "lugre: t = 1.000 / 2.000 s" in first and "( 50 %)" in first
    now[0] = 2.2
    prog(1.1, 2.0)
    assert out.getvalue() == first                           # at most every 0.2 s
    now[0] = 2.35
    prog(1.5, 2.0)
    assert "( 75 %)" in out.getvalue()
    prog.close()
    text = out.getvalue()
    assert text.endswith("\r") and text.count("\r") == 4 and "\n" not in text
    assert text.rsplit("\r", 2)[1].strip() == ""             # the line is blanked out


def test_progress_close_without_output_writes_nothing():
    out = io.StringIO()
    prog = _Progress(out, clock=lambda: 0.0)
    prog(0.5, 1.0)
    prog.close()
    assert out.getvalue() == ""


def test_a_missing_optional_package_names_the_extra(monkeypatch, capsys):
    """The figures command without the 'studies' extra: one line naming the package and the
    extra to install, exit code 2, no traceback."""
    import flexlib.studies.figures as figures_mod
    from flexlib.cli import main

    def make_all(*args, **kwargs):
        raise ModuleNotFoundError("No module named 'xarray'", name="xarray")
    monkeypatch.setattr(figures_mod, "make_all", make_all)
    assert main(["figures", "--out", "unused"]) == 2
    err = capsys.readouterr().err
    assert "'xarray'" in err and "flexlib[studies]" in err and "Traceback" not in err
