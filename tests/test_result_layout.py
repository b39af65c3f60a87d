"""One result layout for every case: ``python -m flexlib simulate --json`` of a short run of each
kind of case (the system engine's three cases and the single-beam case 3.2) has the same keys and
types, impacts that are clusters of contact episodes with consistent impulses and energies, and
``params`` from which the same run can be made again.

The layout is documented in docs/usage.md, section "The result"."""
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# (case, t_end [s]): each reaches its first impact (double pendulum 0.62 s, falling beam 0.14 s,
# beam on slope and case 3.2 0.33 s)
RUNS = {"double-pendulum": 0.65, "falling-beam": 0.2, "beam-on-slope": 0.4, "3.2": 0.4}
SAMPLE_TIMES = "0,0.1,0.2"
TOP = {"success": bool, "message": str, "params": dict, "impacts": list, "samples": dict,
       "warnings": list, "stats": dict, "energy": dict}
IMPACT = {"contact": str, "t_start": float, "energy_before": float, "energy_after": float,
          "jump_impulse": float, "normal_impulse": float, "episodes": list}
EPISODE = ("t_start", "duration", "normal_impulse", "peak_normal_force")


def _run(case, t_end, path):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, "-m", "flexlib", "simulate", "--quiet", "--case", case,
                        "--t-end", str(t_end), "--sample-times", SAMPLE_TIMES, "--json", str(path)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=3000)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("layout")
    with ThreadPoolExecutor(max_workers=2) as ex:
        futs = {c: ex.submit(_run, c, t, tmp / f"{c}.json") for c, t in RUNS.items()}
        return {c: f.result() for c, f in futs.items()}


@pytest.mark.parametrize("case", RUNS)
def test_the_keys_and_types(runs, case):
    d = runs[case]
    for key, kind in TOP.items():
        assert isinstance(d[key], kind), (key, type(d[key]))
    assert d["success"] is True and d["message"]
    assert d["first_contact"] is None or isinstance(d["first_contact"]["t"], float)
    assert isinstance(d["energy"]["audit_residual_max"], float)
    assert d["params"]["t_end"] == pytest.approx(RUNS[case], abs=1e-12)
    assert {"case", "model", "solver"} <= set(d["params"])
    assert d["samples"]["t"] == [0.0, 0.1, 0.2]
    for b in d["samples"]["bodies"]:
        assert {"name", "theta", "theta_dot", "R", "R_dot", "r_cm", "v_cm", "omega_mean"} <= set(b)
    assert d["impacts"], "each run reaches its first impact"
    assert "impulse" not in json.dumps(d).replace("_impulse", "")      # no ambiguous 'impulse'
    for im in d["impacts"]:
        for key, kind in IMPACT.items():
            assert isinstance(im[key], kind), (key, im[key])
        assert im["episodes"]
        for ep in im["episodes"]:
            assert set(ep) == set(EPISODE)
            assert isinstance(ep["t_start"], float) and ep["duration"] >= 0.0
            assert ep["peak_normal_force"] is None or ep["peak_normal_force"] >= 0.0


@pytest.mark.parametrize("case", RUNS)
def test_the_impulses_of_an_impact(runs, case):
    """The jump at the start is part of the impact's normal impulse, which is its episodes' sum."""
    for im in runs[case]["impacts"]:
        assert 0.0 <= im["jump_impulse"] <= im["normal_impulse"] * (1 + 1e-12)
        total = math.fsum(ep["normal_impulse"] for ep in im["episodes"])
        assert im["normal_impulse"] == pytest.approx(total, rel=1e-12, abs=1e-15)
        assert im["episodes"][0]["t_start"] == im["t_start"]


@pytest.mark.parametrize("case", RUNS)
def test_the_impacts_follow_each_other_per_contact_point(runs, case):
    """Per point the impacts start one after the other, at least t_cluster of flight apart (else
    they would be one impact), and each one's episodes are in time order."""
    d = runs[case]
    t_cluster = d["params"]["solver"]["t_cluster"]
    by_point = {}
    for im in d["impacts"]:
        by_point.setdefault(im["contact"], []).append(im)
        starts = [ep["t_start"] for ep in im["episodes"]]
        assert starts == sorted(starts)
    for ims in by_point.values():
        for a, b in zip(ims, ims[1:]):
            end_a = a["episodes"][-1]["t_start"] + a["episodes"][-1]["duration"]
            assert b["t_start"] > a["t_start"] and b["t_start"] - end_a >= t_cluster


@pytest.mark.parametrize("case", [c for c in RUNS if c != "double-pendulum"])
def test_a_constraint_impact_does_not_add_energy(runs, case):
    """The default models of these cases are constraint models (impulse jumps, Coulomb friction or
    none): an impact takes energy out, up to the audit's bound on the energy books' error."""
    d = runs[case]
    bound = 2.0 * d["energy"]["audit_residual_max"]
    for im in d["impacts"]:
        assert im["energy_after"] <= im["energy_before"] + bound


@pytest.mark.parametrize("case", RUNS)
def test_params_make_the_same_run(runs, case):
    """The run made again from its ``params`` alone gives the same impacts and samples."""
    d = runs[case]
    p = d["params"]
    if case == "3.2":
        from flexlib.params import Case
        from flexlib.paper import simulate
        res = simulate(Case.from_dict(p), p["model"], p["t_end"])
    else:
        from flexlib.cases import rerun
        res = rerun(p)
    again = json.loads(json.dumps(res.summary([0.0, 0.1, 0.2])))
    assert again["params"] == p
    assert again["impacts"] == d["impacts"]
    assert again["samples"] == d["samples"]


def test_the_histories_of_one_compiled_call_are_those_of_the_step_by_step_evaluation():
    """``history`` evaluates every sample in one compiled call; the same outputs come from the
    simulator's own evaluation at each sample (the right-hand side the integrator ran), bit for
    bit, and a free body's frame origin is its coordinates R."""
    import numpy as np
    from flexlib.cases import simulate
    from flexlib.multibody import kernel as K
    res = simulate("falling-beam", t_end=0.16)          # lands at 0.143 s: flight and contact
    starts = np.array([p.sol.t[0] for p in res.phases])
    times = np.linspace(0.0, res.t_end, 41)
    h = res.history(times)
    Y = res.sample(times)
    closed = 0
    for k, t in enumerate(times):
        phase = res.phases[max(int(np.searchsorted(starts, t, side="right")) - 1, 0)]
        _, out = res.sim.evaluate(t, Y[k], phase.disc)
        assert h["T"][k] == out[K.O_T] and h["V_E"][k] == out[K.O_VE] and h["V_G"][k] == out[K.O_VG]
        for c, name in enumerate(res.contact_names):
            o = K.O_C0 + K.NOC * c
            for j, key in enumerate(K.OC_NAMES):
                assert h[f"{name}.{key}"][k] == out[o + j] or (np.isnan(out[o + j])
                                                               and np.isnan(h[f"{name}.{key}"][k]))
            closed += h[f"{name}.mode"][k] != K.FREE
    assert closed > 0
    (ir, _, _), = res.system.coordinates()[1]
    assert np.array_equal(h["beam.R"], Y[:, ir:ir + 2])
