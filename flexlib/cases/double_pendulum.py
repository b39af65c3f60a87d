"""Case ``double-pendulum``: a flexible double pendulum whose upper link strikes a rigid stop.

After Sheng, Liu and Yu's elastic impact of a flexible double pendulum (Hertz contact, condensed
coordinates): two links hinged at O and at the first link's tip fall from the horizontal under
gravity; when the upper link reaches the vertical, its point B strikes a rigid stop, the half-plane
X <= 0 (n = (1, 0)).  The numbers are ours, not the source's: the links have the paper's section
and material (aluminium, r = 0.01 m), L1 = 1 m, L2 = 0.5 m, B at 0.8 L1; the Hertz stiffness is
K = (4/3) sqrt(R) E* of a sphere of the link's radius R on a steel stop (Johnson, *Contact
Mechanics*), K = 7.69e9 N/m^1.5.  The default model is the continuous Hertz contact without
friction; the constraint models (``frictionless`` with a restitution ``e``, ``hybrid_coulomb``, ...)
are options.

**The default basis and what it resolves.**  The default is the assumed modes, N = 3 per link
(0-1.5 s in about 2 s).  It gets the swing and the instant B meets the stop (0.6069 s, within a
microsecond of the converged runs) but not the contact: the first contact burst is a train of
short episodes whose first one depends on how the links' higher modes are represented.  Against
the outside code's converged burst (Exudyn, 64 ANCF elements per metre, 1 us: 10 episodes,
4.434 N s; first episode 0.386 ms, 0.9556 N s, 6971 N; docs/findings.md), the first episode of
flexlib's runs over 0-0.62 s (benchmarks/results/accuracy_double_pendulum.csv):

* N = 3 (default): 2 episodes; first episode's impulse +100 %, peak force +195 %;
* N = 5: +11 % and +108 %;
* 8 elements per link: +1.1 % and +25 %;
* 12 elements per link: +4.6 % and +11 %, the only setting of the study within 5 % in impulse and
  15 % in peak force (594 s of CPU before the finite-element bases' element route; flexlib's own
  refinement still moves its peak force by 12 %, so 15 % is the resolution of this comparison);
* the partition, N = 3 with 5 cm elements on the links' last 0.2, 0.3, 0.4 m (where B is):
  impulse +37 %, +21 %, -6.9 % and peak force +40 %, -0.6 %, -0.4 % at 71, 118, 263 s of CPU
  (its fine end region sets the step); reduced to 2 fixed-interface modes (9 s) +4.8 % and
  +100 %, its first episode 0.13 ms against 0.386 ms, as short as the assumed modes'.

flexlib's own mesh study over 0-0.65 s (tests/data/converged_references.json, Radau at rtol
1e-4, atol 1e-5) converges: from 128 to 256 elements per link the burst moves by at most 0.015 %
(13 episodes, 4.4566 N s; first episode 0.378 ms, 0.99896 N s, 6971 N) and the links' motion at
0.65 s by at most 0.09 %.  Against it the first episode at 16 elements per link is -0.6 % in
impulse and +2.4 % in peak force (14 s), at 32 -0.1 % and +1.1 % (24 s), at 8 -3.3 % and +25 %.

The default stays the cheap one, so that notebook 10's panel answers within a second; a study of
the burst needs ``basis="fe", elements=12`` or more, and no setting of the aim's cost (1.5 times
case 3.2's two-second run) resolves it.  The implicit integrator makes the fine meshes affordable:
``method="Radau", rtol=1e-3, atol=1e-6`` gives the burst of the default tolerance (to 0.006 %)
over 0-0.65 s in 11 s with 16 elements per link, 21 s with 32 and 40 s with 64, against 133 s and
51 min with DOP853 at 16 and 32 (its numerical dissipation, 4-5 mJ, fails the energy audit's
bound; benchmarks/README.md, "The implicit integrator").

What the study's choice would cost as the default, measured (2026-12-07, 2-core machine with
another job on it): 12 elements per link (first episode +0.04 % in impulse, +11 % in peak force
against the converged reference) with Radau at rtol 1e-3, atol 1e-6 runs 0-1.5 s in 33 s but
damps 2.4 mJ over 0-0.65 s alone (the audit's bound is 9.5 uJ); of rtol 1e-3, 1e-4 and 1e-5
only 1e-5 closes the books over 0-0.65 s (5.1 uJ, 17 s, 79 222 steps), and over 0-1.5 s, with the
later bursts (20 episodes), it takes 152 s and 640 171 steps and damps 0.19 mJ, so even that
run fails the audit.  The generalized-alpha step (``method="gen-alpha"``) holds the same local
errors with a second-order method and needs far more steps for them (16 elements per link,
0-0.65 s at rtol 1e-3: 280 589 against Radau's 22 305, the settings study below), and damps
more.  A default within 5 % and 15 % that closes the energy books therefore costs minutes,
not the second of the aim: what would close it is a step whose cost does not grow with the
mesh's stiffness and that keeps the energy (benchmarks/README.md, "The targets" of "The implicit
integrator").

**The settings study** (notebook 12; ``benchmarks/bench_resolution.py``, stored in
benchmarks/results/accuracy_resolution.json: 0-0.65 s, CPU time of a warm run, errors against
the 256-element reference) measures the same: the default is off by 91 % in the impulses (the
larger error of the burst's and the first episode's) and 200 % in the first episode's peak
force, at 0.34 s; the cheapest setting within 5 % and 15 % that stays there on every refinement
is ``basis="fe", elements=16, method="Radau", rtol=1e-3`` with ``atol=1e-6`` (0.76 % and
2.4 %, 10 s for the 0.65 s, about twelve times the aim of 0.89 s for less than half of the
case's 1.5 s, and its steps take 3.6 mJ of the 9.45 J); the generalized-alpha step at the same
mesh and rtol (with the default atol, 1e-10) takes 66 s.  No setting of the study is within 1 %
in the links' motion at 0.65 s (64 elements per link with Radau: 1.5 %, set by the upper link's
mean angular velocity, about 1 rad/s after the stop).
"""
from __future__ import annotations

