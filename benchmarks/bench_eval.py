"""Cost of one evaluation of the system's right-hand side on the falling beam, finite-element basis.

The falling beam (case ``falling-beam``, model continuous, theta0 = 0.1 rad) with ``elements`` =
4, 8, ..., 64 Hermite elements (its basis clamped at the centre: N = 2 n_e deformation
coordinates, nq = 3 + N).  Two measures:

* ``eval``: microseconds per call of ``flexlib.multibody.kernel.phase_eval_into`` (M, Q, the
  contact rows, the solve, the rates and the energies), timed through the compiled sample loop
  ``phase_eval_samples`` over ``--samples`` copies of one free-flight state (the initial state
  with small random deflections and rates, so that the foreshortening terms are not zero); the
  median CPU time of ``--repeat`` calls divided by the number of samples.  ``M, Q`` is the
  same for ``flexlib.multibody.assembly.mass_forces_into`` alone (its share of ``eval``), and
  ``solve`` for the solve of that state's M and Q that the kernel does (with the copy of M that
  the solve destroys): ``flexlib.solver.linalg.ldlt_solve_into`` from ``kernel.LDLT_MIN_NQ``
  coordinates on, else ``solve_into`` (Gaussian elimination).
* ``run``: a whole run over 0-``--t-end`` s (default 0.16 s, the landing included): its CPU
  time, the RHS evaluations of its steps (the phases' ``nfev``) and their ratio, for
  ``--run-elements`` only (the slow old route makes long runs impractical at fine meshes).
* ``structure`` (``--structure-elements``): how far the mass matrix is from one whose
  deformation block is constant, at ``--structure-states`` states of a run over the landing
  (0-0.16 s, Radau at rtol 1e-3): the largest relative size of the deformation block's
  configuration-dependent part (the foreshortening's inertia), |M_BB - M2| / |M2| (Frobenius),
  and the largest spectral radius of I - P^-1 M, where P is M with its deformation block replaced
  by the constant M2 = int rho S Phi Phi^T.  Below 1 the constant block, factorized once, would
  make a convergent preconditioner (the iterations to 1e-16 are printed); above 1 it would not.

* ``structured`` (``--structured-elements``): one evaluation as ``eval`` with M solved dense
  (LDL^T) and through its structure (``flexlib.multibody.structured``: each body's elastic block
  as a band system, the frame coordinates by a small Schur complement), the threshold
  ``structured.STRUCTURED_MIN_NQ`` moved so that each route runs at every size, for the falling
  beam and the double pendulum (``--structured-elements`` elements per link; random deflections
  and rates of every coordinate), with the largest relative difference of the two q''.

Usage (from the repository root; the library on PYTHONPATH is the one measured):

    python3 benchmarks/bench_eval.py [--elements 4,8,16,32,64] [--repeat 5] [--json out.json]
        [--structure-elements 8,16,32] [--structured-elements 8,16,32,64]

Prints a table (and writes it as JSON with ``--json``).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numba
import numpy as np

import flexlib
from flexlib import _jit
from flexlib.cases import falling_beam, simulate
from flexlib.multibody import kernel as K
from flexlib.params import BeamParams
from flexlib.solver.linalg import ldlt_solve_into, solve_into
from bench_rhs import _loop_mass_forces     # the same timing loop of M, Q


@numba.njit(cache=False, **_jit.NO_REFCOUNT)
def _loop_solve(n, M0, Q0, Mw, Xw, spd):
    acc = 0.0
    for _ in range(n):
        for i in range(M0.shape[0]):
            Xw[i, 0] = Q0[i]
            for j in range(M0.shape[0]):
                Mw[i, j] = M0[i, j]
        if spd:
            ldlt_solve_into(Mw, Xw, 1)
        else:
            solve_into(Mw, Xw, 1)
        acc += Xw[0, 0]
    return acc


def state(system, seed=1):
    """(S, y, disc): the system's arrays and a free-flight state of the falling beam."""
    S = system.arrays()
    y = system.initial_state()
    nq = S.nq
    _, offs = system.coordinates()
    ir, ith, nf = offs[0]
    rng = np.random.default_rng(seed)
    y[ith + 1:ith + 1 + nf] = 1e-3 * rng.standard_normal(nf)
    y[nq + ith] = 0.5
    y[nq + ith + 1:nq + ith + 1 + nf] = 1e-1 * rng.standard_normal(nf)
    return S, y, np.zeros(4 * len(system.contacts))


