"""Whole runs against their stored fingerprints (tests/data/reference_runs.json).

This is a regression guard, not a physics check: the fingerprints were recorded by
``scripts/reference_runs.py`` from the code itself.  Restructuring and speed work must leave
every number unchanged (to 1e-12 of each history's scale); a change that is meant to change the
numbers regenerates the file in the same commit and says why.

The scale of the energy-audit residual is the run's energy, max |E|, not the residual's own size:
the residual is a difference of energies of order 1 J, so one unit in the last place of E
(~4e-16 J) is its round-off floor, and "1e-12 of the residual's size" (~1e-19 J) would ask for
bits below it.  The file was recorded before the physics core was restructured.
"""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import reference_runs as rr  # noqa: E402

STORED = json.loads(rr.OUT.read_text())
REL = 1e-12


@pytest.mark.parametrize("run", rr.RUNS, ids=[r[0] for r in rr.RUNS])
def test_run_matches_its_fingerprint(run):
    label = run[0]
    new = rr.compute([run])[label]
    old = STORED[label]
    assert new["t_reached"] == old["t_reached"] and new["success"] == old["success"]
    assert new["n_events"] == old["n_events"]
    assert len(new["jump_t"]) == len(old["jump_t"])
    for key in rr.KEYS + ("jump_t", "jump_impulse"):
        a, b = np.asarray(new[key], float), np.asarray(old[key], float)
        ref = np.asarray(old["E"], float) if key == "audit" else b
        scale = max(np.max(np.abs(ref)), 1e-300)
        assert np.max(np.abs(a - b)) <= REL * scale, key
