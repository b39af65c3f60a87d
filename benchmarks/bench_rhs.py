"""The cost of one right-hand-side (RHS) evaluation, in microseconds.

``kernel.phase_eval_into`` (dy/dt and the phase outputs of one phase, into reused arrays: what
the integrator calls on every stage), its allocating wrapper ``kernel.phase_eval`` and
``beam.mass_forces`` (M(q), Q(q, q')) are timed at real states of case 3.2 (recorded from short runs, mid-phase):

* FREE flight (model frictionless, mode 0);
* CONTACT, frictionless (1 x 1 multiplier solve);
* STICK, hybrid_coulomb (2 x 2 coupled solve; with the paper's beam no stick phase occurs, so the
  stick equations are evaluated at a SLIP state, anchored where the tip is, as the mode
  selection's STICK candidate does);
* SLIP, hybrid_coulomb (Coulomb slip, 1 x 1 solve);
* CONTACT, lugre (LuGre, z integrated).

Two ways:

* ``numba`` : a small ``@njit`` loop calls ``phase_eval_into`` / ``phase_eval`` / ``mass_forces``
  --loops times (1e5 by default).  The ``phase_eval_into`` loop is compiled like the integrator's
  step (no reference counting, reused work arrays), so it is what a DOP853 stage costs; the JSON
  key ``phase_eval_numba_us`` holds it.  ``phase_eval_alloc_numba_us`` is the allocating
  wrapper ``phase_eval`` (fresh output and work arrays on every call);
* ``python``: a Python ``for`` loop calls the numba dispatcher (what scipy's solve_ivp pays per
  RHS, plus the closure ``Simulator.rhs_for``: ``python+closure``).

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
from flexlib.bodies import beam as _beam
from flexlib.solver import integrator, kernel

# where M(q), Q(q, q') are compiled: flexlib.bodies.beam; before they moved there from flexlib.solver.kernel,
# the kernel (so that this script also times an older checkout)
BODY = _beam if hasattr(_beam, "mass_forces") else kernel
from flexlib.params import paper_case
from flexlib.solver.simulate import FREE, CONTACT, STICK, SLIP, SimulationError, Simulator, _Disc

STATES = (  # label, model, mode wanted, t_end of the recording run
    ("FREE (frictionless)", "frictionless", FREE, 0.30),
    ("CONTACT frictionless", "frictionless", CONTACT, 0.336),
    ("STICK hybrid_coulomb", "hybrid_coulomb", STICK, 0.5),
    ("SLIP hybrid_coulomb", "hybrid_coulomb", SLIP, 0.336),
    ("CONTACT lugre", "lugre", CONTACT, 0.336),
)


@numba.njit(cache=False)
def _loop_phase_eval(n, t, y, mode, model, mult, par, arrs):
    acc = 0.0
    for i in range(n):
        dy, out = kernel.phase_eval(t, y, mode, model, mult, par, arrs)
        acc += dy[y.shape[0] // 2] + out[0]
    return acc


# What a DOP853 stage costs: the integrator calls the allocation-free kernel.phase_eval_into
# with reused work arrays, from code compiled without reference counting (kernel.NO_REFCOUNT).
@numba.njit(cache=False, **getattr(kernel, "NO_REFCOUNT", {}))
def _loop_phase_eval_into(n, t, y, mode, model, mult, par, arrs, W, Mw, Xw, dy, out):
    acc = 0.0
    for i in range(n):
        kernel.phase_eval_into(t, y, mode, model, mult, par, arrs, W, Mw, Xw, dy, out, False)
        acc += dy[y.shape[0] // 2] + out[0]
    return acc


@numba.njit(cache=False)
def _loop_mass_forces_quad(n, q, qd, par, nmodes, K2, C, xk, wk, Phik, Hk, Psik, KA):
    acc = 0.0
    for i in range(n):
        M, Q = BODY.mass_forces_quad(q, qd, par, nmodes, K2, C, xk, wk, Phik, Hk, Psik, KA)
        acc += M[0, 0] + Q[0]
    return acc


@numba.njit(cache=False)
def _loop_mass_forces(n, q, qd, par, arrs11):
    acc = 0.0
    for i in range(n):
        M, Q = BODY.mass_forces(q, qd, par, *arrs11)
        acc += M[0, 0] + Q[0]
    return acc


def record_states(n_modes=3, case="3.2"):
    """{label: (Simulator, disc, t, y)} at mid-phase states of short compiled runs."""
    found = {}
    orig = integrator.solve_phase
    for label, model, mode, t_end in STATES:
        seen = []

        def spy(t0, y0, t1, mode_, model_, mult_, par, arrs, **kw):
            sol = orig(t0, y0, t1, mode_, model_, mult_, par, arrs, **kw)
            if mode_ == mode and len(sol.t) > 2:
                k = len(sol.t) // 2
                seen.append((float(sol.t[k]), sol.y[:, k].copy(), par.copy()))
            return sol
        integrator.solve_phase = spy
        try:
            try:
                sim = Simulator(paper_case(case).with_(n_modes=n_modes), model, t_end)
                sim.run()
            except SimulationError:
                pass
        finally:
            integrator.solve_phase = orig
        if not seen:
            continue
        t, y, par = seen[-1]
        found[label] = (sim, _Disc(mode, dir=float(par[19]), s_star=float(par[20])), t, y)
    if "STICK hybrid_coulomb" not in found and "SLIP hybrid_coulomb" in found:
        # no STICK phase on case 3.2 (the STICK candidate is never consistent): evaluate the
        # stick equations at the SLIP state, anchored where the tip is, as the selection does
        sim, d, t, y = found["SLIP hybrid_coulomb"]
        s_here = float(sim.evaluate(t, y, d)[1][7])
        found["STICK hybrid_coulomb"] = (sim, _Disc(STICK, s_star=s_here), t, y)
        found["STICK hybrid_coulomb"] = found.pop("STICK hybrid_coulomb")
    order = [lab for lab, *_ in STATES]
    found = {k: found[k] for k in order if k in found}
    return found


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
    for label, (sim, d, t, y) in states.items():
        arrs = integrator._kernel_arrays(sim._arrs)
        par = np.ascontiguousarray(sim._par(d))
        y = np.ascontiguousarray(y)
        args = (t, y, d.mode, sim._model_code, sim._mult_code, par, arrs)
        _loop_phase_eval(10, *args)            # compile (once per type signature)
        nb_pe_alloc = _median_time(lambda: _loop_phase_eval(loops, *args), repeat) / loops
        nb_pe = nb_pe_alloc
        if hasattr(kernel, "phase_eval_into"):
            args_into = args + (*kernel.work_arrays(arrs), np.empty_like(y),
                                np.empty(kernel.NOUT))
            _loop_phase_eval_into(10, *args_into)
            nb_pe = _median_time(lambda: _loop_phase_eval_into(loops, *args_into), repeat) / loops
        nd = sim.nd
        q, qd = y[:nd].copy(), y[nd:2 * nd].copy()
        a11 = (arrs.M2, arrs.M2mD, arrs.S_y, arrs.K2, arrs.T3r, arrs.T3tr, arrs.T4r, arrs.T4pr,
               arrs.Hbar, arrs.Sbar, arrs.C)     # the tensor route's arrays
        _loop_mass_forces(10, q, qd, par, a11)
        nb_mf = _median_time(lambda: _loop_mass_forces(loops, q, qd, par, a11), repeat) / loops
        nb_quad = float("nan")
        if hasattr(BODY, "mass_forces_quad"):
            # the generic quadrature route (used by flexlib only with axial modes):
            # O(K N^2) with K = max(40, 8 N) Gauss nodes, against O(N^4) for the tensor route
            qa = (q, qd, par, sim.beam.n, arrs.K2, arrs.C, arrs.xk, arrs.wk, arrs.Phik, arrs.Hk,
                  arrs.Psik, arrs.KA)
            _loop_mass_forces_quad(10, *qa)
            nb_quad = _median_time(lambda: _loop_mass_forces_quad(loops, *qa), repeat) / loops
        pe = kernel.phase_eval
        mode, model, mult = d.mode, sim._model_code, sim._mult_code

        def py_loop():
            for _ in range(python_loops):
                pe(t, y, mode, model, mult, par, arrs)
        py_pe = _median_time(py_loop, repeat) / python_loops
        rhs = sim.rhs_for(d)

        def py_closure():
            for _ in range(python_loops):
                rhs(t, y)
        py_cl = _median_time(py_closure, repeat) / python_loops
        mf = BODY.mass_forces

        def py_mf():
            for _ in range(python_loops):
                mf(q, qd, par, *a11)
        py_m = _median_time(py_mf, repeat) / python_loops
        res[label] = dict(t=t, mode=d.mode, model=sim.model, n_modes=n_modes,
                          phase_eval_numba_us=1e6 * nb_pe, phase_eval_alloc_numba_us=1e6 * nb_pe_alloc,
                          phase_eval_python_us=1e6 * py_pe,
                          phase_eval_python_closure_us=1e6 * py_cl,
                          mass_forces_numba_us=1e6 * nb_mf, mass_forces_python_us=1e6 * py_m,
                          mass_forces_quad_numba_us=1e6 * nb_quad)
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
    print(f"\ncost of one evaluation, N = {a.n_modes} modes, microseconds (median of {a.repeat} "
          f"CPU-time measurements of {a.loops} calls in an @njit loop / {a.python_loops} calls from Python)")
    print("'stage' = phase_eval_into with reused work arrays, as the integrator calls it; "
          "'phase_eval' = the allocating wrapper")
    print(f"{'state':22} {'stage':>10} {'phase_eval':>10} {'phase_eval':>10} {'rhs closure':>11} "
          f"{'mass_forces':>11} {'mass_forces':>11} {'M,Q quadr.':>10}")
    print(f"{'':22} {'in numba':>10} {'in numba':>10} {'from Py':>10} {'from Py':>11} {'in numba':>11} "
          f"{'from Py':>11} {'in numba':>10}")
    for label, r in res.items():
        print(f"{label:22} {r['phase_eval_numba_us']:10.2f} {r['phase_eval_alloc_numba_us']:10.2f} "
              f"{r['phase_eval_python_us']:10.2f} "
              f"{r['phase_eval_python_closure_us']:11.2f} {r['mass_forces_numba_us']:11.2f} "
              f"{r['mass_forces_python_us']:11.2f} {r['mass_forces_quad_numba_us']:10.2f}")
    name = "rhs" if a.n_modes == 3 else f"rhs_N{a.n_modes}"
    print(f"\nwritten {write_json(name, dict(machine=mach, loops=a.loops, repeat=a.repeat, costs=res))}")


if __name__ == "__main__":
    main()
