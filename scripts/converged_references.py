"""flexlib's own converged references of the two systems: refine the finite-element mesh until the
contact answers stop moving.

Two runs, both with the continuous (Hertz) contact of the cases, frictionless:

* the falling beam tilted by 0.1 rad (``falling-beam``, ``theta0=0.1``), 0-0.16 s: the landing of
  the end x = 0 at 0.1428 s and the contact episodes after it;
* the double pendulum (``double-pendulum``), 0-0.65 s: the first contact burst of the point B at
  the stop (0.607 s) and the links' motion after it.

Each level is ``basis="fe", elements=N`` for every body.  Reported per level: the episodes of the
struck point until t_end (for the pendulum: the first burst, episodes less than 5 ms apart), their
count and total normal impulse, the first episode's start, duration, impulse and peak force, and
at t_end every body's centre-of-mass velocity and mean angular velocity (frame-free quantities),
with the run's wall time.  A level is converged in a quantity when it moved by at most ``--tol``
(0.5 %) from the level before; the stored ``converged`` block names the last level, its largest
change and whether every quantity met the tolerance.

Usage::

    python scripts/converged_references.py [--elements 4,8,16,32] [--rtol 1e-8] [--atol 1e-10]
        [--integrator auto] [--out tests/data/converged_references.json] [--systems falling-beam]
        [--keep [FILE ...]]

The stored study (tests/data/converged_references.json) was made by::

    python scripts/converged_references.py --systems falling-beam --elements 4,8,16,32,64
    python scripts/converged_references.py --systems double-pendulum \
        --elements 4,8,16,32,64,128,256 --rtol 1e-4 --atol 1e-5 --integrator Radau

(about 2 and 12 minutes once the kernels are compiled; the pendulum's 256-element level alone takes 8).

Each system's block records the integrator settings its levels were computed with (a system
not named in ``--systems`` keeps its block).  ``--keep`` takes the levels already computed (same
system, model, t_end, rtol, atol and integrator)
from ``--out`` and the files named after it, and runs only the others: a finer level can be
added to the stored study (or computed in another process, ``--out`` elsewhere, and merged)
without rerunning the coarse ones.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

OUT = os.path.join(ROOT, "tests", "data", "converged_references.json")
DEFAULT_ATOL = 1e-10     # the solver's default absolute tolerance

# the systems' runs (model, window, parameters, the struck point, whether only its first burst
# counts), the burst gap and a level's change from the one before: those of the settings study
from flexlib.studies.resolution import BURST_GAP, SYSTEMS  # noqa: E402
from flexlib.studies.resolution import relative_change as change  # noqa: E402


def measures(res, spec) -> dict:
    """The contact answers and the motion at t_end of one run."""
    from flexlib.studies.outside import contact_measures
    return contact_measures(res, spec["point"], spec["t_end"],
                            BURST_GAP if spec["burst"] else None)


def block_settings(data: dict, name: str) -> dict:
    """The integrator settings of system ``name``'s block in ``data`` (a file written before the
    blocks carried their own: the file's)."""
    block = data.get(name) or {}
    st = block.get("settings") or data.get("settings", {})
    return dict(rtol=st.get("rtol"), atol=st.get("atol", DEFAULT_ATOL),
                integrator=st.get("integrator"))


def kept_levels(files, name, settings) -> dict:
    """The levels of system ``name`` stored in ``files`` with the same settings (rtol, atol,
    integrator, model, t_end, parameters), by element count, as they were stored; the first
    file that has a level wins."""
    spec = SYSTEMS[name]
    out = {}
    for path in files:
        if not os.path.exists(path):
            continue
        with open(path) as f:
            data = json.load(f)
        block = data.get(name)
        if (block is None or block_settings(data, name) != settings
                or block["model"] != spec["model"] or block["t_end"] != spec["t_end"]
                or block["params"] != spec["params"]):
            continue
        for lv in block["levels"]:
            out.setdefault(lv["elements"], lv)
    return out


def study(name, elements, settings, tol, kept=None):
    from flexlib.cases import simulate
    spec = dict(SYSTEMS[name], t_end=SYSTEMS[name]["t_end"])
    levels = []
    for n in elements:
        if kept and n in kept:
            levels.append(kept[n])
            print(f"{name} fe {n}: kept ({kept[n]['wall_time']:.1f} s when computed)", flush=True)
            continue
        w0 = time.perf_counter()
        res = simulate(name, spec["model"], spec["t_end"], basis="fe", elements=n,
                       rtol=settings["rtol"], atol=settings["atol"],
                       method=settings["integrator"], **spec["params"])
        wall = time.perf_counter() - w0
        m = measures(res, spec)
        levels.append(dict(elements=n, wall_time=wall, success=res.success,
                           n_steps=res.stats["n_steps"], values=m))
        print(f"{name} fe {n}: {wall:.1f} s, {m}", flush=True)
    moved = change(levels[-2]["values"], levels[-1]["values"]) if len(levels) > 1 else {}
    ok = {k: (v <= (0 if k == "episodes" else tol)) for k, v in moved.items()}
    return dict(model=spec["model"], t_end=spec["t_end"], params=spec["params"],
                settings=settings, point=spec["point"],
                burst_gap=BURST_GAP if spec["burst"] else None,
                levels=levels, converged=dict(level=levels[-1]["elements"], change=moved,
                                              within=ok, all_within=all(ok.values())))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", default="4,8,16,32")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--atol", type=float, default=DEFAULT_ATOL)
    ap.add_argument("--integrator", default="auto")
    ap.add_argument("--tol", type=float, default=5e-3)
    ap.add_argument("--systems", default=",".join(SYSTEMS))
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--keep", nargs="*", default=None, metavar="FILE",
                    help="reuse the levels stored in --out and in these files (same settings)")
    a = ap.parse_args(argv)
    import flexlib
    elements = [int(x) for x in a.elements.split(",")]
    data = {}
    if os.path.exists(a.out):
        with open(a.out) as f:
            data = json.load(f)
    data["flexlib_version"] = flexlib.__version__
    for name in SYSTEMS:                 # the settings each block was computed with
        if name in data and "settings" not in data[name]:
            data[name]["settings"] = block_settings(data, name)
    data["settings"] = dict(tol=a.tol, script="scripts/converged_references.py")
    settings = dict(rtol=a.rtol, atol=a.atol, integrator=a.integrator)
    for name in a.systems.split(","):
        kept = kept_levels([a.out] + a.keep, name, settings) if a.keep is not None else None
        data[name] = study(name, elements, settings, a.tol, kept)
    from flexlib.outputs import write_text
    write_text(a.out, json.dumps(data, indent=1) + "\n")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
