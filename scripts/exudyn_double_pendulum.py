"""flexlib's flexible double pendulum computed by an independent code (Exudyn, 2D ANCF cables).

Link B1 (L1 = 1 m) is hinged to the ground at O = (0, 0), link B2 (L2 = 0.5 m) to B1's tip; both
have the paper's section and material, start at rest and straight along +X, and fall under gravity
(9.81 m/s^2 along -Y).  The point B of B1 at x = 0.8 L1 strikes the rigid stop X <= 0 with the
frictionless Hertz force N = K delta^1.5, no damping, K = (4/3) sqrt(R) E* of a sphere R = 0.01 m
(aluminium, E1 = 68.952 GPa, nu1 = 0.33) on steel (E0 = 206 GPa, nu0 = 0.3), K = 7.69e9 N/m^1.5
(flexlib: case ``double-pendulum``, model ``continuous``).  The hinges are Exudyn's
``ObjectJointRevolute2D`` between node position markers (the ground's and B1's first node; B1's
last node and B2's first node): position-level constraints, the slopes free.

The motion until t_fine = 0.6 s (before B reaches the stop; checked) is integrated at the step
``h_free``, the rest until 0.65 s at ``h``.  Reported per level (elements per metre x step): the
first contact burst of B (its episodes: count, total impulse; the first episode's start, duration,
impulse, peak force) and at 0.65 s each link's centre of mass, its velocity and its mean angular
velocity (scripts/_exudyn_ancf.py says how they are computed), with the wall and CPU times.  The
converged values are the finest level's, with their largest change from the levels one refinement
before it.  ``--check LABEL`` stores its run beside the levels, under ``checks`` (the stored
file's: ``h_free`` at 32 elements/m, 1 us, h_free 1e-5; ``newton_rtol`` at 32/m, 5 us, 1e-5).

Usage::

    python scripts/exudyn_double_pendulum.py [--out figures/data/exudyn_double_pendulum.json]
        [--elements 8,16,32,64] [--steps 5e-6,1e-6] [--h-free 2e-5] [--append]
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
OUT = os.path.join(ROOT, "figures", "data", "exudyn_double_pendulum.json")
BURST_GAP = 5e-3        # s: episodes of B less than this apart belong to one burst


def hertz_stiffness(R=0.01, E0=206e9, nu0=0.3, E1=68.952e9, nu1=0.33):
    """K = (4/3) sqrt(R) E*, 1/E* = (1 - nu0^2)/E0 + (1 - nu1^2)/E1 [N/m^1.5] (Johnson)."""
    return 4.0 / 3.0 * math.sqrt(R) / ((1.0 - nu0 ** 2) / E0 + (1.0 - nu1 ** 2) / E1)


CASE = dict(L1=1.0, L2=0.5, contact_at=0.8, K=hertz_stiffness(), n=1.5, t_fine=0.6, t_end=0.65)


def build(elements, case=CASE):
    """The Exudyn system: (mbs, link B1, link B2, B's (element, local x))."""
    import exudyn as exu
    from exudyn.itemInterface import MarkerNodePosition, NodePointGround, ObjectJointRevolute2D
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    L1, L2 = case["L1"], case["L2"]
    b1 = A.cable(mbs, (0.0, 0.0), 0.0, L1, max(1, int(round(elements * L1))))
    b2 = A.cable(mbs, (L1, 0.0), 0.0, L2, max(1, int(round(elements * L2))))
    ground = mbs.AddMarker(MarkerNodePosition(nodeNumber=mbs.AddNode(
        NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0]))))

    def pos(node):
        return mbs.AddMarker(MarkerNodePosition(nodeNumber=node))

    mbs.AddObject(ObjectJointRevolute2D(markerNumbers=[ground, pos(b1["nodes"][0])]))
    mbs.AddObject(ObjectJointRevolute2D(markerNumbers=[pos(b1["nodes"][-1]), pos(b2["nodes"][0])]))
    B = A.hertz_contact(mbs, ground, b1, case["contact_at"] * L1, (1.0, 0.0), case["K"], case["n"])
    return SC, mbs, b1, b2, B


