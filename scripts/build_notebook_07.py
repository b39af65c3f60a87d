"""Write notebooks/07-axial-flexibility.ipynb from the cell sources below (nbformat v4, no outputs).

    .venv/bin/python scripts/build_notebook_07.py     # then: python -m flexlib notebooks notebooks/07-axial-flexibility.ipynb

The heavy runs (case 3.2, three friction models, axial_modes = 0..3, 0-1.2 s) are cached in
figures/data/axial_study.json by flexlib.studies.axial.axial_study(); the notebook computes them (~1 min)
only when that file is missing.
"""
from __future__ import annotations


from build_notebooks import OUT as NOTEBOOK_DIR, checked, code, md, write_notebook   # scripts/ is on sys.path

OUT = NOTEBOOK_DIR / "07-axial-flexibility.ipynb"


CELLS = [
    md(r"""
# 07 · Axial flexibility: an extension beyond the paper

**This notebook is not about the paper's model.** Fan et al. (2021) use an axially inextensible beam
([docs/model.md §1](../docs/model.md#1-the-physical-problem)). flexlib offers one documented extension ([docs/model.md §16](../docs/model.md#16-extension-beyond-the-paper-axial-flexibility)), the beam option
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
import flexlib as fl
from flexlib.studies import axial, figures
from flexlib.viz import plots, widgets
%matplotlib inline
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from flexlib.viz import theme
theme.use()  # resolution and font sizes of every figure: flexlib/viz/theme.py
"""),
    md(r"""
## Why stick is ill-posed in the paper's model

The stick state of a hybrid model holds the tip still on the slope: both $\Psi = 0$ and
$\Gamma = s - s^* = 0$. Their Jacobians are $\Psi_q = n^\mathsf{T}J_P$ and $\Gamma_q = t^\mathsf{T}J_P$.
With an inextensible beam the tip can only move along the beam axis through the small
foreshortening $-\tfrac12 B^\mathsf{T}H_LB$, so at small $B$ the matrix $\tilde J_P$ has rank 1 and
$\Gamma_q \approx k\,\Psi_q$ with $k = \tan(\alpha-\theta)\approx 0.157$ near contact in case 3.2
([docs/model.md §8](../docs/model.md#8-contact-phase-constraints-baumgarte-stabilisation-and-the-force-solves)). Holding the tip tangentially still then costs a friction force $|F_t|\approx N/k$:
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
    checked(r"""
for g in axial.stick_geometry(axial_modes=(0, 1, 2, 3)):
    cond = float(f"{g['cond']:.2g}")                    # 2 significant digits: deterministic
    print(f"axial_modes = {g['axial_modes']}: cos(Psi_q, Gamma_q)_M^-1 = {g['cos']:+.4f}, cond(S) = {cond:g}")
"""),
    md(r"""
With the inextensible beam the two constraint rows are parallel to within $10^{-6}$ and the stick
matrix is nearly singular; one axial mode makes them clearly independent and $S$ well conditioned.
"""),
    md(r"""
## Case 3.2 with axial modes: 0–1.2 s, three friction models

`flexlib.studies.axial.axial_study()` runs case 3.2 with hybrid Coulomb, hybrid LuGre and unified LuGre for
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
                    f"{'–' if c.get('coulomb_excess_slip') is None else '%.1e' % c['coulomb_excess_slip']} |")
display(Markdown("| model | Na | reached 1.2 s | impacts | steps | RHS evals | max audit / E0 | min N in contact [N] "
                 "| max abs gap in contact [m] | max (abs F_t − μd N) in slip [N] |\n|---|---|---|---|---|---|---|---|---|---|\n"
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
the energy audit closes to ≤ 1e-7 E0 (the tests in `tests/test_axial.py` require ≤ 1e-6 E0).

### Stick and slip intervals per impact

Number and total duration of the stick and slip intervals in each impact (a cluster of contact
episodes, [docs/model.md §12](../docs/model.md#12-impacts-episodes-and-clusters)). Unified LuGre has no stick/slip states: its stick-like behaviour is in the
bristle state z.
"""),
    code(r"""
for m in ("hybrid_coulomb", "hybrid_lugre"):
    display(Markdown(f"**{m}**\n\n" + axial.stick_table_markdown(study, m)))
"""),
    code(r"""
axial.fig_axial_stick(study)
plt.show()
"""),
    md(r"""
With Na = 0 the hybrid models never stick (every stick test fails, as explained above). With one axial
mode or more they do: both hybrid models stick in the first impact (a few tenths of a millisecond in
total, split into more intervals as Na grows) and in most later impacts, where the stick time grows to
milliseconds, up to tens of ms in the last, gentle impacts. `tests/test_axial.py` checks these
expectations for every setting (no stick for Na = 0, stick in the first impact for Na ≥ 1, s constant,
|v_t| ≤ D_v and |F_t| ≤ μ N during every stick interval).

### The first impact: tangential displacement, normal and friction force

$s(t)$ relative to its value at the start of the impact, with the stick intervals shaded.
"""),
    code(r"""
axial.fig_axial_first_impact(study)
plt.show()
"""),
    md(r"""
The paper's Fig 12 shows forward slip, reverse slip and a stick interval in the first impact. With
Na = 0 our hybrid runs slip forward and backward but cannot stick; with Na ≥ 1 they stick near the
turning point of s (about 6.5–7.5 ms after first contact), which is where the paper's Fig 12 has its
stick. N and F_t agree closely across Na for hybrid Coulomb; the LuGre models' F_t carries a
high-frequency transient that grows with Na (the σ1ż term excites the stiff axial modes).

**Try it:** the shared panel with the `axial_modes` control (0–4) runs the first impact
(0–0.35 s) of the hybrid models and plots the paper's Fig 12 with stick shaded.
"""),
    code(r"""
widgets.panel(fields=["axial_modes", "mu_d"], models=["hybrid_coulomb", "hybrid_lugre"], case="3.2",
              t_end=0.35, plot=plots.fig_tangential_displacement)
"""),
    md(r"""
### Energies

Mechanical energy E = T + V_E + V_G (V_E includes the axial strain energy V_A) over the whole run.
"""),
    code(r"""
axial.fig_axial_energy(study)
plt.show()
peak_VA = max(max(abs(v) for v in study["runs"][m][na]["energies"].get("V_A", [0.0]) if v is not None)
              for m in MODELS for na in NAS)
print(f"largest axial strain energy V_A sampled: {peak_VA:.3g} J")
"""),
    md(r"""
Energy lost in the first three impacts (ΔE of the impact; its friction-work part in brackets), J:
"""),
    code(r"""
lines = ["| model | " + " | ".join(f"Na = {na}" for na in NAS) + " |", "|---|" + "---|" * len(NAS)]
for m in MODELS:
    cells = []
    for na in NAS:
        imps = study["runs"][m][na]["impacts"][:3]
        cells.append(", ".join(f"{im['energy_lost']:.3f} ({-im['friction_work']:.3f})" for im in imps))
    lines.append(f"| {m} | " + " | ".join(cells) + " |")
display(Markdown("\n".join(lines)))
"""),
    md(r"""
### The paper's claims, re-evaluated for each Na

`flexlib.studies.claims.evaluate_claims` on {model: result} for the three models with the same Na
(thresholds as in notebook 06). Na = 0 is the paper's model and matches `figures/claims.md` except for
the shorter window (1.2 s here, 2 s there).
"""),
    code(r"""
by_na = {na: {c["id"]: c for c in study["claims"][na]} for na in NAS}
ids = [c["id"] for c in study["claims"][NAS[0]]]
lines = ["| claim | " + " | ".join(f"Na = {na}" for na in NAS) + " | text |", "|---|" + "---|" * (len(NAS) + 1)]
for cid in ids:
    v = [by_na[na][cid]["verdict"] if cid in by_na[na] else "not evaluated" for na in NAS]
    lines.append(f"| {cid} | " + " | ".join(v) + f" | {by_na[NAS[0]][cid]['claim'][:110]} |")
display(Markdown("\n".join(lines)))
print("claims whose verdict depends on Na (holds for some Na, not for others):",
      ", ".join(axial.claims_depending_on_na(study)) or "none")
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
    checked(r"""
def t4(x):
    return f"{round(x, 4):.4f}"

def f3(x):
    return f"{float(f'{x:.3g}'):g}"

for m in MODELS:
    for na in NAS:
        r = study["runs"][m][na]
        im = r["impacts"][0]
        print(f"{m:15s} Na={na} first contact {t4(im['t_start'])} s, peak N {f3(im['peak_N'])} N, "
              f"peak |F_t| {f3(im['peak_Ft'])} N, first-impact stick {fl.text.num(1e3 * im['stick_time'], 2, 'ms')}, "
              f"reached 1.2 s: {r['success']}")
"""),
    md(r"""
## What depends on this choice

* **Stick exists only with axial flexibility.** With the paper's inextensible beam the hybrid models
  never stick: every stick test asks for |F_t|/N ≈ 1/tan(α − θ) ≈ 6, far above μ, because the
  tangential constraint is nearly redundant with the hinge. With one axial mode or more the stick
  matrix is well conditioned and the hybrid models stick in the first impact and in most later ones,
  as the paper's Fig 12 shows.
* **Claims about stick** become checkable only with Na ≥ 1: C20 ("during stick μ takes values below
  and above μ_d") is not checkable in the paper's model (no stick) and is evaluated with axial modes.
  C16 (forward slip, reverse slip *and stick* in the first impact, LuGre pair identical) does not hold
  for any Na, for different reasons: without axial modes the LuGre pair's displacements coincide but
  nothing sticks; with axial modes all three models slip forward, slip back and stick, but the LuGre
  pair's displacements differ by several per cent.
* **The LuGre pair agrees only without stick.** In the paper's model neither LuGre model sticks, so
  both integrate the same slip equations, and the claims that the pair gives the same results (C1,
  C18) hold. With axial modes the hybrid model sticks and the unified one has no stick state; the two
  then differ, and C1 and C18 do not hold for any Na ≥ 1.
* **Other verdicts that change with Na** concern the later impacts, which are not converged in Na
  (see above), or details of the first impact that move with Na (its peak forces, the energy it
  loses), rather than a systematic effect of stick. The first contact itself (its time and velocity
  jump) does not depend on the choice.
* **Runs can end early.** A hybrid LuGre run with more axial modes can reach the Painlevé singularity
  of [docs/model.md §8](../docs/model.md#8-contact-phase-constraints-baumgarte-stabilisation-and-the-force-solves) (the LuGre transient μ = σ1ż exceeds 1/k); flexlib stops it with a
  `SimulationError` instead of continuing, and the claims that need later impacts are then not
  checkable for that Na.

The numbers behind these statements, generated from the study:
"""),
    code(r"""
display(Markdown(axial.dependence_summary(study)))
verdicts = {na: {c["id"]: c["verdict"] for c in study["claims"][na]} for na in NAS}
lines = []
for cid in ("C16", "C20", "C1", "C18"):
    groups = {}
    for na in NAS:
        groups.setdefault(verdicts[na].get(cid, "not evaluated"), []).append(na)
    lines.append(f"* **{cid}**: " + "; ".join(f"{v} for Na = {', '.join(g)}" for v, g in groups.items()) + ".")
display(Markdown("\n".join(lines)))
"""),
    md(r"""
All of this is a property of the extension, not of the paper. The paper's model is `axial_modes = 0`,
the default everywhere else in flexlib.
"""),
]


def build():
    return write_notebook(CELLS, OUT)


if __name__ == "__main__":
    print(build())
