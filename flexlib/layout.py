"""Where each number of one beam lives: its parameter vector, its state and the tip's outputs.

A body's compiled code (:mod:`flexlib.bodies.beam`, the tip of :mod:`flexlib.contact.slope`)
takes plain arrays, so every slot of a beam's parameter vector ``par`` is named here once (the
system's arrays hold one such vector per body).  The integer constants below are module-level
globals: numba reads them as compile-time constants, so ``par[P_G0]`` costs what ``par[2]`` did.

The state of a paper case (one hinged beam, its tip against the slope; docs/model.md, "The
state machine") as :mod:`flexlib.paper` reads it::

    y = [q (nd), q' (nd), z, W_N, W_f, W_d, W_tau]

with q = [theta, B (N), C (axial modes)], nd = 1 + N + Na, z the bristle deflection of a
friction law with internal state (LuGre) and W_* the energy accumulators of the audit; the tip's
outputs (N, F_t, ..., the slots ``O_*``) are those of the paper's histories.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["StateLayout", "PAR_NAMES", "NPAR", "pack_params", "OUT_NAMES", "NOUT",
           "FREE", "CONTACT", "STICK", "SLIP", "MODE_NAMES", "DiscreteState"]

# ---------------------------------------------------------------- discrete state
# Contact modes of the state machine (the kernel's ``mode`` argument and the ``mode`` history).
FREE, CONTACT, STICK, SLIP = 0, 1, 2, 3
MODE_NAMES = {FREE: "FREE", CONTACT: "CONTACT", STICK: "STICK", SLIP: "SLIP"}


@dataclass
class DiscreteState:
    """Discrete state of the hybrid automaton: the contact mode, the Coulomb slip direction, the
    stick anchor s* [m], whether SLIP-STOP is armed (|v_t| exceeded Dv in this slip phase) and,
    for a penalty contact, the approach speed v_in [m/s] of its damping term."""
    mode: int = FREE
    dir: float = 0.0
    s_star: float = 0.0
    armed: bool = True
    v_in: float = 0.0

    def copy(self):
        return DiscreteState(self.mode, self.dir, self.s_star, self.armed, self.v_in)

# ---------------------------------------------------------------- parameter vector ``par``
PAR_NAMES = ("J_ob", "Rx0", "g0", "tau_d", "L",            # body: kg m^2, kg m, m/s^2, N m, m
             "nx", "ny", "tx", "ty", "X1", "Y1",           # slope: unit normal, tangent, origin [m]
             "chi", "beta",                                # Baumgarte: 1/s, 1/s
             "mu_d", "mu_s", "sigma0", "sigma1", "sigma2", "v_s",   # friction
             "dir", "s_star",                              # discrete state: slip direction, stick anchor [m]
             "spare",
             "K_c", "n_c", "D_c", "C_c",                   # penalty contact: N/m^n, -, -, N s/m
             "v_in",                                       # discrete state: approach speed [m/s]
             "v0", "v1")                                   # modified Coulomb ramp [m/s]
(P_J_OB, P_RX0, P_G0, P_TAU, P_L, P_NX, P_NY, P_TX, P_TY, P_X1, P_Y1, P_CHI, P_BETA, P_MU_D,
 P_MU_S, P_SIGMA0, P_SIGMA1, P_SIGMA2, P_V_S, P_DIR, P_S_STAR, P_SPARE, P_K_C, P_N_C, P_D_C, P_C_C,
 P_V_IN, P_V0, P_V1) = range(len(PAR_NAMES))
NPAR = len(PAR_NAMES)
PAR_INDEX = {name: i for i, name in enumerate(PAR_NAMES)}


def pack_params(**values) -> np.ndarray:
    """The parameter vector with the named slots set (the others 0): ``pack_params(mu_d=0.4)``."""
    par = np.zeros(NPAR)
    for name, v in values.items():
        if name not in PAR_INDEX:
            raise ValueError(f"unknown kernel parameter {name!r}; valid names: {', '.join(PAR_NAMES)}")
        par[PAR_INDEX[name]] = v
    return par


# The slots of the discrete state in ``par``, in the column order of the per-sample discrete
# state array of a paper case's phases (:meth:`flexlib.paper.BeamRun.outputs`).
DISC_SLOTS = (P_DIR, P_S_STAR, P_V_IN)


def with_discrete(par0: np.ndarray, direction: float, s_star: float, v_in: float = 0.0) -> np.ndarray:
    """A copy of ``par0`` with the discrete-state slots (slip direction, stick anchor, approach
    speed) set."""
    par = par0.copy()
    par[P_DIR] = direction
    par[P_S_STAR] = s_star
    par[P_V_IN] = v_in
    return par


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
