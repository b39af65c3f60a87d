"""Write notebooks/0*.ipynb from the cell sources below (nbformat v4, no outputs).

    .venv/bin/python scripts/build_notebooks.py      # then: python -m flexlib notebooks

Editing a notebook in Jupyter is fine too; this script is the quick way to rebuild all six with
clean JSON.  Rebuilding drops the stored outputs, so re-execute afterwards.
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "notebooks"

# The kernel the README's set-up commands install into .venv: this environment's Python with the
# numerical settings of flexlib/_numerics.py, so a notebook gives the numbers of the figures.
KERNELSPEC = {"display_name": "Python 3 (flexlib)", "language": "python", "name": "flexlib"}

SETUP = """\
import flexlib as fl
from flexlib.viz import nbtools, widgets
%matplotlib inline
import numpy as np
import matplotlib.pyplot as plt
from IPython.display import Markdown, display
from flexlib.viz import theme
theme.use()  # resolution and font sizes of every figure: flexlib/viz/theme.py"""


def md(text):
    return new_markdown_cell(text.strip("\n"))


def code(text):
    return new_code_cell(text.strip("\n"))


CHECK_TAG = "nbval-check-output"


def checked(text):
    """A code cell whose rounded output the test command compares with the stored one (nbval's
    cell tag, kept in the cell's metadata so that a reader does not see it)."""
    return new_code_cell(text.strip("\n"), metadata={"tags": [CHECK_TAG]})


