"""Write notebooks/07-axial-flexibility.ipynb from the cell sources below (nbformat v4, no outputs).

    .venv/bin/python scripts/build_notebook_07.py     # then: python -m flexlib notebooks notebooks/07-axial-flexibility.ipynb

The heavy runs (case 3.2, three friction models, axial_modes = 0..3, 0-1.2 s) are cached in
figures/data/axial_study.json by flexlib.axial.axial_study(); the notebook computes them (~1 min)
only when that file is missing.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "notebooks" / "07-axial-flexibility.ipynb"


def md(text):
    return new_markdown_cell(text.strip("\n"))


def code(text):
    return new_code_cell(text.strip("\n"))


CELLS = [
    md(r"""
# 07 · Axial flexibility: an extension beyond the paper

**This notebook is not about the paper's model.** Fan et al. (2021) use an axially inextensible beam
(MODEL.md §1.1). flexlib offers one documented extension (MODEL.md §14), the beam option
`axial_modes = Na` (default 0, which is exactly the paper's model). It adds Na fixed–free bar modes

$$u_x(x,t) = \Psi(x)C(t) - \tfrac12 B^\mathsf{T}H(x)B,\qquad
\Psi_j(x) = \sqrt2\,\sin\frac{(2j-1)\pi x}{2L},\qquad V_A = \tfrac12 C^\mathsf{T}K_AC,\quad K_A=\int_0^L EA\,\Psi'^\mathsf{T}\Psi'\,dx,$$

with $q = [\theta, B_1..B_N, C_1..C_{Na}]$. Mass matrix, forces, energies, tip kinematics, Jacobians,
the velocity jump, the stick/slip solves and the energy audit all carry the new coordinates
(the tests are in `tests/test_axial.py`). The axial frequencies are $(2j-1)\frac{\pi}{2}\sqrt{E/\rho}/L$,
7842 and 23525 rad/s for the first two, so free flight gets stiffer and the explicit integrator takes
more steps.

The reason for the extension is the question it answers: **what do the hybrid models do when stick can
really happen?**
"""),
    code(r"""
%matplotlib inline
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
import flexlib as fl
from flexlib import axial, contact, figures
plt.rcParams.update({"figure.dpi": 72, "savefig.dpi": 72})
"""),
    md(r"""
## Why stick is ill-posed in the paper's model

The stick state of a hybrid model holds the tip still on the slope: both $\Psi = 0$ and
$\Gamma = s - s^* = 0$. Their Jacobians are $\Psi_q = n^\mathsf{T}J_P$ and $\Gamma_q = t^\mathsf{T}J_P$.
With an inextensible beam the tip can only move along the beam axis through the small
foreshortening $-\tfrac12 B^\mathsf{T}H_LB$, so at small $B$ the matrix $\tilde J_P$ has rank 1 and
$\Gamma_q \approx k\,\Psi_q$ with $k = \tan(\alpha-\theta)\approx 0.157$ near contact in case 3.2
(MODEL.md §7.4). Holding the tip tangentially still then costs a friction force $|F_t|\approx N/k$:
the stick test asks for $|F_t|/N \approx 1/k \approx 6.4$, far above $\mu_d = 0.4$ and $\mu_s = 0.5$,
and always fails. This is what our default runs show (`figures/data/key_numbers.json`,
`max_stick_ratio` per impact):
"""),
    code(r"""
key = figures.load_study("key_numbers")
for m in ("hybrid_coulomb", "hybrid_lugre"):
    ratios = [im["max_stick_ratio"] for im in key["runs"][m]["impacts"]]
    print(f"{m:15s} max |F_t|/N asked by the stick test, per impact:",
          ", ".join("–" if r is None else f"{r:.3g}" for r in ratios))
"""),
    md(r"""
One axial mode changes this: $\tilde J_P$ gains the column $(\Psi(L), 0)^\mathsf{T}$, the tip can move along
the beam, and $\Psi_q$, $\Gamma_q$ become independent. Below: the cosine of the angle between
$\Psi_q$ and $\Gamma_q$ in the $M^{-1}$ metric, $S_{12}/\sqrt{S_{11}S_{22}}$, and the condition number of the
stick matrix $S$, at the state just before the first impact (same $\theta$, $B$; $C = \dot C = 0$).
"""),
    code(r"""
pre = fl.simulate("3.2", "frictionless", 0.3329)      # free flight to just before the first contact
nb = pre.case.beam.n_modes
q0 = np.concatenate(([pre.theta[-1]], pre.B[-1]))
qd0 = np.concatenate(([pre.theta_dot[-1]], pre.B_dot[-1]))
rows = []
for na in range(4):
    case = fl.paper_case("3.2").with_(axial_modes=na)
    bm = fl.BeamModel(case.beam)
    slope = contact.Slope.from_params(case.slope)
    q = np.concatenate((q0, np.zeros(na)))
    k = contact.tip_contact(bm, slope, q, np.concatenate((qd0, np.zeros(na))))
    A = np.vstack((k.Psi_q, k.Gamma_q))
    S = A @ np.linalg.solve(bm.mass_matrix(q), A.T)
    rows.append((na, S[0, 1] / np.sqrt(S[0, 0] * S[1, 1]), np.linalg.cond(S)))
for na, cosang, cond in rows:
    print(f"axial_modes = {na}: cos(Psi_q, Gamma_q)_M^-1 = {cosang:+.6f}, cond(S) = {cond:.3g}")
"""),
    md(r"""
## Case 3.2 with axial modes: 0–1.2 s, three friction models

`flexlib.axial.axial_study()` runs case 3.2 with hybrid Coulomb, hybrid LuGre and unified LuGre for
`axial_modes` = 0, 1, 2, 3 over 0–1.2 s (12 runs, about a minute), checks each run (energy audit,
$N\ge 0$, gap in contact, Coulomb bound) and condenses it. `python -m flexlib figures` caches it in
`figures/data/axial_study.json`; this notebook reads that file (and computes it if it is missing).
A run may stop early with a clean `SimulationError`; its partial result is kept and its message shown.
"""),
    code(r"""
study = axial.load_axial_study()
NAS = [str(n) for n in study["axial_modes"]]
MODELS = study["models"]
rows = []
for m in MODELS:
    for na in NAS:
        r = study["runs"][m][na]
        c = r["checks"]
        rows.append(f"| {m} | {na} | {'yes' if r['success'] else 'no, stopped at %.4f s' % r['t_last']} | "
                    f"{len(r['impacts'])} | {r['n_steps']} | {r['n_rhs']} | {c['audit_rel']:.1e} | "
                    f"{c['min_N']:.1e} | {c['max_gap']:.1e} | "
                    f"{'–' if c['coulomb_excess'] is None else '%.1e' % c['coulomb_excess']} |")
display(Markdown("| model | Na | reached 1.2 s | impacts | steps | RHS evals | max audit / E0 | min N in contact [N] "
                 "| max abs gap in contact [m] | max abs F_t − μd N [N] |\n|---|---|---|---|---|---|---|---|---|---|\n"
                 + "\n".join(rows)))
for m in MODELS:
    for na in NAS:
        r = study["runs"][m][na]
        if not r["success"]:
            print(f"{m}, Na = {na}: {r['message']}")
"""),
    md(r"""
The step count grows with Na because the explicit DOP853 integrator's step is bounded by the stability
limit of the fastest axial mode (7.8, 23.5 and 39.2 krad/s for Na = 1, 2, 3). The runs stay cheap
(seconds each). Min N is at round-off level (separations), the gap stays at the Baumgarte level and
the energy audit closes to ≤ 1e-8 E0.

### Stick and slip intervals per impact

Number and total duration of the stick and slip intervals in each impact (a cluster of contact
episodes, MODEL.md §8.6). Unified LuGre has no stick/slip states: its stick-like behaviour is in the
bristle state z.
"""),
    code(r"""
def stick_table(model):
    head = "| impact | " + " | ".join(f"Na = {na}: stick n / ms, slip n / ms" for na in NAS) + " |"
    sep = "|---|" + "---|" * len(NAS)
    n_imp = max(len(study["runs"][model][na]["impacts"]) for na in NAS)
    lines = [head, sep]
    for k in range(n_imp):
        cells = []
        for na in NAS:
            imps = study["runs"][model][na]["impacts"]
            if k < len(imps):
                im = imps[k]
                cells.append(f"{im['n_stick']} / {1e3 * im['stick_time']:.3f}, {im['n_slip']} / {1e3 * im['slip_time']:.3f}")
            else:
                cells.append("–")
        lines.append(f"| {k + 1} | " + " | ".join(cells) + " |")
    return "\n".join(lines)

for m in ("hybrid_coulomb", "hybrid_lugre"):
    display(Markdown(f"**{m}**\n\n" + stick_table(m)))
"""),
    md(r"""
With Na = 0 the hybrid models never stick (every stick test fails, as explained above). With one axial
mode or more they do: stick intervals appear from the first impact on, typically a few tenths of a
millisecond per impact, growing to several ms in the later, gentler impacts.

### The first impact: tangential displacement, normal and friction force

$s(t)$ relative to its value at the start of the impact, with the stick intervals shaded.
"""),
    code(r"""
colors = {"0": "0.4", "1": "C0", "2": "C1", "3": "C2"}
fig, axs = plt.subplots(3, 3, figsize=(12, 7.5), sharex="col", constrained_layout=True)
for j, m in enumerate(MODELS):
    for na in NAS:
        fi = study["runs"][m][na]["first_impact"]
        t = np.array(fi["t"], float)
        t0 = t[0]
        s = np.array(fi["s"], float)
        axs[0, j].plot(1e3 * (t - t0), 1e3 * (s - s[0]), color=colors[na], label=f"Na = {na}")
        axs[1, j].plot(1e3 * (t - t0), np.array(fi["N"], float), color=colors[na])
        axs[2, j].plot(1e3 * (t - t0), np.array(fi["F_t"], float), color=colors[na])
        for a, b in fi["stick_intervals"]:
            for ax in axs[:, j]:
                ax.axvspan(1e3 * (a - t0), 1e3 * (b - t0), color=colors[na], alpha=0.15, lw=0)
    axs[0, j].set_title(m)
    axs[2, j].set_xlabel("time since first contact [ms]")
axs[0, 0].set_ylabel("s − s(t_c) [mm]")
axs[1, 0].set_ylabel("N [N]")
axs[2, 0].set_ylabel("F_t [N]")
axs[0, 0].legend(fontsize=8)
for ax in axs.flat:
    ax.grid(True, lw=0.3, alpha=0.6)
"""),
    md(r"""
### Energies

Mechanical energy E = T + V_E + V_G (V_E includes the axial strain energy V_A) over the whole run.
"""),
    code(r"""
fig, axs = plt.subplots(1, 3, figsize=(12, 3.2), sharey=True, constrained_layout=True)
for ax, m in zip(axs, MODELS):
    for na in NAS:
        e = study["runs"][m][na]["energies"]
        ax.plot(e["t"], e["E"], color=colors[na], label=f"Na = {na}")
    ax.set_title(m)
    ax.set_xlabel("time t [s]")
    ax.grid(True, lw=0.3, alpha=0.6)
axs[0].set_ylabel("E [J]")
axs[0].legend(fontsize=8)
peak_VA = max(max(abs(v) for v in study["runs"][m][na]["energies"].get("V_A", [0.0]) if v is not None)
              for m in MODELS for na in NAS)
print(f"largest axial strain energy V_A sampled: {peak_VA:.3g} J")
"""),
    md(r"""
### The paper's claims, re-evaluated for each Na

`flexlib.claims.evaluate_claims` on {model: result} for the three models with the same Na
(thresholds as in notebook 06). Na = 0 is the paper's model and matches `figures/claims.md` except for
the shorter window (1.2 s here, 2 s there).
"""),
    code(r"""
by_na = {na: {c["id"]: c for c in study["claims"][na]} for na in NAS}
ids = [c["id"] for c in study["claims"][NAS[0]]]
lines = ["| claim | " + " | ".join(f"Na = {na}" for na in NAS) + " | text |", "|---|" + "---|" * (len(NAS) + 1)]
changed = []
for cid in ids:
    v = [by_na[na][cid]["verdict"] if cid in by_na[na] else "not evaluated" for na in NAS]
    definite = {x for x in v if x in ("holds", "does not hold")}
    if len(definite) > 1 or (definite and "holds" in definite and any(x == "not checkable" for x in v)):
        changed.append(cid)
    lines.append(f"| {cid} | " + " | ".join(v) + f" | {by_na[NAS[0]][cid]['claim'][:110]} |")
display(Markdown("\n".join(lines)))
print("claims whose verdict depends on Na (holds for some Na, not for others):", ", ".join(changed) or "none")
"""),
    md(r"""
### Convergence in the number of axial modes

First-impact numbers for Na = 0..3. The first contact time is set by the free flight and does not move;
the first impact's duration (≈ 10.5 ms) and, for hybrid Coulomb, its peak N and peak |F_t| change by
less than 1 %, and its total stick time stays near 0.7 ms. Other numbers are **not converged** in Na:
the number of stick and slip intervals grows with every added axial mode (each brings a faster
tangential vibration of the tip that splits the stick intervals), the LuGre models' peak |F_t| grows
with Na (the σ1ż transient excites the stiff axial modes), and the later impacts, which depend on
everything before them, change from one Na to the next.
"""),
    code(r"""
lines = ["| model | Na | t first contact [s] | first impact [ms] | peak N [N] | peak abs F_t [N] | stick n | stick [ms] | impacts in 1.2 s | E(1.2 s) [J] |",
         "|---|---|---|---|---|---|---|---|---|---|"]
for m in MODELS:
    for na in NAS:
        r = study["runs"][m][na]
        im = r["impacts"][0]
        lines.append(f"| {m} | {na} | {im['t_start']:.6f} | {1e3 * (im['t_end'] - im['t_start']):.3f} | "
                     f"{im['peak_N']:.1f} | {im['peak_Ft']:.1f} | {im['n_stick']} | {1e3 * im['stick_time']:.3f} | "
                     f"{len(r['impacts'])} | {r['final_E']:.4f}{'' if r['success'] else ' (stopped)'} |")
display(Markdown("\n".join(lines)))
"""),
    code(r"""
# NBVAL_CHECK_OUTPUT
def t4(x):
    return f"{round(x, 4):.4f}"

def f3(x):
    return f"{float(f'{x:.3g}'):g}"

for m in MODELS:
    for na in NAS:
        r = study["runs"][m][na]
        im = r["impacts"][0]
        print(f"{m:15s} Na={na} first contact {t4(im['t_start'])} s, peak N {f3(im['peak_N'])} N, "
              f"peak |F_t| {f3(im['peak_Ft'])} N, first-impact stick {t4(im['stick_time'])} s, "
              f"reached 1.2 s: {r['success']}")
"""),
    md(r"""
## What depends on this choice

* **Stick exists only with axial flexibility.** With the paper's inextensible beam the hybrid models
  never stick: every stick test needs |F_t|/N ≈ 6, because the tangential constraint is nearly
  redundant with the hinge. With one axial mode or more, stick intervals appear in every impact of the
  hybrid models, as the paper's Fig 12 suggests they should.
* **Claims about stick** become checkable only with Na ≥ 1: C20 ("during stick μ spans μ_d") cannot be
  checked in the paper's model (no stick) and holds for Na = 1 and 2.
* **Verdicts that flip with Na** are listed under the claims table. Apart from C20 the flips are not
  monotone in Na (C10 holds only for Na = 0; C3, C15, C22 only for Na = 2): they come from the later
  impacts, which are not converged in Na, rather than from a systematic effect of stick. Claims about
  the first contact (its time, the velocity jump) do not depend on the choice; the verdicts that do
  not hold in the paper's model (for example C1, the LuGre pair coinciding) do not hold with axial
  modes either.
* **Runs can end early.** With Na = 3 the hybrid LuGre run stops at 0.70 s at a Painlevé singularity
  (the LuGre transient μ = σ1ż exceeds the limit of MODEL.md §7.4); flexlib reports it as a
  `SimulationError` instead of continuing, and the claims that need later impacts are then not
  evaluated for Na = 3.

All of this is a property of the extension, not of the paper. The paper's model is `axial_modes = 0`,
the default everywhere else in flexlib.
"""),
]


def build():
    nb = new_notebook(cells=CELLS)
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.write(nb, OUT)
    return OUT


if __name__ == "__main__":
    print(build())
