"""Regression fingerprints of whole runs: write or check ``tests/data/reference_runs/<cpu>.json``.

    .venv/bin/python scripts/reference_runs.py            # write (after a deliberate change)
    tests/test_reference_runs.py                           # checks the stored files

A fingerprint is not a correctness check (the physics checks in tests/ are): it records what a
run gave, so that a restructuring or a speed change that must not change any number can prove
it did not.  Each run stores, at 401 fixed times over its window, the histories below (linear
interpolation of the samples), plus every velocity-jump time and impulse and the event count.
Regenerate it only when a change is *meant* to change the numbers, and say so in the commit.

Fingerprints are stored per kind of CPU (:func:`platform_key`: vendor, family and model).  The
last bits of a run depend on the processor it runs on, not only on the code: the same commit on
an AMD EPYC (family 25 model 1) and on an Intel Xeon (family 6 model 167) reaches the first
contact at the same time to 8e-16 s and with the same impulse to 8e-13, but the integrator's
step sequence differs from the first steps on, and the event-driven runs amplify that to 1e-5
(LuGre) .. 1e-3 (frictionless, whose impact count changes) by t = 2 s.  So a fingerprint is
bit-comparable only on the kind of CPU it was recorded on; tests/test_reference_runs.py checks
the whole run against the file of its own CPU kind, and the part up to the first contact against
the files of every kind.  A file for a new kind of CPU must be recorded with the code the other
files were recorded with (git log of tests/data/reference_runs/), not with the code under test.
"""
from __future__ import annotations

import json
import platform
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "reference_runs"
KEYS = ("theta", "theta_dot", "tip_deflection", "tip_Y", "E", "N", "F_t", "z", "audit")

# (label, model, t_end, overrides)
RUNS = [
    ("frictionless", "frictionless", 2.0, {}),
    ("lugre", "lugre", 2.0, {}),
    ("hybrid_coulomb", "hybrid_coulomb", 2.0, {}),
    ("hybrid_lugre", "hybrid_lugre", 2.0, {}),
    ("hybrid_coulomb_axial1", "hybrid_coulomb", 0.6, {"axial_modes": 1}),
]


def platform_key() -> str:
    """The kind of CPU this process runs on, as a file name: ``<vendor>-<family>-<model>`` from
    /proc/cpuinfo (e.g. ``AuthenticAMD-25-1``), else the platform module's machine and
    processor names."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                key = key.strip()
                if key in ("vendor_id", "cpu family", "model") and key not in fields:
                    fields[key] = value.strip()
                if len(fields) == 3:
                    break
    except OSError:
        pass
    if len(fields) == 3:
        raw = f"{fields['vendor_id']}-{fields['cpu family']}-{fields['model']}"
    else:
        raw = f"{platform.machine()}-{platform.processor() or 'unknown'}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", raw)


def out_path(key: str | None = None) -> Path:
    """The fingerprint file of the CPU kind ``key`` (default: this one)."""
    return DATA / f"{key or platform_key()}.json"


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
    out = out_path()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=0))
    print(f"wrote {out.relative_to(ROOT)}: " + ", ".join(f"{k} ({v['t_reached']:.4g} s)" for k, v in data.items()))
    sys.exit(0)
