"""Write notebooks/08-continuous-contact.ipynb from the cell sources below (nbformat v4, no outputs).

    .venv/bin/python scripts/build_notebook_08.py     # then: python -m flexlib notebooks notebooks/08-continuous-contact.ipynb

The notebook runs its studies itself (flexlib.studies.continuous: 6 + 12 + 2 runs of about 1 s each), so
it needs no cached file; ``python -m flexlib figures`` draws the same figures into figures/.
"""
from __future__ import annotations

from build_notebooks import OUT as NOTEBOOK_DIR, checked, code, md, write_notebook   # scripts/ is on sys.path

OUT = NOTEBOOK_DIR / "08-continuous-contact.ipynb"


CELLS = [
    md(r"""
# 08 · Contact constraint against continuous contact force

Fan et al. (2021) treat the impact of the beam tip on the slope with the **contact-constraint
method**: at impact a velocity jump (eqs (39)–(48), restitution $e = 0$ in the paper), then a
contact constraint $\Psi = 0$ held by a Lagrange multiplier with Baumgarte stabilisation
(eqs (36), (63)), and one of three friction laws (eqs (68)–(69)): hybrid Coulomb, hybrid LuGre,
unified LuGre. General multibody codes usually take the other route, the **continuous contact
force method**: the tip may penetrate the slope by $\delta = \max(0, -\Psi)$ and the slope pushes
back with a penalty force

$$N = K\,\delta^n \left(1 + D(e)\,\frac{\dot\delta}{\dot\delta_{in}}\right),\qquad N \ge 0,$$

where $\dot\delta_{in}$ is the approach speed at the start of the contact and $D(e)$ the hysteresis
damping that takes out the energy a restitution $e$ asks for: $D = 3(1-e)/2$ (Hunt & Crossley
1975), $3(1-e^2)/4$ (Lankarani & Nikravesh 1990), $8(1-e)/(5e)$ (Flores et al. 2011, defined for
$0 < e \le 1$). A rigid point mass dropped on the slope with $n = 1.5$ rebounds with 0.47 at
$e = 0.5$ under the Flores law, but with 0.66 (Hunt & Crossley) and 0.73 (Lankarani & Nikravesh):
the latter two are meant for $e$ near 1 ([flexlib.contact.penalty](../flexlib/contact/penalty.py) lists the
measured values). The friction needs no stick state: the **modified Coulomb law**
(Ambrósio 2002) ramps the coefficient from 0 at $|v_t| = v_0$ to $\mu_d$ at $|v_t| = v_1$,

$$F_t = -c_d(|v_t|)\,\mu_d\,N\,\mathrm{sgn}(v_t),\qquad
c_d = 0 \;(|v_t| \le v_0),\quad \frac{|v_t| - v_0}{v_1 - v_0} \;(v_0 < |v_t| < v_1),\quad 1 \;(|v_t| \ge v_1).$$

flexlib has two such models: **`continuous_coulomb`** (penalty normal force + modified Coulomb)
and **`continuous_lugre`** (penalty normal force + LuGre, eq (68), throughout the contact).
This notebook compares them with the paper's models on case 3.2.

**Defaults and why.**

* $n = 1.5$: Hertz's exponent of a point contact (the beam's tip on a flat slope).
* $K = 10^9$ N/m$^{1.5}$ (flexlib's default): Hertz's stiffness of a sphere of radius $R$ on a
  rigid flat is $K = \tfrac43 E^*\sqrt R$ with $E^* = E/(1-\nu^2)$; the cell below evaluates it for
  the beam's aluminium. $10^9$ is at the soft end of that range (a rounded tip, a compliant surface
  layer); the stiffness study below shows how much, and what, depends on K.
* the Flores law with $e = 0.5$: the paper's constraint method uses $e = 0$, which has **no penalty
  equivalent** ($D(e) = 8(1-e)/(5e)$ is unbounded at $e = 0$, and the other laws are not meant for
  small $e$), so the continuous models run with $e = 0.5$, a mid-range restitution that the Flores
  law reproduces within 0.03 (the point-mass test above). The constraint models keep the paper's $e = 0$.
* `v_zeno` = 0.01 m/s floors $\dot\delta_{in}$ in the damping term: a grazing contact
  ($\dot\delta_{in} \to 0$) would make the damping coefficient $K\delta^n D/\dot\delta_{in}$ unbounded
  and the equations arbitrarily stiff; with the floor a slow approach is damped like one at
  0.01 m/s.
* $v_0 = 10^{-4}$ m/s, $v_1 = 10^{-3}$ m/s: the modified Coulomb ramp sits at the hybrid models'
  stick threshold $D_v = 10^{-4}$ m/s, so the two friction laws differ only where the hybrid
  model would test for stick.
"""),
    code(r"""
import flexlib as fl
from flexlib.studies import continuous
from flexlib.viz import nbtools, plots, widgets
%matplotlib inline
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from flexlib.viz import theme
theme.use()  # resolution and font sizes of every figure: flexlib/viz/theme.py

LABEL = {m: fl.models.get(m).label for m in fl.models.REGISTRY}
"""),
    code(r"""
# Hertz estimate of K for the beam's aluminium tip (Poisson ratio 0.33) on a rigid flat
case = fl.paper_case("3.2")
E_star = case.beam.E / (1 - 0.33 ** 2)
r_beam = np.sqrt(case.beam.S / np.pi)
for R in (1e-3, r_beam):
    print(f"tip radius R = {1e3 * R:.0f} mm: K = 4/3 E* sqrt(R) = {fl.text.num(4 / 3 * E_star * np.sqrt(R), 2)} N/m^1.5")
"""),
    md(r"""
## The two methods side by side (case 3.2, $\mu_d = 0.4$)

`continuous.compare_methods` runs the four constraint models (frictionless, hybrid Coulomb,
hybrid LuGre, unified LuGre; $e = 0$) and the two continuous ones (Flores, $K = 10^9$,
$e = 0.5$) over 0–2 s, all with the same $\mu_d$. An *impact* is a cluster of contact episodes (a
contact and the rebounds that follow it within 20 ms). How many impacts a bouncing run makes in 0–2 s
depends on round-off: each count below comes with the counts of four reruns whose release angle
differs by 1e-15 or 2e-15 (relative), the size of the differences between two CPUs' arithmetic.
"""),
    code(r"""
cmp = continuous.compare_methods("3.2", t_end=2.0)
counts = {m: nbtools.roundoff_spread(r) for m, r in cmp["results"].items()}
for m, msg in cmp["messages"].items():
    print(f"{LABEL[m]:>20}: {msg}, impacts in 0-2 s: {nbtools.spread_text(counts[m])}")
"""),
    code(r"""
def md_frame(df, fmt, scale=1.0):
    # A DataFrame of side_by_side (impact x model) as a Markdown table.
    cols = list(df.columns)
    lines = ["| impact | " + " | ".join(LABEL[c] for c in cols) + " |", "|---:|" + "---:|" * len(cols)]
    for k, row in df.iterrows():
        cells = ["–" if not np.isfinite(v) else format(scale * v, fmt) for v in row.values]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines)

for q, title, fmt, scale in (("t_start", "start of the impact [s]", ".4f", 1.0),
                             ("duration", "duration of the impact [ms]", ".2f", 1e3),
                             ("energy_lost", "energy lost in the impact [J]", ".3f", 1.0),
                             ("peak_N", "peak normal force [N]", ".0f", 1.0),
                             ("max_penetration", "largest penetration [µm]", ".1f", 1e6)):
    display(Markdown(f"**{title}** (first 5 impacts)\n\n"
                     + md_frame(continuous.side_by_side(cmp, q, 5), fmt, scale)))
"""),
    md(r"""
The numbers of the first impact, rounded:
"""),
    checked(r"""
for m, rows in cmp["impacts"].items():
    r = rows[0]
    print(f"{LABEL[m]:>20}: start {r['t_start']:.4f} s, duration {1e3 * r['duration']:.1f} ms, "
          f"energy lost {r['energy_lost']:.2f} J, peak N {fl.text.num(r['peak_N'])} N, "
          f"penetration {1e6 * r['max_penetration']:.0f} µm")
"""),
    code(r"""
plots.fig_method_comparison(cmp, models=None)
plt.show()
"""),
    md(r"""
What the comparison shows, computed from the runs above:
"""),
    code(r"""
imp = cmp["impacts"]
first = {m: rows[0] for m, rows in imp.items()}
con, pen = ("hybrid_coulomb", "lugre"), ("continuous_coulomb", "continuous_lugre")
t_all = [first[m]["t_start"] for m in first]
dE = [first[m]["energy_lost"] for m in (*con, *pen)]
res = cmp["results"]
k1 = {m: res[m].impacts[0]["t_end"] for m in (*con, *pen)}
dev = max(abs(res[m].sample(np.array([k1[m]]), "theta")[0] - res["hybrid_coulomb"].sample(
    np.array([k1["hybrid_coulomb"]]), "theta")[0]) for m in pen)
t2 = {m: imp[m][1]["t_start"] for m in (*con, *pen) if len(imp[m]) > 1}
display(Markdown(f'''
* **First contact**: every model meets the slope at t = {min(t_all):.4f} s (the flight before it
  is the same). The first impact lasts {fl.text.span(1e3 * min(first[m]["duration"] for m in first), 1e3 * max(first[m]["duration"] for m in first), 3, "ms")} in every
  model. It loses {first["hybrid_coulomb"]["energy_lost"]:.2f} J with hybrid Coulomb and
  {first["continuous_coulomb"]["energy_lost"]:.2f} J / {first["continuous_lugre"]["energy_lost"]:.2f} J with the continuous models, although
  these are built for e = 0.5 and the constraint models use e = 0: the first impact is a cluster of
  {first["hybrid_coulomb"]["episodes"]} contact episodes for hybrid Coulomb and {first["continuous_coulomb"]["episodes"]} / {first["continuous_lugre"]["episodes"]} for the continuous models,
  and the penalty law's damping takes energy at every one of them. After the first impact θ of the
  continuous models differs from hybrid Coulomb's by at most {dev:.4f} rad
  ({100 * dev / res["hybrid_coulomb"].sample(np.array([k1["hybrid_coulomb"]]), "theta")[0]:.0f} %).
* **Peak normal force**: {first["continuous_coulomb"]["peak_N"]:.0f} N and {first["continuous_lugre"]["peak_N"]:.0f} N
  (continuous) against {first["hybrid_coulomb"]["peak_N"]:.0f} N (hybrid Coulomb). Not a like-for-like
  number: the constraint method's velocity jump takes the first shock as an impulse, which its N
  leaves out, while the penalty force carries it as a short spike whose height grows with K (next
  section).
* **Penetration**: {1e6 * first["continuous_coulomb"]["max_penetration"]:.0f} µm and {1e6 * first["continuous_lugre"]["max_penetration"]:.0f} µm
  in the first impact; the constraint models stay on the slope up to
  {fl.text.num(max(first[m]["max_penetration"] for m in con), 1)} m (Baumgarte stabilisation).
* **Later impacts differ**: the second impact starts at {", ".join(f"{t2[m]:.3f} s ({LABEL[m]})" for m in t2)}.
  From the second impact on, the continuous models rebound higher (their e = 0.5 against the
  constraint models' e = 0) and the runs part: compare impacts by time, not by number. The number of
  impacts in 0–2 s is {fl.text.span(min(counts["continuous_coulomb"]), max(counts["continuous_coulomb"]))} (continuous Coulomb) and
  {fl.text.span(min(counts["continuous_lugre"]), max(counts["continuous_lugre"]))} (continuous LuGre) over runs that differ by round-off, against
  {"–".join(sorted({str(min(counts["hybrid_coulomb"])), str(max(counts["hybrid_coulomb"]))}))} for hybrid Coulomb: the counts of the
  bouncing runs are not results, the settling of hybrid Coulomb is.
'''))
"""),
    md(r"""
### Energy lost per impact and cost

Each marker is one impact (x: its start time).
"""),
    code(r"""
plots.fig_energy_per_impact(cmp)
plt.show()
"""),
    md(r"""
Wall time of each 2 s run on this machine (measured, so it changes from run to run and is not
checked), integrator steps, the impact that lost the most energy and the time by which 95 % of the
energy lost in impacts was gone:
"""),
    code(r"""
lines = ["| model | wall time [s] | integrator steps | impacts | energy lost in impacts [J] | "
         "largest loss: impact # | 95 % of the loss by [s] |", "|---|---:|---:|---:|---:|---:|---:|"]
for m, rows in cmp["impacts"].items():
    lost = np.array([r["energy_lost"] for r in rows])
    k95 = int(np.searchsorted(np.cumsum(lost), 0.95 * lost.sum()))
    lines.append(f"| {LABEL[m]} | {cmp['wall_time_s'][m]:.2f} | {cmp['n_steps'][m]} | {len(rows)} | "
                 f"{lost.sum():.3f} | {int(np.argmax(lost)) + 1} | {rows[k95]['t_end']:.3f} |")
display(Markdown("\n".join(lines)))
"""),
    md(r"""
Every run ends with the beam resting on the slope, so the energy lost in all impacts together is
the same for every model; when and in which impact it is lost is what differs. The penalty model
has no velocity jump, no multiplier solve and no stick tests, but it has to resolve the stiff
penalty spring; with the default cap on the step in contact (`max_step_contact` = 50 µs) the step
counts of the two methods are of the same order.

## Stiffness study: K = 10⁷ … 10¹⁰ N/m^1.5

`continuous.stiffness_study` runs both continuous models over the first impact (0–0.45 s) for four
stiffnesses. The constraint method is their rigid limit K → ∞; it is drawn as horizontal lines for
the paper's e = 0 and for the penalty law's e = 0.5 (constraint runs with e = 0.5 and the default
`v_zeno`).
"""),
    code(r"""
ds = continuous.stiffness_study(Ks=(1e7, 1e8, 1e9, 1e10))
print("runs:", sorted(set(ds.status.values.ravel())), "| reference runs:", sorted(set(ds.ref_status.values.ravel())))
plots.fig_stiffness_study(ds)
plt.show()
"""),
    checked(r"""
for m in ds.model.values:
    print(LABEL[str(m)])
    for K in ds.K.values:
        p = ds.sel(model=m, K=K)
        print(f"  K = {fl.text.num(K, 1)}: duration {1e3 * float(p.duration):.1f} ms, theta after {float(p.theta_after):.3f} rad, "
              f"peak N {fl.text.num(float(p.peak_N))} N, penetration {fl.text.num(1e6 * float(p.max_penetration))} µm, "
              f"energy lost {float(p.energy_lost):.2f} J")
    for e in ds.e_ref.values:
        p = ds.sel(model=m, e_ref=e)
        print(f"  K = ∞ ({LABEL[str(p.ref_model.values)]}, e = {e:g}): duration {1e3 * float(p.ref_duration):.1f} ms, "
              f"theta after {float(p.ref_theta_after):.3f} rad, energy lost {float(p.ref_energy_lost):.2f} J")
"""),
    code(r"""
n = ds.attrs["contact_exponent"]
logK = np.log10(ds.K.values)
slope = {q: {str(m): np.polyfit(logK, np.log10(ds[q].sel(model=m).values), 1)[0] for m in ds.model.values}
         for q in ("max_penetration", "peak_N")}

def trend(q):
    # "falls monotonically" / "rises monotonically" / "is not monotonic" for each model
    out = []
    for m in ds.model.values:
        d = np.diff(ds[q].sel(model=m).values)
        out.append(f"{LABEL[str(m)]}: " + ("falls monotonically" if (d < 0).all() else
                                           "rises monotonically" if (d > 0).all() else "not monotonic"))
    return "; ".join(out)

Kmax = ds.K.values[-1]
dur_gap = 1e3 * (ds.duration.sel(K=Kmax) - ds.ref_duration.sel(e_ref=0.5)).values
th_gap = (ds.theta_after.sel(K=Kmax) - ds.ref_theta_after.sel(e_ref=0.5)).values
dE_gap = (ds.energy_lost.sel(K=Kmax) - ds.ref_energy_lost.sel(e_ref=0.5)).values
cost = ds.wall_time.values
fmt_slopes = lambda q: ", ".join(f"{v:+.2f} ({LABEL[m]})" for m, v in slope[q].items())
display(Markdown(f'''
* **Penetration and peak force against K** (slopes of the log-log fits): penetration {fmt_slopes("max_penetration")},
  peak N {fmt_slopes("peak_N")}. Hertz's scaling for a single contact at a given approach energy
  $K\delta^{{n+1}}/(n+1)$ is $\delta \propto K^{{-1/(n+1)}}$ and $N_{{max}} \propto K^{{1/(n+1)}}$: slopes
  ∓{1 / (n + 1):.2f} for n = {n:g}. Where a model departs from it, the peak of the cluster comes from
  a later micro-impact, not from the first contact. The peak force has no finite limit: in the rigid
  limit it becomes the impulse of the constraint method's jump.
* **Duration of the first impact**: {trend("duration")} with K; at K = {fl.text.num(Kmax, 1)} it is
  {", ".join(f"{d:+.2f} ms" for d in dur_gap)} from the constraint run with e = 0.5 (continuous Coulomb,
  continuous LuGre).
* **θ after the first impact**: {trend("theta_after")}; at K = {fl.text.num(Kmax, 1)} it is
  {", ".join(f"{d:+.4f}" for d in th_gap)} rad from the constraint value (e = 0.5).
  **Energy lost in it**: {trend("energy_lost")}; at K = {fl.text.num(Kmax, 1)}, {", ".join(f"{d:+.3f}" for d in dE_gap)} J
  from the constraint value. The first impact is a cluster of several short contacts (micro-impacts
  of the vibrating tip); what each takes depends on where in the beam's vibration it happens, and
  that moves with K, so these numbers need not converge monotonically.
* **Cost** hardly depends on K here: {fl.text.span(int(ds.n_steps.min()), int(ds.n_steps.max()))} integrator steps
  (wall {fl.text.span(cost.min(), cost.max(), 2, "s")} on this machine), most likely because the contact step is
  capped at `max_step_contact` = 50 µs for every K.
'''))
"""),
    md(r"""
## Stick against creep (axial modes ≥ 1)

With the paper's axially inextensible beam the hybrid models never stick (notebook 07); with one
axial bar mode (`axial_modes = 1`) hybrid Coulomb does, and during a stick interval its tip's
tangential position $s$ is constant. The modified Coulomb law has no stick state: below $v_1$ it
applies less than $\mu_d N$ and below $v_0$ nothing, so it cannot hold the tip still.
`continuous.creep_study` runs hybrid Coulomb (e = 0) and continuous Coulomb (Flores, K = 10⁹,
e = 0.5) with one axial mode over 0–1.2 s and measures how far the continuous tip moves during
hybrid Coulomb's stick intervals.
"""),
    code(r"""
cr = continuous.creep_study(axial_modes=1, t_end=1.2)
print(cr["messages"])
plots.fig_creep(cr)
plt.show()
"""),
    checked(r"""
iv = cr["intervals"][0]
print(f"hybrid Coulomb, first stick interval: {iv['a']:.4f}-{iv['b']:.4f} s ({1e3 * iv['duration']:.2f} ms), "
      f"tip moves {fl.text.num(1e6 * abs(iv['ds_hybrid']), 2, 'µm', zero=0.05)} (to 0.1 µm)")
print(f"continuous Coulomb over the same time: in contact {100 * iv['contact_continuous']:.0f} % of it "
      f"(from {1e3 * iv['land_delay']:.2f} ms after its start), tip moves {1e6 * iv['ds_continuous']:.0f} µm "
      f"in all and {1e6 * iv['ds_continuous_contact']:.1f} µm while in contact")
print(f"  smallest |v_t| in contact {1e3 * iv['min_speed']:.2f} mm/s; time below v1: {1e6 * iv['slow_time']:.0f} µs")
"""),
    code(r"""
h, c, o = cr["hybrid"], cr["continuous"], cr["overlap"]
display(Markdown(f'''
* Hybrid Coulomb sticks {h["n_stick"]} times in 0–1.2 s, {1e3 * h["stick_time"]:.2f} ms in all; its tip
  moves at most {fl.text.num(h["max_abs_ds"], 2)} m in stick (round-off).
* In the first stick interval ({1e3 * iv["duration"]:.2f} ms) the continuous tip is in flight for the
  first {1e3 * iv["land_delay"]:.2f} ms (its contact episodes are not those of the constraint run);
  it lands sliding{", reverses its sliding direction" if iv["reverses"] else ""} and, at the end of the
  interval, is {1e6 * abs(iv["ds_continuous_contact"]):.1f} µm from where it landed, after a sliding path of
  {1e6 * iv["path_continuous"]:.0f} µm over the whole interval. Its |v_t| dips to
  {1e3 * iv["min_speed"]:.2f} mm/s, but stays below $v_1$ = {1e3 * c["v1"]:g} mm/s for
  only {1e6 * iv["slow_time"]:.0f} µs (creeping {1e9 * iv["slow_path"]:.0f} nm): it does not come
  to rest (panel (b) of the figure).
* In all its contact time ({1e3 * c["contact_time"]:.1f} ms) the continuous tip spends {1e3 * c["slow_time"]:.2f} ms
  below $v_1$ (sliding {1e6 * c["slow_path"]:.2f} µm there) and {1e3 * c["no_friction_time"]:.3f} ms below
  $v_0$ (no friction; {1e9 * c["no_friction_path"]:.1f} nm). So in this case the modified Coulomb law
  does not hold the tip and the slow creep it allows is small: the tip passes through the ramp
  instead of resting in it.
* {o["n_intervals"]} of hybrid Coulomb's {h["n_stick"]} stick intervals overlap a contact of the
  continuous run; the others fall where the continuous tip is in flight (its later impacts are at
  other times), so they cannot be compared point by point.
'''))
"""),
    md(r"""
## Try it

The panel runs hybrid Coulomb (constraint method, e = 0 always: the paper's setting) and both
continuous models over the first impact (0–0.45 s), and draws the comparison figure. The controls:
the **contact law** of the continuous models (`flores`, `hunt_crossley`, `lankarani_nikravesh`,
`hertz` without damping, `kelvin_voigt` with `contact_damping` = 0 here, i.e. elastic), the
stiffness **K**, the restitution **e** of the penalty law (the Flores law refuses e = 0: the panel
says so), $\mu_d$ for every model (μ_s, which has no slider here, is raised with it when μ_d passes
it), and the modified Coulomb law's $v_0 < v_1$. Under the readout a line explains the numbers that
look wrong at first sight: continuous LuGre's friction force above μ_s N and the penalty force's
large peak.
"""),
    code(r"""
p = widgets.panel(fields=["contact_law", "contact_stiffness", "e", "mu_d", "v0", "v1"],
                  models=["hybrid_coulomb", "continuous_coulomb", "continuous_lugre"],
                  case=fl.paper_case("3.2").with_(e=0.5), t_end=0.45,
                  plot=lambda r: plots.fig_method_comparison(r, models=None),
                  simulate_fn=continuous.panel_simulate)
p
"""),
    md(r"""
The panel's plot at its start values, drawn here as a static figure (a viewer without a running
kernel shows the panel only as a line of text):
"""),
    code(r"""
plots.fig_method_comparison(p.results, models=None)
plt.show()
"""),
    md(r"""
## Summary
"""),
    code(r"""
display(Markdown(f'''
* **Agreement up to the first impact.** Both methods give the same first contact
  ({min(t_all):.4f} s), first impacts of {fl.text.span(1e3 * min(first[m]["duration"] for m in first), 1e3 * max(first[m]["duration"] for m in first), 3, "ms")}, the same shape of the
  tip's deformation through it, and θ after it within {dev:.4f} rad.
* **Disagreement on N.** The penalty force peaks at {first["continuous_coulomb"]["peak_N"]:.0f} N (K = 10⁹) and
  its peak grows with K; the constraint method's N ({first["hybrid_coulomb"]["peak_N"]:.0f} N) leaves out
  the impulse of its jump.
* **The runs part after the first impact**, most likely because the two methods cannot use the same
  restitution: e = 0 has no penalty equivalent, and with e = 0.5 the continuous models keep
  bouncing (95 % of the impact losses gone by {max(cmp["impacts"][m][int(np.searchsorted(np.cumsum([r["energy_lost"] for r in cmp["impacts"][m]]), 0.95 * sum(r["energy_lost"] for r in cmp["impacts"][m])))]["t_end"] for m in pen):.2f} s against
  {max(cmp["impacts"][m][int(np.searchsorted(np.cumsum([r["energy_lost"] for r in cmp["impacts"][m]]), 0.95 * sum(r["energy_lost"] for r in cmp["impacts"][m])))]["t_end"] for m in con):.2f} s for the constraint models).
* **No stick with modified Coulomb.** Where hybrid Coulomb holds the tip still for
  {1e3 * iv["duration"]:.2f} ms (first impact, one axial mode), the continuous tip keeps sliding;
  it is slower than $v_1$ for only {1e6 * iv["slow_time"]:.0f} µs of that time.
* **Cost** is of the same order for both methods with flexlib's default step cap in contact
  (wall times {fl.text.span(min(cmp["wall_time_s"].values()), max(cmp["wall_time_s"].values()), 2, "s")} for 2 s of motion on this machine).
'''))
"""),
]


def build():
    return write_notebook(CELLS, OUT)


if __name__ == "__main__":
    print(build())
