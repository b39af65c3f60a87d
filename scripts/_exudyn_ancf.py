"""Shared parts of the Exudyn models of flexlib's multibody systems (ANCF cables, Hertz contact).

Used by scripts/exudyn_double_pendulum.py and scripts/exudyn_falling_beam.py; needs only NumPy and
Exudyn (the ``peers`` extra), not flexlib, so that the two codes share no line of physics.

* A link is a chain of Exudyn's 2D ANCF cable elements (``ObjectANCFCable2D``: the nodes'
  positions and slopes, cubic Hermite in the reference arc length, consistent mass matrix, axial
  and bending strain from the positions), gravity a ``LoadMassProportional`` on each element.
* The Hertz contact N = K delta^n at a material point of a cable is the
  ``springForceUserFunction`` of an ``ObjectConnectorCartesianSpringDamper`` between a ground node
  at the origin and a ``MarkerBodyPosition`` (the point's element and its local position): a
  connector, not a load, so that Exudyn's Newton iteration differentiates the force.
* Time integration: Exudyn's implicit generalized-alpha (spectral radius 0.9) with a fixed step,
  in two stages: a step ``h_free`` until ``t_fine`` (before any contact: the run checks that no
  point penetrates then) and a step ``h`` after it, the state handed over exactly.
* The contact episodes are read from the points' positions stored at every step (zero crossings of
  the gap interpolated linearly, impulse the trapezoidal integral of K delta^n, peak refined by a
  parabola through the three steps around the largest step value).
* The frame-free motion of a link (centre of mass, its velocity, mean angular velocity = angular
  momentum about the centre of mass / moment of inertia about it) is integrated from the nodal
  positions, slopes and their rates with 4-point Gauss quadrature per element (exact for the
  degree-6 integrands of the cubic Hermite fields).
"""
from __future__ import annotations

import math
import time

import numpy as np

RHO_INF = 0.9                         # generalized-alpha: spectral radius at infinity
NEWTON_ATOL = 1e-8
# The paper's section and material (Fan et al. 2021), written out so that no flexlib is needed.
SECTION = dict(S=3.14e-4, rho=2766.67, E=68.952e9, I=7.85e-9, g0=9.81)


def newton_rtol(elements_per_metre):
    """Exudyn's relative Newton tolerance: its default 1e-8 is below the round-off of the axial
    forces (EA = 2.2e7 N over elements of L/n_e), and so is 1e-6 with 64 elements per metre: the
    Newton iteration then stalls and the step is cut thousands of times (measured: 3321 steps for
    100, 0-2 ms of the falling beam).  So 1e-6 up to 32 elements per metre, 1e-5 above."""
    return 1e-6 if elements_per_metre <= 32 else 1e-5


def cable(mbs, start, angle, length, elements):
    """A straight ANCF cable from ``start`` [m] at ``angle`` [rad] with ``elements`` elements:
    dict(nodes, elements, h)."""
    from exudyn.itemInterface import (LoadMassProportional, MarkerBodyMass, NodePoint2DSlope1,
                                      ObjectANCFCable2D)
    c, s = math.cos(angle), math.sin(angle)
    h = length / elements
    sec = SECTION
    nodes = [mbs.AddNode(NodePoint2DSlope1(
        referenceCoordinates=[start[0] + i * h * c, start[1] + i * h * s, c, s]))
        for i in range(elements + 1)]
    elems = []
    for i in range(elements):
        e = mbs.AddObject(ObjectANCFCable2D(
            length=h, massPerLength=sec["rho"] * sec["S"], bendingStiffness=sec["E"] * sec["I"],
            axialStiffness=sec["E"] * sec["S"], nodeNumbers=[nodes[i], nodes[i + 1]]))
        mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=e)),
                                         loadVector=[0.0, -sec["g0"], 0.0]))
        elems.append(e)
    return dict(nodes=nodes, elements=elems, h=h, length=length, start=tuple(start), angle=angle)