# --------------------------------------------------------------------------- 01
NB01 = [
    md("""
# 01 · The rotating flexible beam (modelling)

Fan et al. (2021) drop a flexible aluminium beam, hinged at O, from θ0 = 45° onto a rigid slope and
compare three friction models for the oblique impact. This first notebook sets up **the beam alone**:
the frames, the assumed modes, the equations of free flight and the checks that identify a correct
implementation. No slope and no contact yet; notebook 02 adds the impact, 03–05 the friction models,
06 compares them with the paper.

Equation numbers are the paper's. The model is described in our own words in
[docs/model.md](../docs/model.md); § numbers refer to it. All the
physics lives in `flexlib`; this notebook only calls it and plots."""),
    code(SETUP),
    md(r"""
## Frames and coordinates ([docs/model.md §4](../docs/model.md#4-beam-kinematics-floating-frame-and-assumed-modes))

* Inertial frame **OXY**: origin at the hinge O, X horizontal to the right, Y up; gravity **g** = (0, −g0).
* Floating frame **Oxy** attached at the hinge, x along the *undeformed* beam axis; θ is the angle from OX
  to Ox. The beam starts at rest and undeformed at θ0 = π/4 and falls clockwise (θ decreases).
* A material point has axial coordinate x ∈ [0, L]. Euler–Bernoulli bending, no axial strain, but the
  axial **foreshortening** caused by bending is kept.

Deformation with N assumed modes and generalised coordinates q = [θ, B_1 … B_N]ᵀ:

$$u_y(x,t) = \Phi(x)\,B(t) \qquad (2)$$

$$u_x(x,t) = -\tfrac12\int_0^x \Big(\frac{\partial u_y}{\partial \xi}\Big)^2 d\xi = -\tfrac12\,B^\mathsf{T} H(x)\,B,
\qquad H(x) = \int_0^x \Phi'(\xi)^\mathsf{T}\Phi'(\xi)\,d\xi \qquad (3),(4)$$

Position and velocity of a beam point (W maps floating components to inertial ones; the paper's text after eq (7) states the opposite, its formula is this one):

$$r(x) = W(\theta)\,p(x),\quad p(x) = \begin{pmatrix} x - \tfrac12 B^\mathsf{T}H(x)B \\ \Phi(x)B\end{pmatrix},\quad
W = \begin{pmatrix}\cos\theta & -\sin\theta\\ \sin\theta & \cos\theta\end{pmatrix} \qquad (5),(6)$$

$$\dot r = J(x)\,\dot q,\qquad \ddot r = J\ddot q + W\tilde a(x) \qquad (7)$$"""),
    md(r"""
## Assumed modes ([docs/model.md §4](../docs/model.md#4-beam-kinematics-floating-frame-and-assumed-modes))

Clamped–free cantilever eigenfunctions, normalised so that $\int_0^L\Phi_i\Phi_j\,dx = L\,\delta_{ij}$:

$$\Phi_i(x) = \cosh\beta_i x - \cos\beta_i x - \sigma_i(\sinh\beta_i x - \sin\beta_i x),\quad
\sigma_i = \frac{\cosh\lambda_i + \cos\lambda_i}{\sinh\lambda_i + \sin\lambda_i},\quad 1 + \cos\lambda_i\cosh\lambda_i = 0,\ \lambda_i = \beta_i L$$

`flexlib.bodies.modes.mode_shapes` evaluates them in the numerically stable form of §4.1 (no cosh − σ sinh
cancellation), so N = 8 modes are as accurate as N = 1. The tip value is Φ_i(L) = 2(−1)^{i+1}."""),
    code("""
case = fl.paper_case("3.2")
L = case.beam.L
x = np.linspace(0.0, L, 201)
phi, dphi, ddphi = fl.bodies.modes.mode_shapes(x, L, 4)
fig, ax = plt.subplots(figsize=(7, 3.2), constrained_layout=True)
for i in range(4):
    ax.plot(x, phi[:, i], label=f"$\\\\Phi_{i + 1}$, $\\\\beta_{i + 1}L$ = {fl.bodies.modes.cantilever_roots(4)[i]:.4f}")
ax.axhline(0, color="0.5", lw=0.5)
ax.set_xlabel("axial coordinate x [m]")
ax.set_ylabel("mode shape $\\\\Phi_i(x)$ [–]")
ax.set_title("Clamped–free assumed modes")
ax.legend(fontsize=theme.SMALL)
plt.show()"""),
    md(r"""
## Energies and equations of motion ([docs/model.md §5](../docs/model.md#5-equations-of-motion-in-free-flight))

$$T = \tfrac12\dot q^\mathsf{T} M(q)\,\dot q \quad (8),\qquad V_E = \tfrac12 B^\mathsf{T}K_2B \quad (9),\qquad
V_G = -\mathbf g^\mathsf{T} W R,\ R = \int_0^L \rho S\,p\,dx \quad (9),(10)$$

Lagrange's equations give $M(q)\,\ddot q = Q(q,\dot q)$ (eq 12) with the mass matrix of eqs (13)–(15) and the
generalised forces of eqs (16)–(17). The printed eqs (16), (17), (20) contain typos (dots in the
wrong place, θ̇ for θ̇², and $S_y = \int\rho S\,x\,\Phi\,dx$ missing the factor x); `flexlib.bodies.beam` uses the
corrected closed form and tests it against the generic quadrature route of §5.3.

### Natural frequencies

With θ locked and gravity off the modes are exact eigenfunctions, so the clamped frequencies are exactly
$\omega_i = (\beta_iL)^2\sqrt{EI/(\rho S L^4)}$. With the hinge free (pinned–free beam) the assumed
cantilever modes are only a basis: the frequencies come out *above* the exact values
$\lambda^2\sqrt{EI/(\rho SL^4)}$ with $\tan\lambda = \tanh\lambda$, and converge from above as N grows.
The exact roots below are computed here independently with a root finder."""),
    code("""
from scipy.optimize import brentq

b = case.beam
c0 = np.sqrt(b.E * b.I / (b.rho * b.S * b.L**4))
lam_clamped = fl.bodies.modes.cantilever_roots(6)
lam_pinned = np.array([brentq(lambda l: np.tan(l) - np.tanh(l), (k + 1) * np.pi + 0.1, (k + 1.5) * np.pi - 1e-9)
                       for k in range(5)])
w3 = fl.BeamModel(b).natural_frequencies()
w6 = fl.BeamModel(b.replace(n_modes=6)).natural_frequencies()
p3 = fl.BeamModel(b).pinned_free_frequencies()[1:]
p6 = fl.BeamModel(b.replace(n_modes=6)).pinned_free_frequencies()[1:]
rows = []
for i in range(5):
    rows.append(dict(i=i + 1, analytic=lam_clamped[i]**2 * c0, n3=w3[i] if i < 3 else None, n6=w6[i],
                     exact_pf=lam_pinned[i]**2 * c0, pf3=p3[i] if i < 2 else None, pf6=p6[i]))
display(Markdown(nbtools.markdown_table(rows, [
    ("i", "mode", "d"), ("analytic", "clamped (β_iL)²c0 [rad/s]", ".3f"), ("n3", "clamped, N = 3", ".3f"),
    ("n6", "clamped, N = 6", ".3f"), ("exact_pf", "pinned–free exact [rad/s]", ".3f"),
    ("pf3", "pinned–free, N = 3", ".3f"), ("pf6", "pinned–free, N = 6", ".3f")])))
clamped_err = max(abs(r["n6"] - r["analytic"]) / r["analytic"] for r in rows)
above = all(r["pf6"] >= r["exact_pf"] and (r["pf3"] is None or r["pf3"] >= r["pf6"]) for r in rows)
display(Markdown(
    f"The clamped values agree with the analytic ones to {clamped_err:.0e} (relative, round-off); the "
    f"pinned–free values lie {'above' if above else 'NOT above'} the exact ones and fall towards them "
    f"as N grows (first mode: {p3[0]:.3f} rad/s with N = 3, {p6[0]:.3f} with N = 6, exact "
    f"{lam_pinned[0]**2 * c0:.3f} rad/s = {lam_pinned[0]**2 * c0 / (2 * np.pi):.1f} Hz): assumed modes "
    f"approach the exact frequencies from above."))"""),
    md("""
## Free fall (no slope)

Model `free` removes the slope. Over the 0.35 s it takes the beam to reach the slope of case 3.2, the beam
rotates almost like a rigid rod. The rigid rod's equation $\\ddot\\theta = -\\tfrac{3g_0}{2L}\\cos\\theta$ is
integrated here as an independent reference for θ(t). The flexible beam bends by a fraction of a
millimetre; released undeformed, it vibrates near its first pinned–free frequency (the table above)."""),
    code("""
from scipy.integrate import solve_ivp

free = fl.simulate(case, "free", 0.35)
g0 = case.beam.g0
rigid = solve_ivp(lambda t, y: [y[1], -1.5 * g0 / L * np.cos(y[0])], (0, 0.35), [case.beam.theta0, 0.0],
                  rtol=1e-10, atol=1e-12, dense_output=True)
fig, axs = plt.subplots(2, 1, figsize=(7, 4.6), sharex=True, constrained_layout=True)
axs[0].plot(free.t, free.theta, **fl.viz.plots.style("free"))
axs[0].plot(free.t, rigid.sol(free.t)[0], "r:", lw=1.5, label="rigid rod (reference)")
axs[0].set_ylabel(r"$\\theta$ [rad]")
axs[0].legend(fontsize=theme.SMALL)
axs[1].plot(free.t, 1e3 * free.tip_deflection, **fl.viz.plots.style("free"))
axs[1].set_ylabel(r"tip $u_y(L)$ [mm]")
axs[1].set_xlabel("time t [s]")
for ax in axs:
    ax.grid(True, lw=0.3)
fig.suptitle("Free fall from θ0 = π/4 (no slope)", fontsize=theme.TITLE)
plt.show()
print(f"max |theta_flexible - theta_rigid| = {np.max(np.abs(free.theta - rigid.sol(free.t)[0])):.2e} rad")"""),
    md(r"""
## Dynamic stiffening: why the foreshortening term matters

Kane, Ryan & Banerjee (1987) spin a long beam up with a prescribed hub angle
θ(t) = (Ω/T)[t²/2 + (T/2π)²(cos(2πt/T) − 1)] to Ω = 4 rad/s over T = 15 s, gravity off. Linearised about
B = 0 at constant θ̇ = Ω, the modal equation is $M_2\ddot B + [K_2 + \Omega^2(D - M_2)]B = 0$: for one mode
$\omega^2 = \omega_1^2 + 0.19334\,\Omega^2$ with the foreshortening term, but $\omega^2 = \omega_1^2 - \Omega^2$
without it (spurious softening). For this 8 m beam ω1 ≈ 2.9 rad/s < Ω, so the model without
foreshortening loses its bending stiffness and diverges. `flexlib` keeps the term, as the paper does;
`foreshortening=False` exists only for this demonstration.

The runs use the library's prescribed-hub option of model `free`; the free-flight step bound is relaxed to
0.05 s for speed (the default 0.01 s gives the same tip deflection to the digits printed below)."""),
    code("""
spin = dict(L=8.0, E=68.952e9, rho=2766.67, S=7.2968e-5, I=8.2189e-9, g0=0.0, max_step_free=0.05)
hub = fl.spin_up_profile(4.0, 15.0)
stiff = fl.simulate(case, "free", 20.0, hub_motion=hub, **spin)
soft = fl.simulate(case, "free", 20.0, hub_motion=hub, foreshortening=False, **spin)
w1 = fl.BeamModel(case.with_(**{k: v for k, v in spin.items() if k != "max_step_free"}).beam).natural_frequencies()[0]
fig, axs = plt.subplots(2, 1, figsize=(7, 5), constrained_layout=True)
axs[0].plot(stiff.t, stiff.tip_deflection, color="#0072B2", label="with foreshortening (flexlib)")
axs[0].plot(soft.t, soft.tip_deflection, color="#D55E00", ls="--", label="without foreshortening")
axs[0].set_ylim(-1.0, 0.5)
axs[0].set_ylabel(r"tip $u_y(L)$ [m]")
axs[0].legend(fontsize=theme.SMALL)
axs[1].semilogy(stiff.t, np.abs(stiff.tip_deflection) + 1e-12, color="#0072B2")
axs[1].semilogy(soft.t, np.abs(soft.tip_deflection) + 1e-12, color="#D55E00", ls="--")
axs[1].set_ylabel(r"$|u_y(L)|$ [m] (log)")
for ax in axs:
    ax.set_xlabel("time t [s]")
    ax.grid(True, lw=0.3)
fig.suptitle(f"Spin-up to Ω = 4 rad/s, L = 8 m beam (ω1 = {w1:.2f} rad/s)", fontsize=theme.TITLE)
plt.show()"""),
    md("""
With foreshortening the tip lags behind during the spin-up and then oscillates about a small deflection at
constant speed; without it the deflection grows without bound once θ̇ exceeds ω1.

## Key numbers"""),
    checked("""
phiL = fl.bodies.modes.mode_shapes([L], L, 3)[0][0]
print("Phi_i(L), N = 3:", " ".join(f"{v:+.4f}" for v in phiL))
print("clamped frequencies, N = 3 [rad/s]:", " ".join(f"{v:.4g}" for v in w3))
print("pinned-free frequencies, N = 3 [rad/s]:", " ".join(f"{v:.4g}" for v in p3[:2]))
print(f"free fall: theta(0.35 s) = {free.theta[-1]:.4f} rad, "
      f"tip deflection at 0.30 s = {1e3 * free.sample([0.30], 'tip_deflection')[0]:.3g} mm")
print(f"spin-up with foreshortening: max |u_y(L)| = {np.abs(stiff.tip_deflection).max():.3g} m, "
      f"u_y(L) at 20 s = {1e3 * stiff.tip_deflection[-1]:.3g} mm")
print(f"spin-up without foreshortening: |u_y(L)| at 8 s = {abs(soft.sample([8.0], 'tip_deflection')[0]):.3g} m")"""),
    md("""
## The motion

The paper's beam (case 3.2) on its slope, run as a system of one body (`flexlib.cases`, case
`beam-on-slope`, the hybrid Coulomb model of notebook 03) and drawn at 70 times: 45 over the whole
0.75 s and 25 more through the first impact near 0.333 s. The deflection is small beside the beam's
length, so it is drawn magnified by the factor stated above the player (chosen from the run's largest
deflection); the grey half-plane is the slope, and the tip's circle is filled while it touches it.
Press ▶ to play; the player needs no running kernel."""),
    code("""
from flexlib.cases import simulate as simulate_case
from flexlib.viz.animation import animation_html
slope_run = simulate_case("beam-on-slope", "hybrid_coulomb", 0.75)
frames = np.union1d(np.linspace(0.0, 0.75, 45), np.linspace(0.325, 0.36, 25))
animation_html(slope_run, frames, title="Case 3.2, hybrid Coulomb")"""),
    md("""
## Try it

The panel reruns free flight and the frictionless impact of case 3.2 up to 0.35 s for another number of
modes, Young's modulus, density or release angle, and in another basis of the deflection: the paper's
assumed modes, Hermite finite elements (`elements` of them) or the partition (assumed modes away from
the tip, elements on its end region; notebook 12 compares the three and what each costs). The default,
N = 3 modes, reruns in a fraction of a second; 8 elements take about 8 s per model (their free flight
costs 22 s of CPU per simulated second). The plot shows θ, the
tip deformation and the normal force; the readout gives the first-impact key numbers."""),
    code("""
widgets.panel(fields=["n_modes", "E", "rho", "theta0", "basis", "elements"],
              models=["free", "frictionless"], case=case,
              t_end=0.35, results={"free": free},
              plot=lambda res: nbtools.history_figure(res, ("theta", "tip_deflection", "N")))"""),
]

