"""Write notebooks/10-double-pendulum.ipynb from the cell sources below (nbformat v4, no outputs).

    .venv/bin/python scripts/build_notebook_10.py     # then: python -m flexlib notebooks notebooks/10-double-pendulum.ipynb

The notebook makes its own runs (flexlib.cases: three runs of 0-1.5 s, six short runs for the
convergence table, one for the panel; about 2 minutes on two cores).
"""
from __future__ import annotations

from build_notebooks import OUT as NOTEBOOK_DIR, checked, code, md, write_notebook   # scripts/ is on sys.path

OUT = NOTEBOOK_DIR / "10-double-pendulum.ipynb"


CELLS = [
    md(r"""
# 10 · The flexible double pendulum striking a stop

Notebooks 01–09 treat one beam hinged at the ground. This notebook is the first **system** of
beams: two flexible links, the upper one hinged at O, the lower one hinged at the upper one's tip,
fall from the horizontal under gravity; when the upper link passes the vertical, its point B
strikes a rigid stop. The case follows Sheng, Liu and Yu's study of the elastic impact of a
flexible double pendulum (Hertz contact, condensed coordinates); the numbers here are ours
(aluminium links of radius 1 cm, $L_1 = 1$ m, $L_2 = 0.5$ m, B at $0.8\,L_1$).

What it adds: bodies in floating frames joined by hinges, the velocity transformation that
assembles their equations, a Hertz stop, and the question of what the impact does to the angular
rates and to the links' deflection — computed with the continuous contact force and with the
contact-constraint method side by side.
"""),
    code(r"""
import flexlib as fl
from flexlib.viz import multibody_plots as mbp, multibody_widgets as mbw
from flexlib.cases import simulate, double_pendulum
%matplotlib inline
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from flexlib.viz import theme
theme.use()  # resolution and font sizes of every figure: flexlib/viz/theme.py
"""),
    md(r"""
## The model

**Bodies in floating frames.** Each link $b$ is a beam with its own frame: origin $R_b$ at its
hinge, angle $\theta_b$ of the tangent at the hinge from the $X$ axis (absolute, not relative to
the parent), and the deflection $v_b(x) = \Phi(x)\,B_b$ with $N$ clamped–free assumed modes as in
notebook 01. A material point $x$ of link $b$ is at

$$r_b(x) = R_b + W(\theta_b)\begin{pmatrix} x - \tfrac12 B_b^\mathsf{T} H(x) B_b \\ \Phi(x) B_b\end{pmatrix}$$

(the floating frame of reference, Shabana, *Dynamics of Multibody Systems*, ch. 5). On its own a
link has the absolute coordinates $v_b = [R_b, \theta_b, B_b]$ and the mass matrix and forces
$M_b$, $Q_b$ of a free beam.

**Hinges and the velocity transformation.** The hinges leave the independent coordinates
$q = [\theta_1, B_1, \theta_2, B_2]$: $R_1 = 0$ is fixed at O, and $R_2 = r_1(L_1)$ is the
*deformed* tip of link 1. So every body's absolute velocities follow from $\dot q$,

$$\dot v_b = C_b(q)\,\dot q,\qquad \ddot v_b = C_b\,\ddot q + c_b(q, \dot q),$$

where $C_2$'s rows for $R_2$ are the Jacobian of link 1's tip. The equations of the system in
$q$ are then

$$\Big(\sum_b C_b^\mathsf{T} M_b C_b\Big)\ddot q = \sum_b C_b^\mathsf{T}\big(Q_b - M_b c_b\big) + W_n^\mathsf{T} N,$$

with $W_n = n^\mathsf{T} J_1(x_B)\,C_1$ the row that maps $\dot q$ to the normal velocity of B.
This is the velocity transformation of Shabana; Sheng, Liu and Yu call the reduced set
$q$ "condensed coordinates". No constraint equations, no multipliers for the hinges.

**The stop.** B may not enter the half-plane $X \le 0$. In the **continuous** model the stop
pushes back with Hertz's force of a sphere (the link's radius $R$) on a flat,

$$N = K\,\delta^{3/2},\qquad K = \tfrac43\,E^*\sqrt{R},\qquad
\frac{1}{E^*} = \frac{1-\nu_0^2}{E_0} + \frac{1-\nu_1^2}{E_1}$$

(Johnson, *Contact Mechanics*, ch. 4), with $\delta$ the penetration, steel for the stop and
aluminium for the link; no damping, so this contact is elastic. In the **contact-constraint**
model B's normal velocity jumps at the impact by Newton's law with restitution $e$ (an impulse
$\Lambda = -(1+e)\,v_n^-/(W_n M^{-1} W_n^\mathsf{T})$), and while B rests on the stop a multiplier
$N \ge 0$ holds the gap at zero.
"""),
    code(r"""
K = double_pendulum.hertz_stiffness()
print(f"Hertz stiffness of the stop: K = {fl.text.num(K)} N/m^1.5 (R = 0.01 m, aluminium on steel)")
system, _ = fl.cases.build("double-pendulum")
for b in system.bodies:
    m = system.model(b.name)
    print(f"link {b.name}: L = {b.beam.L:g} m, mass {m.mi.m:.3f} kg, N = {m.n} modes, "
          f"first bending frequency {m.natural_frequencies()[0] / (2 * np.pi):.0f} Hz")
"""),
    md(r"""
## The motion

Three runs over 0–1.5 s, all with $N = 3$ modes per link: the continuous Hertz contact (elastic),
and the constraint method with $e = 1$ (elastic jump) and with $e = 0$ (plastic jump).
"""),
    code(r"""
runs = {"continuous (Hertz)": simulate("double-pendulum", "continuous"),
        "constraint, e = 1": simulate("double-pendulum", "frictionless", e=1.0),
        "constraint, e = 0": simulate("double-pendulum", "frictionless", e=0.0)}
rc = runs["continuous (Hertz)"]
t_hit = rc.impacts[0]["t_start"]
mbp.fig_pendulum_snapshots(rc, [0.0, 0.3, 0.5, t_hit, t_hit + 0.003, 0.8, 1.2], scale=10)
plt.show()
"""),
    code(r"""
from flexlib.viz.animation import animation_html
frames = np.union1d(np.linspace(0.0, rc.t_end, 45), np.linspace(t_hit - 0.002, t_hit + 0.015, 25))
animation_html(rc, frames, title="Double pendulum, continuous (Hertz)")
"""),
    md(r"""
The links are drawn with their deflection magnified ten times. Before the impact they swing
almost straight; the impact at B bends link 1 about B and sets both links vibrating.

The same run as an animation (press ▶; it plays without a running kernel): 45 frames over the
1.5 s and 25 more through the first 15 ms of the impact, the deflection magnified by the factor
stated above the player, the stop shaded grey, B's circle filled while it touches the stop.

## The impact force

The first contact and what follows it within 20 ms (*the first impact*), for each run:
"""),
    checked(r"""
first = {k: mbp.after_first_impact(r) for k, r in runs.items()}
for k, a in first.items():
    peak = "impulse only" if not np.isfinite(a["peak_normal_force"]) else f"{fl.text.num(a['peak_normal_force'])} N"
    print(f"{k:>20}: starts {a['t_start']:.4f} s, {a['episodes']} contact episodes in "
          f"{1e3 * a['duration']:.2f} ms, total impulse {a['impulse']:.3f} N s, peak N {peak}")
"""),
    code(r"""
w = (t_hit - 0.0005, t_hit + 0.0060)
mbp.fig_contact_forces(runs, window=w)
plt.show()
"""),
    code(r"""
a, b = first["continuous (Hertz)"], first["constraint, e = 1"]
ims = [im for im in rc.impacts if im["t_start"] <= a["t_end"]]
display(Markdown(f'''
* The Hertz contact is a sequence of {len(ims)} short pulses of {fl.text.span(min(i["duration"] for i in ims), max(i["duration"] for i in ims), 2, "s", si=True)},
  not one: link 1 bounces off the stop, its vibration brings B back, and B strikes again. The
  highest pulse reaches {fl.text.num(a["peak_normal_force"])} N.
* The constraint method replaces each pulse by a velocity jump (triangles: an impulse has no
  finite force to draw). Its finite N is the multiplier while B rests on the stop.
* The total impulse of the first impact is {a["impulse"]:.3f} N s (continuous) and
  {b["impulse"]:.3f} N s (constraint, e = 1): the two elastic models transfer nearly the same
  momentum, distributed differently in time.
'''))
"""),
    md(r"""
## Sudden changes of the angular rates

$\theta_b$ is the angle of link $b$'s tangent at its hinge, so $\dot\theta_b$ carries the
vibration of the link's root as well as its swing: after the impact it oscillates at the links'
bending frequencies. The mean over the 10 ms after the first impact is the swing alone.
"""),
    code(r"""
w = (t_hit - 0.004, t_hit + 0.025)
mbp.fig_theta_dot(runs, window=w)
plt.show()
"""),
    checked(r"""
print("angular rates [rad/s] just before the first contact:")
h0 = rc.history([t_hit - 1e-4])
print(f"  theta_dot B1 {h0['B1.theta_dot'][0]:.3f}, B2 {h0['B2.theta_dot'][0]:.3f}")
print("mean rates over the 10 ms after the first impact [rad/s]:")
for k, a in first.items():
    print(f"  {k:>20}: B1 {a['B1.mean_rate']:+.2f}, B2 {a['B2.mean_rate']:+.2f}")
"""),
    md(r"""
## Deflection of the links

The deflection $v = \Phi(x)\,B$ in each link's floating frame at B ($x = 0.8$ m on link 1), at
link 1's tip (the hinge of link 2) and at link 2's tip:
"""),
    code(r"""
where = [("B1", 0.8, "B on link 1"), ("B1", 1.0, "tip of link 1"), ("B2", 0.5, "tip of link 2")]
mbp.fig_deflection(runs, where, window=(t_hit - 0.004, t_hit + 0.05))
plt.show()
"""),
    code(r"""
lines = ["| run | largest |v| at B [mm] | at the tip of link 1 [mm] | at the tip of link 2 [mm] |",
         "|---|---:|---:|---:|"]
for k, r in runs.items():
    h = r.steps()
    v = np.abs(np.concatenate([mbp.deflection(r, "B1", [0.8, 1.0], h), mbp.deflection(r, "B2", [0.5], h)], axis=1))
    lines.append(f"| {k} | " + " | ".join(f"{1e3 * x:.2f}" for x in v.max(axis=0)) + " |")
display(Markdown("\n".join(lines)))
"""),
    md(r"""
The table gives the largest deflection over the whole run (0–1.5 s, all impacts). The impact makes
the deflection at B change within a fraction of a millisecond, and its vibration then runs through
the hinge into link 2.

## Energy

The energy $E = T + V_E + V_G$ of the links changes only by the work of the contact force, of the
modal damping (none here) and by what the velocity jumps take. The audit closes to the residual
printed in each panel; the continuous contact stores energy in the stop while it is compressed
(the dips of $E$), and gives it back.
"""),
    code(r"""
mbp.fig_energy(runs)
plt.show()
"""),
    checked(r"""
for k, r in runs.items():
    au = r.audit()
    print(f"{k:>20}: energy at 1.5 s {fl.text.num(au['E_end'], 3, 'J', sign=True, zero=5e-4)} "
          f"(E0 = {fl.text.num(au['E0'], 3, 'J', zero=5e-4)}), taken by jumps "
          f"{fl.text.num(au['jump_loss'], 3, 'J', sign=True, zero=5e-4)}, audit residual below 1e-6 J: "
          f"{au['max_residual'] < 1e-6}")
"""),
    md(r"""
## Convergence in the number of modes

The first impact with $N = 3, 4, 6$ modes per link (runs over 0–0.63 s): duration, number of
contact episodes, peak force, impulse and the mean rates after it. The time of the first contact
is set by the swing and hardly moves with $N$; what happens inside the impact depends on the
links' vibration and therefore on $N$.
"""),
    code(r"""
conv = {}
for n in (3, 4, 6):
    for k, (model, kw) in {"continuous (Hertz)": ("continuous", {}),
                           "constraint, e = 1": ("frictionless", dict(e=1.0))}.items():
        conv[(k, n)] = mbp.after_first_impact(simulate("double-pendulum", model, t_end=0.63, n_modes=n, **kw))
"""),
    checked(r"""
print(f"{'run':>20} {'N':>2} {'start [s]':>9} {'duration [ms]':>13} {'episodes':>8} {'peak N [N]':>10} "
      f"{'impulse [N s]':>13} {'mean rate B1':>12} {'B2 [rad/s]':>10}")
for (k, n), a in conv.items():
    peak = "jumps" if not np.isfinite(a["peak_normal_force"]) else f"{fl.text.num(a['peak_normal_force'])}"
    print(f"{k:>20} {n:>2} {a['t_start']:>9.4f} {1e3 * a['duration']:>13.2f} {a['episodes']:>8} {peak:>10} "
          f"{a['impulse']:>13.3f} {a['B1.mean_rate']:>12.2f} {a['B2.mean_rate']:>10.2f}")
"""),
    code(r"""
imp = {k: [conv[(k, n)]["impulse"] for n in (3, 4, 6)] for k in ("continuous (Hertz)", "constraint, e = 1")}
rate = {k: [conv[(k, n)]["B2.mean_rate"] for n in (3, 4, 6)] for k in imp}
display(Markdown(f'''
* The first contact moves by {1e6 * (max(a["t_start"] for a in conv.values()) - min(a["t_start"] for a in conv.values())):.1f} µs from N = 3 to 6.
* The impulse of the first impact changes by {100 * (max(imp["continuous (Hertz)"]) / min(imp["continuous (Hertz)"]) - 1):.0f} % (continuous)
  and {100 * (max(imp["constraint, e = 1"]) / min(imp["constraint, e = 1"]) - 1):.0f} % (constraint) over N = 3, 4, 6; the
  number of contact episodes and the peak force change more: each added mode adds a faster
  vibration of B, and with it other re-contacts.
* The mean rate of link 2 after the impact spans {min(rate["continuous (Hertz)"]):.1f} to {max(rate["continuous (Hertz)"]):.1f} rad/s
  (continuous) and {min(rate["constraint, e = 1"]):.1f} to {max(rate["constraint, e = 1"]):.1f} rad/s (constraint); the two methods agree
  with each other at every N better than either agrees with itself across N.
'''))
"""),
    md(r"""
## The paper's beam, built from the same parts

The beam of notebooks 01–09 is the smallest system of this kind: one body on a ground hinge, the
slope a half-plane with the outward normal $(-\sin\alpha, \cos\alpha)$, and the tip a contact
point. The case `beam-on-slope` builds it from these parts, and `fl.simulate("3.2", ...)` runs
exactly that system: every case runs on the one engine. Before flexlib had one engine, the paper's
cases ran on a simulator of their own, written for the single beam; its runs of case 3.2 were stored
(`tests/data/parity_gate/`) before it was removed. Below, the engine's run of case 3.2 with hybrid
Coulomb friction over 0–0.6 s (the first impact at 0.333 s and the flight after it) against that
record.
"""),
    code(r"""
import json
import pathlib
from flexlib.viz import plots

# the record is the repository's test data, beside the package
repo = pathlib.Path(fl.__file__).resolve().parents[1]
record = json.loads((repo / "tests" / "data" / "parity_gate" / "case32_hybrid_coulomb.json").read_text())
ts = np.array(record["t"])
th_record = np.array(record["q"])[:, 0]
engine = fl.simulate(fl.paper_case("3.2"), "hybrid_coulomb", 0.6)
th_engine = engine.sample(ts, "theta")
t1 = engine.impacts[0]["t_start"]

fig, axs = plt.subplots(1, 2, figsize=(11, 3.4))
st = plots.style("hybrid_coulomb")
axs[0].plot(ts, np.degrees(th_record), color=st["color"], label="the single-beam simulator's record")
axs[0].plot(ts, np.degrees(th_engine), color="k", ls=":", lw=2, label="the engine (case 3.2)")
axs[0].set(xlabel="t [s]", ylabel=r"$\theta$ [deg]", title="the beam's angle")
axs[0].legend()
axs[1].semilogy(ts, np.maximum(np.abs(th_engine - th_record), 1e-17), color=st["color"])
axs[1].axvline(t1, color="0.5", lw=0.8, ls="--", label="first contact")
axs[1].set(xlabel="t [s]", ylabel=r"$|\Delta\theta|$ [rad]", title="engine minus record",
           ylim=(1e-17, 1e-4))
axs[1].legend()
fig.tight_layout()
plt.show()
before, after = ts < t1, ts >= t1
display(Markdown(f'''
* First contact: {t1:.12f} s (engine), {record["impact_starts"][0]:.12f} s (record),
  {fl.text.num(abs(t1 - record["impact_starts"][0]), 2)} s apart.
* $|\\Delta\\theta|$ up to it: {fl.text.num(np.abs(th_engine - th_record)[before].max(), 2)} rad; after it: up to
  {fl.text.num(np.abs(th_engine - th_record)[after].max(), 2)} rad.
'''))
"""),
    md(r"""
The two agree to round-off through the impact and the flight after it: the same equations, the same
rules at the contact point, the same integrator and error norm. (tests/test_parity_gate.py holds the
engine to these records for all four constraint models.)

"""),
    md(r"""
## Try it

The panel reruns the pendulum over 0–0.7 s (the swing to the stop and the first impact) with the
**contact point** B (as a fraction of $L_1$), the **stop stiffness** K of the continuous models,
the number of **modes** N, the **friction coefficient** μ_d (used by `hybrid_coulomb` and
`continuous_coulomb`; μ_s follows it), the **model** and the links' **basis**: the assumed modes
(N of them), Hermite finite elements (the **elements** slider) or the partition. A run takes about
2 s with N = 3 and up to half a minute with N = 6 on two cores, and finite elements cost more than
modes of the same size (notebook 12 measures what each basis costs and how accurate it is on this
pendulum's first impact); every setting is kept, so going back is instant. A run longer than a
second goes to the background: the panel shows a progress bar (the time so far against the last
run's) and a **Cancel** button, and keeps the previous plot until the run ends. A control the chosen
model does not use is greyed out, its tooltip says why (the stop stiffness under a constraint model,
μ_d under a frictionless one, e under the elastic Hertz contact), and moving it runs nothing. The box
beside each slider takes a typed value; one that is not a number or out of the slider's range is
refused in the status line with the reason, and nothing runs. The readout's peak force is the peak
of the force curves in the plot (over the plot's window), beside the number of velocity jumps there,
whose impulses have no force to draw.
"""),
    code(r"""
def pendulum_run(case, model, t_end, mu_d=0.0, **params):
    return simulate(case, model, t_end, mu_d=mu_d, mu_s=mu_d, **params)

p = mbw.system_panel("double-pendulum", ["contact_at", "contact_stiffness", "n_modes", "mu_d", "model",
                                         "basis", "elements"],
                     dict(contact_at=0.8, contact_stiffness=K, n_modes=3, mu_d=0.0, model="continuous",
                          basis="modal", elements=4),
                     t_end=0.7, plot=mbp.fig_first_impact, readout=mbw.impact_readout,
                     simulate_fn=pendulum_run)
p
"""),
    md(r"""
The panel's figure at its start values, as a static figure for a viewer without a running kernel:
"""),
    code(r"""
mbp.fig_first_impact(p.result)
plt.show()
"""),
    md(r"""
## Summary
"""),
    code(r"""
a, b, c = (first[k] for k in runs)
display(Markdown(f'''
* The links swing to the stop in {t_hit:.4f} s; the first impact there is a cluster of short
  contacts ({a["episodes"]} Hertz pulses, {b["episodes"]} / {c["episodes"]} episodes for the constraint method with e = 1 / 0),
  because link 1 vibrates against the stop.
* The Hertz force peaks at {fl.text.num(a["peak_normal_force"], 3, "N", si=True)} for {fl.text.span(min(i["duration"] for i in ims), max(i["duration"] for i in ims), 2, "s", si=True)} per pulse; the constraint
  method takes the same momentum as velocity jumps.
* The angular rates change within the impact and then oscillate with the links' vibration; the
  deflection at B reaches {1e3 * np.abs(mbp.deflection(rc, "B1", [0.8])).max():.1f} mm over the run (continuous).
* With the elastic laws (Hertz, e = 1) no energy is lost; with e = 0 the jumps take
  {-runs["constraint, e = 0"].audit()["jump_loss"]:.2f} J over 1.5 s. Every audit closes.
* The time of the first contact is converged at N = 3; what happens inside the impact is not:
  from N = 3 to 4 the episodes, the peak force, the impulse and the rates after it change, from
  N = 4 to 6 the impulse by {100 * abs(conv[("continuous (Hertz)", 6)]["impulse"] / conv[("continuous (Hertz)", 4)]["impulse"] - 1):.0f} % and the peak force by {100 * abs(conv[("continuous (Hertz)", 6)]["peak_normal_force"] / conv[("continuous (Hertz)", 4)]["peak_normal_force"] - 1):.0f} % (continuous).
'''))
"""),
]


def build():
    return write_notebook(CELLS, OUT)


if __name__ == "__main__":
    print(build())
