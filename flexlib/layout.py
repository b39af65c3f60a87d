"""Where each number of a paper case lives: its state, its contact modes and the tip's outputs.

(A beam's parameter vector is the beam's own, :mod:`flexlib.bodies.beam`; the slope's slots
follow it in the tip's, :mod:`flexlib.contact.slope`.)

The state of a paper case (one hinged beam, its tip against the slope; docs/model.md, "The
state machine") as :mod:`flexlib.paper` reads it::

    y = [q (nd), q' (nd), z, W_N, W_f, W_d, W_tau]

with q = [theta, B (N), C (axial modes)], nd = 1 + N + Na, z the bristle deflection of a
friction law with internal state (LuGre) and W_* the energy accumulators of the audit; the tip's
outputs (N, F_t, ..., the slots ``O_*``) are those of the paper's histories.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["StateLayout", "OUT_NAMES", "NOUT", "FREE", "CONTACT", "STICK", "SLIP", "MODE_NAMES"]

# ---------------------------------------------------------------- discrete state
# Contact modes of the state machine (the kernel's ``mode`` argument and the ``mode`` history).
FREE, CONTACT, STICK, SLIP = 0, 1, 2, 3
MODE_NAMES = {FREE: "FREE", CONTACT: "CONTACT", STICK: "STICK", SLIP: "SLIP"}


# ---------------------------------------------------------------- kernel outputs ``out``
# N_raw: a penalty law's force before the clip at 0 (NaN for the constraint method)
OUT_NAMES = ("N", "F_t", "zdot", "mu", "margin", "cond_S", "gap", "s", "v_n", "v_t", "N_raw")
O_N, O_F, O_ZDOT, O_MU, O_MARGIN, O_COND, O_GAP, O_S, O_VN, O_VT, O_NRAW = range(len(OUT_NAMES))
NOUT = len(OUT_NAMES)

# ---------------------------------------------------------------- state vector ``y``
@dataclass(frozen=True)
class StateLayout:
    """Named slices and indices of the state vector y of one body with ``nd`` generalised
    coordinates (``n_bend`` bending modes, the rest axial) and ``contacts`` contact points (0 or 1):
    y = [q (nd), q' (nd), z, W_N, W_f (one each per point), W_d, W_tau].  Without a contact point
    z, W_N and W_f are None."""
    nd: int
    n_bend: int
    contacts: int = 1

    @property
    def size(self) -> int:
        return 2 * self.nd + 3 * self.contacts + 2

    @property
    def q(self) -> slice:
        return slice(0, self.nd)

    @property
    def qd(self) -> slice:
        return slice(self.nd, 2 * self.nd)

    @property
    def theta(self) -> int:
        return 0

    @property
    def theta_dot(self) -> int:
        return self.nd

    @property
    def B(self) -> slice:
        return slice(1, 1 + self.n_bend)

    @property
    def B_dot(self) -> slice:
        return slice(self.nd + 1, self.nd + 1 + self.n_bend)

    @property
    def C(self) -> slice:
        return slice(1 + self.n_bend, self.nd)

    @property
    def C_dot(self) -> slice:
        return slice(self.nd + 1 + self.n_bend, 2 * self.nd)

    def _point_slot(self, k):
        return 2 * self.nd + k if self.contacts else None

    @property
    def z(self):
        return self._point_slot(0)

    @property
    def W_N(self):
        return self._point_slot(1)

    @property
    def W_f(self):
        return self._point_slot(2)

    @property
    def W_d(self) -> int:
        return 2 * self.nd + 3 * self.contacts

    @property
    def W_tau(self) -> int:
        return 2 * self.nd + 3 * self.contacts + 1