# --------------------------------------------------------------------------- 02
NB02 = [
    md("""
# 02 · The impact: velocity jump and frictionless contact

Notebook 01 built the beam. This one adds **the slope and the impact without friction**: the gap
function, the impulse–momentum velocity jump at impact onset (eqs 39–48), the contact phase held by a
Baumgarte-stabilised constraint (eqs 33–38) and the energy audit that proves the bookkeeping right. The
friction models of notebooks 03–05 reuse all of it."""),
    code(SETUP),
    md(r"""
## Slope geometry ([docs/model.md §6](../docs/model.md#6-contact-kinematics))

The slope is the line through O1 = (X1, 0) with inclination α, tangent t = (cos α, sin α) and outward
normal n = (−sin α, cos α). The tip P (x_P = L, the contact point) has the gap and the tangential position

$$\Psi = n^\mathsf{T}(r_P - r_{O1}),\qquad s = t^\mathsf{T}(r_P - r_{O1}) \qquad (23),(49)$$

(the printed eq 23 drops the slope offset). Their rates are $v_n = \Psi_q\dot q$ and
$v_t = \Gamma_q\dot q$ with the 1×(N+1) Jacobians $\Psi_q = n^\mathsf{T}J_P$, $\Gamma_q = t^\mathsf{T}J_P$
(eqs 26–29, 52–55).

## Impact onset: the velocity jump ([docs/model.md §7](../docs/model.md#7-impact-onset-the-impulsemomentum-jump))

When Ψ reaches 0 with v_n < 0, the impulse I ≥ 0 along $D_n = \Psi_q^\mathsf{T}$ changes the velocities but
not the positions:

$$\begin{pmatrix} M & -D_n\\ D_n^\mathsf{T} & 0\end{pmatrix}\begin{pmatrix}\Delta\dot q\\ I\end{pmatrix}
= \begin{pmatrix}0\\ -(1+e)\,v_n^-\end{pmatrix}\qquad (39)$$

$$I = \frac{-(1+e)\,v_n^-}{D_n^\mathsf{T}M^{-1}D_n}\ (45),\qquad \Delta\dot q = M^{-1}D_n I\ (46),\qquad
\dot q^+ = \dot q^- + \Delta\dot q\ (47),\qquad q^+ = q^-\ (48)$$

**Which coordinates change.** Only velocities, and all of them: θ̇ and every Ḃ_i, in the proportions
$M^{-1}D_n$. The normal tip velocity becomes exactly $v_n^+ = -e\,v_n^-$. The jump is frictionless, yet v_t
changes too (by $\Gamma_q M^{-1}D_n I$).

**Kinetic energy lost:** $\Delta T = -\tfrac12(1-e^2)\,(v_n^-)^2 / (D_n^\mathsf{T}M^{-1}D_n)$; the quantity
$m^* = 1/(D_n^\mathsf{T}M^{-1}D_n)$ is the apparent mass of the tip.

Below, the jump is recomputed with the engine's own code from the state just before the first contact of a
frictionless run of case 3.2: `delassus` gives $M$ and $D_n^\mathsf{T}M^{-1}D_n$ at the state, and Newton's law
at the contact points is the linear complementarity problem of `flexlib.contact.lcp.newton_impact` (for one
point it is eqs 39–48)."""),
    code("""
from flexlib.contact.lcp import newton_impact
from flexlib.layout import O_GAP, O_VN, O_VT
from flexlib.paper import BeamRun

case = fl.paper_case("3.2")
res = fl.simulate(case, "frictionless", 0.75)
t_c = res.jumps[0]["t"]
k = int(np.searchsorted(res.t, t_c, side="left"))          # the sample just before the jump
q_minus = np.concatenate(([res.theta[k]], res.B[k]))
qd_minus = np.concatenate(([res.theta_dot[k]], res.B_dot[k]))
engine = BeamRun(case, "frictionless", 0.75)               # the engine of the run, at its states
beam = engine.beam


def tip(q, qd):
    # (gap, v_n, v_t) of the tip at (q, q'): the engine's outputs
    o = engine.evaluate(t_c, np.concatenate([q, qd, np.zeros(5)]))[1]
    return o[O_GAP], o[O_VN], o[O_VT]


def jump(q, qd, e):
    # the engine's velocity jump at the tip: (dq', impulse I [N s], dT [J])
    M, G, X = engine.engine.delassus(np.concatenate([q, qd, np.zeros(5)]), [0])
    v_n = tip(q, qd)[1]
    imp = newton_impact(G, np.array([v_n]), np.array([e]))
    dqd = X @ imp.Lambda
    return dqd, float(imp.Lambda[0]), 0.5 * (qd + dqd) @ M @ (qd + dqd) - 0.5 * qd @ M @ qd


M, G, _ = engine.engine.delassus(np.concatenate([q_minus, qd_minus, np.zeros(5)]), [0])
gap, v_n, v_t = tip(q_minus, qd_minus)
dqd, impulse, dT = jump(q_minus, qd_minus, 0.0)
_, v_n_after, v_t_after = tip(q_minus, qd_minus + dqd)
m_star = 1.0 / G[0, 0]
names = ["θ' [rad/s]"] + [f"B{i}' [m/s]" for i in range(1, beam.n + 1)]
rows = [dict(c=n, before=a, change=d, after=a + d) for n, a, d in zip(names, qd_minus, dqd)]
rows += [dict(c="v_n [m/s]", before=v_n, change=v_n_after - v_n, after=v_n_after),
         dict(c="v_t [m/s]", before=v_t, change=v_t_after - v_t, after=v_t_after)]
display(Markdown(f"First contact at t = {t_c:.6f} s, gap {gap:.1e} m; impulse I = {impulse:.4f} N·s, "
                 f"apparent tip mass m* = {m_star:.4f} kg, "
                 f"ΔT = {dT:.4f} J (e = 0)\\n\\n" + nbtools.markdown_table(rows, [
                     ("c", "velocity", "s"), ("before", "before the jump", ".5g"),
                     ("change", "jump Δ", ".5g"), ("after", "after the jump", ".5g")])))
display(Markdown(
    f"The tip is stopped in the normal direction (v_n: {v_n:.3f} → {v_n_after:.1e} m/s); the rest of the "
    f"beam keeps moving and bends: θ' changes by {dqd[0]:+.4f} rad/s and the modal rates by "
    f"{', '.join(f'{d:+.3g}' for d in dqd[1:])} m/s. v_t goes from {v_t:.3f} m/s to "
    f"{1e3 * v_t_after:.3f} mm/s because the tip of an axially rigid beam can only move perpendicular "
    f"to the beam to first order ([docs/model.md §4](../docs/model.md#4-beam-kinematics-floating-frame-and-assumed-modes)), "
    f"and that direction is almost the slope normal at contact."))"""),
    md(r"""
## Why e = 0 makes the contact constraint consistent

The contact phase enforces Ψ = 0 at acceleration level with Baumgarte stabilisation,

$$\ddot\Psi + 2\chi\dot\Psi + \beta^2\Psi = 0\ \Rightarrow\ \Psi_q\ddot q = \gamma_n^* = \gamma_n - 2\chi v_n - \beta^2\Psi
\qquad (36),(63)$$

$$N = \frac{\gamma_n^* - \Psi_q M^{-1}Q}{\Psi_q M^{-1}\Psi_q^\mathsf{T}},\qquad M\ddot q = Q + \Psi_q^\mathsf{T}N \qquad (37),(38)$$

(printed eqs 34, 60 have −β², which would make the drift grow exponentially). With **e = 0** the jump leaves Ψ = 0 *and* v_n = Ψ̇ = 0, exactly the
state the constraint Ψ ≡ 0 requires, so the contact phase starts consistent and the Baumgarte terms only
correct round-off drift. With e > 0 the tip leaves the slope at once with v_n⁺ = −e v_n⁻ > 0 (Newton
restitution), so a contact starts as a rebound. That does not rule out a contact phase: the vibrating
beam brings the tip back after shorter and shorter flights, and an approach slower than `v_zeno`
(0.01 m/s) is taken with e = 0 ([docs/model.md §7.3](../docs/model.md#73-restitution-e--0-and-the-zeno-rule)),
after which the tip stays on the slope with a normal force. The paper's case is e = 0. What e = 0.5
does in case 3.2 (frictionless, 0…0.75 s):"""),
    code("""
bouncy = fl.simulate(case, "frictionless", 0.75, e=0.5)
display(Markdown(nbtools.markdown_table(
    [dict(k=k, t=im["t_start"], n=im["episodes"], z=im["zeno_jumps"], N=im["peak_normal_force"],
          dE=im["energy_lost"]) for k, im in enumerate(bouncy.impacts, 1)],
    [("k", "impact", "d"), ("t", "start [s]", ".4f"), ("n", "contact episodes", "d"),
     ("z", "jumps taken with e = 0", "d"), ("N", "peak N [N]", ".4g"), ("dE", "energy lost [J]", ".4f")])))
im1 = bouncy.impacts[0]
display(Markdown(
    f"With e = 0.5 the first impact is a cluster of {im1['episodes']} contact episodes; "
    f"{im1['zeno_jumps']} of its approaches were slower than `v_zeno` and taken with e = 0, and the "
    f"contact phases after them carry a normal force of up to {im1['peak_normal_force']:.0f} N "
    f"(e = 0: {res.impacts[0]['peak_normal_force']:.0f} N). "
    + ("Every later impact here is a pure rebound (N = 0)."
       if all(im["peak_normal_force"] == 0 for im in bouncy.impacts[1:]) else
       "Later impacts have contact phases too.")))"""),
    md("""
## Energy lost in the jump against e"""),
    code("""
es = np.linspace(0.0, 1.0, 21)
losses = np.array([-jump(q_minus, qd_minus, e)[2] for e in es])
fig, ax = plt.subplots(figsize=(6.5, 3.2), constrained_layout=True)
ax.plot(es, losses, "o", ms=4, label="the engine's jump at the first-contact state")
ax.plot(es, 0.5 * (1 - es**2) * v_n**2 * m_star, "k-", lw=0.8, label=r"$\\frac{1}{2}(1-e^2)\\,m^*(v_n^-)^2$")
ax.set_xlabel("coefficient of restitution e [–]")
ax.set_ylabel(r"kinetic energy lost $-\\Delta T$ [J]")
ax.grid(True, lw=0.3)
ax.legend(fontsize=theme.SMALL)
plt.show()"""),
    md(r"""
### The apparent mass depends on the number of modes ([docs/model.md §14](../docs/model.md#14-what-the-model-can-and-cannot-do))

Each cantilever mode adds to $D_n^\mathsf{T}M^{-1}D_n$, so the apparent tip mass, the impulse and the energy
the jump takes all fall as N grows: a point impact on an Euler–Bernoulli beam has no limit in N. The table
uses the rigid contact configuration (B = 0, θ = θ_c) so that only N changes."""),
    code("""
L = case.beam.L
theta_c = case.slope.alpha - np.arcsin(case.slope.X1 * np.sin(case.slope.alpha) / L)   # rigid contact angle
rows = []
for n in range(1, 9):
    run_n = BeamRun(case.with_(n_modes=n), "frictionless", 0.75)
    y = np.zeros(run_n.layout.size); y[0] = theta_c
    ms = 1.0 / run_n.engine.delassus(y, [0])[1][0, 0]
    rows.append(dict(n=n, m=ms, loss=0.5 * ms * v_n**2))
display(Markdown(nbtools.markdown_table(rows, [("n", "modes N", "d"), ("m", "apparent tip mass m* [kg]", ".4f"),
                                               ("loss", "jump loss at v_n⁻ of case 3.2 [J]", ".4f")])))"""),
    md("""
## A frictionless run through two impacts

`res` above ran case 3.2 without friction up to 0.75 s. Grey bands mark the impacts (clusters of contact
episodes, [docs/model.md §12](../docs/model.md#12-impacts-episodes-and-clusters)). During an impact the
tip stays on the slope, or returns to it, while the beam's first mode swings through, and the normal
force oscillates with the higher modes."""),
    code("""
nbtools.history_figure(res, ("theta", "tip_deflection", "N"), title="Frictionless run, case 3.2")
plt.show()
print("impact durations:", ", ".join(f"{1e3 * (im['t_end'] - im['t_start']):.1f} ms" for im in res.impacts))
nbtools.first_impact_figure(res, ("N", "tip_deflection", "v_t"), title="First impact (frictionless)")
plt.show()"""),
    md(r"""
## Energy audit ([docs/model.md §13](../docs/model.md#13-energy-audit))

Mechanical energy changes only through the jumps and the work of the contact forces:
$r(t) = E(t) - [E(0) + \sum_{\text{jumps}}\Delta E_{\text{jump}} + W_N + W_f - W_d + W_\tau]$ must stay at the
integration error. $W_N = \int N v_n\,dt$ would be zero for a perfect constraint; it measures the Baumgarte
drift and must be small compared with the jump losses."""),
    code("""
fig, axs = plt.subplots(2, 1, figsize=(7, 4.8), sharex=True, constrained_layout=True)
axs[0].plot(res.t, res.E, **fl.viz.plots.style("frictionless"))
axs[0].plot(res.t, res.E0 + res.jump_sum, "k:", lw=1, label="E(0) + Σ jump losses")
axs[0].set_ylabel("mechanical energy E [J]")
axs[0].legend(fontsize=theme.SMALL)
axs[1].plot(res.t, res.audit / res.E0, color="0.3", lw=0.8)
axs[1].set_ylabel("audit residual r(t)/E(0) [–]")
axs[1].set_xlabel("time t [s]")
for ax in axs:
    ax.grid(True, lw=0.3)
plt.show()
print(f"max |r|/E(0) = {res.audit_residual_max / res.E0:.1e};  W_N = {res.W_N[-1]:.1e} J against "
      f"Σ jump losses = {res.jump_sum[-1]:.4f} J")"""),
    md("""
## Key numbers"""),
    checked("""
print(f"first contact: t = {nbtools.fmt_time(t_c)}, theta = {res.first_contact['theta']:.4f} rad, "
      f"v_n- = {v_n:.4f} m/s, v_t- = {v_t:.4f} m/s")
print(f"jump (e = 0): I = {impulse:.3g} N s, m* = {m_star:.4f} kg, energy lost {nbtools.fmt_energy(-dT)}")
print(f"jump (e = 0.5): energy lost {nbtools.fmt_energy(losses[10])}")
print(nbtools.key_numbers(res))
print("audit residual below 1e-6 E(0):", res.audit_residual_max < 1e-6 * res.E0)"""),
    md("""
## The whole 2 s run

The impacts of the full run (t = 0…2 s) come from `figures/data/key_numbers.json`, which the figures
command (`python -m flexlib figures`) writes. The later impacts of this bouncing sequence depend on
round-off; notebook 06 measures how much."""),
    code("""
key = nbtools.cached("key_numbers")
if key:
    display(Markdown(nbtools.impact_table(key["runs"]["frictionless"]["impacts"], frictionless=True)))"""),
    md("""
## Try it

Restitution e, slope angle α and slope origin X1 (frictionless, 0…0.75 s). With e > 0 the tip
rebounds; the contact phases that remain follow the approaches slower than `v_zeno` (above)."""),
    code("""
widgets.panel(fields=["e", "alpha", "X1"], models=["frictionless"], case=case, t_end=0.75,
              results={"frictionless": res},
              plot=lambda r: nbtools.run_and_first_impact(r, ("theta", "tip_deflection", "N")))"""),
]

