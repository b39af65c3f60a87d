"""The cost of one right-hand-side (RHS) evaluation, in microseconds.

Case 3.2 runs on the system engine as a one-body, one-point system
(:class:`flexlib.paper.BeamRun`, its ``engine`` a :class:`~flexlib.multibody.simulate.SystemSimulator`).
Its right-hand side is ``flexlib.multibody.kernel.phase_eval_into`` (dy/dt and the outputs of one
phase, into reused work arrays: what the compiled integrator calls on every stage);
``flexlib.multibody.assembly.mass_forces_into`` (the system's M(q), Q(q, q')) is part of it.
Both are timed at real states of case 3.2 (recorded from short runs, mid-phase):

* FREE flight (model frictionless);
* CONTACT, frictionless (one constraint row);
* STICK, hybrid_coulomb (two rows; with the paper's beam no stick phase occurs, so the stick
  equations are evaluated at a SLIP state, anchored where the tip is, as the mode selection's
  STICK candidate does);
* SLIP, hybrid_coulomb (Coulomb slip, one row);
* CONTACT, lugre (LuGre, z integrated).

Three ways:

* ``stage``: a small ``@njit`` loop calls ``phase_eval_into`` --loops times (1e5 by default),
  compiled like the integrator's step (no reference counting, reused work arrays): what a DOP853
  stage costs; JSON key ``phase_eval_numba_us``.  ``mass_forces_numba_us``: the same for
  ``mass_forces_into`` alone;
* ``from Py``: a Python ``for`` loop calls the numba dispatcher of ``phase_eval_into``
  (``phase_eval_python_us``), and ``SystemSimulator.evaluate`` (``evaluate_python_us``: the
  copies of dy and the outputs too; what scipy's ``solve_ivp`` pays per RHS through
  ``flexlib.solver.integrator.ScipyPhase``).

Usage: python3 benchmarks/bench_rhs.py [--n-modes 3] [--loops 100000] [--repeat 7]
Writes benchmarks/results/rhs.json (or rhs_N<n>.json for --n-modes other than 3).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np

from _common import machine, machine_line, write_json
from flexlib import _jit
from flexlib.layout import CONTACT, FREE, SLIP, STICK
from flexlib.multibody import kernel as K
from flexlib.multibody.assembly import mass_forces_into
from flexlib.multibody.simulate import SystemSimulationError, SystemSimulator
from flexlib.paper import BeamRun
from flexlib.params import paper_case

STATES = (  # label, model, mode wanted, t_end of the recording run
    ("FREE (frictionless)", "frictionless", FREE, 0.30),
    ("CONTACT frictionless", "frictionless", CONTACT, 0.336),
    ("STICK hybrid_coulomb", "hybrid_coulomb", STICK, 0.5),
    ("SLIP hybrid_coulomb", "hybrid_coulomb", SLIP, 0.336),
    ("CONTACT lugre", "lugre", CONTACT, 0.336),
)

MODEL_OF = {label: model for label, model, *_ in STATES}


# What a DOP853 stage costs: the integrator calls the allocation-free phase_eval_into with reused
# work arrays, from code compiled without reference counting (flexlib._jit.NO_REFCOUNT).
@numba.njit(cache=False, **_jit.NO_REFCOUNT)
def _loop_phase_eval_into(n, t, y, disc, S, ws, Mw, Xw, dy, out):
    acc = 0.0
    for i in range(n):
        K.phase_eval_into(t, y, 0, 0, 0, disc, S, ws, Mw, Xw, dy, out, False)
        acc += dy[y.shape[0] // 2] + out[0]
    return acc


@numba.njit(cache=False, **_jit.NO_REFCOUNT)
def _loop_mass_forces(n, q, qd, S, ws, M, Q):
    acc = 0.0
    for i in range(n):
        mass_forces_into(q, qd, S, ws, M, Q, True)
        acc += M[0, 0] + Q[0]
    return acc


def record_states(n_modes=3, case="3.2"):
    """{label: (SystemSimulator, disc, t, y)} at mid-phase states of short compiled runs."""
    found = {}
    orig = SystemSimulator._phase
    for label, model, mode, t_end in STATES:
        seen = []

        def spy(self, t, y, disc):
            sol = orig(self, t, y, disc)
            if int(disc[K.D_MODE]) == mode and len(sol.t) > 2:
                k = len(sol.t) // 2
                seen.append((float(sol.t[k]), sol.y[:, k].copy(), np.array(disc, float)))
            return sol
        SystemSimulator._phase = spy
        try:
            run = BeamRun(paper_case(case).with_(n_modes=n_modes), model, t_end)
            try:
                run.engine.run()
            except SystemSimulationError:
                pass
        finally:
            SystemSimulator._phase = orig
        if seen:
            t, y, disc = seen[-1]
            found[label] = (run.engine, disc, t, y)
    if "STICK hybrid_coulomb" not in found and "SLIP hybrid_coulomb" in found:
        # no STICK phase on case 3.2: evaluate the stick equations at the SLIP state, anchored
        # where the tip is, as the selection's STICK candidate does
        eng, d, t, y = found["SLIP hybrid_coulomb"]
        s_here = eng.contact_values(eng.evaluate(t, y, d)[1], 0)["s"]
        disc = np.array(d, float)
        disc[K.D_MODE], disc[K.D_DIR], disc[K.D_SSTAR] = STICK, 0.0, s_here
        found["STICK hybrid_coulomb"] = (eng, disc, t, y)
    return {lab: found[lab] for lab, *_ in STATES if lab in found}


def _median_time(fn, repeat):
    """Median process CPU time of ``fn()`` (CPU time: the machine is shared with other jobs)."""
    ts = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        ts.append(time.process_time() - t0)
    return statistics.median(ts)


def rhs_costs(n_modes=3, loops=100_000, repeat=7, python_loops=20_000, states=None):
    """Per-call costs in microseconds at each recorded state."""
    states = states or record_states(n_modes)
    res = {}
    for label, (eng, disc, t, y) in states.items():
        y = np.ascontiguousarray(y)
        disc = np.ascontiguousarray(disc)
        S = eng.S
        ws, Mw, Xw = K.work_arrays(S)
        dy, out = np.empty_like(y), np.empty(K.NOUT)
        args = (t, y, disc, S, ws, Mw, Xw, dy, out)
        _loop_phase_eval_into(10, *args)            # compile (once per type signature)
        nb_pe = _median_time(lambda: _loop_phase_eval_into(loops, *args), repeat) / loops
        nq = eng.nq
        q, qd = y[:nq].copy(), y[nq:2 * nq].copy()
        mf = (q, qd, S, ws, np.zeros((nq, nq)), np.zeros(nq))
        _loop_mass_forces(10, *mf)
        nb_mf = _median_time(lambda: _loop_mass_forces(loops, *mf), repeat) / loops
        pe = K.phase_eval_into

        def py_loop():
            for _ in range(python_loops):
                pe(t, y, 0, 0, 0, disc, S, ws, Mw, Xw, dy, out, False)
        py_pe = _median_time(py_loop, repeat) / python_loops
        ev = eng.evaluate

        def py_evaluate():
            for _ in range(python_loops):
                ev(t, y, disc)
        py_ev = _median_time(py_evaluate, repeat) / python_loops
        res[label] = dict(t=t, mode=int(disc[K.D_MODE]), model=MODEL_OF[label],
                          n_modes=n_modes, nq=nq, phase_eval_numba_us=1e6 * nb_pe,
                          phase_eval_python_us=1e6 * py_pe, evaluate_python_us=1e6 * py_ev,
                          mass_forces_numba_us=1e6 * nb_mf)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n-modes", type=int, default=3)
    ap.add_argument("--loops", type=int, default=100_000)
    ap.add_argument("--python-loops", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=7)
    a = ap.parse_args()
    mach = machine()
    print(machine_line(mach))
    res = rhs_costs(a.n_modes, a.loops, a.repeat, a.python_loops)
    print(f"\ncost of one evaluation, case 3.2 as a one-body system, N = {a.n_modes} modes, "
          f"microseconds (median of {a.repeat} CPU-time measurements of {a.loops} calls in an "
          f"@njit loop / {a.python_loops} calls from Python)")
    print("'stage' = phase_eval_into with reused work arrays, as the integrator calls it")
    print(f"{'state':22} {'stage':>10} {'phase_eval':>10} {'evaluate':>10} {'M, Q':>10}")
    print(f"{'':22} {'in numba':>10} {'from Py':>10} {'from Py':>10} {'in numba':>10}")
    for label, r in res.items():
        print(f"{label:22} {r['phase_eval_numba_us']:10.2f} {r['phase_eval_python_us']:10.2f} "
              f"{r['evaluate_python_us']:10.2f} {r['mass_forces_numba_us']:10.2f}")
    name = "rhs" if a.n_modes == 3 else f"rhs_N{a.n_modes}"
    print(f"\nwritten {write_json(name, dict(machine=mach, loops=a.loops, repeat=a.repeat, costs=res))}")


if __name__ == "__main__":
    main()
