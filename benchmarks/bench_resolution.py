"""Accuracy against cost of the multibody systems' settings (flexlib.studies.resolution): run them.

Runs every setting of :data:`flexlib.studies.resolution.SETTINGS` (the assumed modes with the
default integrator; finite-element meshes with the default integrator and with the implicit
integrators, Radau IIA and the generalized-alpha step, at rtol 1e-3) on the tilted falling beam
(0-0.16 s) and the double pendulum (0-0.65 s), warm, one at a time, and measures each against the
system's converged reference (tests/data/converged_references.json).  Writes
``benchmarks/results/accuracy_resolution.json``; the figures command draws
``figures/accuracy_resolution.png`` from it.  Each run is cached in
``benchmarks/results/tmp/resolution/`` (a rerun computes only what is missing; ``--refresh``
recomputes).

    python3 benchmarks/bench_resolution.py [--systems falling-beam,double-pendulum] [--refresh]

About 5 minutes of runs on one core of the 2-core machine (the pendulum's longest runs take
43 s with Radau at 64 elements per link and 66 s with the generalized-alpha step at 16), and the
compilation of the integrators on a first run.
"""
import argparse
import hashlib
import json
import warnings

import _common

from flexlib.outputs import write_text
from flexlib.studies import resolution as rs

CACHE = _common.RESULTS / "tmp" / "resolution"


def cached(system, s, refresh):
    """:func:`flexlib.studies.resolution.run_setting`, kept in :data:`CACHE` under a name that
    hashes the system's run and the setting."""
    key = json.dumps([system, rs.SYSTEMS[system], s], sort_keys=True)
    name = f"{system}_{hashlib.sha1(key.encode()).hexdigest()[:12]}"
    return _common.cached(CACHE, name, rs.run_setting, system, s, refresh=refresh)


def aim():
    """The cost aim of the defaults: 1.5 times the CPU time of case 3.2's hybrid Coulomb run over
    0-2 s, warm (the median of three)."""
    _common.warm_up()
    c = _common.median_runs(lambda: _common.run_model("hybrid_coulomb", 2.0), 3)["cpu_s"]
    return dict(case="3.2", model="hybrid_coulomb", t_end=2.0, cpu_s=c, aim_cpu_s=1.5 * c)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", default=",".join(rs.SYSTEMS))
    ap.add_argument("--refresh", action="store_true", help="recompute cached runs")
    a = ap.parse_args()
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    machine = _common.machine()
    print(_common.machine_line(machine), flush=True)
    out = rs.load() if rs.RESULTS_JSON.exists() else {}
    for system in a.systems.split(","):
        ref = rs.reference(system)
        rows = []
        for s in rs.SETTINGS[system]:
            rec = cached(system, s, a.refresh)
            rec["errors"] = rs.errors(rec["values"], ref["values"])
            rows.append(rec)
            e = rec["errors"]
            print(f"{system:<16}{rec['label']:<26}{rec['cpu_s']:8.2f} s CPU  impulses "
                  f"{e['impulses']:8.2%}  peak {e['peak']:8.2%}  motion {e['motion']:8.2%}  "
                  f"episodes {rec['values']['episodes']}", flush=True)
        cheapest = {t: (c["label"] if (c := rs.cheapest(rows, t)) else None) for t in rs.TARGETS}
        print(f"  cheapest: {cheapest}", flush=True)
        out[system] = dict(spec=rs.SYSTEMS[system], reference=ref, runs=rows, cheapest=cheapest)
    out["targets"] = rs.TARGETS
    out["aim"] = aim()
    print(f"  the aim: 1.5 x case 3.2's hybrid Coulomb run over 0-2 s, {out['aim']['cpu_s']:.2f} s "
          f"CPU warm: {out['aim']['aim_cpu_s']:.2f} s", flush=True)
    out["machine"] = machine
    write_text(rs.RESULTS_JSON, json.dumps(_common._plain(out), indent=1, sort_keys=True) + "\n")
    print(f"wrote {rs.RESULTS_JSON}")


if __name__ == "__main__":
    main()
