"""Write notebooks/12-accuracy-and-cost.ipynb from the cell sources below (nbformat v4, no outputs).

    .venv/bin/python scripts/build_notebook_12.py     # then: python -m flexlib notebooks notebooks/12-accuracy-and-cost.ipynb

The study itself takes about an hour of CPU on one core (case 3.2 and the double pendulum), so
the notebook reads its committed results (benchmarks/results/accuracy*.csv and .json, written by
benchmarks/bench_accuracy.py) and only computes the natural frequencies itself.
"""
from __future__ import annotations

from build_notebooks import OUT as NOTEBOOK_DIR, checked, code, md, write_notebook   # scripts/ is on sys.path

OUT = NOTEBOOK_DIR / "12-accuracy-and-cost.ipynb"


CELLS = [
    md(r"""
# 12 · Accuracy and cost of the beam's bases

The paper describes the beam's deflection with $N = 3$ assumed modes. Is that enough for what its
figures show, and what would more cost? flexlib offers three ways of writing the deflection
$u_y(x, t) = \Phi(x) B(t)$ (docs/model.md §18); only the functions $\Phi$ differ, the equations of
motion, the impulse–momentum jump, the contact constraints and the friction laws are the same.

* **Assumed modes** (`basis="modal"`, the paper's): the first $N$ eigenfunctions of the clamped–free
  beam. Few coordinates, each a smooth shape of the whole beam.
* **Finite elements** (`basis="fe"`): $n_e$ Euler–Bernoulli elements with Hermite cubics, $2 n_e$
  nodal deflections and slopes (Przemieniecki 1968). A piecewise cubic can bend locally, near the
  tip where the slope pushes; Rayleigh–Ritz makes every frequency an upper bound that falls as
  $h^4$ (Strang and Fix 1973). The price: an element of length $h$ also adds frequencies up to about
  $\sqrt{1200\,EI/(\rho S)}/h^2$, and an explicit integrator's step is bounded by the highest one.
* **Partition** (`basis="partition"`): the idea of Duan, Zhang and Hong (2013), who split a body that
  is struck into a local impact region, described by finite elements, and a region away from it,
  described by a few modes, joined at the interface. Here the local region is the tip end of length
  $\ell$ (`local_length`) with `elements` elements; the far region has $N$ clamped–free modes of the
  shorter beam. The local region can be reduced as Craig and Bampton (1968) reduce a substructure:
  its rigid motion with the interface plus its $k$ lowest fixed-interface modes (`local_modes`),
  which removes the element frequencies above the $k$-th.

The study below runs case 3.2 over 0–1 s with the hybrid Coulomb and the frictionless model in
every basis and compares five things with a reference: the start times of the first five impacts,
the energy after each, the normal impulse of each (jump impulse plus $\int N\,dt$), $\theta(t)$ and
the first impact's peak normal force. The cost is the CPU time of a warm run. The same study on the
flexible double pendulum (notebook 10), whose first impact is a continuous Hertz contact, follows;
then what a fine mesh costs now, both multibody systems beside an independent code (Exudyn), and
what the study shows.

Two of the notebooks' slider panels offer the basis too: notebook 01's (the free beam and its
frictionless impact) and notebook 10's (the double pendulum), each with a `basis` drop-down list
(modal, fe, partition) and the sizes it needs as sliders (`n_modes` and `elements`); the
partition's `local_length` and `local_modes` keep their defaults there and are set through
`flexlib.simulate(..., basis="partition", local_length=..., local_modes=...)`.
"""),
    code(r"""
import json

import flexlib as fl
from flexlib.studies import accuracy as acc
from flexlib.viz import plots
from flexlib.cli import modes_table
%matplotlib inline
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from flexlib.viz import theme
theme.use()  # resolution and font sizes of every figure: flexlib/viz/theme.py
"""),
    md(r"""
## Natural frequencies against the exact cantilever

`python -m flexlib modes --basis ...` prints the frequencies of a basis (root clamped, not rotating)
beside the exact clamped–free ones, $\omega_i = \lambda_i^2\sqrt{EI/(\rho S L^4)}$ with
$1 + \cos\lambda_i\cosh\lambda_i = 0$. The same numbers here, as relative errors of the first five
(and the highest frequency of each basis, which sets the explicit integrator's step):
"""),
    checked(r"""
beam = fl.paper_case("3.2").beam
BASES = {"modal N=3": dict(basis="modal", n_modes=3),
         "modal N=8": dict(basis="modal", n_modes=8),
         "fe ne=4": dict(basis="fe", elements=4),
         "fe ne=8": dict(basis="fe", elements=8),
         "fe ne=16": dict(basis="fe", elements=16),
         "partition N=3 l=0.2 ne=4": dict(basis="partition", n_modes=3, local_length=0.2, elements=4),
         "partition N=3 l=0.2 ne=4 k=2": dict(basis="partition", n_modes=3, local_length=0.2,
                                             elements=4, local_modes=2)}
print(f"{'basis':<30}{'coords':>7}" + "".join(f"{'err w' + str(i):>10}" for i in range(1, 6))
      + f"{'highest w [rad/s]':>19}")
for name, b in BASES.items():
    t = modes_table(fl.paper_case("3.2").with_(**b).beam)
    errs = [0.0 if abs(e) < 1e-12 else e for e in t["relative_error"][:5]]   # round-off: 0
    print(f"{name:<30}{t['coordinates']:>7}" + "".join(f"{fl.text.num(e, 3):>10}" for e in errs)
          + " " * 10 * (5 - len(errs)) + f"{fl.text.num(max(t['frequencies']), 3):>19}")
"""),
    md(r"""
The modal basis has the first $N$ frequencies exact (they are its functions). The elements converge
from above, fast at the bottom of the spectrum and with a highest frequency that grows as $n_e^2$.
The partitioned beam is stiffer than either at the same size: its far modes end with zero curvature
at the interface, while the real beam bends there. The reduction to $k = 2$ local modes keeps the
low frequencies and cuts the highest one by more than an order of magnitude.

## The study and its reference

The reference is the finest finite-element mesh whose runs fit the study's time, at tolerances 100
times tighter than the default ($r_{tol} = 10^{-10}$, $a_{tol} = 10^{-12}$); the cost of finer meshes
is measured below. Whether it is converged is checked by the second-finest mesh, also at tight
tolerances, and by one hybrid Coulomb run on the next finer mesh:
"""),
    code(r"""
df = acc.load_table()
summary = json.loads(acc.SUMMARY_JSON.read_text())
ref = summary["reference"]
err = acc.errors(df, ref["label"])
lines = [acc.reference_markdown(summary)]
for m, e in ref.get("finer_check", {}).items():
    lines += ["", f"The next finer mesh, {e['label']}, against it ({m}): "
              + ", ".join(f"{q} {fl.text.percent(100 * e[q])}" for q in acc.QUANTITIES) + "."]
display(Markdown("\n".join(lines)))
"""),
    md(r"""
Per-impact quantities take the largest error over the impacts the reference has in 0–1 s; an
impact the reference has and a run misses counts as an infinite error (a different number of
impacts). The quantities ending in `_1` are the first impact alone.

## Error against cost

One panel per quantity; every point is one run, the black steps are the error–cost front (the runs
that no cheaper run beats), the dashed line is 1 %. Open points ran at the tight tolerances.
"""),
    code(r"""
for model in acc.MODELS:
    fig = plots.fig_accuracy_cost(err, model, ref["label"], summary["tolerance"])
    plt.show()
"""),
    md(r"""
## Which representation reaches 1 % at the least cost

The cheapest run whose relative error is at most 1 %, per model and quantity ("none": no run of the
study gets there; the best error is given). The errors are not monotone in the refinement, so a cheap
run can land within 1 % by chance; the last two columns say from which modal or element size on
refinement keeps the error within 1 % ("never": not even the finest run of the study).
"""),
    code(r"""
display(Markdown(acc.markdown_table(summary)))
"""),
    md(r"""
## Does the peak normal force converge?

The constraint method's peak force after the impulsive jump is set by how the beam's tip region
responds, which is what the higher modes and the finer elements add. Along each refinement sequence
(the partition's: N = 3 far modes and an unreduced end region of 0.4 m with more and more elements):
"""),
    code(r"""
SEQ = {"modal": lambda n: dict(basis="modal", n_modes=n), "fe": lambda n: dict(basis="fe", elements=n),
       "partition": lambda n: dict(basis="partition", elements=n, **acc.PAPER.partition_sequence)}
fig, ax = plt.subplots(figsize=(6.5, 3.6), constrained_layout=True)
for model, pf in summary["peak_force"].items():
    for basis, d in pf.items():
        n = [acc.coordinates(SEQ[basis](v[0])) for v in d["values"]]
        ax.plot(n, [v[1] for v in d["values"]], marker=dict(modal="o", fe="s", partition="^")[basis],
                ls="-" if model == "hybrid_coulomb" else "--", label=f"{basis}, {model}")
ax.set_xscale("log")
ax.set_xlabel("deformation coordinates [-]")
ax.set_ylabel("peak N, first impact [N]")
ax.legend(fontsize=theme.SMALL)
ax.grid(True, which="both", lw=0.3)
plt.show()
lines = [acc.peak_force_markdown(summary)]
display(Markdown("\n".join(lines)))
"""),
    md(r"""
## Refining the partition's end region

The partition's end region can be refined (more elements on it) with or without the reduction to
$k$ fixed-interface modes. With $N = 3$ far modes, on end regions of 0.2 and 0.4 m, against the same
reference (relative errors; CPU time of a warm run):
"""),
    code(r"""
cols = ["theta", "t_start_1", "energy_after_1", "normal_impulse_1", "peak_N"]
grid = err[(err.basis == "partition") & ~err.tight].merge(
    df[["label", "model", "n_modes", "local_length", "elements", "local_modes"]],
    on=["label", "model"])
grid = grid[(grid.n_modes == 3) & grid.local_length.isin([0.2, 0.4]) & grid.local_modes.isin([0, 2])]
show = grid.assign(k=grid.local_modes.astype(int), n_e=grid.elements.astype(int),
                   l=grid.local_length).sort_values(["model", "l", "k", "n_e"])
show = show.set_index(["model", "l", "k", "n_e"])[["coordinates", "cpu_s", *cols]]
display(show.style.format({"cpu_s": "{:.2f}", **{c: (lambda v: fl.text.percent(100 * v)) for c in cols}}))
"""),
    code(r"""
red = show.xs(2, level="k")
change = max(abs(red.xs(8, level="n_e")[c] - red.xs(4, level="n_e")[c]).max() for c in cols)
cost = red.cpu_s
unred = show.xs(0, level="k")
display(Markdown(
    f"With the reduction ($k = 2$) the end region keeps two modes whatever its mesh, so its cost stays "
    f"{fl.text.span(cost.min(), cost.max(), 3, 's')}, and from 4 to 8 elements the errors above change by at most "
    f"{100 * change:.2g} percentage points: the mesh only makes those two modes more exact, and what "
    f"remains is the error of keeping two. Without it ($k = 0$, all $2 n_e$ coordinates kept) every "
    f"element adds its own high frequencies and the cost grows as a fine mesh's does: "
    + ", ".join(f"{fl.text.plural(int(ne), 'element')} on {l:g} m {fl.text.num(c, 2, 's')}" for (m, l, ne), c in unred.cpu_s.items()
                if m == "hybrid_coulomb")
    + " (hybrid Coulomb); 8 unreduced elements on 0.4 m (highest frequency about "
    r"$6\times10^5$ rad/s, six times the 8-element beam's) were left out."))
"""),
    md(r"""
## What a fine mesh costs, and what has made it cheaper

A mesh twice as fine has about four times the highest frequency ($\omega_\max \propto n_e^2$) and
twice the coordinates. The study above ran every basis with flexlib's explicit integrator (a
compiled DOP853), whose step is bounded by its stability, $h \lesssim 4/\omega_\max$, so a finer mesh
takes more steps, each more expensive. The free flight before case 3.2's first impact, timed per
simulated second when the study was run:
"""),
    code(r"""
display(pd.DataFrame(summary["flight_cost"]).set_index("elements")[
    ["coordinates", "t_end", "cpu_s", "n_steps", "cpu_per_s", "steps_per_s"]])
"""),
    md(r"""
Two changes to the library since then have made a fine mesh much cheaper; the study's CPU times
above predate them.

* **The element route.** The finite-element bases' mass matrix and forces are now evaluated element
  by element, with the integrals along the beam as running sums over the elements, in
  $O(K + N^2)$ operations instead of $O(K N^2)$ ($K$ quadrature nodes, $N = 2 n_e$ coordinates). One
  evaluation of the falling beam's right-hand side went from 135 to 25 µs at 16 elements, from
  1088 to 111 µs at 32 and from 14 173 to 643 µs at 64 (benchmarks/README.md, "The finite-element
  bases' M and Q by element"). What remains of an evaluation is mostly the dense solve with the
  mass matrix, $O(n_q^3)$ for $n_q$ coordinates: 38 % of it at 16 elements, 55 % at 32 and 74 % at 64.
* **A compiled implicit integrator.** `method="Radau"` (command line `--integrator Radau`) is a
  compiled Radau IIA of order 5; it is L-stable, so its step is not bounded by $\omega_\max$. The
  default, `method="auto"`, runs it in the phases in which nothing excites the elastic modes (the
  undisturbed flight of free bodies on stiff bases: free, not rotating, undeformed, no contact
  closed) and DOP853 everywhere else (docs/model.md, section 11.5). Bodies with a joint, such as
  the paper's hinged beam of case 3.2 and the double pendulum, never qualify: gravity swings and
  bends them from the start, so they keep DOP853.

Together, on the tilted falling beam (continuous Hertz contact, 0–0.16 s: the flight, the landing at
0.1428 s and 17 ms of contact episodes and ringing), 16 elements now take about 3.3 s instead of
55 s, and 32 elements about 20 to 60 s, depending on the machine's load, instead of about 2800 s.
The answers did not move: the element route agrees with the former evaluation to round-off, and
`auto` agrees with DOP853 throughout to the integrator's tolerance (benchmarks/README.md, "The
implicit integrator", has the counters of each run).

What is still slow is the contact. The landing and every later episode excite the beam's elastic
modes, nothing damps them ($\zeta = 0$), and they ring above the tolerances, so any accurate
integrator must follow them: DOP853 with its stability-bounded steps (about 12 right-hand-side
evaluations each), Radau with more and smaller steps still, because its embedded error estimate is
of order 3 against DOP853's 7. `auto` gains the flight; the contact costs as many steps as before,
each with the cheaper evaluation. From 32 elements on, the next cost to remove is the dense solve.

The first measurement of the implicit route used scipy's integrators (Radau, BDF, and LSODA, which
switches between explicit and implicit) on case 3.2's flight with 8 elements, before both changes.
It is kept because it shows why `auto` leaves case 3.2 to DOP853:
"""),
    code(r"""
display(pd.DataFrame(summary["implicit"]).set_index("method")[
    ["t_end", "cpu_s", "n_steps", "n_rhs", "theta_diff"]])
"""),
    md(r"""
They took more steps than the explicit method, not fewer: case 3.2's beam is released undeformed
under gravity and, with no structural damping ($\zeta = 0$), every element mode rings from the start
and keeps ringing, so an accurate solution has to follow the highest frequencies whatever the
method. An implicit method only pays off where those modes are absent, as in the falling beam's
flight, or damped. Reducing the basis (the Craig–Bampton local modes of the partition, or fewer
elements) removes them instead.

To recompute case 3.2's study (about 35 minutes of CPU on one core; every run is cached, so an
interrupted rerun continues):

```bash
python3 benchmarks/bench_accuracy.py
```

## The double pendulum

The flexible double pendulum of notebook 10 falls from the horizontal; point B of the upper link
(0.8 $L_1$) strikes the stop through a continuous Hertz contact, leaves it after a fraction of a
millisecond and strikes it once more about 2 ms later. Both links take the same basis. Its study
window runs from the release to shortly after that second strike, so that the reference (a finer
mesh at the tight tolerances) stays affordable: the 0.5 m link's element frequencies are four times
the 1 m beam's. Compared are the first contact's start time, duration, normal impulse ($\int N\,dt$)
and peak force, the upper link's angular rate and the links' strain energy at its end, and both links'
angles over the window:
"""),
    code(r"""
dp = acc.DOUBLE_PENDULUM
df_dp = acc.load_table(study=dp)
s_dp = json.loads(dp.summary_json.read_text())
ref_dp = s_dp["reference"]
err_dp = acc.errors(df_dp, ref_dp["label"], dp)
display(Markdown(f"Window 0–{dp.t_end:g} s (coordinates: both links'). "
                 + acc.reference_markdown(s_dp)))
fig = plots.fig_accuracy_cost(err_dp, "continuous", ref_dp["label"], s_dp["tolerance"], dp)
plt.show()
display(Markdown(acc.markdown_table(s_dp)))
display(Markdown(acc.peak_force_markdown(s_dp)))
"""),
    code(r"""
runs = df_dp[df_dp.label != ref_dp["label"]]
fe_dp = df_dp[df_dp.basis == "fe"].sort_values("elements")
display(Markdown(
    f"Only the start of the contact and the angles settle. The start time agrees to "
    f"{fl.text.percent(100 * err_dp.t_start_1.max(), 1)} in every run, and the angles over the window are within 1 % "
    f"from a few modes or elements on. The contact itself does not: it is a burst of short episodes "
    f"({runs.n_impacts.min()} to {runs.n_impacts.max()} in the window, depending on the basis; "
    f"{int(df_dp[df_dp.label == ref_dp['label']].n_impacts.iloc[0])} in the reference), and the first "
    f"episode's duration, impulse and peak force depend on how the links' higher modes are "
    f"represented. Along the meshes the first episode lasts "
    + ", ".join(f"{1e3 * d:.3g}" for d in fe_dp.duration_1) + " ms and carries "
    + ", ".join(f"{i:.3g}" for i in fe_dp.normal_impulse_1) + " N s (n_e = "
    + ", ".join(str(int(n)) for n in fe_dp.elements) + "); the assumed modes give shorter "
    f"episodes with smaller impulses as N grows. The upper link's angular rate at the end of the "
    f"episode samples the ringing of the link at one instant and is not a converging quantity "
    f"(reference {df_dp[df_dp.label == ref_dp['label']].omega1_after_1.iloc[0]:.3g} rad/s, runs from "
    f"{runs.omega1_after_1.min():.3g} to {runs.omega1_after_1.max():.3g} rad/s); its 1 % entries are "
    f"chance hits, as the last two columns show."))
part = df_dp[(df_dp.basis == "partition") & ~df_dp.tight]
full = part[part.local_modes == 0].sort_values("local_length")
red = part[part.local_modes > 0].sort_values("local_modes")
sign = lambda x: fl.text.percent(100 * x, sign=True)
rel = lambda r, c: getattr(r, c) / df_dp[df_dp.label == ref_dp["label"]][c].iloc[0] - 1
fe6 = df_dp[(df_dp.label == "fe ne=6") & ~df_dp.tight].iloc[0]
display(Markdown(
    "The partition (N = 3 assumed modes per link, elements of "
    + " / ".join(f"{x:g}" for x in sorted({round(100 * r.local_length / r.elements, 6)
                                           for r in full.itertuples()}))
    + " cm on the last "
    + ", ".join(f"{r.local_length:g}" for r in full.itertuples()) + " m of each link, where B is) "
    "does not earn its place here. Unreduced, its fine end region sets the step: "
    + ", ".join(f"{r.cpu_s:.0f}" for r in full.itertuples()) + " s of CPU, for a first episode off by "
    + ", ".join(sign(rel(r, "normal_impulse_1")) for r in full.itertuples()) + " in impulse and "
    + ", ".join(sign(rel(r, "peak_normal_force_1")) for r in full.itertuples()) + " in peak force, "
    f"where 6 elements per link ({fe6.cpu_s:.0f} s) are off by {sign(rel(fe6, 'normal_impulse_1'))} and "
    f"{sign(rel(fe6, 'peak_normal_force_1'))}. Reduced to "
    + " or ".join(f"{int(r.local_modes)}" for r in red.itertuples())
    + " fixed-interface modes it is cheap ("
    + " and ".join(f"{r.cpu_s:.2g}" for r in red.itertuples()) + " s), but its first episode is as short "
    "as the assumed modes' (" + " and ".join(f"{1e3 * r.duration_1:.2g}" for r in red.itertuples())
    + " ms); an impulse within 1 % among them is a crossing, like the assumed modes'."))
"""),
    md(r"""
To recompute this part:

```bash
python3 benchmarks/bench_accuracy.py --case double-pendulum
```

## Validation against an independent code

Exudyn (Gerstmayr's multibody code) solved the same problems with its own discretisation: 2D ANCF
cable elements (nodal positions and slopes, axially flexible), the contact force as a user
function on a connector, implicit generalized-alpha at a fixed step. First case 3.2 with a linear
penalty contact $N = k\delta$ and the modified Coulomb friction, so that both codes solve one
problem: flexlib with 8 assumed modes beside Exudyn's 16 cable elements (differences relative,
except the contact starts, in ms, and the angles, in rad):
"""),
    code(r"""
try:
    from flexlib.studies.peer import comparison_table
except ImportError:
    print("The comparison with an independent multibody code is not part of this version of flexlib.")
else:
    display(comparison_table())
"""),
    md(r"""
### The two multibody systems beside Exudyn

Both multibody systems were also built in Exudyn and refined there in elements per metre (8 to 64)
and step (5 µs to 0.5 µs; figures/data/exudyn_falling_beam.json and exudyn_double_pendulum.json,
written by scripts/exudyn_falling_beam.py and scripts/exudyn_double_pendulum.py). flexlib's side
is its own mesh-convergence study with `basis="fe"` (tests/data/converged_references.json, written
by scripts/converged_references.py; where that file lacks a system, the cell below says what it
uses instead). The falling beam is the tilted one ($\theta_0 = 0.1$ rad, frictionless Hertz
contact, 0–0.16 s); its end $x = 0$ lands at $\sqrt{2h_0/g} = 0.1428$ s. Exudyn's levels are those
at the 1 µs step; the dotted line is its finest level (64 elements, 0.5 µs).
"""),
    code(r"""
from flexlib.studies import outside
from flexlib.viz.multibody_plots import fig_beside_outside

ex_fb = outside.exudyn_falling_beam()
ex_fb_conv = outside.exudyn_converged("falling-beam")
fx_fb = outside.flexlib_levels("falling-beam")
if fx_fb is None:
    fx_fb = outside.flexlib_falling_beam_runs((4, 8, 16))   # about 10 s
    display(Markdown("flexlib's convergence study has not stored the falling beam in this "
                     "checkout; its runs at 4, 8 and 16 elements are computed here."))
FB_PANELS = ("impulse", "first duration", "first peak force", "omega_mean")


def panel(q, series, conv=None):
    label, f = outside.QUANTITIES[q]
    return dict(ylabel=label, converged=None if conv is None else f * conv[q],
                converged_label="Exudyn, finest level",
                series={code: {n: f * v[q] for n, v in s.items() if q in v} for code, s in series.items()})


fig = fig_beside_outside([panel(q, {"flexlib": fx_fb, "Exudyn": ex_fb}, ex_fb_conv) for q in FB_PANELS],
                         title="Tilted falling beam: landing at x = 0, motion at 0.16 s")
plt.show()
"""),
    code(r"""
same = outside.relative_differences(fx_fb, ex_fb, ("v_cm_y", "omega_mean", "impulse"))
first = outside.relative_differences(fx_fb, ex_fb, ("first duration", "first impulse", "first peak force"))
off = {code: {n: v["first duration"] / ex_fb_conv["first duration"] - 1 for n, v in s.items()}
       for code, s in (("flexlib", fx_fb), ("Exudyn", ex_fb))}
pct = lambda x: fl.text.percent(100 * x)
display(Markdown(
    "At equal mesh the two codes agree: the largest relative difference in v_cm,y, ω_mean and the "
    "landing impulse at 0.16 s is "
    + ", ".join(f"{pct(max(d.values()))} with {n} elements" for n, d in same.items())
    + ", and in the first episode's duration, impulse and peak force "
    + ", ".join(f"{pct(max(d.values()))}" for d in first.values())
    + " at the same meshes. Both are the same Euler–Bernoulli discretisation of the beam, and both discretisation "
    "errors are larger than the difference between the codes: the first landing episode lasts "
    f"{1e3 * ex_fb_conv['first duration']:.3g} ms at Exudyn's finest level, and its duration is off that by "
    + ", ".join(f"{pct(off['flexlib'][n])} (flexlib) and {pct(off['Exudyn'][n])} (Exudyn) with {n} elements"
                for n in sorted(set(off["flexlib"]) & set(off["Exudyn"])))
    + ("" if 32 in off["flexlib"] else f"; at 32 elements Exudyn's is within {pct(abs(off['Exudyn'][32]))}")
    + ". The first landing episode needs at least 16 elements in either code, and 32 to come within "
    "a percent; 8 elements, the mesh at which the two codes were first compared episode by episode, "
    "are not converged in either."))
"""),
    md(r"""
The double pendulum's first burst at the stop (the episodes of point B less than 5 ms apart),
against the upper link's elements (Exudyn's lower link has half as many on its 0.5 m; flexlib's the
same number as the upper one):
"""),
    code(r"""
ex_dp = outside.exudyn_double_pendulum()
ex_dp_conv = outside.exudyn_converged("double-pendulum")
fx_dp = outside.flexlib_levels("double-pendulum")
if fx_dp is None:
    fx_dp = {int(r.elements): {"first duration": r.duration_1, "first impulse": r.normal_impulse_1,
                               "first peak force": r.peak_normal_force_1}
             for r in fe_dp.itertuples()}
    note = ("flexlib's convergence study has not stored the double pendulum yet; flexlib's points "
            "are the accuracy study's finite-element runs above (the finest, 12 elements per link at "
            "tight tolerances, is its reference), which measured the first episode only, so the "
            "burst's impulse is Exudyn's alone.")
else:
    note = "flexlib's points are its convergence study's levels."
DP_PANELS = ("impulse", "first duration", "first impulse", "first peak force")
fig = fig_beside_outside([panel(q, {"flexlib": fx_dp, "Exudyn": ex_dp}, ex_dp_conv) for q in DP_PANELS],
                         title="Double pendulum: the first burst at the stop",
                         xlabel="elements on the upper link (1 m) [-]")
fig.axes[0].set_ylabel("first burst's impulse [N s]")
plt.show()
fine_fx = max(fx_dp)
prev_fx = max(n for n in fx_dp if n < fine_fx)
moved_fx = abs(fx_dp[fine_fx]["first peak force"] / fx_dp[prev_fx]["first peak force"] - 1)
display(Markdown(
    note + f" The burst converges in Exudyn in its count ({ex_dp_conv['episodes']} episodes), its "
    f"impulse ({ex_dp_conv['impulse']:.3f} N s, {pct(ex_dp_conv['change']['burst impulse'])} from the level "
    f"before) and its first episode's duration and impulse ({1e3 * ex_dp_conv['first duration']:.3f} ms and "
    f"{ex_dp_conv['first impulse']:.4f} N s), but not in the first episode's peak force: "
    f"{ex_dp_conv['first peak force']:.0f} N at the finest level, still "
    f"{pct(ex_dp_conv['change']['first peak_force'])} from the level before. flexlib's peak moves by "
    f"{pct(moved_fx)} from {prev_fx} to {fine_fx} elements per link "
    f"({fx_dp[prev_fx]['first peak force']:.0f} N to {fx_dp[fine_fx]['first peak force']:.0f} N), and its "
    f"finest first episode differs from Exudyn's finest by "
    f"{pct(fx_dp[fine_fx]['first duration'] / ex_dp_conv['first duration'] - 1)} in duration, "
    f"{pct(fx_dp[fine_fx]['first impulse'] / ex_dp_conv['first impulse'] - 1)} in impulse and "
    f"{pct(fx_dp[fine_fx]['first peak force'] / ex_dp_conv['first peak force'] - 1)} in peak force: "
    + ("the peak force of the pendulum's first episode is not converged in either code at its "
       "finest level" if moved_fx > 5e-3 else
       "flexlib's refinement has converged the peak force (within 0.5 %) where Exudyn's last "
       "refinement still moves it, and the two finest peak forces agree; the first episode's "
       "impulse keeps its gap, which neither code's refinement closes")
    + " (docs/findings.md, \"The two systems in an independent code\")."))
"""),
    md(r"""
## Which setting gets the multibody contact right, up to converged meshes

The study above stops at 12 elements per link, where the explicit integrator's cost explodes. With
the element-by-element evaluation and the implicit integrators (Radau IIA, `method="Radau"`, and
the generalized-α step, `method="gen-alpha"`, both at `rtol=1e-3`), the two multibody systems run
at the meshes that converge them (the generalized-α step on the pendulum up to 16 elements per
link, where it already takes a minute). Each setting below is measured against the system's converged
reference, the finest level of flexlib's own mesh study (tests/data/converged_references.json:
64 Hermite elements for the tilted falling beam, 256 per link for the double pendulum, where the
last refinement moves every answer by less than 0.5 %), by three answers: the impulses (the
larger error of the total normal impulse and the first episode's), the first episode's peak
force, and the bodies' motion at the end of the window (centre-of-mass velocity and mean angular
velocity, the largest error over the bodies). Two targets are drawn: 5 % in the impulses and 15 %
in the peak force; and 1 % in the impulses and the motion with 5 % in the peak force. Errors below
$10^{-5}$ are drawn at $10^{-5}$ (the falling beam's 64-element runs share the reference's mesh).
"""),
    code(r"""
from flexlib.studies import resolution
from flexlib.viz.multibody_plots import fig_resolution

res_study = resolution.load()
fig = fig_resolution(res_study)
plt.show()
"""),
    code(r"""
pct = lambda x: fl.text.percent(100 * x)
rows = []
for system in resolution.SYSTEMS:
    runs = res_study[system]["runs"]
    default = next(r for r in runs if r["label"] == "modal N=3")
    picks = [("the default", default)] + [
        (f"cheapest within {short}", resolution.cheapest(runs, t))
        for short, t in zip(("5 % / 15 %", "1 % / 5 % / 1 %"), resolution.TARGETS)]
    for what, r in picks:
        if r is None:
            rows.append(dict(system=system, choice=what, setting="none of the study"))
            continue
        e = r["errors"]
        rows.append(dict(system=system, choice=what, setting=r["label"],
                         **{"CPU [s]": round(r["cpu_s"], 2), "× default": round(r["cpu_s"] / default["cpu_s"], 1),
                            "impulses": pct(e["impulses"]), "peak force": pct(e["peak"]),
                            "motion": pct(e["motion"]), "energy books closed": r["success"]}))
display(pd.DataFrame(rows).set_index(["system", "choice"]).astype(object).fillna(""))
aim = res_study["aim"]
display(Markdown(
    f"The cost aim of a default is 1.5 times case 3.2's hybrid Coulomb run over 0–2 s, "
    f"{fl.text.num(aim['cpu_s'], 2, 's')} of CPU warm on the machine of the study: "
    f"{fl.text.num(aim['aim_cpu_s'], 2, 's')}. A setting that meets the targets must also meet them "
    "on every finer mesh of its integrator (a coarse run can land within a target by chance)."))
"""),
    md(r"""
## What the study shows

The study asked how much of the beam's deformation a simulation must represent for what the
paper's figures and the two multibody systems show, and what that costs. The numbers below are
read from the tables and figures above.
"""),
    code(r"""
e3 = err[(err.label == "modal N=3") & ~err.tight].set_index("model")
others = err[err.label != ref["label"]]
best = others.groupby("model")[["theta", "peak_N"]].min()
dp_n3 = err_dp[err_dp.label == "modal N=3"].iloc[0]
meets = err_dp[(err_dp.label != ref_dp["label"]) & (err_dp.normal_impulse_1 <= 0.05)
               & (err_dp.peak_N <= 0.15)].sort_values("cpu_s")
pct = lambda x: fl.text.percent(100 * x)
text = [
    "**Case 3.2.** The paper's $N = 3$ assumed modes place the first impact where the reference does "
    f"(its start within {pct(e3.t_start_1.max())}) and give its normal impulse within "
    f"{pct(e3.normal_impulse_1.max())}, at {fl.text.num(e3.cpu_s.max(), 2, 's')} of CPU. Beyond the first "
    "impact they do not follow the reference: θ(t) over 0–1 s is off by "
    f"{pct(e3.theta['frictionless'])} (frictionless) and {pct(e3.theta['hybrid_coulomb'])} (hybrid Coulomb), "
    f"the energy after the five impacts by up to {pct(e3.energy_after.max())}, and the first impact's peak "
    f"normal force by {pct(e3.peak_N.max())}. No run of the study brings θ over the whole second within 1 % "
    f"(the best: {pct(best.theta.min())}), nor the hybrid Coulomb model's peak force (the best: "
    f"{pct(best.peak_N['hybrid_coulomb'])}; frictionless {pct(best.peak_N['frictionless'])}): the "
    "later impacts depend on how the beam rings after the first, and the peak force on how its tip "
    "region responds, which is what more modes or elements add. Where a quantity does reach 1 %, the "
    "cheapest representation is mostly the partition with a reduced end region, at under a second "
    "of CPU (the table \"Which representation reaches 1 %\").",
    "",
    "**The double pendulum.** Only the start of the first contact and the links' angles settle in a "
    "cheap basis. The first burst at the stop depends on the links' higher modes: the default, "
    f"$N = 3$ modes per link, is off the study's reference (12 elements per link) by {pct(dp_n3.normal_impulse_1)} in the first episode's "
    f"impulse and {pct(dp_n3.peak_N)} in its peak force, so it does not meet 5 % in impulse or 15 % in peak "
    "force. "
    + (f"The cheapest setting of the study that does is {meets.label.iloc[0]} "
       f"({pct(meets.normal_impulse_1.iloc[0])} and {pct(meets.peak_N.iloc[0])}, "
       f"{fl.text.num(meets.cpu_s.iloc[0], 2, 's')} of CPU when the study was run). "
       if len(meets) else "No run of the study but the reference does. ")
    + "That reference is not converged itself: against flexlib's converged burst (its mesh study "
    f"below, {fine_fx} elements per link) 6 elements per link are 0.8 % high in the first episode's "
    "impulse but 21 % in its peak force, and of the study's settings only 12 elements per link "
    "come within 5 % and 15 % (0.04 % and 11 %; against the outside code's converged burst 5.4 % "
    "and 21 %, 4.6 % and 11 %: the two codes' converged first episodes differ by 4.5 % in impulse, "
    "below). "
    + (f"flexlib's refinement moves that peak force by {pct(moved_fx)} from {prev_fx} to "
       f"{fine_fx} elements per link. " if moved_fx <= 5e-3 else
       "The peak force of the first episode is not converged even at the finest mesh of either code. ")
    + "The partition, with its elements where B strikes, does not help: unreduced it costs more than "
    "the elements for a first episode no closer, reduced it is as far off as the assumed modes.",
]
display(Markdown("\n".join(text)))
"""),
    code(r"""
num = fl.text.num
loose, tight = resolution.TARGETS
aim_s = res_study["aim"]["aim_cpu_s"]
parts = ["**The defaults.** Case 3.2 runs with the paper's $N = 3$ assumed modes; the double pendulum "
         "and the falling beam default to $N = 3$ assumed modes per link and per half of the beam, "
         "with the default integrator."]
for system, name in (("falling-beam", "tilted falling beam (0–0.16 s)"),
                     ("double-pendulum", "double pendulum (0–0.65 s)")):
    runs = res_study[system]["runs"]
    d = next(r for r in runs if r["label"] == "modal N=3")
    a, b = resolution.cheapest(runs, loose), resolution.cheapest(runs, tight)
    txt = (f"On the {name} the default is off the converged reference by {pct(d['errors']['impulses'])} "
           f"in the impulses and {pct(d['errors']['peak'])} in the peak force, at {num(d['cpu_s'], 2, 's')} "
           "of CPU. ")
    txt += (f"The cheapest setting within 5 % and 15 % that stays there when refined is {a['label']} "
            f"({num(a['cpu_s'], 2, 's')}, {a['cpu_s'] / d['cpu_s']:.0f} times the default's cost); "
            if a else "No setting of the study stays within 5 % and 15 %; ")
    finest = max((r for r in runs if r["setting"]["integrator"] == "Radau 1e-3"),
                 key=lambda r: r["setting"]["elements"])
    txt += (f"within 1 % and 5 %, {b['label']} ({num(b['cpu_s'], 2, 's')})." if b else
            "none stays within 1 % and 5 %: the motion at the end of the window is still "
            f"{pct(finest['errors']['motion'])} from the reference with {finest['label']}, the finest "
            "mesh run here, against the reference's four times finer one (the upper link's mean angular "
            "velocity, about 1 rad/s after the stop, measured against its own value).")
    parts.append(txt)
picks = [resolution.cheapest(res_study[s]["runs"], t) for s in resolution.SYSTEMS
         for t in resolution.TARGETS]
picks = [p for p in picks if p is not None]
implicit = [p for p in picks if p["setting"]["integrator"] != "default"]
dp_pick = resolution.cheapest(res_study["double-pendulum"]["runs"], loose)
fb_pick = resolution.cheapest(res_study["falling-beam"]["runs"], tight)
lost = max(abs(p["numerical_dissipation"]) / p["audit_scale"] for p in implicit) if implicit else 0.0
# the pendulum's pick as the arguments a user types, in a reader's order
pick_args = [(k, dp_pick["setting"][k]) for k in ("basis", "elements", "n_modes", "method", "rtol", "atol")
             if dp_pick and k in dp_pick["setting"]]
arg = lambda v, py: (f"{v:.0e}".replace("e-0", "e-") if isinstance(v, float)
                     else f'"{v}"' if py and isinstance(v, str) else str(v))
parts.append(
    f"So the defaults are not the study's choice. The cheap ones stay because every slider move of "
    "notebooks 10 and 11 re-simulates with them, within a second"
    + (", and because none of the cheapest settings that meet a target closes the energy books: "
       "the implicit integrators at `rtol=1e-3` change the energy by their own steps (up to "
       f"{fl.text.num(lost, 2)} of the energy books' scale, where the audit allows 10⁻⁶), so those runs report "
       "`success: false` (the table's last column)"
       if picks and len(implicit) == len(picks) and not any(p["success"] for p in picks) else "")
    + (f". On the falling beam the cheapest setting within 1 % and 5 % costs less than the aim "
       f"({num(fb_pick['cpu_s'], 2, 's')} against {num(aim_s, 2, 's')}) with the continuous contact the "
       "study runs, but the case's default model, hybrid Coulomb with contact constraints, is far "
       "slower on such a mesh" if fb_pick and fb_pick["cpu_s"] <= aim_s else "")
    + (". On the pendulum the cheapest setting within 5 % and 15 % "
       f"costs {dp_pick['cpu_s'] / aim_s:.0f} times the aim of {num(aim_s, 2, 's')} for less than half of "
       if dp_pick else ". On the pendulum no setting of the study is within 5 % and 15 %, at any cost up to "
       f"{num(max(r['cpu_s'] for r in res_study['double-pendulum']['runs']), 2, 's')} for less than half of ")
    + "the case's 1.5 s. A study of the contact sets its basis, mesh and integrator explicitly"
    + (", e.g. `flexlib.simulate(\"double-pendulum\", " + ", ".join(
        f"{k}={arg(v, True)}" for k, v in pick_args) + ")`, or `" + " ".join(
        f"--{'integrator' if k == 'method' else k.replace('_', '-')} {arg(v, False)}"
        for k, v in pick_args) + "` on the command line." if dp_pick else "."))
display(Markdown("\n\n".join(parts)))
"""),
    md(r"""
**The outside code.** Exudyn, with another element (ANCF cables), another contact implementation
and another integrator, gives flexlib's numbers at the same mesh: on the falling beam the two codes
differ by a few parts in $10^4$ or less in the motion at 0.16 s and the landing impulse, while the
discretisation error of either at 8 elements is several percent. Both codes need 32 elements for
the falling beam's first landing episode (16 leave it about 15 % short). The double pendulum's
first burst needs 64 elements per link in flexlib (from 128 to 256 it moves by at most 0.015 %,
and the links' motion 43 ms after it by at most 0.09 %), where Exudyn's finest level still moves
its peak force by 1 %; at their finest meshes the two codes' peak forces agree within 0.02 % and
their first episodes' impulses differ by 4.5 %, a gap not explained (docs/findings.md).
"""),
    code(r"""
fb_runs = {r["label"]: r for r in res_study["falling-beam"]["runs"]}
dp_runs = {r["label"]: r for r in res_study["double-pendulum"]["runs"]}
c = lambda runs, lab: num(runs[lab]["cpu_s"], 2, "s")
steps = lambda runs, lab: f"{runs[lab]['n_steps']:,}".replace(",", " ") + " steps"
display(Markdown(
    "**The cost.** The implicit integrators make the converged meshes affordable. On the tilted falling "
    f"beam 32 elements take {c(fb_runs, 'fe 32')} of CPU with the default integrator (DOP853 while "
    f"the beam rings), {c(fb_runs, 'fe 32, Radau 1e-3')} with Radau and "
    f"{c(fb_runs, 'fe 32, gen-alpha 1e-3')} with the generalized-α step at `rtol=1e-3`; 64 elements "
    f"{c(fb_runs, 'fe 64, Radau 1e-3')} and {c(fb_runs, 'fe 64, gen-alpha 1e-3')}. On the double "
    f"pendulum 8 elements per link take {c(dp_runs, 'fe 8')} with the default integrator against "
    f"{c(dp_runs, 'fe 8, Radau 1e-3')} with Radau and {c(dp_runs, 'fe 8, gen-alpha 1e-3')} with the "
    f"generalized-α step, and 64 per link {c(dp_runs, 'fe 64, Radau 1e-3')} with Radau. The "
    "generalized-α step holds the local errors of the positions and of the velocities to the "
    "tolerance; being of second order it takes more steps than Radau for that "
    f"({steps(fb_runs, 'fe 32, gen-alpha 1e-3')} against {steps(fb_runs, 'fe 32, Radau 1e-3')} on the "
    f"falling beam at 32 elements, {steps(dp_runs, 'fe 16, gen-alpha 1e-3')} against "
    f"{steps(dp_runs, 'fe 16, Radau 1e-3')} on the pendulum at 16 per link), so Radau is the cheaper "
    "of the two at `rtol=1e-3` here. What they cost in accuracy shows in the falling beam's horizontal "
    "centre-of-mass velocity, zero in the exact motion (gravity and the frictionless ground push "
    "vertically): at 32 elements "
    f"{num(abs(fb_runs['fe 32, gen-alpha 1e-3']['values']['beam v_cm_x']), 2, 'm/s')} with the "
    f"generalized-α step and {num(abs(fb_runs['fe 32, Radau 1e-3']['values']['beam v_cm_x']), 2, 'm/s')} "
    "with Radau. The motion at 0.16 s is "
    f"{pct(fb_runs['fe 32, gen-alpha 1e-3']['errors']['motion'])} (32 elements) and "
    f"{pct(fb_runs['fe 64, gen-alpha 1e-3']['errors']['motion'])} (64) from the reference with the "
    f"generalized-α step, {pct(fb_runs['fe 32, Radau 1e-3']['errors']['motion'])} and "
    f"{pct(fb_runs['fe 64, Radau 1e-3']['errors']['motion'])} with Radau (whose 64-element run shares "
    "the reference's mesh, run with the default integrator at rtol 1e-8). Where the time "
    "goes and how it grows with the mesh: benchmarks/README.md, \"The implicit integrator\"."))
"""),
]


def build():
    return write_notebook(CELLS, OUT)


if __name__ == "__main__":
    print(build())
