"""Regression fingerprints of whole runs: write or check ``tests/data/reference_runs/<numerics>.json``.

    .venv/bin/python scripts/reference_runs.py            # write (after a deliberate change)
    tests/test_reference_runs.py                           # checks the stored files

A fingerprint is not a correctness check (the physics checks in tests/ are): it records what a
run gave, so that a restructuring or a speed change that must not change any number can prove
it did not.  Each run stores, at 401 fixed times over its window, the histories below, plus
every velocity-jump time and impulse and the event count.  ``sampling`` says how the histories
were read at those times: ``"dense output"`` (the integrator's 7th-order interpolant, what
:meth:`SimulationResult.sample` does now) or, in files recorded before it did, ``"linear"`` (a
linear interpolation between the stored samples, off by up to 3e-4 rad in theta and 1.6 rad/s
in theta' where the beam vibrates between two steps; the jump times, impulses and event counts
are the same bits either way).  Regenerate a file only when a change is *meant* to change the
numbers, and say so in the commit.

Fingerprints are stored per numeric environment (:func:`platform_key`): the last bits of a run
depend on how NumPy's elementwise functions and OpenBLAS round on the machine, not only on the
code (flexlib/_numerics.py).  The same commit on an AMD EPYC and, unpinned, on an Intel Xeon with
AVX-512 reaches the first contact at the same time to 8e-16 s and with the same impulse to 8e-13,
but the frictionless run makes 67 velocity jumps by t = 2 s on the AMD EPYC and 59 on the Intel
Xeon.  With the pins of flexlib/_numerics.py (which the README's commands set) the Intel Xeon
reproduces the AMD file to the bit.  tests/test_reference_runs.py compares the whole run with the file of its own
numeric environment, and the part up to the first contact with every file.  A file for a new
environment must be recorded with the code the other files were recorded with (git log of
tests/data/reference_runs/), not with the code under test.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "reference_runs"
KEYS = ("theta", "theta_dot", "tip_deflection", "tip_Y", "E", "N", "F_t", "z", "audit")
SAMPLING = "dense output"

# (label, model, t_end, overrides)
RUNS = [
    ("frictionless", "frictionless", 2.0, {}),
    ("lugre", "lugre", 2.0, {}),
    ("hybrid_coulomb", "hybrid_coulomb", 2.0, {}),
    ("hybrid_lugre", "hybrid_lugre", 2.0, {}),
    ("hybrid_coulomb_axial1", "hybrid_coulomb", 0.6, {"axial_modes": 1}),
]


def platform_key() -> str:
    """The numeric environment of this process as a file name: ``numerics-<hash>``
    (:func:`flexlib._numerics.numerics_id`)."""
    from flexlib._numerics import numerics_id
    return f"numerics-{numerics_id()}"


def out_path(key: str | None = None) -> Path:
    """The fingerprint file of the numeric environment ``key`` (default: this one)."""
    return DATA / f"{key or platform_key()}.json"


def fingerprint(res, t_end):
    times = np.linspace(0.0, min(t_end, float(res.t[-1])), 401)
    return dict(
        sampling=SAMPLING,
        t_reached=float(res.t_end), success=bool(res.success), n_events=len(res.events),
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