# --------------------------------------------------------------------------- 03-05 shared parts
# Written once, in notebook 03; notebooks 04 and 05 link to it (SIGN_CONVENTION_LINK).
SIGN_CONVENTION = r"""
## Contact forces with friction ([docs/model.md §8](../docs/model.md#8-contact-phase-constraints-baumgarte-stabilisation-and-the-force-solves))

The slope pushes the tip with $N\,n + F_t\,t$, N ≥ 0 in contact, so

$$M\ddot q = Q + \Psi_q^\mathsf{T}N + \Gamma_q^\mathsf{T}F_t .$$

The paper writes $M\ddot q = Q - \Psi_q^\mathsf{T}\lambda_n - \Gamma_q^\mathsf{T}\lambda_\tau$ (eqs 38, 67, 75):
$N = -\lambda_n$, $F_t = -\lambda_\tau$. The plotted friction coefficient is $\mu_{eff} = -F_t/N$ for every model.

**Stick** (hybrid models): both the normal constraint and the tangential constraint $\Gamma = s - s^* = 0$
(anchor s* = s when stick begins) hold with the same Baumgarte form; with $A = [\Psi_q;\Gamma_q]$ and
$a = M^{-1}Q$

$$A M^{-1}A^\mathsf{T}\begin{pmatrix}N\\ F_t\end{pmatrix} = \begin{pmatrix}\gamma_n^*\\ \gamma_\tau^*\end{pmatrix} - A\,a,
\qquad \gamma_\tau^* = \gamma_\tau - 2\chi v_t - \beta^2(s - s^*) \qquad (61),(62),(64)$$

**Slip** and the unified LuGre contact: $F_t = c\,N$ with c known from the current state, so N solves the
*coupled* equation (the paper's decoupled eqs 65–66 and the reuse of eq 37 are exact only if
$\Psi_qM^{-1}\Gamma_q^\mathsf{T} = 0$, which is far from true here):

$$N = \frac{\gamma_n^* - \Psi_q a}{\Psi_q M^{-1}(\Psi_q + c\,\Gamma_q)^\mathsf{T}},\qquad
M\ddot q = Q + (\Psi_q + c\,\Gamma_q)^\mathsf{T}N \qquad (75),(79)$$

**A property of this model (docs/model.md §8.5, §14).** The beam is axially inextensible and hinged, so the tip can
only move perpendicular to the beam to first order: Γ_q ≈ tan(α − θ)·Ψ_q. The stick matrix
$AM^{-1}A^\mathsf{T}$ is then badly conditioned and the stick test asks for a friction ratio |F_t|/N far
above μ. Stick may be unreachable; the runs below report how often the test ran and what it asked for.
"""

