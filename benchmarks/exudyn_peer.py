"""Case 3.2 with a continuous penalty contact, computed by an independent code (Exudyn, ANCF).

The beam of the paper's section 3.2 (Fan et al. 2021: L = 1 m, rho S = 0.869 kg/m, EI = 541 N m^2,
hinged at the origin, released at rest and straight at theta0 = pi/4, gravity 9.81 m/s^2 along -Y)
falls onto the slope through O1 = (0.5, 0) inclined at pi/10.  Here it is modelled in Exudyn with
2D ANCF cable elements (Gerstmayr's absolute nodal coordinate formulation: positions and slopes of
the nodes, the root node's position held at the hinge, its slope free), so geometric
nonlinearity and axial strain come from the formulation itself rather than from flexlib's floating
frame, assumed modes and foreshortening.

The contact is the linear penalty force flexlib's continuous contact model gives with
``contact_law="kelvin_voigt", contact_exponent=1, contact_damping=0``: with the gap
Psi = n . (r_tip - r_O1) and the penetration delta = max(0, -Psi), the slope pushes the tip with
N n + F_t t, N = k delta, F_t = -c(|v_t|) mu_d N sgn(v_t), the modified Coulomb law of Ambrosio
(2002) with v0 = 1e-4 m/s and v1 = 1e-3 m/s (flexlib.contact.friction.modified_coulomb).  It is a Python
user-function force of a Cartesian spring-damper connector between the hinge and the tip node.
Time integration: Exudyn's implicit generalized-alpha
(spectral radius 0.9) at a fixed step of 2 us; its explicit RK44 went unstable in free flight at
the steps tried (1 us with 16 elements, 0.25 us with 32).

The contact quantities are read from the tip's position and velocity stored at every step: a
contact interval runs between the zero crossings of the gap (linear interpolation in the step),
its peak normal force is the largest k delta at the steps (refined by a parabola through the
three steps around it) and its impulse is the trapezoidal integral of k delta.

Usage::

    python benchmarks/exudyn_peer.py [--out tests/data/exudyn_peer.json] [--elements 16]
                                     [--step 2e-6] [--t-end 0.35] [--convergence]

``--convergence`` also runs the frictionless cases with twice the elements and with half the step
and stores them (what the chosen discretisation is accurate to).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

# the contact intervals are measured as for the other outside runs (scripts/_exudyn_ancf.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from _exudyn_ancf import interval_measures  # noqa: E402

CASES = [(1e6, 0.0), (1e6, 0.4), (1e7, 0.0), (1e7, 0.4)]     # (k [N/m], mu_d)
THETA_TIMES = (0.1, 0.2, 0.3, 0.33)                           # s: theta is recorded at these
RHO_INF = 0.9                                                 # generalized-alpha: spectral radius
N_INTERVALS = 3                                               # contact intervals recorded per run

# Case 3.2 (flexlib.params.paper_case("3.2")), written out so that the script needs no flexlib.
BEAM = dict(L=1.0, S=3.14e-4, rho=2766.67, E=68.952e9, I=7.85e-9, g0=9.81, theta0=math.pi / 4)
SLOPE = dict(X1=0.5, alpha=math.pi / 10)
FRICTION = dict(v0=1e-4, v1=1e-3)


def modified_coulomb(v, mu_d, v0, v1):
    """mu of F_t = -mu N: 0 for |v| <= v0, a ramp to mu_d sgn(v) at |v| = v1 (Ambrosio 2002)."""
    a = abs(v)
    if a <= v0:
        return 0.0
    c = 1.0 if a >= v1 else (a - v0) / (v1 - v0)
    return c * mu_d if v > 0.0 else -c * mu_d


def build(k, mu_d, elements):
    """The Exudyn system: (SystemContainer, MainSystem, tip node, root node)."""
    import exudyn as exu
    from exudyn.itemInterface import (CoordinateConstraint, LoadMassProportional, MarkerBodyMass,
                                      MarkerNodeCoordinate, MarkerNodePosition, NodePointGround,
                                      NodePoint2DSlope1, ObjectANCFCable2D,
                                      ObjectConnectorCartesianSpringDamper)
    b, sl = BEAM, SLOPE
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    c0, s0 = math.cos(b["theta0"]), math.sin(b["theta0"])
    h = b["L"] / elements
    nodes = [mbs.AddNode(NodePoint2DSlope1(referenceCoordinates=[i * h * c0, i * h * s0, c0, s0]))
             for i in range(elements + 1)]
    for i in range(elements):
        oc = mbs.AddObject(ObjectANCFCable2D(
            length=h, massPerLength=b["rho"] * b["S"],
            bendingStiffness=b["E"] * b["I"], axialStiffness=b["E"] * b["S"],
            nodeNumbers=[nodes[i], nodes[i + 1]]))
        mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=oc)),
                                         loadVector=[0.0, -b["g0"], 0.0]))
    # the hinge: the root node's position is held at the origin, its slope (the angle) is free
    ground = mbs.AddNode(NodePointGround(referenceCoordinates=[0.0, 0.0, 0.0]))
    mg = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=ground, coordinate=0))
    for j in (0, 1):
        mc = mbs.AddMarker(MarkerNodeCoordinate(nodeNumber=nodes[0], coordinate=j))
        mbs.AddObject(CoordinateConstraint(markerNumbers=[mg, mc]))
    tip = nodes[-1]
    a = sl["alpha"]
    n = (-math.sin(a), math.cos(a))
    t = (math.cos(a), math.sin(a))
    X1, v0, v1 = sl["X1"], FRICTION["v0"], FRICTION["v1"]

    def contact_force(mbs_, time_, item, r, v, *unused):
        # r, v: the tip's position and velocity relative to the hinge; Exudyn applies the
        # negative of the returned vector to the tip
        gap = n[0] * (r[0] - X1) + n[1] * r[1]
        if gap >= 0.0:
            return [0.0, 0.0, 0.0]
        N = -k * gap
        F = -modified_coulomb(t[0] * v[0] + t[1] * v[1], mu_d, v0, v1) * N
        return [-(N * n[0] + F * t[0]), -(N * n[1] + F * t[1]), 0.0]

    # a connector, not a load: Exudyn's Newton iteration then differentiates the force (the
    # friction ramp of v1 - v0 = 0.9 mm/s is a stiff damper the modified Newton cannot do without)
    mbs.AddObject(ObjectConnectorCartesianSpringDamper(
        markerNumbers=[mbs.AddMarker(MarkerNodePosition(nodeNumber=ground)),
                       mbs.AddMarker(MarkerNodePosition(nodeNumber=tip))],
        springForceUserFunction=contact_force))
    mbs.Assemble()
    return SC, mbs, tip, nodes[0]


def integrate(k, mu_d, elements, step, t_end):
    """Run one case; returns the time grid and the histories of the tip and the root slope."""
    import exudyn as exu
    from exudyn.itemInterface import SensorNode
    SC, mbs, tip, root = build(k, mu_d, elements)
    sens = {}
    for name, node, var in (("r", tip, exu.OutputVariableType.Position),
                            ("v", tip, exu.OutputVariableType.Velocity),
                            ("root", root, exu.OutputVariableType.Coordinates)):
        sens[name] = mbs.AddSensor(SensorNode(nodeNumber=node, outputVariableType=var,
                                              storeInternal=True, writeToFile=False))
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ti = ss.timeIntegration
    ti.numberOfSteps = int(round(t_end / step))
    ti.endTime = ti.numberOfSteps * step
    ti.verboseMode = 0
    ti.generalizedAlpha.spectralRadius = RHO_INF
    # Exudyn's default relative Newton tolerance (1e-8) is at the round-off of the stiff axial
    # coordinates (EA = 2.2e7 N): Newton then fails and the step is cut again and again
    ti.newton.relativeTolerance = 1e-6
    ti.newton.absoluteTolerance = 1e-8
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = step
    ss.show.computationTime = False
    ss.show.statistics = False
    t0 = time.perf_counter()
    ok = exu.SolveDynamic(mbs, ss, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    wall = time.perf_counter() - t0
    if not ok:
        raise RuntimeError(f"Exudyn's solver failed (k = {k:g}, mu_d = {mu_d:g})")
    r = mbs.GetSensorStoredData(sens["r"])
    v = mbs.GetSensorStoredData(sens["v"])
    root_c = mbs.GetSensorStoredData(sens["root"])
    return dict(t=r[:, 0], x=r[:, 1], y=r[:, 2], vx=v[:, 1], vy=v[:, 2],
                # the root slope (Coordinates are displacements from the reference configuration)
                theta=np.arctan2(root_c[:, 4] + math.sin(BEAM["theta0"]),
                                 root_c[:, 3] + math.cos(BEAM["theta0"])), wall=wall)


def contact_intervals(t, gap, k, n_max=N_INTERVALS):
    """The first ``n_max`` intervals of gap < 0: start, end, duration [s], peak N [N] and
    int N dt [N s]."""
    pen = gap < 0.0
    out = []
    i = 0
    while len(out) < n_max:
        idx = np.flatnonzero(pen[i:])
        if idx.size == 0:
            break
        a = i + idx[0]
        rest = np.flatnonzero(~pen[a:])
        if rest.size == 0:
            break                                   # the run ends in contact: incomplete
        b = a + rest[0]                             # first step after the interval
        ts, te, peak, impulse = interval_measures(t, gap, a, b, -k * gap[a:b])
        out.append(dict(t_start=ts, t_end=te, duration=te - ts, peak_normal_force=peak,
                        normal_impulse=impulse))
        i = b
    return out


def run_case(k, mu_d, elements, step, t_end):
    """One case's record: the contact intervals, theta at THETA_TIMES and the run's settings."""
    h = integrate(k, mu_d, elements, step, t_end)
    a = SLOPE["alpha"]
    gap = -math.sin(a) * (h["x"] - SLOPE["X1"]) + math.cos(a) * h["y"]
    return dict(k=k, mu_d=mu_d, elements=elements, step=step, t_end=float(h["t"][-1]),
                wall_time=h["wall"],
                intervals=contact_intervals(h["t"], gap, k),
                theta={f"{tt:g}": float(np.interp(tt, h["t"], h["theta"])) for tt in THETA_TIMES})


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=None, help="write the results to this JSON file")
    p.add_argument("--elements", type=int, default=16, help="number of ANCF cable elements")
    p.add_argument("--step", type=float, default=2e-6, help="generalized-alpha step [s]")
    p.add_argument("--t-end", type=float, default=0.35, help="end time [s]")
    p.add_argument("--cases", default="all", help="'all' or k:mu pairs, e.g. 1e6:0,1e7:0.4")
    p.add_argument("--convergence", action="store_true",
                   help="also run the frictionless cases with twice the elements and half the step")
    a = p.parse_args(argv)
    import exudyn
    cases = (CASES if a.cases == "all"
             else [tuple(map(float, c.split(":"))) for c in a.cases.split(",")])
    runs = []
    for k, mu in cases:
        r = run_case(k, mu, a.elements, a.step, a.t_end)
        runs.append(r)
        print(json.dumps(r), flush=True)
    data = dict(exudyn_version=exudyn.__version__,
                solver=f"generalized-alpha, spectral radius {RHO_INF}",
                element="ObjectANCFCable2D", elements=a.elements, step=a.step,
                contact="N = k delta, F_t = -modified_coulomb(v_t; mu_d, v0=1e-4, v1=1e-3) N",
                beam=BEAM, slope=SLOPE, friction=FRICTION, runs=runs)
    if a.convergence:
        conv = {}
        for k in (1e6, 1e7):
            for label, ne, dt in (("double_elements", 2 * a.elements, a.step),
                                  ("half_step", a.elements, a.step / 2)):
                r = run_case(k, 0.0, ne, dt, a.t_end)
                conv[f"k={k:.0e}, {label}"] = r
                print(label, json.dumps(r), flush=True)
        data["convergence"] = conv
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
    return data


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