import math

from ..params import BeamParams, CoulombParams, LuGreParams
from ..multibody.models import laws_for
from ..multibody.system import Body, ContactPoint, GroundHinge, HalfPlane, Hinge, System
from . import Option

NAME = "double-pendulum"
DEFAULT_MODEL = "continuous"
T_END = 1.5
BODIES = ("B1", "B2")
# shared parameters this case has no use for (the links' lengths and angles are its own options;
# there is no slope): the command line refuses them
UNUSED_PARAMS = ("L", "theta0", "X1", "alpha")


def hertz_stiffness(R=0.01, E0=206e9, nu0=0.3, E1=68.952e9, nu1=0.33):
    """K = (4/3) sqrt(R) E*, 1/E* = (1 - nu0^2)/E0 + (1 - nu1^2)/E1 [N/m^1.5]."""
    return 4.0 / 3.0 * math.sqrt(R) / ((1.0 - nu0 ** 2) / E0 + (1.0 - nu1 ** 2) / E1)


OPTIONS = {
    "L1": Option(1.0, 0.05, 10.0, "m", "length of the upper link OD"),
    "L2": Option(0.5, 0.05, 10.0, "m", "length of the lower link"),
    "contact_at": Option(0.8, 0.0, 1.0, "", "point B on the upper link, as a fraction of L1"),
    "theta1": Option(0.0, -math.pi, math.pi, "rad", "initial angle of the upper link from +X"),
    "theta2": Option(0.0, -math.pi, math.pi, "rad", "initial angle of the lower link from +X"),
    "contact_stiffness": Option(hertz_stiffness(), 1e3, 1e13, "N/m^1.5",
                                "Hertz stiffness K of the stop (default: sphere R = 0.01 m on "
                                "steel)"),
    "contact_exponent": Option(1.5, 1.0, 3.0, "", "exponent n of N = K delta^n"),
}


def system(model: str = DEFAULT_MODEL, *, beam: BeamParams | None = None, e: float = 0.0,
           coulomb: CoulombParams | None = None, lugre: LuGreParams | None = None,
           L1=1.0, L2=0.5, contact_at=0.8, theta1=0.0, theta2=0.0,
           contact_stiffness=None, contact_exponent=1.5, contact_damping=0.0, contact_law="hertz",
           v_zeno=1e-2, chi=10.0, beta=1000.0):
    """The double pendulum as a :class:`~flexlib.multibody.system.System` with ``model``'s laws at B.
    ``beam`` gives both links' section, material and basis (its ``L`` is replaced by L1, L2)."""
    beam = beam or BeamParams()
    K = hertz_stiffness() if contact_stiffness is None else contact_stiffness
    b1 = Body("B1", beam.replace(L=L1), GroundHinge((0.0, 0.0)), theta0=theta1)
    b2 = Body("B2", beam.replace(L=L2), Hinge("B1", x=L1), theta0=theta2)
    laws = laws_for(model, e=e, contact_law=contact_law, contact_stiffness=K,
                    contact_exponent=contact_exponent, contact_damping=contact_damping,
                    v_zeno=v_zeno, coulomb=coulomb, lugre=lugre)
    contacts = () if laws is None else (
        ContactPoint("B", "B1", contact_at * L1, "stop", laws),)
    return System(bodies=(b1, b2), obstacles=(HalfPlane("stop", (0.0, 0.0), (1.0, 0.0)),),
                  contacts=contacts, chi=chi, beta=beta)