SIGN_CONVENTION_LINK = r"""
## Contact forces with friction

The slope pushes the tip with $N\,n + F_t\,t$ ($M\ddot q = Q + \Psi_q^\mathsf{T}N + \Gamma_q^\mathsf{T}F_t$,
N ≥ 0 in contact; the plotted friction coefficient is $\mu_{eff} = -F_t/N$), with the stick solve and the
coupled slip solve of every friction model. The sign convention, both solves and why stick is hard to
reach with this beam are written out in [notebook 03](03-hybrid-coulomb.ipynb) and in
[docs/model.md §8](../docs/model.md#8-contact-phase-constraints-baumgarte-stabilisation-and-the-force-solves).
"""

STATE_MACHINE_HYBRID = r"""
## Switching rules of the hybrid models ([docs/model.md §10](../docs/model.md#10-contact-mode-selection), [§11](../docs/model.md#11-the-state-machine))

| event | active in | condition | action |
|---|---|---|---|
| CONTACT-ON | FREE | Ψ = 0 with v_n < 0 | velocity jump (eqs 39–48), then ONSET |
| ONSET | after the jump | | if \|v_t⁺\| ≤ D_v: mode selection; else SLIP with {onset} (if its N ≤ 0: FREE when FREE is consistent) |
| SEPARATE | STICK, SLIP | N = 0, decreasing | FREE{sep} |
| STICK→SLIP | STICK | \|F_t\| = μ_lim N, increasing | SLIP{stick_slip} |
| STICK-DRIFT | STICK | \|v_t\| > D_v (should not happen) | warning; SLIP |
| SLIP-STOP | SLIP | {slip_stop} (armed once \|v_t\| > D_v) | mode selection |

**Mode selection** (the "trial computation" done completely: the single-contact, acceleration-level
complementarity problem of Pfeiffer & Glocker 1996). Every candidate state is evaluated with its own
equations and kept if it is *consistent*:

| candidate | consistent when |
|---|---|
| FREE | with N = F_t = 0 the gap's acceleration is at least the Baumgarte target −2χv_n − β²Ψ (the contact opens by itself) |
| STICK | the stick solve (62), anchored at s* = s, gives N > 0 and \|F_t\| ≤ μ_lim N |
| SLIP | the slip solve (75) gives N > 0 with a positive Painlevé margin{slip_cond} |

One consistent candidate is the normal case. Several are resolved by the priority FREE, STICK, then
SLIP against the stick trial's friction; none is a Painlevé inconsistency and stops the run. A failed
stick trial with N ≤ 0 does **not** mean the contact opens: with nearly parallel tip Jacobians the
stick solve returns N of either sign while the slope is still being pushed. Here **μ_lim = {mu_lim}**.
"""


