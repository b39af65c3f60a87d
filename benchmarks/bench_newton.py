"""How well a structured Newton matrix would serve Radau: the convergence rate it would give.

Radau's simplified Newton iteration solves, at each step, the reduced systems
(lam^2 I - lam J_xv - J_xx) dx = u with lam = gamma/h (real) and (alpha + i beta)/h (complex),
J = df/dy of the right-hand side (today by differences of f = M^-1 F: 2 nq evaluations, and two
dense LU factorizations per step size).  The candidate is the matrix

    N~ = M^-1 (lam^2 M + lam C + K2 + sum over penalty points in contact of k_c W_n^T W_n),

with M the mass matrix at the Jacobian's state (solved through its structure, banded with
borders: flexlib.multibody.structured), C and K2 the bodies' modal damping and stiffness
(banded) and k_c = dN/d(penetration) of each point's normal law: every term banded or of rank
one, so that N~ could be factorized in O(N) like M.  The simplified Newton iteration with N~ in
place of the exact matrix N converges at the rate rho(I - N~^-1 N) per iteration (the spectral
radius), which this script measures at the step points of a Radau run (rtol 1e-3, three per
phase: its first, middle and last step, with that step's size h), with J by forward differences
of the kernel's f.  A rate far below 1 means the iteration converges as with the exact Jacobian.

Usage (from the repository root):

    python3 benchmarks/bench_newton.py [--case falling-beam] [--elements 16,32,64]
        [--t-end 0.16]

Prints the largest rate per kind of state (free flight or a contact closed) and of lam, and
writes benchmarks/results/newton_rate.json.
"""
from __future__ import annotations

import argparse

import numpy as np

from _common import machine, write_json

from flexlib.cases import build
from flexlib.multibody import kernel as K
from flexlib.multibody.simulate import SystemSimulator
from flexlib.solver.radau import MU_IM, MU_RE, MU_REAL


def rates(case, elements, t_end):
    """{(kind, lam): largest rate} over a Radau run of ``case`` with ``elements`` per body."""
    kw = dict(theta0=0.1) if case == "falling-beam" else {}
    system, solver = build(case, "continuous" if case == "falling-beam" else None, basis="fe",
                           elements=elements, rtol=1e-3, method="Radau", **kw)
    sim = SystemSimulator(system, t_end, solver)
    res = sim.run(audit=False)
    nq = sim.nq
    K2 = np.zeros((nq, nq))
    C = np.zeros((nq, nq))
    for b in range(sim.S.bint.shape[0]):
        a, ith, n = sim.S.bodies[b], sim.S.bint[b, 3], sim.S.bint[b, 6]
        K2[ith + 1:ith + 1 + n, ith + 1:ith + 1 + n] = a.K2
        C[ith + 1:ith + 1 + n, ith + 1:ith + 1 + n] = a.C
    worst = {}
    for ph in res.phases:
        sol = ph.sol
        m = len(sol.hs)
        for k in sorted({0, m // 2, m - 1}) if m else ():
            y, h, t = sol.y[:, k].copy(), sol.hs[k], sol.t[k]
            f0, out = sim.evaluate(t, y, ph.disc)
            J = np.zeros((2 * nq, 2 * nq))
            for j in range(2 * nq):
                d = 1e-7 * max(abs(y[j]), 1e-3)
                yp = y.copy()
                yp[j] += d
                J[:, j] = ((sim.evaluate(t, yp, ph.disc)[0] - f0) / d)[:2 * nq]
            M, Wn, _ = sim.rows(y)
            Kt = K2.copy()
            closed = False
            for c, p in enumerate(system.contacts):
                v = sim.contact_values(out, c)
                if int(ph.disc[4 * c]) != K.FREE and v["gap"] < 0.0:
                    row = p.laws.row()
                    kc = row[K.C_N] * row[K.C_K] * (-v["gap"]) ** (row[K.C_N] - 1.0)
                    Kt += kc * np.outer(Wn[c], Wn[c])
                    closed = True
            for lam in (MU_REAL / h, complex(MU_RE, MU_IM) / h):
                N = lam * lam * np.eye(nq) - lam * J[nq:, nq:] - J[nq:, :nq]
                Nt = np.linalg.solve(M, lam * lam * M + lam * C + Kt)
                rho = float(np.max(np.abs(np.linalg.eigvals(np.eye(nq) - np.linalg.solve(Nt, N)))))
                key = f"{'contact' if closed else 'free'} {'real' if isinstance(lam, float) else 'complex'}"
                worst[key] = max(worst.get(key, 0.0), rho)
    return nq, worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", default="falling-beam")
    ap.add_argument("--elements", default="16,32,64")
    ap.add_argument("--t-end", type=float, default=0.16)
    a = ap.parse_args()
    out = dict(machine=machine(), case=a.case, t_end=a.t_end, rows={})
    for ne in (int(s) for s in a.elements.split(",") if s):
        nq, worst = rates(a.case, ne, a.t_end)
        out["rows"][ne] = dict(nq=nq, **worst)
        print(f"{a.case} {ne} elements (nq {nq}): largest rate "
              + ", ".join(f"{k} {v:.1e}" for k, v in sorted(worst.items())), flush=True)
    write_json("newton_rate" if a.case == "falling-beam" else f"newton_rate_{a.case}", out)


if __name__ == "__main__":
    main()
