"""Command line error handling and the JSON summary, end to end through ``python -m flexlib``.

Every command runs in its own subprocess (``sys.executable -m flexlib`` with cwd = the project
root).  All of them are started together by one module fixture and run concurrently (each pays the
~1 s import of numpy/scipy/numba once), then the tests look at the results.

Contract (flexlib/cli.py): a user error prints one line ``flexlib: error: ...`` naming the bad
parameter and its valid range (or the valid names) and exits 2; a run that stops with
SimulationError prints one line ``flexlib: simulation stopped: ...``, still writes the partial JSON
and exits 3; neither shows a traceback.
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from flexlib.params import paper_case

ROOT = Path(__file__).resolve().parents[1]

# (id, argv after "simulate --quiet", substrings the one-line message must contain)
BAD_INPUTS = [
    ("model-unknown", ["--model", "coulomb"],
     ["unknown model 'coulomb'", "frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre"]),
    ("model-empty", ["--model", ""], ["unknown model ''", "hybrid_coulomb", "lugre"]),
    ("case-unknown", ["--case", "3.3"], ["unknown case '3.3'", "3.1", "3.2", "'A'", "'B'"]),
    ("case-C", ["--case", "C"], ["unknown case 'C'", "3.1", "3.2"]),
    ("mu_s-below-mu_d", ["--mu-s", "0.1"], ["'mu_s'", "0.1", "mu_d = 0.4", "10]"]),
    ("n_modes-9", ["--n-modes", "9"], ["'n_modes'", "9", "[1, 8]"]),
    ("n_modes-2.5", ["--n-modes", "2.5"], ["'n_modes'", "2.5", "[1, 8]"]),
    ("n_modes-text", ["--n-modes", "three"], ["'n_modes'", "'three'", "not a number", "[1, 8]"]),
    ("t_end-negative", ["--t-end", "-1"], ["'t_end'", "-1", "(0, 1000] s"]),
    ("t_end-zero", ["--t-end", "0"], ["'t_end'", "(0, 1000] s"]),
    ("t_end-inf", ["--t-end", "inf"], ["'t_end'", "inf", "(0, 1000] s"]),
    ("t_end-text", ["--t-end", "abc"], ["'t_end'", "'abc'", "not a number", "(0, 1000] s"]),
    ("sigma0-zero", ["--sigma0", "0"], ["'sigma0'", "(0, 1e+09] 1/m"]),
    ("sigma1-negative", ["--sigma1", "-1"], ["'sigma1'", "[0, 1e+06] s/m"]),
    ("alpha-nan", ["--alpha", "nan"], ["'alpha'", "nan", "[-1.5, 1.5] rad"]),
    ("e-2", ["--e", "2"], ["'e'", "2", "[0, 1]"]),
    ("mu_d-text", ["--mu-d", "abc"], ["'mu_d'", "'abc'", "not a number", "[0, 10]"]),
    ("mu_d-negative", ["--mu-d", "-0.1"], ["'mu_d'", "-0.1", "[0, 10]"]),
    ("event_cap-5", ["--event-cap", "5"], ["'event_cap'", "[10, 1e+07]"]),
    ("foreshortening-maybe", ["--foreshortening", "maybe"], ["'foreshortening'", "True or False"]),
    ("method-unknown", ["--method", "Euler"], ["'method'", "'Euler'", "'DOP853'", "'Radau'"]),
    ("multiplier_mode-unknown", ["--multiplier-mode", "foo"], ["'multiplier_mode'", "'coupled'", "'printed'"]),
    ("stick_limit-unknown", ["--stick-limit", "foo"], ["'stick_limit'", "'mu_d'", "'mu_s'"]),
    ("n_gauss-too-small", ["--n-gauss", "5"], ["'n_gauss'", "n_modes = 3", "[14, 400]"]),
    ("lugre-mu_s-zero", ["--model", "lugre", "--mu-d", "0", "--mu-s", "0"],
     ["'mu_s'", "LuGre", "(0, 10]"]),
    ("start-below-slope", ["--theta0", "0.1"], ["below the slope", "theta0"]),
    ("sample-times-text", ["--sample-times", "0.1,x"], ["--sample-times", "'0.1,x'"]),
    ("sample-times-outside", ["--sample-times", "5", "--t-end", "0.5"], ["--sample-times", "t_end = 0.5"]),
    ("json-missing-dir", ["--json", "/nonexistent-flexlib-dir/x.json"], ["--json", "does not exist"]),
    ("save-missing-dir", ["--save", "/nonexistent-flexlib-dir/x.npz"], ["--save", "does not exist"]),
    ("unknown-option", ["--bogus", "1"], ["unrecognized arguments", "--bogus"]),
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
                 ok_npz=tmp / "ok.npz")
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
@pytest.mark.parametrize("key, argv, needles", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_input_one_line_exit_2(runs, key, argv, needles):
    p = runs[key]
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2, (p.returncode, p.stderr)
    line = _one_line(p.stderr)
    assert line.startswith("flexlib: error: "), line
    for n in needles:
        assert n in line, f"{n!r} not in {line!r}"
    assert p.stdout == ""


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
    assert d["params"] == json.loads(json.dumps(paper_case("3.2").as_dict()))
    assert set(d["first_contact"]) >= {"t", "theta", "tip_deflection"}
    assert d["first_contact"]["t"] == pytest.approx(0.3329, abs=1e-3)
    assert len(d["impacts"]) >= 1
    for im in d["impacts"]:
        assert set(im) >= {"t_start", "t_end", "peak_normal_force", "episodes", "energy_before",
                           "energy_after", "jump_loss", "stick_intervals", "slip_intervals"}
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