def friction_notebook(model, title, intro, equations, fields, checked_extra=""):
    """Cells of notebooks 03-05 (one friction model each)."""
    label = {"hybrid_coulomb": "hybrid Coulomb", "hybrid_lugre": "hybrid LuGre", "lugre": "unified LuGre"}[model]
    stick_cells = [
        md(f"""
## Mode selections and stick trials ([docs/model.md §10](../docs/model.md#10-contact-mode-selection), [§14](../docs/model.md#14-what-the-model-can-and-cannot-do))

What the {label} run chose at each mode selection, and what its stick trials found. The "ratio" is
the |F_t|/N the stick solve (62) would need; stick is consistent only if it is at most μ_lim."""),
        code(f"""
display(Markdown(nbtools.stick_summary(res)))
sel = res.stats["selections"]
print(f"0-0.75 s: {{sel['n_selections']}} mode selections: {{sel['selections_unique']}} with one consistent "
      f"candidate, {{sel['selections_several']}} with several, {{sel['selections_none']}} with none")
from collections import Counter
print("chosen:", dict(Counter(s["chosen"] for s in res.selections)))
key = nbtools.cached("key_numbers")
if key:
    rows = key["runs"]["{model}"]["impacts"]
    asked = [r["max_stick_ratio"] for r in rows if r["max_stick_ratio"] is not None]
    print(f"whole 0-2 s run: {{sum(r['n_stick_tests'] for r in rows)}} stick tests, "
          f"{{sum(r['n_stick'] for r in rows)}} stick intervals, largest ratio asked "
          f"{{fl.text.num(max(asked) if asked else None)}}")"""),
    ]
    if model == "lugre":
        stick_cells = [
            md(r"""
## Stick tests and stick-like intervals

The unified model has no stick test and no stick state (by construction the count is 0). Stick-like
behaviour can only come from the bristle state z: samples where |v_t| ≤ D_v. Claim C24 asks that |μ_eff|
stays within μ_s there (up to the σ1 ż transient)."""),
            code("""
display(Markdown(nbtools.stick_summary(res)))
contact = res.mode > 0
slow = contact & (np.abs(res.v_t) <= res.case.coulomb.Dv)
print(f"contact samples: {contact.sum()}, with |v_t| <= Dv: {slow.sum()} "
      f"({fl.text.percent(100 * slow.sum() / max(contact.sum(), 1))})")
if slow.any():
    print(f"max |mu_eff| there: {np.nanmax(np.abs(res.mu_eff[slow])):.3g} (mu_s = {res.case.coulomb.mu_s})")"""),
        ]
    return [
        md(f"# {title}\n\n{intro.strip()}"),
        code(SETUP),
        md(SIGN_CONVENTION if model == "hybrid_coulomb" else SIGN_CONVENTION_LINK),
        md(equations),
        md(f"""
## A short run of case 3.2 (0…0.75 s, two impacts)

The {label} model on the paper's case 3.2, with the frictionless run as a grey reference. Grey bands mark
the impacts; in the first-impact zoom, stick intervals (if any) would be shaded in the model's colour."""),
        code(f"""
case = fl.paper_case("3.2")
res = fl.simulate(case, "{model}", 0.75)
ref = fl.simulate(case, "frictionless", 0.75)
nbtools.history_figure({{"{model}": res, "frictionless": ref}}, ("theta", "tip_deflection", "N", "F_t"),
                       title="{label}, case 3.2")
plt.show()"""),
        code(f"""
nbtools.first_impact_figure(res, ("N", "F_t", "v_t", "mu_eff", "s"{', "z"' if 'lugre' in model else ''}),
                            title="{label}: first impact")
plt.show()"""),
        *stick_cells,
        md("## Key numbers"),
        checked(f"""
print(nbtools.key_numbers(res))
valid = [s for s in res.stick_tests if s["N"] > 0]
print(f"stick tests with N > 0: {{len(valid)}}, passed: {{sum(s['ratio'] <= s['mu_lim'] for s in valid)}}, "
      f"largest ratio asked: {{fl.text.num(max([s['ratio'] for s in valid], default=None))}}")
fc = res.impacts[0]
print(f"impact 1: friction work {{nbtools.fmt_energy(fc['friction_work'])}}, "
      f"jump loss {{nbtools.fmt_energy(-fc['jump_loss'])}}"){checked_extra}"""),
        md("""
## The whole 2 s run

From the cached `figures/data/key_numbers.json` (`python -m flexlib figures`): one row per impact. A run
that stopped early says why below the table."""),
        code(f"""
key = nbtools.cached("key_numbers")
if key:
    run = key["runs"]["{model}"]
    display(Markdown(nbtools.impact_table(run["impacts"])))
    print("run status:", run["message"])"""),
        md(f"""
## Try it

The {label} model's own parameters (case 3.2): the run over 0…0.75 s on the left, its first impact
on the right. μ_s stays at or above μ_d: moving one past the other moves both. A run the model cannot
continue (a Painlevé singularity in slip, docs/model.md §8.5) is reported in the panel's status line;
the last good plot stays."""),
        code(f"""
widgets.panel(fields={fields!r}, models=["{model}"], case=case, t_end=0.75, results={{"{model}": res}},
              plot=lambda r: nbtools.run_and_first_impact(r, ("N", "F_t", "mu_eff")))"""),
    ]


NB03 = friction_notebook(
    "hybrid_coulomb", "03 · Hybrid Coulomb model",
    """
Notebooks 01–02 built the beam, the impact and the frictionless contact. This one adds **friction with
Coulomb's law in a hybrid stick/slip model**: in slip, F_t = −sgn(v_t) μ_d N; in stick, a tangential
constraint gives F_t, and the stick/slip switches follow the state machine of [docs/model.md §11](../docs/model.md#11-the-state-machine). It is the
paper's first friction model and the one of case 3.1.""",
    r"""
## Coulomb friction ([docs/model.md §9](../docs/model.md#9-friction-laws))

$$F_t = -\operatorname{dir}\,\mu_d N \quad\text{in slip (eq 69)},\qquad |F_t| \le \mu_d N \quad\text{in stick}$$

During a slip phase the direction dir = sgn(v_t) is frozen until the SLIP-STOP event (v_t crosses 0), which
makes the slip equations smooth. The stick limit of hybrid Coulomb is μ_lim = μ_d (the paper equates μ with μ_d in the Coulomb model).
""" + STATE_MACHINE_HYBRID.format(
        onset="dir = sgn(v_t⁺)", sep="", stick_slip=": dir = −sgn(F_t)",
        slip_stop="dir·v_t decreasing through 0",
        slip_cond=", and the tip accelerates the way it slides, dir·a_t ≥ 0 (both directions dir = ±1 are candidates)",
        mu_lim="μ_d = 0.4"),
    ["mu_d", "Dv"])

NB04 = friction_notebook(
    "hybrid_lugre", "04 · Hybrid LuGre model",
    """
Notebook 03 used Coulomb's law in slip. The **hybrid LuGre** model keeps the same stick constraint and
switching, but in slip the friction coefficient comes from the LuGre bristle model: it has a Stribeck
curve between μ_s and μ_d and a pre-sliding memory z. The stick limit becomes μ_s.""",
    r"""
## LuGre friction in coefficient form ([docs/model.md §9](../docs/model.md#9-friction-laws), eq 68)

$$\mu = \sigma_0 z + \sigma_1\dot z + \sigma_2 v_t,\qquad
\dot z = v_t - \frac{\sigma_0|v_t|}{g(v_t)}\,z,\qquad g(v) = \mu_d + (\mu_s - \mu_d)\,e^{-(v/v_s)^2},\qquad F_t = -\mu N$$

(printed "u" for μ; σ0 in 1/m and σ1, σ2 in s/m because μ is dimensionless). Steady sliding
gives μ = sgn(v)·g(v) + σ2 v, the Stribeck curve from μ_s down to μ_d. With z = 0 at slip onset μ starts at
σ1 v_t, which can exceed μ_s briefly.

**The bristle state z:** 0 in free flight; reset to 0 when slip starts at impact onset; integrated in
slip; dropped during stick; set to −F_t/(N σ0) at STICK→SLIP so that μ is continuous; unchanged after a
failed stick test; reset to 0 at separation.
""" + STATE_MACHINE_HYBRID.format(
        onset="z = 0", sep="; z = 0", stick_slip=": z = μ_stick/σ0",
        slip_stop="v_t crosses 0 (either direction)",
        slip_cond=" (one candidate: the LuGre force follows from z, which keeps its value)",
        mu_lim="μ_s = 0.5"),
    ["mu_d", "mu_s", "sigma0", "sigma1", "sigma2", "v_s", "Dv"])

