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
flexible double pendulum (notebook 10), whose first impact is a continuous Hertz contact, closes the
notebook.

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
## What a fine mesh costs, and whether an implicit integrator helps

flexlib integrates with an explicit method (a compiled DOP853). Its step is bounded by the basis's
highest frequency, so a mesh twice as fine takes about four times as many steps, each more expensive.
The free flight before the first impact, timed per simulated second:
"""),
    code(r"""
display(pd.DataFrame(summary["flight_cost"]).set_index("elements")[
    ["coordinates", "t_end", "cpu_s", "n_steps", "cpu_per_s", "steps_per_s"]])
"""),
    md(r"""
A stiff system is the usual case for an implicit integrator (scipy's Radau, BDF, or LSODA, which
switches between the two kinds; `method=` selects them). The same flight on the 8-element mesh:
"""),
    code(r"""
display(pd.DataFrame(summary["implicit"]).set_index("method")[
    ["t_end", "cpu_s", "n_steps", "n_rhs", "theta_diff"]])
"""),
    md(r"""
They take more steps than the explicit method, not fewer: the beam is released undeformed under
gravity, and with no structural damping (case 3.2 has $\zeta = 0$) every element mode rings from the
start and keeps ringing, so an accurate solution has to follow the highest frequencies whatever the
method. An implicit method only pays off where those modes are absent or damped. Reducing the basis
(the Craig–Bampton local modes of the partition, or fewer elements) removes them instead.

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
"""),
    md(r"""
To recompute this part:

```bash
python3 benchmarks/bench_accuracy.py --case double-pendulum
```

## Validation against an independent code
"""),
    code(r"""
try:
    from flexlib.studies.peer import comparison_table
except ImportError:
    print("The comparison with an independent multibody code is not part of this version of flexlib.")
else:
    display(comparison_table())
"""),
]


def build():
    return write_notebook(CELLS, OUT)


if __name__ == "__main__":
    print(build())
