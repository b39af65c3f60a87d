"""Contact-mode selection of the hybrid models: which state follows an impact or a slip stop.

When the tangential tip velocity is (nearly) zero -- right after a velocity jump with
|v_t| <= Dv, and at a slip stop (v_t crossing 0) -- the state that follows is not given by the
motion.  It is the solution of the single-contact, acceleration-level complementarity problem of
Pfeiffer & Glocker (1996, *Multibody Dynamics with Unilateral Contacts*):

* normal: N >= 0, a_n >= 0 and N a_n = 0;
* tangential: either a_t = 0 with |F_t| <= mu_lim N (stick), or F_t = -dir mu N with
  dir a_t >= 0 (slip in the direction dir, and the motion does slide that way).

Here a_n and a_t are the normal and tangential accelerations of the tip relative to the slope;
with Baumgarte stabilisation (eqs (36), (63)) "a_n = 0" stands for the target
a_n* = -2 chi v_n - beta^2 Psi.  Every candidate state is evaluated with its own equations
(the same force solves as the phase it would start, eqs (37), (62), (75)) and kept if it is
**consistent**:

=================  ==========================================================================
candidate          consistent when
=================  ==========================================================================
FREE               with N = F_t = 0 the gap's acceleration a_n = Psi_q q'' - gamma_n is
                   >= a_n* (the contact opens by itself)
STICK              the coupled stick solve gives N > 0 and |F_t| <= mu_lim N
SLIP, dir = +-1    N > 0, the slip solve's Painleve margin above its threshold, and
(hybrid Coulomb)   dir a_t >= 0 with a_t = Gamma_q q'' - gamma_t in that slip state
SLIP (hybrid       N > 0 and the Painleve margin above its threshold (one candidate: the LuGre
LuGre)             force follows from the bristle state z, which keeps its value)
=================  ==========================================================================

Exactly one consistent candidate is the normal case.  Several (non-uniqueness) are resolved by
the priority FREE, then STICK, then SLIP with dir = -sgn(F_t of the stick trial); none is a
Painleve-type inconsistency (a tangential impact would be needed, Genot & Brogliato 1999) and
the simulator stops.  A failed stick trial with N <= 0 does *not* mean the contact opens: with
the nearly parallel tip Jacobians of this beam the stick solve returns N of either sign while the
slope is still being pushed, and only the FREE candidate's own test says whether it opens.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..layout import FREE, SLIP, STICK, DiscreteState

__all__ = ["Candidate", "Selection", "select_mode", "free_candidate", "PRIORITY"]

# The candidates' names in the order of preference among several consistent ones
# (the SLIP candidates are ordered at run time by -sgn(F_t^stick)).
PRIORITY = ("FREE", "STICK", "SLIP")


@dataclass
class Candidate:
    """One candidate state and its consistency test.

    ``test`` is the quantity whose sign decides consistency, positive when consistent:
    a_n - a_n* [m/s^2] for FREE, mu_lim N - |F_t| [N] for STICK (if N > 0), dir a_t [m/s^2] for a
    Coulomb SLIP (if N > 0 and the margin is fine), N [N] for the LuGre SLIP.  ``N``, ``F_t``
    [N] are the candidate's contact forces, ``margin`` its Painleve margin
    1 + c S12/S11 (slip), ``cond`` cond(S) (stick)."""
    name: str
    mode: int
    dir: float = 0.0
    consistent: bool = False
    N: float = 0.0
    F_t: float = 0.0
    a_n: float = math.nan
    a_t: float = math.nan
    margin: float = math.nan
    cond: float = math.nan
    test: float = math.nan

    def describe(self) -> str:
        ok = "consistent" if self.consistent else "inconsistent"
        if self.name == "FREE":
            return f"FREE {ok} (a_n - a_n* = {self.test:.4g} m/s^2)"
        if self.name == "STICK":
            return (f"STICK {ok} (N = {self.N:.4g} N, F_t = {self.F_t:.4g} N, "
                    f"cond S = {self.cond:.3g})")
        return (f"{self.name} {ok} (N = {self.N:.4g} N, F_t = {self.F_t:.4g} N, "
                f"margin = {self.margin:.4g}, a_t = {self.a_t:.4g} m/s^2)")


@dataclass
class Selection:
    """The outcome of one mode selection: every candidate, the consistent ones and the choice
    (``None`` when no candidate is consistent).  ``F_stick`` is the stick trial's F_t [N];
    ``dir_stick`` = -sgn(F_stick), the slip direction the stick trial suggests."""
    t: float
    candidates: list = field(default_factory=list)
    chosen: Candidate | None = None
    F_stick: float = math.nan

    @property
    def consistent(self) -> list:
        return [c for c in self.candidates if c.consistent]

    @property
    def n_consistent(self) -> int:
        return len(self.consistent)

    @property
    def dir_stick(self) -> float:
        return -math.copysign(1.0, self.F_stick) if math.isfinite(self.F_stick) and self.F_stick else 0.0

    def describe(self) -> str:
        return "; ".join(c.describe() for c in self.candidates)


def free_candidate(sim, t, y, k) -> Candidate:
    """The FREE candidate at (t, y): with no contact force, is the gap's acceleration at least
    the Baumgarte target a_n* = -2 chi v_n - beta^2 Psi?  ``k`` is the tip kinematics at y."""
    qdd = sim.forces(t, y, DiscreteState(FREE)).qdd
    sp = sim.case.slope
    a_n = float(k.Psi_q @ qdd) - k.gamma_n
    target = -2.0 * sp.chi * k.v_n - sp.beta ** 2 * k.gap
    test = a_n - target
    return Candidate("FREE", FREE, consistent=test >= 0.0, a_n=a_n, test=test)


def select_mode(sim, t, y, k=None) -> Selection:
    """Evaluate FREE, STICK and the SLIP candidates of ``sim``'s hybrid model at (t, y) and
    choose (see the module docstring).  ``k``: the tip kinematics at y, if the caller has them.

    The stick candidate is anchored at the current tangential position (s* = s); the LuGre slip
    candidate uses the bristle state y[iz] as it is.  Nothing is changed in ``y``."""
    if k is None:
        k = sim.tip(y)
    sel = Selection(t=t)
    free = free_candidate(sim, t, y, k)
    sel.candidates.append(free)

    r = sim.forces(t, y, DiscreteState(STICK, s_star=k.s))
    stick = Candidate("STICK", STICK, N=r.N, F_t=r.F, cond=r.cond)
    stick.consistent = bool(r.N > 0.0 and abs(r.F) <= sim.mu_lim * r.N)
    stick.test = sim.mu_lim * r.N - abs(r.F) if r.N > 0.0 else r.N
    sel.candidates.append(stick)
    sel.F_stick = r.F

    coulomb = sim.spec.friction.uses_direction     # the slip force is set by the direction
    for dr in sim.spec.friction.direction_candidates:
        d = DiscreteState(SLIP, dir=dr)
        rs = sim.forces(t, y, d)
        a_t = float(k.Gamma_q @ rs.qdd) - k.gamma_t
        name = ("SLIP+" if dr > 0 else "SLIP-") if coulomb else "SLIP"
        c = Candidate(name, SLIP, dir=dr, N=rs.N, F_t=rs.F, a_t=a_t, margin=rs.margin)
        margin_ok = sim.mult != "coupled" or rs.margin > sim.painleve_min
        ok = rs.N > 0.0 and margin_ok
        if coulomb:
            c.test = dr * a_t if ok else min(rs.N, rs.margin - sim.painleve_min)
            ok = ok and dr * a_t >= 0.0
        else:
            c.test = rs.N if ok else min(rs.N, rs.margin - sim.painleve_min)
        c.consistent = bool(ok)
        sel.candidates.append(c)

    good = sel.consistent
    if len(good) == 1:
        sel.chosen = good[0]
    elif good:
        names = [c.name for c in good]
        for pref in ("FREE", "STICK"):
            if pref in names:
                sel.chosen = good[names.index(pref)]
                break
        else:
            slips = sorted(good, key=lambda c: c.dir != sel.dir_stick)
            sel.chosen = slips[0]
    return sel
