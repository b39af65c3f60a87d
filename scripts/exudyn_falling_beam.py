"""flexlib's falling beam computed by an independent code (Exudyn, 2D ANCF cables).

One free beam (L = 1 m, the paper's section and material) starts at rest and straight, its end
x = 0 at (0, h0 = 0.1) m and tilted by theta0 (0.1 rad, and the flat 0), and falls under gravity
(9.81 m/s^2 along -Y) onto the ground Y <= 0.  Both ends touch it with the frictionless Hertz force
N = K delta^1.5, K = 1e9 N/m^1.5, no damping (flexlib: case ``falling-beam``, model
``continuous``).  Run 0-0.16 s; the free fall until t_fine = 0.14 s (the flat beam lands at
sqrt(2 h0 / g) = 0.1428 s) is integrated at ``h_free``, the rest at the step ``h``.

Reported per level (elements per metre 8-64 x step 5, 1, 0.5 us): per contact point its episodes
(start, duration, impulse, peak force), the total landing impulse, and at 0.16 s the centre of mass
r_cm, its velocity v_cm and the mean angular velocity omega_mean (scripts/_exudyn_ancf.py says how
they are computed), with the wall and CPU times.  The converged values are those of the finest level, with
their largest change from the levels one refinement before it.  ``--check LABEL`` stores its run
beside the levels, under ``checks`` (the stored file's: ``newton_rtol``, 32 elements/m, 1 us,
theta0 = 0.1, Newton's relative tolerance 1e-5 instead of 1e-6).

Usage::

    python scripts/exudyn_falling_beam.py [--out figures/data/exudyn_falling_beam.json]
        [--elements 8,16,32,64] [--steps 5e-6,1e-6,5e-7] [--h-free 2e-5] [--theta0 0.1,0]
        [--check LABEL] [--newton-rtol RTOL] [--summarize]
"""
from __future__ import annotations

import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _exudyn_ancf as A  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "figures", "data", "exudyn_falling_beam.json")
CASE = dict(L=1.0, h0=0.1, K=1e9, n=1.5, t_end=0.16, t_fine=0.14, contact_points=(0.0, 1.0))


def run(theta0, elements, h, h_free, rtol=None, case=CASE):
    """One level: the episodes per contact point, the landing impulse and the motion at t_end.
    ``rtol``: Newton's relative tolerance (default :func:`_exudyn_ancf.newton_rtol`)."""
    rtol = A.newton_rtol(elements) if rtol is None else rtol
    import exudyn as exu
    from exudyn.itemInterface import MarkerNodePosition, NodePointGround
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    L = case["L"]
    ne = max(1, int(round(elements * L)))
    beam = A.cable(mbs, (0.0, case["h0"]), theta0, L, ne)
    ground = mbs.AddMarker(MarkerNodePosition(nodeNumber=mbs.AddNode(
        NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0]))))
    pts = [A.hertz_contact(mbs, ground, beam, f * L, (0.0, 1.0), case["K"], case["n"])
           for f in case["contact_points"]]
    sens = A.point_sensors(mbs, pts)
    mbs.Assemble()
    (tf, free), (t, fine), wall = A.solve_two_stage(mbs, sens, h_free, case["t_fine"], h,
                                                    case["t_end"], rtol)
    points = []
    for f, (pf, _), (p, _) in zip(case["contact_points"], free, fine):
        if pf[:, 1].min() <= 0.0:
            raise RuntimeError(f"the point x = {f:g} L touches the ground before t_fine")
        eps = A.episodes(t, p[:, 1], case["K"], case["n"])
        points.append(dict(x=f * L, n_episodes=len(eps), impulse=sum(e["impulse"] for e in eps),
                           episodes=eps))
    mm = A.mean_motion(mbs, beam)
    return dict(theta0=theta0, elements_per_metre=elements, elements=ne, h=h, h_free=h_free,
                newton_rtol=rtol,
                t_fine=case["t_fine"], t_end=float(t[-1]), wall_time=wall["wall"],
                cpu_time=wall["cpu"], points=points,
                landing_impulse=sum(p["impulse"] for p in points), **mm)


def scales(r):
    """What the changes of the numbers near zero are measured against (else: the value)."""
    v = math.hypot(*r["v_cm"])
    # v_cm_x is 0 (frictionless), omega_mean 0 for the flat beam (symmetry)
    out = {"v_cm_x": v, "omega_mean": max(abs(r["omega_mean"]), v / CASE["L"])}
    for p in r["points"]:
        out[f"x={p['x']:g}: impulse"] = r["landing_impulse"]     # 0 where the point does not land
        if p["episodes"]:
            out[f"x={p['x']:g}: first t_start"] = p["episodes"][0]["duration"]
    return out


def scalars(r):
    """The numbers the convergence is judged on: name -> value."""
    out = {"landing_impulse": r["landing_impulse"], "v_cm_x": r["v_cm"][0], "v_cm_y": r["v_cm"][1],
           "omega_mean": r["omega_mean"]}
    for p in r["points"]:
        out[f"x={p['x']:g}: episodes"] = p["n_episodes"]
        out[f"x={p['x']:g}: impulse"] = p["impulse"]
        if p["episodes"]:
            e = p["episodes"][0]
            for q in ("t_start", "duration", "impulse", "peak_force"):
                out[f"x={p['x']:g}: first {q}"] = e[q]
    return out


def main(argv=None):
    p = A.arguments(__doc__, OUT, "5e-6,1e-6,5e-7")
    p.add_argument("--h-free", type=float, default=2e-5, help="step [s] of the free fall")
    p.add_argument("--theta0", default="0.1,0", help="initial angles [rad]")
    a = p.parse_args(argv)
    import exudyn
    if a.summarize or a.check:
        with open(a.out) as f:
            data = json.load(f)
        if a.check:
            data.setdefault("checks", {})[a.check] = run(float(a.theta0), int(a.elements),
                                                         float(a.steps), a.h_free, a.newton_rtol)
        summarize(data, a.out)
        return data
    cases = {}
    data = dict(exudyn_version=exudyn.__version__,
                solver=f"generalized-alpha, spectral radius {A.RHO_INF}, Newton atol "
                       f"{A.NEWTON_ATOL:g}, rtol per level (newton_rtol)",
                element="ObjectANCFCable2D", section=A.SECTION, case=CASE,
                contact="N = K delta^n, springForceUserFunction of an "
                        "ObjectConnectorCartesianSpringDamper on a MarkerBodyPosition",
                cases=cases)
    for th in map(float, a.theta0.split(",")):
        levels = []
        for ne in map(int, a.elements.split(",")):
            for h in map(float, a.steps.split(",")):
                r = run(th, ne, h, a.h_free, a.newton_rtol)
                levels.append(r)
                print(json.dumps({k: r[k] for k in ("theta0", "elements", "h", "wall_time",
                                                     "cpu_time", "landing_impulse", "v_cm",
                                                     "omega_mean")}), flush=True)
                cases[f"{th:g}"] = dict(levels=levels)
                summarize(data, a.out)
    return data


def summarize(data, out):
    """Mark each case's converged values (those of its finest level) and save."""
    for c in data["cases"].values():
        c["converged"] = A.converged(c["levels"], scalars, scales)
    if out:
        A.save(out, data)


if __name__ == "__main__":
    main()