def material_point(link, x):
    """(element, local x) of the material point at arc length ``x`` [m] of ``link``."""
    n = len(link["elements"])
    i = min(int(x / link["h"] + 1e-9), n - 1)
    return link["elements"][i], x - i * link["h"]


def hertz_contact(mbs, ground_marker, link, x, normal, K, n):
    """The Hertz force N = K delta^n, delta = max(0, -normal . r), on the material point ``x`` of
    ``link`` against the half-plane normal . r <= 0 through the origin (frictionless).  Returns
    the (element, local x) of the point."""
    from exudyn.itemInterface import MarkerBodyPosition, ObjectConnectorCartesianSpringDamper
    e, xl = material_point(link, x)
    nx, ny = normal

    def force(mbs_, t, item, r, v, *unused):
        # r: the point's position relative to the ground node at the origin; Exudyn applies the
        # negative of the returned vector to the point (marker 1)
        gap = nx * r[0] + ny * r[1]
        if gap >= 0.0:
            return [0.0, 0.0, 0.0]
        N = K * (-gap) ** n
        return [-N * nx, -N * ny, 0.0]

    point = mbs.AddMarker(MarkerBodyPosition(bodyNumber=e, localPosition=[xl, 0.0, 0.0]))
    mbs.AddObject(ObjectConnectorCartesianSpringDamper(markerNumbers=[ground_marker, point],
                                                       springForceUserFunction=force))
    return e, xl


def point_sensors(mbs, points):
    """Position and velocity sensors (stored internally) of the material points (element, x)."""
    import exudyn as exu
    from exudyn.itemInterface import SensorBody
    out = []
    for e, xl in points:
        out.append(tuple(mbs.AddSensor(SensorBody(bodyNumber=e, localPosition=[xl, 0.0, 0.0],
                                                  outputVariableType=var, storeInternal=True,
                                                  writeToFile=False))
                         for var in (exu.OutputVariableType.Position,
                                     exu.OutputVariableType.Velocity)))
    return out


# Exudyn's modified Newton (the tangent kept between iterations): Exudyn's default, and what the
# stored runs used; benchmarks/bench_implicit.py also times full Newton (False)
MODIFIED_NEWTON = True


def _settings(h, t0, t1, rtol):
    """Exudyn's simulation settings of one stage: [t0, t1] at the step h, sensors every step."""
    import exudyn as exu
    ss = exu.SimulationSettings()
    ti = ss.timeIntegration
    ti.numberOfSteps = max(1, int(round((t1 - t0) / h)))
    ti.startTime = t0
    ti.endTime = t1
    ti.verboseMode = 0
    ti.generalizedAlpha.spectralRadius = RHO_INF
    ti.newton.relativeTolerance = rtol
    ti.newton.absoluteTolerance = NEWTON_ATOL
    ti.newton.useModifiedNewton = MODIFIED_NEWTON
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = 0.5 * h    # every step
    ss.show.computationTime = False
    ss.show.statistics = False
    return ss


def solve_two_stage(mbs, sensors, h_free, t_fine, h, t_end, rtol):
    """Integrate [0, t_fine] at the step ``h_free`` and [t_fine, t_end] at ``h`` (Newton's relative
    tolerance ``rtol``).  Returns ((t_free, per sensor pair its (positions, velocities)) of the
    free stage, the same of the fine stage, dict(wall, cpu) times [s] of the solves: the CPU time
    of this process beside the wall time, because the machine may be shared).  The generalized-
    alpha restart at t_fine computes consistent initial accelerations (Exudyn's default)."""
    import exudyn as exu
    cfg = exu.ConfigurationType
    stages = []
    wall = cpu = 0.0
    for (a, b, step) in ((0.0, t_fine, h_free), (t_fine, t_end, h)):
        if a > 0.0:       # hand the state over: the end of the last stage is the initial state
            sd = mbs.systemData
            sd.SetODE2Coordinates(sd.GetODE2Coordinates(cfg.Current), cfg.Initial)
            sd.SetODE2Coordinates_t(sd.GetODE2Coordinates_t(cfg.Current), cfg.Initial)
        ss = _settings(step, a, b, rtol)
        t0, c0 = time.perf_counter(), time.process_time()
        ok = exu.SolveDynamic(mbs, ss, solverType=exu.DynamicSolverType.GeneralizedAlpha)
        wall += time.perf_counter() - t0
        cpu += time.process_time() - c0
        if not ok:
            raise RuntimeError(f"Exudyn's solver failed in [{a:g}, {b:g}] s at the step {step:g} s")
        data = [(mbs.GetSensorStoredData(p), mbs.GetSensorStoredData(v)) for p, v in sensors]
        stages.append((data[0][0][:, 0], [(p[:, 1:3], v[:, 1:3]) for p, v in data]))
    return stages[0], stages[1], dict(wall=wall, cpu=cpu)