def run(elements, h, h_free, rtol=None, case=CASE):
    """One level: B's episodes, its first burst and the links' motion at t_end.  ``rtol``:
    Newton's relative tolerance (default :func:`_exudyn_ancf.newton_rtol`)."""
    rtol = A.newton_rtol(elements) if rtol is None else rtol
    SC, mbs, b1, b2, B = build(elements, case)
    sens = A.point_sensors(mbs, [B])
    mbs.Assemble()
    (tf, free), (t, fine), wall = A.solve_two_stage(mbs, sens, h_free, case["t_fine"], h,
                                                    case["t_end"], rtol)
    if free[0][0][:, 0].min() <= 0.0:
        raise RuntimeError("B touches the stop before t_fine")
    eps = A.episodes(t, fine[0][0][:, 0], case["K"], case["n"])
    burst = eps[:1]
    for e in eps[1:]:
        if e["t_start"] - burst[-1]["t_end"] < BURST_GAP:
            burst.append(e)
        else:
            break
    return dict(elements_per_metre=elements, elements=[len(b1["elements"]), len(b2["elements"])],
                h=h, h_free=h_free, newton_rtol=rtol, t_fine=case["t_fine"], t_end=float(t[-1]),
                wall_time=wall["wall"], cpu_time=wall["cpu"],
                episodes=eps, burst=dict(n_episodes=len(burst),
                                         impulse=sum(e["impulse"] for e in burst),
                                         t_end=burst[-1]["t_end"] if burst else None,
                                         first=burst[0] if burst else None),
                links={"B1": A.mean_motion(mbs, b1), "B2": A.mean_motion(mbs, b2)})


def scales(r):
    """What the changes of the numbers near zero are measured against (else: the value)."""
    return {"first t_start": r["burst"]["first"]["duration"],
            "B1 r_cm_x": math.hypot(*r["links"]["B1"]["r_cm"])}


def scalars(r):
    """The numbers the convergence is judged on: name -> value."""
    b = r["burst"]
    out = {"burst episodes": b["n_episodes"], "burst impulse": b["impulse"]}
    for q in ("t_start", "duration", "impulse", "peak_force"):
        out[f"first {q}"] = b["first"][q]
    for name, m in r["links"].items():
        for i, ax in enumerate("xy"):
            out[f"{name} r_cm_{ax}"] = m["r_cm"][i]
            out[f"{name} v_cm_{ax}"] = m["v_cm"][i]
        out[f"{name} omega_mean"] = m["omega_mean"]
    out["H_O"] = angular_momentum_about_origin(r["links"])
    return out


def angular_momentum_about_origin(links):
    """The system's angular momentum about the hinge O [kg m^2/s]: per link m r_cm x v_cm plus
    its own, J_cm omega_mean."""
    return sum(m["mass"] * (m["r_cm"][0] * m["v_cm"][1] - m["r_cm"][1] * m["v_cm"][0])
               + m["inertia"] * m["omega_mean"] for m in links.values())


def main(argv=None):
    p = A.arguments(__doc__, OUT, "5e-6,1e-6")
    p.add_argument("--h-free", default="2e-5", help="steps [s] before t_fine, comma separated")
    p.add_argument("--append", action="store_true", help="add the levels to those in --out")
    a = p.parse_args(argv)
    if a.summarize:
        a.elements = ""
    if a.check:
        with open(a.out) as f:
            data = json.load(f)
        ne, hf, h = int(a.elements), float(a.h_free), float(a.steps)
        data.setdefault("checks", {})[a.check] = run(ne, h, hf, a.newton_rtol)
        summarize(data, a.out)
        return data
    import exudyn
    levels, old = [], {}
    if (a.append or a.summarize) and os.path.exists(a.out):
        with open(a.out) as f:
            old = json.load(f)
        levels = old["levels"]
    data = dict(exudyn_version=exudyn.__version__, checks=old.get("checks", {}),
                solver=f"generalized-alpha, spectral radius {A.RHO_INF}, Newton atol "
                       f"{A.NEWTON_ATOL:g}, rtol per level (newton_rtol)",
                element="ObjectANCFCable2D", section=A.SECTION, case=CASE, burst_gap=BURST_GAP,
                contact="N = K delta^n, springForceUserFunction of an "
                        "ObjectConnectorCartesianSpringDamper on a MarkerBodyPosition",
                hinges="ObjectJointRevolute2D between MarkerNodePosition markers",
                levels=levels)
    for ne in (map(int, a.elements.split(",")) if a.elements else ()):
        for hf in map(float, a.h_free.split(",")):
            for h in map(float, a.steps.split(",")):
                r = run(ne, h, hf, a.newton_rtol)
                levels.append(r)
                print(json.dumps(dict(elements=r["elements"], h=h, h_free=hf,
                                      wall_time=r["wall_time"], cpu_time=r["cpu_time"],
                                      burst=r["burst"],
                                      links=r["links"])), flush=True)
                summarize(data, a.out)
    if a.summarize:
        summarize(data, a.out)
    return data


def summarize(data, out):
    """Mark the converged values (those of the finest level) and save."""
    data["converged"] = A.converged(data["levels"], scalars, scales)
    if out:
        A.save(out, data)


if __name__ == "__main__":
    main()
