"""Whole runs against their stored fingerprints (tests/data/reference_runs/<numerics>.json).

This is a regression guard, not a physics check: the fingerprints were recorded by
``scripts/reference_runs.py`` from the code itself.  Restructuring and speed work must leave
every number unchanged (to 1e-12 of each history's scale); a change that is meant to change the
numbers regenerates the files in the same commit and says why.

The scale of the energy-audit residual is the run's energy, max |E|, not the residual's own size:
the residual is a difference of energies of order 1 J, so one unit in the last place of E
(~4e-16 J) is its round-off floor, and "1e-12 of the residual's size" (~1e-19 J) would ask for
bits below it.  The files were recorded before the physics core was restructured.

A run is bit-comparable only under the numeric environment its fingerprint was recorded in
(how NumPy and OpenBLAS round: scripts/reference_runs.py, flexlib/_numerics.py): the whole run
is compared with the file of this environment; the part up to the first contact, where the
environments agree (measured between an AMD EPYC and an unpinned Intel Xeon with AVX-512: first
contact to 8e-16 s, its impulse to 8e-13, the energy to 3e-15 of its scale), with every file.
scripts/test.sh sets the pins under which the AMD file is reproduced on the Intel Xeon.

Histories are compared only with a file whose histories were read the same way (``sampling``:
the integrator's dense output now; a linear interpolation between stored samples in files
recorded before); the jump times, impulses and event counts do not depend on it.
"""
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import reference_runs as rr  # noqa: E402

STORED = {p.stem: json.loads(p.read_text()) for p in sorted(rr.DATA.glob("*.json"))}
HERE = rr.platform_key()
REL = 1e-12
_RUNS = {}


def _sampling(runs):
    """How a file's histories were read at its fixed times (older files: linear interpolation)."""
    return next(iter(runs.values())).get("sampling", "linear")


def _run(run):
    """The fingerprint of ``run`` computed now (once per session)."""
    if run[0] not in _RUNS:
        _RUNS[run[0]] = rr.compute([run])[run[0]]
    return _RUNS[run[0]]


def test_fingerprints_are_stored_for_at_least_one_environment():
    assert STORED, f"no fingerprint files in {rr.DATA}"
    for key, runs in STORED.items():
        assert sorted(runs) == sorted(r[0] for r in rr.RUNS), key


@pytest.mark.parametrize("run", rr.RUNS, ids=[r[0] for r in rr.RUNS])
def test_run_matches_its_fingerprint(run):
    if HERE not in STORED:
        pytest.skip(f"no fingerprints recorded in this numeric environment ({HERE}; stored: "
                    f"{', '.join(STORED)}): run the tests with bash scripts/test.sh, which pins "
                    f"it, or record them with scripts/reference_runs.py from the commit the "
                    f"stored files were recorded with; the first-contact check runs")
    label = run[0]
    new = _run(run)
    old = STORED[HERE][label]
    assert new["t_reached"] == old["t_reached"] and new["success"] == old["success"]
    assert new["n_events"] == old["n_events"]
    assert len(new["jump_t"]) == len(old["jump_t"])
    assert old.get("sampling", "linear") == new["sampling"], "record this file with the new sampling"
    for key in rr.KEYS + ("jump_t", "jump_impulse"):
        a, b = np.asarray(new[key], float), np.asarray(old[key], float)
        ref = np.asarray(old["E"], float) if key == "audit" else b
        scale = max(np.max(np.abs(ref)), 1e-300)
        assert np.max(np.abs(a - b)) <= REL * scale, key


@pytest.mark.parametrize("numerics", sorted(STORED))
@pytest.mark.parametrize("run", rr.RUNS, ids=[r[0] for r in rr.RUNS])
def test_run_agrees_with_every_environment_up_to_the_first_contact(run, numerics):
    """Up to the first contact the numeric environments agree far below any physical change:
    the first contact time to 1e-12 relative, its impulse to 1e-9 relative and the energy before
    it to 1e-12 of its scale (measured between them: 2.5e-15, 8e-13, 3e-15)."""
    new = _run(run)
    old = STORED[numerics][run[0]]
    assert new["jump_t"] and old["jump_t"]
    t1, t1_old = new["jump_t"][0], old["jump_t"][0]
    assert abs(t1 - t1_old) <= REL * t1_old
    assert abs(new["jump_impulse"][0] - old["jump_impulse"][0]) <= 1e-9 * abs(old["jump_impulse"][0])
    if _sampling(STORED[numerics]) != new["sampling"]:
        return
    times = np.asarray(old["times"])
    before = times < t1_old
    assert before.sum() > 10
    E, E_old = np.asarray(new["E"])[before], np.asarray(old["E"])[before]
    assert np.max(np.abs(E - E_old)) <= REL * np.max(np.abs(E_old))