def episodes(t, gap, K, n):
    """Every interval of gap < 0 in the samples: t_start, t_end, duration [s], peak [N] and
    impulse [N s] of N = K (-gap)^n."""
    pen = gap < 0.0
    edges = np.flatnonzero(np.diff(np.r_[0, pen.astype(int), 0]))
    out = []
    for a, b in zip(edges[::2], edges[1::2]):
        if a == 0 or b >= len(t):
            raise RuntimeError(f"a contact interval at {t[a]:.6f} s is cut by the run's ends")
        ts, te, peak, impulse = interval_measures(t, gap, a, b, K * (-gap[a:b]) ** n)
        out.append(dict(t_start=ts, t_end=te, duration=te - ts, peak_force=peak, impulse=impulse))
    return out


def interval_measures(t, gap, a, b, N):
    """(t_start, t_end [s], peak [N], impulse [N s]) of the contact interval of samples a..b-1
    (gap < 0 there, >= 0 at a-1 and b) with the forces ``N`` at those samples: the ends where the
    gap crosses 0 (linear between samples), the peak through a parabola at the largest sample, the
    impulse by the trapezoidal rule with N = 0 at the ends."""
    ts = t[a - 1] + (t[a] - t[a - 1]) * gap[a - 1] / (gap[a - 1] - gap[a])
    te = t[b - 1] + (t[b] - t[b - 1]) * gap[b - 1] / (gap[b - 1] - gap[b])
    tt = np.concatenate(([ts], t[a:b], [te]))
    NN = np.concatenate(([0.0], N, [0.0]))
    j = int(np.argmax(N))
    peak = N[j]
    if 0 < j < len(N) - 1:                      # a parabola through the three steps
        y0, y1, y2 = N[j - 1], N[j], N[j + 1]
        den = y0 - 2 * y1 + y2
        if den < 0.0:
            peak = y1 - 0.125 * (y2 - y0) ** 2 / den
    return float(ts), float(te), float(peak), float(np.trapezoid(NN, tt))


_GX, _GW = np.polynomial.legendre.leggauss(4)


def mean_motion(mbs, link):
    """The frame-free motion of ``link`` at the current state: r_cm, v_cm [m, m/s], omega_mean
    [rad/s] (angular momentum about the centre of mass / moment of inertia about it), mass [kg], the
    moment of inertia about the centre of mass [kg m^2] and the kinetic energy [J]."""
    import exudyn as exu
    cfg = exu.ConfigurationType.Current
    q = np.array([mbs.GetNodeOutput(nd, exu.OutputVariableType.Coordinates, cfg)
                  for nd in link["nodes"]])
    qd = np.array([mbs.GetNodeOutput(nd, exu.OutputVariableType.Coordinates_t, cfg)
                   for nd in link["nodes"]])
    q = q + np.array([mbs.GetNodeParameter(nd, "referenceCoordinates") for nd in link["nodes"]])
    return mean_motion_of(q, qd, link["h"], SECTION["rho"] * SECTION["S"])