NB05 = friction_notebook(
    "lugre", "05 · Unified LuGre model",
    """
Notebooks 03–04 switch between stick and slip. The **unified LuGre** model has no stick state at all:
during the whole contact F_t = −μ_LuGre N, with z integrated from 0 at each contact onset. Stick-like
behaviour has to come from the bristles. The paper's conclusion is that this model and the hybrid LuGre
model give the same results (claim C1); this notebook compares them on the first two impacts.""",
    r"""
## The unified model ([docs/model.md §9](../docs/model.md#9-friction-laws))

$$M\ddot q = Q - \Psi_q^\mathsf{T}\lambda_n - \Gamma_q^\mathsf{T}\lambda'_\tau,\qquad \lambda'_\tau = -\mu\lambda_n
\qquad (79)$$

with μ from eq (68) (see notebook 04) and N from the coupled slip solve (75) with c = −μ. Its only events
are CONTACT-ON (jump, then z = 0; N ≤ 0 → FREE: with a positive Painlevé margin, N ≤ 0 means exactly
that the contact opens by itself) and SEPARATE (z = 0).

**Painlevé risk (docs/model.md §8.5).** The denominator of the slip solve is ≈ $\Psi_qM^{-1}\Psi_q^\mathsf{T}(1 + c\,k)$ with
k = tan(α − θ) ≈ 0.157. Right after onset μ ≈ σ1 v_t, so a tip sliding up-slope faster than about 6 cm/s
would make it vanish: no contact force would exist. `flexlib` stops such a run with a message instead of
clipping it, and reports the smallest margin 1 + c S12/S11 per impact.
""",
    ["mu_d", "mu_s", "sigma0", "sigma1", "sigma2", "v_s"],
    checked_extra="""
print(f"impact 1: smallest Painleve margin {fc['min_painleve_margin']:.3g}")
print("unified vs hybrid LuGre, up to impact 2: identical =", same_before)
print(f"unified vs hybrid LuGre, after impact 2: theta {fl.text.num(100 * after['theta'], 2, '%', zero=1e-3)}, "
      f"theta' {fl.text.num(100 * after['theta_dot'], 2, '%', zero=1e-3)} of range (to 0.001 %)")""")

# notebook 05 also runs the hybrid LuGre model for the comparison (claim C1)
NB05.insert(7, code("""
from flexlib.studies.claims import rel_diff

hyb = fl.simulate(case, "hybrid_lugre", 0.75)
nbtools.history_figure({"lugre": res, "hybrid_lugre": hyb}, ("theta_dot", "N", "F_t"),
                       title="Unified vs hybrid LuGre")
plt.show()
i1, i2 = res.impacts[0], res.impacts[1]
quantities = ("theta", "theta_dot", "tip_deflection", "N", "F_t", "E")
before = {q: rel_diff(res, hyb, q, 0.0, i2["t_start"] - 1e-3) for q in quantities}
after = {q: rel_diff(res, hyb, q, i2["t_end"] + 1e-3, 0.75) for q in quantities[:3]}
same_before = all(v == 0.0 for v in before.values())
print("max |unified - hybrid| / range, from release to just before impact 2:",
      ", ".join(f"{q} {fl.text.num(v, 2)}" for q, v in before.items()))
print("the same after impact 2:", ", ".join(f"{q} {fl.text.percent(100 * v)}" for q, v in after.items()))
for k, (a, b) in enumerate(zip(res.impacts, hyb.impacts), 1):
    print(f"impact {k}: episodes {a['episodes']} vs {b['episodes']}, peak N {a['peak_normal_force']:.2f} vs "
          f"{b['peak_normal_force']:.2f} N, energy lost {a['energy_lost']:.5f} vs {b['energy_lost']:.5f} J")"""))
NB05.insert(7, md("""
### Unified against hybrid LuGre (claim C1)

The hybrid model never enters stick in these impacts (notebook 04): every mode selection finds slip the
only consistent state, and in slip z keeps its value, so both models integrate the same equations. Up to
the second impact the two runs are identical to the last bit. In the second impact the hybrid model stops
at each v_t = 0 crossing for a mode selection, which restarts the integration with slip again: the
contacts, separations and micro-impacts happen at the same instants as in the unified run, and the states
agree to round-off at first. Over the whole 2 s these round-off differences grow (the later, small
bounces of a beam settling on the slope are sensitive to them), so pointwise comparisons late in the run
say little about the friction models; impact by impact the two agree to several digits (notebook 06)."""))

# --------------------------------------------------------------------------- 06
FIGURE_PAIRS = [("fig04_theta", "fig05_theta_dot"), ("fig06_tip_deflection", "fig07_tipY"),
                ("fig08_tipYdot", "fig09_normal_force"), ("fig10_friction_force", "fig11_energy"),
                ("fig12_tangential_displacement", "fig13_tangential_velocity"),
                ("fig14_friction_coefficient", None), ("fig02_theta_caseA", "fig03_tipY_caseA")]


def _img_row(a, b):
    imgs = [f'<img src="../figures/{n}.png" width="49%" alt="{n}">' for n in (a, b) if n]
    return "<p>" + " ".join(imgs) + "</p>"


