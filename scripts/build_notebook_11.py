"""Write notebooks/11-multi-point-impact.ipynb from the cell sources below (nbformat v4, no outputs).

    .venv/bin/python scripts/build_notebook_11.py     # then: python -m flexlib notebooks notebooks/11-multi-point-impact.ipynb

The notebook makes its own runs (flexlib.cases "falling-beam": rigid runs of well under a second,
four flexible runs over 0-0.4 s of a few seconds each).
"""
from __future__ import annotations

from build_notebooks import OUT as NOTEBOOK_DIR, checked, code, md, write_notebook   # scripts/ is on sys.path

OUT = NOTEBOOK_DIR / "11-multi-point-impact.ipynb"


CELLS = [
    md(r"""
# 11 · Impact at several points: a beam dropped on the ground

In notebooks 01–10 one point touches one obstacle. Here a free beam ($L = 1$ m, the aluminium
section of the earlier notebooks, no joint) falls from rest onto rigid ground and may touch it at
several material points at once: its two ends, or five points along it. This is the classic test
of an impact law for several contacts (Pfeiffer and Glocker, *Multibody Dynamics with Unilateral
Contacts*, 1996; for flexible systems Liu and Ma's multi-point contact impact).

We first take the rigid rod ($N = 0$ modes), where the textbook gives every number in closed
form, and compare flexlib with the formulas; then we write Newton's law for several points as a
linear complementarity problem (LCP); then we let the beam bend and see what changes.
"""),
    code(r"""
import flexlib as fl
from flexlib.contact import lcp
from flexlib.viz import multibody_plots as mbp
from flexlib.viz.animation import animation_html, deflection_amplitude, exaggeration_for
from flexlib.cases import simulate, falling_beam
%matplotlib inline
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from flexlib.viz import theme
theme.use()  # resolution and font sizes of every figure: flexlib/viz/theme.py

g0, h0, L = 9.81, 0.1, 1.0
system, _ = fl.cases.build("falling-beam")
m = system.model("beam").mi.m
print(f"beam: L = {L:g} m, mass m = {m:.4f} kg, dropped from h0 = {h0:g} m")
"""),
    md(r"""
## The rigid rod, flat

Dropped flat from $h_0$, both ends land together at $t_1 = \sqrt{2h_0/g}$ with the speed
$v^- = -\sqrt{2 g h_0}$. With $e = 0$ and no friction Newton's law stops both ends; by symmetry
each end takes half the momentum, $\Lambda_1 = \Lambda_2 = m\,|v^-|/2$, and the rod rests.
(The run uses the constraint model `frictionless`, $e = 0$, $N = 0$.)
"""),
    checked(r"""
flat = simulate("falling-beam", "frictionless", t_end=0.3, n_modes=0)
j = flat.log.jumps[0]
v_minus = -np.sqrt(2 * g0 * h0)
print(f"landing time:   formula {falling_beam.landing_time(h0):.6f} s, flexlib {j.t:.6f} s")
print(f"speed before:   formula {v_minus:.6f} m/s, flexlib {j.v_before[0]:.6f}, {j.v_before[1]:.6f} m/s")
print(f"impulses:       formula {m * abs(v_minus) / 2:.6f} N s each, flexlib "
      + ", ".join(f"{x:.6f}" for x in j.impulses) + " N s")
h = flat.history([0.3])
print(f"at 0.3 s: height of the centre {h['beam.R'][0, 1]:.2e} m, speed {np.hypot(*h['beam.R_dot'][0]):.1e} m/s, "
      f"energy lost {-flat.audit()['jump_loss']:.6f} J (m g h0 = {m * g0 * h0:.6f} J)")
"""),
    md(r"""
## The rigid rod, tilted: one end, then pivot and slide, then both

Tilted by $\theta_0 = 0.1$ rad (end $x = 0$ lowest, at $h_0$), the low end lands first at the same
$t_1$ and speed $v^-$. Its impulse $\Lambda$ acts on the centre's velocity $v_y$ and on the rate
$\omega$; with $e = 0$ the end stops ($v_y + \omega\,(L/2)\cos\theta_0 \cdot(-1) = 0$ after), which
gives, with $I = mL^2/12$,

$$\Lambda = \frac{-m v^-}{1 + 3\cos^2\theta_0},\qquad
v_y^+ = v^-\,\frac{3\cos^2\theta_0}{1 + 3\cos^2\theta_0},\qquad
\omega^+ = \frac{6\,v^-\cos\theta_0}{L\,(1 + 3\cos^2\theta_0)}.$$

Then the rod pivots on the low end, which slides freely (no friction, so the centre falls
straight down), until the high end lands. Energy from the first impact to that instant gives the
rate at the second landing: $\tfrac{mL^2}{6}\,\omega_2^2 = T^+ + m g \tfrac{L}{2}\sin\theta_0$,
and the high end arrives with $v_2^- = L\,\omega_2$ while the low end moves only sideways.
"""),
    checked(r"""
th0 = 0.1
tilt = simulate("falling-beam", "frictionless", t_end=0.4, n_modes=0, theta0=th0)
j1, j2 = tilt.log.jumps[:2]
c2 = 3 * np.cos(th0) ** 2
Lam = -m * v_minus / (1 + c2)
vy_p, om_p = v_minus * c2 / (1 + c2), 6 * v_minus * np.cos(th0) / (L * (1 + c2))
h = tilt.history([j1.t])             # the state just after the first jump
print(f"first impact at {j1.t:.6f} s: impulse formula {Lam:.6f}, flexlib {j1.impulses[0]:.6f} N s")
vy_centre = h["beam.R_dot"][0, 1] + h["beam.theta_dot"][0] * L / 2 * np.cos(h["beam.theta"][0])
print(f"  v_y+   formula {vy_p:.6f}, flexlib {vy_centre:.6f} m/s (the centre's, from the end's velocity and the rate)")
print(f"  omega+ formula {om_p:.6f}, flexlib {h['beam.theta_dot'][0]:.6f} rad/s")
T_plus = 0.5 * m * vy_p ** 2 + 0.5 * m * L ** 2 / 12 * om_p ** 2
om2 = -np.sqrt(6 * (T_plus + m * g0 * L / 2 * np.sin(th0)) / (m * L ** 2))
print(f"second landing at {j2.t:.6f} s: v2- formula {L * om2:.6f}, flexlib {j2.v_before[j2.points.index('P2')]:.6f} m/s")
"""),
    md(r"""
The beam's frame origin is its end $x = 0$, so flexlib's $\dot R_y$ after the first impact is the
low end's velocity (zero); the centre's follows from it and the rate $\dot\theta = \omega$.

## Newton's law at several points is an LCP

At the second landing both ends are involved: the low end is closed (it rests on the ground with
$v_1^- = 0$), the high end approaches with $v_2^- < 0$. With the rows $W_i$ of the normal
velocities and $G = W M^{-1} W^\mathsf{T}$, the velocities after the impulses $\Lambda$ are
$v^+ = v^- + G\Lambda$, and Newton's law asks at every point

$$\Lambda_i \ge 0,\qquad v_i^+ + e\,v_i^- \ge 0,\qquad \Lambda_i\,(v_i^+ + e\,v_i^-) = 0,$$

a linear complementarity problem for $\Lambda$ (Pfeiffer and Glocker 1996). A point may take no
impulse and separate, or take one and stop; which of the two is not known in advance, and an
impulse at one end changes the velocity of the other. For the horizontal rigid rod $G$ follows
from the mass $m$, the inertia $mL^2/12$ and the lever arms $\mp L/2$:
$G = \frac1m\begin{pmatrix}4 & -2\\-2 & 4\end{pmatrix}$. `flexlib.contact.lcp.newton_impact` solves it:
"""),
    checked(r"""
G = np.array([[4.0, -2.0], [-2.0, 4.0]]) / m
vm = np.array([0.0, j2.v_before[j2.points.index("P2")]])
sol = lcp.newton_impact(G, vm, e=0.0, closed=[True, False])
print("LCP impulses      [N s]:", np.round(sol.Lambda, 6), " velocities after [m/s]:", np.round(sol.v_plus, 9))
print("flexlib's jump    [N s]:", np.round([j2.impulses[j2.points.index(p)] for p in ("P1", "P2")], 6))
print(f"both ends stop, the low end takes {sol.Lambda[0] / sol.Lambda[1]:.3f} of the high end's impulse; "
      f"energy lost over the run {-tilt.audit()['jump_loss']:.6f} J = E0 = {tilt.audit()['E0']:.6f} J")
"""),
    md(r"""
The low end takes an impulse although it was already at rest: without it the high end's impulse
would drive it into the ground ($G_{12} < 0$: an upward impulse at one end of a rigid rod turns
the rod and pushes the other end down). An impulse at one point changes the velocity of every
other; this coupling is what a single-point impact law misses.

With five points on a rigid rod the points are collinear and the LCP is **redundant**: $G$ has
rank 2 and the impulses are not unique (only their resultant and moment are). flexlib returns one
basic solution and says so in the jump's log; the rod's motion after the impact is the same for
every solution.
"""),
    code(r"""
tilt5 = simulate("falling-beam", "frictionless", t_end=0.4, n_modes=0, theta0=th0, contact_points="0,0.25,0.5,0.75,1")
j = tilt5.log.jumps[1]
print(f"second landing, 5 points: impulses {dict(zip(j.points, np.round(j.impulses, 4)))} N s, "
      f"sum {sum(j.impulses):.6f} N s (2 points: {sum(j2.impulses):.6f} N s), redundant: {j.redundant}")
h2, h5 = tilt.history([0.3]), tilt5.history([0.3])
print(f"at 0.3 s the rod's centre speed: {np.hypot(*h2['beam.R_dot'][0]):.1e} (2 points), "
      f"{np.hypot(*h5['beam.R_dot'][0]):.1e} m/s (5 points)")
"""),
    md(r"""
## The flexible beam

Now the beam bends ($N = 3$ modes). Flat, both ends land together again, but the middle is still
moving down when the ends stop: the beam sags, springs back, and the rebound of one end's
impulse through the beam lifts the other. We run it with two contact points (the ends) and with
five, with the contact-constraint method (`hybrid_coulomb`, $e = 0$, $\mu = 0.3$: the case's
default) and with the continuous contact force (`continuous`: the penalty force
$N = K\delta^{3/2}(1 + \tfrac32\dot\delta/\dot\delta_{in})$ of Hunt and Crossley with $e = 0$,
$K = 10^9$ N/m$^{1.5}$, no friction), over 0–0.4 s.
"""),
    code(r"""
T_END = 0.4
flex = {}
for pts, tag in (("0,1", "2 points"), ("0,0.25,0.5,0.75,1", "5 points")):
    flex[f"constraint, {tag}"] = simulate("falling-beam", "hybrid_coulomb", t_end=T_END, contact_points=pts)
    flex[f"continuous, {tag}"] = simulate("falling-beam", "continuous", t_end=T_END, contact_points=pts,
                                          contact_law="hunt_crossley", e=0.0)
rigid = simulate("falling-beam", "hybrid_coulomb", t_end=T_END, n_modes=0)
t1 = falling_beam.landing_time(h0)
snap_t = [t1 - 0.02, t1, t1 + 0.002, t1 + 0.004, 0.3]
for tag in ("2 points", "5 points"):
    r = flex[f"constraint, {tag}"]
    amp = deflection_amplitude(r, np.linspace(t1 - 0.02, T_END, 400))
    scale = exaggeration_for(r, np.linspace(t1 - 0.02, T_END, 400))
    print(f"constraint, {tag}: largest deflection {1e6 * amp:.0f} µm from 20 ms before landing to {T_END:g} s, drawn × {scale:g}")
    mbp.fig_beam_snapshots(r, snap_t, scale=scale)
    plt.show()
"""),
    md(r"""
The snapshots magnify the beam's bending by the factor in their titles, chosen from each run's
largest deflection (the beam's offset from the line of its floating frame, which is tangent to it
at mid-span); a filled circle is a point touching the ground. Both runs as an animation
(press ▶; it plays without a running kernel): the 2-point run solid blue, the 5-point run dashed
orange, through the 60 ms after landing, each with its own magnification (stated in the legend
and above the player: the five closed points leave the beam far less deflection than two). The
deflection is magnified about the line of the floating frame, tangent to the beam at mid-span, so
at × 500 an end that lies on the ground can be drawn below it: the magnified offsets are 500 times
a fraction of a millimetre.
"""),
    code(r"""
frames = np.linspace(t1 - 0.01, t1 + 0.06, 70)
animation_html({k: flex[k] for k in ("constraint, 2 points", "constraint, 5 points")}, frames,
               exaggeration="each", title="Falling beam, constraint method")
"""),
    md(r"""
Which point is closed when, over the whole run and over the first 10 ms after landing:
"""),
    code(r"""
mbp.fig_contact_map(flex)
plt.show()
mbp.fig_contact_map({k: v for k, v in flex.items() if "5 points" in k}, window=(t1 - 0.0005, t1 + 0.010))
plt.show()
"""),
    checked(r"""
def count(r, t0=0.0, t1_=T_END):
    ep = [im for im in r.impacts if t0 <= im["t_start"] <= t1_]
    return len(ep), sum(1 for jj in r.log.jumps if t0 <= jj.t <= t1_)

print(f"{'run':>22} {'contact episodes':>16} {'velocity jumps':>14} {'of them after 0.2 s':>19}")
for k, r in {**flex, "rigid rod, 2 points": rigid}.items():
    n_ep, n_j = count(r)
    print(f"{k:>22} {n_ep:>16} {n_j:>14} {count(r, 0.2)[1]:>19}")
"""),
    code(r"""
rk = flex["constraint, 2 points"]
small = [jj for jj in rk.log.jumps if max(abs(v) for v in jj.v_before) < 1e-3]
dts = np.diff([jj.t for jj in rk.log.jumps])
late = [jj for jj in rigid.log.jumps if jj.t > 0.2]
display(Markdown(f'''
**Micro-impacts.** The flexible beam with the constraint method makes {len(rk.log.jumps)} velocity jumps
at its two ends in {T_END:g} s; {len(small)} of them have an approach speed below 1 mm/s, and the
median time between two jumps is {1e6 * np.median(dts):.0f} µs. The ends take turns: the impulse
that stops one end lifts the other, which separates and comes back microseconds later, and the
constraint method treats every return as a new impact. The continuous contact force needs no
jumps: an end that lifts and returns is a short penalty pulse
({count(flex["continuous, 2 points"])[0]} contact episodes).

**The resting rigid rod** with the same law (`hybrid_coulomb`) makes {fl.text.plural(len(rigid.log.jumps), "jump")}, {len(late)} of
them after 0.2 s: it lands on both ends at once and lies still, both ends sticking.
'''))
"""),
    md(r"""
Why do the flexible beam's ends take turns when the rigid rod's do not? The coupling $G_{12}$ of
the two ends, the velocity that a unit impulse at one end gives the other, decides it. Each
free-free bending mode $k$ adds $\phi_k(0)\,\phi_k(L)/m_k$ to it, with the sign of the mode's
symmetry, so the sign of $G_{12}$ alternates with the number of modes $N$; and the end's own
mobility $G_{11}$ grows with every mode (the point mobility of an Euler-Bernoulli beam has no
finite limit, so Newton's law at a point of a flexible body depends on its discretisation).
`SystemSimulator.delassus` gives $G$ at a state; here it is evaluated on the flat beam, beside the
number of velocity jumps of the flat frictionless landing over 0-0.16 s:
"""),
    checked(r"""
from flexlib.cases import build
from flexlib.multibody import SystemSimulator

print(f"{'N':>2} {'m G11':>8} {'m G12':>8} {'jumps in 0-0.16 s':>18}")
for n in range(7):
    system, solver = build("falling-beam", "frictionless", n_modes=n, h0=0.0)
    G = SystemSimulator(system, 0.1, solver).delassus(system.initial_state(), [0, 1])[1]
    jumps = len(simulate("falling-beam", "frictionless", t_end=0.16, n_modes=n).log.jumps)
    print(f"{n:>2} {m * G[0, 0]:8.3f} {m * G[0, 1]:8.3f} {jumps:>18}")
"""),
    md(r"""
With an even number of modes an impulse at one end presses the other end down, as the rigid
rod's does, and the ends land only a few times. With N = 3 and 5 it lifts the other end
($G_{12} > 0$) and the landing becomes a train of alternating micro-impacts. N = 1 lifts it too
but lands once: its only bending mode is symmetric and moves both ends together, and in these
runs nothing sets the two ends of the flat landing against each other (we have not analysed this
case further). So the train depends on how many modes represent the beam; it belongs to Newton's
law applied at points of a truncated flexible body, not to the beam. The continuous method, whose
contact force builds up over the contact's duration, shows nothing of the kind.
"""),
    md(r"""
### Contact forces

The normal force at each point through the first 5 ms after landing (the constraint run's
velocity jumps are triangles):
"""),
    code(r"""
mbp.fig_contact_forces({k: v for k, v in flex.items() if "5 points" in k}, window=(t1 - 0.0002, t1 + 0.005))
plt.show()
"""),
    md(r"""
### Mid-span: height and sag

The sag of the mid-span is its distance from the chord through the two ends (free of the choice
of the floating frame), in µm:
"""),
    code(r"""
mbp.fig_beam_motion({**flex, "rigid rod (constraint, 2 points)": rigid}, window=(t1 - 0.01, t1 + 0.04))
plt.show()
"""),
    code(r"""
lines = ["| run | largest sag before landing [µm] | largest sag after landing [µm] |", "|---|---:|---:|"]
for k, r in flex.items():
    tt = np.linspace(0.0, T_END, 2001)
    s = 1e6 * mbp.chord_deflection(r, "beam", 0.5 * L, tt)
    lines.append(f"| {k} | {np.abs(s[tt < t1]).max():.2f} | {np.abs(s[tt >= t1]).max():.2f} |")
display(Markdown("\n".join(lines)))
"""),
    md(r"""
### Energy

The energy audit of each flexible run: $E(t) - E(0)$ against the work of the contact forces and
the energy the jumps take.
"""),
    code(r"""
mbp.fig_energy({k: v for k, v in flex.items() if "2 points" in k})
plt.show()
"""),
    checked(r"""
for k, r in {**flex, "rigid rod, 2 points": rigid}.items():
    au = r.audit()
    print(f"{k:>22}: E0 = {fl.text.num(au['E0'], 3, 'J', zero=5e-5)}, E at {T_END:g} s = "
          f"{fl.text.num(au['E_end'], 3, 'J', zero=5e-5)}, jumps took {fl.text.num(-au['jump_loss'], 3, 'J', zero=5e-5)}, "
          f"audit residual below 1e-6 J: {au['max_residual'] < 1e-6}")
"""),
    md(r"""
## Rigid rod and flexible beam: what changes
"""),
    code(r"""
a2, c2_, c5 = (flex[k].audit() for k in ("constraint, 2 points", "continuous, 2 points", "continuous, 5 points"))
display(Markdown(f'''
* **Rigid rod:** every number of the textbook is reproduced to round-off: the landing time, the
  impulses $m|v^-|/2$ (flat), the impulse, $v_y^+$ and $\omega^+$ of the one-point impact, the
  speed of the second landing and the two-point impact of the LCP. The rod rests after the last
  jump and all of $m g h_0$ is gone in the jumps.
* **Flexible beam, constraint method:** the landing is not one impact but {len(rk.log.jumps)} jumps in
  {T_END:g} s, because with N = 3 modes the impulse that stops one end lifts the other
  ($G_{{12}} > 0$) and the bending vibration brings it back; at the end of the run
  the beam still holds {a2["E_end"]:.3g} J (the vibration that no jump can take).
* **Flexible beam, continuous method:** the penalty pulses take the part of the energy that the
  damping of the Hunt–Crossley law removes; {c2_["E_end"]:.3g} J remain at {T_END:g} s.
* **Five points** share the momentum of landing among more points. With the constraint method
  and N = 3 modes the five closed points leave the beam almost no freedom to bend (3 rigid and 3
  bending coordinates against 5 constraints): the landing stops its bending too and the sag after it
  is nil, an effect of the small basis as much as of the contacts. The continuous run keeps
  {c5["E_end"]:.3g} J at {T_END:g} s.
'''))
"""),
]


def build():
    return write_notebook(CELLS, OUT)


if __name__ == "__main__":
    print(build())