def mean_motion_of(q, qd, h, rho_s):
    """:func:`mean_motion` from the nodes' [x, y, x', y'] ``q`` (n+1, 4) and their rates ``qd``."""
    xi = 0.5 * (_GX + 1.0)
    w = 0.5 * h * _GW
    S = np.stack([1 - 3 * xi ** 2 + 2 * xi ** 3, h * (xi - 2 * xi ** 2 + xi ** 3),
                  3 * xi ** 2 - 2 * xi ** 3, h * (-xi ** 2 + xi ** 3)], axis=1)    # (4 pts, 4)
    r, v, ww = [], [], []
    for i in range(len(q) - 1):
        for Q, out in ((q, r), (qd, v)):
            c = np.array([Q[i, :2], Q[i, 2:], Q[i + 1, :2], Q[i + 1, 2:]])          # (4, 2)
            out.append(S @ c)
        ww.append(w)
    r, v, ww = np.concatenate(r), np.concatenate(v), rho_s * np.concatenate(ww)
    m = ww.sum()
    rc, vc = ww @ r / m, ww @ v / m
    dr, dv = r - rc, v - vc
    H = ww @ (dr[:, 0] * dv[:, 1] - dr[:, 1] * dv[:, 0])
    J = ww @ (dr ** 2).sum(axis=1)
    return dict(r_cm=rc.tolist(), v_cm=vc.tolist(), omega_mean=float(H / J), mass=float(m),
                inertia=float(J), kinetic_energy=float(0.5 * ww @ (v ** 2).sum(axis=1)))


TOL = 5e-3       # a number is converged when the last refinements move it by less than 0.5 %


def converged(levels, scalars, scales=None):
    """The finest level's numbers (``scalars(level)``: name -> value), with the largest change of
    each from the two levels one refinement before it (half the elements at the same steps; the
    same elements at the next coarser step) and whether it is below :data:`TOL`.  Changes are
    relative to the value, or to ``scales(fine)[name]`` where given (times, values near zero)."""
    fine = levels[-1]
    ref = scalars(fine)
    scale = scales(fine) if scales else {}
    coarser = [lv["h"] for lv in levels if lv["h"] > fine["h"] and lv["h_free"] == fine["h_free"]
               and lv["elements_per_metre"] == fine["elements_per_metre"]]
    before = [lv for lv in levels
              if (lv["h"], lv["h_free"]) == (fine["h"], fine["h_free"])
              and 2 * lv["elements_per_metre"] == fine["elements_per_metre"]
              or coarser and (lv["h"], lv["h_free"]) == (min(coarser), fine["h_free"])
              and lv["elements_per_metre"] == fine["elements_per_metre"]]
    change = {}
    for other in before:
        for k, v in scalars(other).items():
            if k in ref:
                d = abs(v - ref[k]) / max(abs(scale.get(k, ref[k])), 1e-300)
                change[k] = max(change.get(k, 0.0), d)
    return dict(elements_per_metre=fine["elements_per_metre"], h=fine["h"], h_free=fine["h_free"],
                compared_with=[(lv["elements_per_metre"], lv["h"]) for lv in before],
                values=ref, change_from_coarser=change, scales=scale, tolerance=TOL,
                within_tolerance={k: c < TOL for k, c in change.items()})


def arguments(doc, out, steps):
    """The command-line options both scripts share (their own are added to the parser)."""
    import argparse
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--out", default=out)
    p.add_argument("--elements", default="8,16,32,64", help="elements per metre, comma separated")
    p.add_argument("--steps", default=steps, help="steps h [s] after t_fine, comma separated")
    p.add_argument("--newton-rtol", type=float, default=None,
                   help="Newton's relative tolerance (default: 1e-6 to 32 elements/m, 1e-5 above)")
    p.add_argument("--check", default=None,
                   help="store the run under checks[CHECK] of the existing --out file")
    p.add_argument("--summarize", action="store_true",
                   help="run nothing: recompute the converged values of the levels in --out")
    return p


def save(path, data):
    """Write ``data`` as JSON to ``path`` (the directories made)."""
    import json
    import os
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