NB06 = [
    md("""
# 06 · The three friction models against the paper

Notebooks 02–05 introduced the impact and each friction model on the first two impacts. This one puts
**the whole 2 s runs side by side**: the paper's Figs 4–14 (regenerated by `python -m flexlib figures`),
the paper's qualitative claims checked on our runs, and three studies that say how far the numbers can be
trusted: the number of modes and the integration tolerance."""),
    code(SETUP),
    md("""
## Where our results differ from the paper

The claims table below is generated from our runs; the main differences, and why:

* **Stick never happens.** Whenever a hybrid model tries to stick, the stick solve asks for a friction
  ratio |F_t|/N of about 6 or more, far above μ_d = 0.4 or μ_s = 0.5 (notebooks 03–04). The tangential
  constraint is nearly redundant with the hinge for an axially rigid beam ([docs/model.md §14](../docs/model.md#14-what-the-model-can-and-cannot-do)). The
  paper's stick intervals (Fig 12) and its stick-based explanations (C16, C20) are not reproduced.
* **Therefore the hybrid and unified LuGre models integrate the same slip equations.** They are identical
  through the first impact and agree impact by impact to several digits in energy lost and peak force
  (notebook 05). Every mode selection of the hybrid models had exactly one consistent candidate: slip,
  never stick, and for Coulomb always in the direction opposite to the stick trial's friction. Late in
  the run the hybrid model's slip stops, which restart the integration, move its velocity jumps by
  round-off that grows while the beam settles with many small bounces. Two runs whose jumps are a
  little apart differ, at that instant, by the whole jump; the claims table therefore compares
  histories away from the jumps and reports how far apart the jumps are as a timing difference (C1).
* **The velocity jump dominates the energy loss** (numbers below the table of runs). Friction matters
  through the rebound it changes, so Coulomb and LuGre drift apart from the second impact on, in part not
  in the pattern the paper describes: the claims that do not hold are listed under the table.
* **Late impacts depend on round-off.** A bouncing sequence amplifies differences in the last bits:
  the number of impacts in 0–2 s can change when the release angle changes by 1e-15. The table of runs
  gives each count with its spread over such runs; a count that spreads is not a result.
* **The number of modes matters** ([docs/model.md §14](../docs/model.md#14-what-the-model-can-and-cannot-do)): the apparent tip mass of the point impact falls as N
  grows, so impact-by-impact numbers depend on N; the paper does not state its N (we use N = 3)."""),
    code("""
key = nbtools.cached("key_numbers")
claims = nbtools.cached("claims")
case = fl.paper_case("3.2")
RUN_LABEL = {m: spec.label for m, spec in fl.models.REGISTRY.items()}
RUN_LABEL["caseA_hybrid_coulomb"] = "hybrid Coulomb, case 3.1"
if key:
    rows = []
    for m, r in key["runs"].items():
        spread = None
        if m in fl.models.REGISTRY:         # the case 3.2 runs, rerun with θ0 changed by round-off
            spread = nbtools.spread_text(nbtools.roundoff_spread(fl.simulate(case, m, 2.0)))
        rows.append(dict(model=RUN_LABEL.get(m, m), ok="yes" if r["success"] else "no", msg=r["message"],
                         n=len(r["impacts"]), spread=spread, E=r["final_E"], audit=r["audit_rel"]))
    display(Markdown(nbtools.markdown_table(rows, [
        ("model", "run", "s"), ("ok", "reached 2 s", "s"), ("n", "impacts", "d"),
        ("spread", "impacts, rerun now", "s"), ("E", "final E [J]", ".4f"),
        ("audit", "max audit / E(0)", ".1e"), ("msg", "status", "s")])))
    first = key["runs"]["hybrid_coulomb"]["impacts"][0]
    display(Markdown(
        f"**Energy in the first impact** (hybrid Coulomb): the velocity jump takes "
        f"{abs(first['jump_loss']):.3f} J of the {first['energy_lost']:.3f} J lost, friction "
        f"{abs(first['friction_work']):.4f} J ({100 * abs(first['friction_work'] / first['jump_loss']):.1f} % "
        f"of the jump's)."))
if claims:
    pair = {c["id"]: c for c in claims if c["id"] in ("C1", "C18")}
    display(Markdown("**The claims that compare the LuGre pair:** " + "; ".join(
        f"{cid} ({c['text'].rstrip('.')}): **{c['verdict']}**" for cid, c in pair.items()) + "."))"""),
    md("## Figures 4–14 (case 3.2) and 2–3 (case 3.1)\n\n"
       "Colours and line styles are the same in every figure: hybrid Coulomb blue solid, hybrid LuGre "
       "vermilion dashed, unified LuGre green dotted, frictionless grey dash-dot. Grey bands are impacts.\n\n"
       + "\n".join(_img_row(a, b) for a, b in FIGURE_PAIRS)),
    md("""
## The paper's claims checked on our runs

The table is made by `flexlib.studies.claims.claims_table`, the same function that writes
[`figures/claims.md`](../figures/claims.md). Thresholds chosen by `flexlib.studies.claims`: "coincide" ≤ 1 % of
the quantity's range, "basically the same" ≤ 5 %, "clearly different" > 10 %. Impacts are clusters of
contact episodes ([docs/model.md §12](../docs/model.md#12-impacts-episodes-and-clusters)). A verdict is
"robust" when it stays the same with tolerances 10× tighter and with N = 4 modes."""),
    code("""
from IPython.display import HTML
from flexlib.studies.claims import MEASUREMENT_NOTE, claims_summary, claims_table

claims = nbtools.cached("claims")
if claims:
    display(Markdown(MEASUREMENT_NOTE))
    print(claims_summary(claims))
    display(HTML(claims_table(claims, "html")))"""),
    md("""
## Convergence in the number of modes (N = 2…6)

Start time, peak normal force and energy lost in the first two impacts, and the mechanical energy at the
end of the run, for each model and N (`figures/data/mode_study.json`)."""),
    code("""
modes = nbtools.cached("mode_study")
if modes:
    for m, per_n in modes.items():
        rows = []
        for n, d in per_n.items():
            row = dict(N=int(n), E=d["final_E"], ok="yes" if d["message"] == "ok" else "stopped")
            for k, im in enumerate(d["impacts"][:2], 1):
                row.update({f"t{k}": im["t_start"], f"N{k}": im["peak_N"], f"L{k}": im["energy_lost"]})
            rows.append(row)
        display(Markdown(f"**{m}**\\n\\n" + nbtools.markdown_table(rows, [
            ("N", "modes", "d"), ("t1", "impact 1 start [s]", ".4f"), ("N1", "peak N [N]", ".3g"),
            ("L1", "lost [J]", ".4f"), ("t2", "impact 2 start [s]", ".4f"), ("N2", "peak N [N]", ".3g"),
            ("L2", "lost [J]", ".4f"), ("E", "final E [J]", ".4f"), ("ok", "reached 2 s", "s")])))"""),
    md("""
## Tolerance study

Every model rerun with rtol and atol 10× tighter; the table gives the largest change of the first
three impacts' start times and peak normal forces. (The paper's printed, decoupled multiplier formulas,
eqs 37, 65, 66, let friction pull the tip off the constraint: in an earlier study hybrid Coulomb stopped
in its first impact with the tip 0.30 mm off the slope, and the LuGre models ran to 2 s with it up to
0.44 mm off. flexlib solves the normal and tangential rows together, as eqs 62 and 75 require, and offers
no other choice: [docs/model.md §8](../docs/model.md#8-contact-phase-constraints-baumgarte-stabilisation-and-the-force-solves).)"""),
    code("""
tol = nbtools.cached("tolerance_study")
if tol:
    display(Markdown(nbtools.markdown_table(
        [dict(model=m, dt=r["max_dt_start"], dn=r["max_rel_dpeakN"]) for m, r in tol.items()],
        [("model", "model", "s"), ("dt", "max change of impact start [s]", ".1e"),
         ("dn", "max relative change of peak N", ".1e")])))"""),
    md("""
## The three models live (0…0.75 s)

Short runs of the three paper models through two impacts, the first impact zoomed on the right."""),
    code("""
live = {m: fl.simulate(case, m, 0.75) for m in ("hybrid_coulomb", "hybrid_lugre", "lugre")}
nbtools.run_and_first_impact(live, ("theta", "N", "F_t"), title="Three friction models, case 3.2")
plt.show()
display(Markdown("Energy lost per impact: " + "; ".join(
    f"{fl.models.get(m).label} " + ", ".join(f"{im['energy_lost']:.4f} J" for im in r.impacts)
    for m, r in live.items()) + "."))"""),
    checked("""
for m, r in live.items():
    print(nbtools.key_numbers(r))"""),
    md("""
## Try it

All three models with the kinetic and static friction coefficients μ_d and μ_s (μ_s stays at or above
μ_d: moving one past the other moves both, and the status line says so); the run on the left, the
first impact on the right."""),
    code("""
widgets.panel(fields=["mu_d", "mu_s"], models=list(live), case=case, t_end=0.75, results=live,
              plot=lambda r: nbtools.run_and_first_impact(r, ("theta", "N", "F_t")))"""),
]

NOTEBOOKS = {"01-modeling": NB01, "02-impulse-jump": NB02, "03-hybrid-coulomb": NB03,
             "04-hybrid-lugre": NB04, "05-unified-lugre": NB05, "06-comparison": NB06}


def write_notebook(cells, path):
    """Write ``cells`` as a validated notebook at ``path`` (the builders' one notebook format)."""
    nb = new_notebook(cells=cells, metadata={"kernelspec": KERNELSPEC, "language_info": {"name": "python"}})
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return path


def build(names=None):
    OUT.mkdir(exist_ok=True)
    for name, cells in NOTEBOOKS.items():
        if names and name not in names:
            continue
        n_checked = sum(CHECK_TAG in c.metadata.get("tags", []) for c in cells)
        assert n_checked == 1, f"{name}: {n_checked} checked cells"
        write_notebook(cells, OUT / f"{name}.ipynb")
        print(f"wrote notebooks/{name}.ipynb ({len(cells)} cells)")


if __name__ == "__main__":
    build(sys.argv[1:] or None)