def _median_cpu(fn, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        ts.append(time.process_time() - t0)
    return statistics.median(ts)


def eval_cost(elements, repeat=5, budget=0.2):
    """(nq, us per phase_eval_into, per mass_forces_into, per solve_into) at a free-flight
    state."""
    system = falling_beam.system("continuous", beam=BeamParams(basis="fe", elements=elements),
                                 theta0=0.1)
    S, y, disc = state(system)
    nq = S.nq
    K.phase_eval_samples(np.zeros(2), np.tile(y, (2, 1)), np.tile(disc, (2, 1)), S)  # compile
    t0 = time.process_time()
    K.phase_eval_samples(np.zeros(20), np.tile(y, (20, 1)), np.tile(disc, (20, 1)), S)
    per = max((time.process_time() - t0) / 20, 1e-7)
    m = int(min(max(budget / per, 20), 200_000))
    ts, Y, D = np.zeros(m), np.tile(y, (m, 1)), np.tile(disc, (m, 1))
    ev = _median_cpu(lambda: K.phase_eval_samples(ts, Y, D, S), repeat) / m
    ws, _, _ = K.work_arrays(S)
    q, qd = y[:nq].copy(), y[nq:2 * nq].copy()
    args = (q, qd, S, ws, np.zeros((nq, nq)), np.zeros(nq))
    _loop_mass_forces(2, *args)
    mf = _median_cpu(lambda: _loop_mass_forces(m, *args), repeat) / m
    _loop_mass_forces(1, *args)
    sargs = (args[4], args[5], np.zeros((nq, nq)), np.zeros((nq, 1)), S.ldlt)
    _loop_solve(2, *sargs)
    sv = _median_cpu(lambda: _loop_solve(m, *sargs), repeat) / m
    return nq, 1e6 * ev, 1e6 * mf, 1e6 * sv


def run_cost(elements, t_end=0.16):
    """(CPU s, RHS evaluations, us per evaluation, v_cm, omega_mean at t_end) of a whole run."""
    kw = dict(basis="fe", elements=elements, theta0=0.1)
    simulate("falling-beam", "continuous", 0.01, **kw)       # compile outside the timing
    t0 = time.process_time()
    res = simulate("falling-beam", "continuous", t_end, **kw)
    cpu = time.process_time() - t0
    nfev = sum(int(p.sol.nfev) for p in res.phases)
    mm = res.mean_motion(res.sample([t_end]))
    impulses = [float(i["normal_impulse"]) for i in res.impacts]
    return (cpu, nfev, 1e6 * cpu / nfev, mm["beam.v_cm"][0].tolist(),
            float(mm["beam.omega_mean"][0]), impulses)


def structure(elements, n_states=60, t_end=0.16):
    """(|M_BB - M2| / |M2| max, rho(I - P^-1 M) max, cond(M2)) over states of the tilted drop
    (module docstring)."""
    from flexlib.params import SolverSettings
    from flexlib.multibody.simulate import SystemSimulator
    system = falling_beam.system("continuous", beam=BeamParams(basis="fe", elements=elements),
                                 theta0=0.1)
    sim = SystemSimulator(system, t_end, SolverSettings(rtol=1e-3, method="Radau"))
    res = sim.run(audit=False)
    _, offs = system.coordinates()
    ir, ith, nf = offs[0]
    block = slice(ith + 1, ith + 1 + nf)
    M2 = sim.S.bodies[0].M2
    t_land = res.first_contact["t"] if res.first_contact else 0.0
    ts = np.concatenate([np.linspace(0.0, t_land, 5), np.linspace(t_land, t_end, n_states)])
    rel = rho = 0.0
    for y in res.sample(ts):
        M = sim.rows(y)[0]
        rel = max(rel, np.linalg.norm(M[block, block] - M2) / np.linalg.norm(M2))
        P = M.copy()
        P[block, block] = M2
        rho = max(rho, float(np.max(np.abs(np.linalg.eigvals(np.linalg.solve(P, M)
                                                              - np.eye(sim.nq))))))
    w = np.linalg.eigvalsh(M2)
    return rel, rho, float(w[-1] / w[0])


def structured_cost(case, elements, repeat=5, budget=0.2):
    """(nq, us per evaluation with M solved dense, through its structure, max |q''| difference
    over max |q''|) for ``case`` (falling-beam, double-pendulum) at one state."""
    from flexlib.cases import build
    from flexlib.multibody import structured as st
    system, _ = build(case, basis="fe", elements=elements)
    saved = st.STRUCTURED_MIN_NQ
    try:
        st.STRUCTURED_MIN_NQ = 10 ** 9
        S0 = system.arrays()
        st.STRUCTURED_MIN_NQ = 1
        S1 = system.arrays()
    finally:
        st.STRUCTURED_MIN_NQ = saved
    nq = S0.nq
    rng = np.random.default_rng(2)
    y = system.initial_state()
    y[:nq] += 0.01 * rng.standard_normal(nq)
    y[nq:2 * nq] += 0.1 * rng.standard_normal(nq)
    disc = np.zeros(4 * len(system.contacts))
    out = []
    for S in (S0, S1):
        K.phase_eval_samples(np.zeros(2), np.tile(y, (2, 1)), np.tile(disc, (2, 1)), S)
        t0 = time.process_time()
        K.phase_eval_samples(np.zeros(20), np.tile(y, (20, 1)), np.tile(disc, (20, 1)), S)
        m = int(min(max(budget / max((time.process_time() - t0) / 20, 1e-7), 20), 200_000))
        ts, Y, D = np.zeros(m), np.tile(y, (m, 1)), np.tile(disc, (m, 1))
        out.append(1e6 * _median_cpu(lambda: K.phase_eval_samples(ts, Y, D, S), repeat) / m)
    a0 = K.phase_eval(0.0, y, disc, S0)[0][nq:2 * nq]
    a1 = K.phase_eval(0.0, y, disc, S1)[0][nq:2 * nq]
    return nq, out[0], out[1], float(np.abs(a1 - a0).max() / np.abs(a0).max())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--elements", default="4,8,16,32,64")
    ap.add_argument("--run-elements", default="4,8,16")
    ap.add_argument("--t-end", type=float, default=0.16)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", default=None)
    ap.add_argument("--structure-elements", default="")
    ap.add_argument("--structure-states", type=int, default=60)
    ap.add_argument("--structured-elements", default="")
    a = ap.parse_args()
    print(f"flexlib from {flexlib.__file__}")
    rows = {}
    print(f"{'elements':>8} {'nq':>4} {'eval us':>10} {'M, Q us':>10} {'solve us':>10}")
    for ne in (int(s) for s in a.elements.split(",") if s):
        nq, ev, mf, sv = eval_cost(ne, a.repeat)
        rows[ne] = dict(nq=nq, eval_us=ev, mass_forces_us=mf, solve_us=sv)
        print(f"{ne:8d} {nq:4d} {ev:10.2f} {mf:10.2f} {sv:10.2f}", flush=True)
    print(f"\nwhole runs 0-{a.t_end} s")
    print(f"{'elements':>8} {'CPU s':>8} {'nfev':>8} {'us/eval':>9}  v_cm, omega_mean at t_end")
    for ne in (int(s) for s in a.run_elements.split(",") if s):
        cpu, nfev, per, v, om, imp = run_cost(ne, a.t_end)
        rows.setdefault(ne, {}).update(run_cpu_s=cpu, run_nfev=nfev, run_us_per_eval=per,
                                       v_cm=v, omega_mean=om, impulses=imp)
        print(f"{ne:8d} {cpu:8.2f} {nfev:8d} {per:9.2f}  {v[0]:.15e} {v[1]:.15e} {om:.15e} "
              f"impulses {imp}", flush=True)
    if a.structure_elements:
        print(f"\nthe deformation block's configuration-dependent part, {a.structure_states} "
              f"states over the landing")
        print(f"{'elements':>8} {'|M_BB-M2|/|M2|':>15} {'rho(I-P^-1 M)':>14} {'cond M2':>9} "
              f"{'iterations to 1e-16':>20}")
    for ne in (int(s) for s in a.structure_elements.split(",") if s):
        rel, rho, cond = structure(ne, a.structure_states)
        its = f"{np.log(1e-16) / np.log(rho):.0f}" if rho < 1 else "diverges"
        rows.setdefault(ne, {}).update(structure_rel=rel, structure_rho=rho, cond_M2=cond)
        print(f"{ne:8d} {rel:15.2e} {rho:14.3g} {cond:9.2e} {its:>20}", flush=True)
    if a.structured_elements:
        print("\none evaluation, M solved dense (LDL^T) and through its structure")
        print(f"{'case':>16} {'elements':>8} {'nq':>4} {'dense us':>9} {'structured us':>14} "
              f"{'ratio':>6} {'q dd diff':>9}")
    for case in ("falling-beam", "double-pendulum") if a.structured_elements else ():
        for ne in (int(s) for s in a.structured_elements.split(",") if s):
            nq, d, st_, diff = structured_cost(case, ne, a.repeat)
            rows.setdefault(f"{case} {ne}", {}).update(nq=nq, dense_us=d, structured_us=st_,
                                                        qdd_rel_diff=diff)
            print(f"{case:>16} {ne:8d} {nq:4d} {d:9.1f} {st_:14.1f} {d / st_:6.2f} {diff:9.1e}",
                  flush=True)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
