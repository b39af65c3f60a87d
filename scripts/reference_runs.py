"""Regression fingerprints of whole runs: write or check ``tests/data/reference_runs.json``.

    .venv/bin/python scripts/reference_runs.py            # write (after a deliberate change)
    tests/test_reference_runs.py                           # checks the stored file

A fingerprint is not a correctness check (the physics checks in tests/ are): it records what a
run gave, so that a restructuring or a speed change that must not change any number can prove
it did not.  Each run stores, at 401 fixed times over its window, the histories below (linear
interpolation of the samples), plus every velocity-jump time and impulse and the event count.
Regenerate it only when a change is *meant* to change the numbers, and say so in the commit.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "reference_runs.json"
KEYS = ("theta", "theta_dot", "tip_deflection", "tip_Y", "E", "N", "F_t", "z", "audit")

# (label, model, t_end, overrides)
RUNS = [
    ("frictionless", "frictionless", 2.0, {}),
    ("lugre", "lugre", 2.0, {}),
    ("hybrid_coulomb", "hybrid_coulomb", 2.0, {}),
    ("hybrid_lugre", "hybrid_lugre", 2.0, {}),
    ("hybrid_coulomb_axial1", "hybrid_coulomb", 0.6, {"axial_modes": 1}),
]


def fingerprint(res, t_end):
    times = np.linspace(0.0, min(t_end, float(res.t[-1])), 401)
    return dict(
        t_reached=float(res.t[-1]), success=bool(res.success), n_events=len(res.events),
        jump_t=[float(j["t"]) for j in res.jumps], jump_impulse=[float(j["impulse"]) for j in res.jumps],
        times=times.tolist(),
        **{k: np.asarray(res.sample(times, k), float).tolist() for k in KEYS})


def compute(runs=RUNS):
    import flexlib as fl
    out = {}
    for label, model, t_end, ov in runs:
        try:
            res = fl.simulate("3.2", model, t_end, **ov)
        except fl.SimulationError as err:
            res = err.result
        out[label] = dict(model=model, t_end=t_end, overrides=ov, **fingerprint(res, t_end))
    return out


if __name__ == "__main__":
    data = compute()
    OUT.write_text(json.dumps(data, indent=0))
    print(f"wrote {OUT.relative_to(ROOT)}: " + ", ".join(f"{k} ({v['t_reached']:.4g} s)" for k, v in data.items()))
    sys.exit(0)
