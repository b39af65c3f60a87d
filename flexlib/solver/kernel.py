"""The right-hand side of every phase, composed from the body, the contact and the friction law.

:func:`phase_eval_into` is the hot path of the simulator: at a state (t, y) of a phase (mode
FREE, CONTACT, STICK or SLIP) of a model, it asks

* the body (:mod:`flexlib.bodies.beam`) for M(q) and Q(q, q') and the damping power;
* the contact (:mod:`flexlib.contact.slope`) for the tip's gap, slip, rates and Jacobian rows;
* in contact, either the constraint method (:mod:`flexlib.contact.constraint`: the Baumgarte-stabilised
  multipliers of CONTACT, STICK and SLIP) or the continuous contact force method
  (:func:`_penalty_contact`: the penalty law of :mod:`flexlib.contact.penalty`);
* the friction law of the model (:mod:`flexlib.contact.friction`, or a law registered from outside:
  :func:`specialize`) for the ratio c = F_t / N and the rate of its internal state;

and writes dy/dt and the phase outputs ``out`` (contact forces, friction ratio, Painleve margin,
condition number, gap, slip, rates: the ``O_*`` slots of :mod:`flexlib.solver.layout`).  It allocates
nothing: its intermediates live in the work arrays of :func:`work_arrays`, reused from call to
call (every value read is written first in the same call; tests/test_kernel_workspace.py fills
them with garbage to check this).  That lets it be compiled without numba's reference counting
(:mod:`flexlib._jit`); together the two took the right-hand side from 1.2-1.4 us to ~0.5 us at
N = 3 (benchmarks/README.md).  :func:`phase_eval` is the allocating form for the rest of the
library and the tests, :func:`phase_eval_samples` evaluates the outputs at every sample of a run,
and :func:`event_values_into` defines the events of the state machine from the outputs, for both
integrators.

The same Python source is used twice: as plain Python/NumPy (with ``FLEXLIB_NO_NUMBA=1``) and,
when numba is installed, compiled with ``numba.njit(cache=True)``.  Tests check that both give
the same numbers.

Arguments: the modal data of the beam travel as one :class:`flexlib.bodies.beam.KernelArrays` (a named
tuple of 21 arrays, ``arrs``) read by field name; N = ``len(arrs.Phi_L)`` and Na =
``len(arrs.Psi_L)`` fix nd = 1 + N + Na and the state length 2 nd + 5.  Codes: mode FREE=0,
CONTACT=1, STICK=2, SLIP=3; mult coupled=0, printed=1.  The ``model`` argument is the law code of
the model's registry entry (:attr:`flexlib.models.ModelSpec.kernel_code`, from the pair (contact
law, friction law) in :data:`flexlib.models.KERNEL_LAWS`).  A phase the code does not define
(e.g. a SLIP phase without a friction law) returns NaN in dy and ``out``, so that the integrator
stops on it; no code is silently read as another law.  The slots of ``par`` (the scalars) and of
``out`` are named in :mod:`flexlib.solver.layout`; numba reads those module constants at compile time.
"""
from __future__ import annotations

import types

import numpy as np

from .. import _jit
from .._jit import compiled, hot
from ..bodies.beam import KernelArrays, damping_power, mass_forces_arrs_into
from ..contact.constraint import normal_constraint, normal_solve, slip_solve, stick_solve
from ..contact.slope import tip_into
from ..contact.friction import lugre_rates, modified_coulomb
from .layout import (DISC_SLOTS, NOUT, O_F, O_GAP, O_MARGIN, O_MU, O_N, O_NRAW, O_S, O_VN, O_VT,
                     O_ZDOT, P_BETA, P_C_C, P_CHI, P_D_C, P_DIR, P_K_C, P_MU_D, P_MU_S, P_N_C,
                     P_S_STAR, P_SIGMA0, P_SIGMA1, P_SIGMA2, P_TAU, P_V0, P_V1, P_V_IN, P_V_S,
                     Y_WD, Y_WF, Y_WN, Y_WTAU, Y_Z)
from .linalg import quad_at, solve_into
from ..models import (LAW_COULOMB, LAW_CUSTOM, LAW_FRICTIONLESS, LAW_LUGRE, LAW_NO_CONTACT,
                     LAW_PENALTY, LAW_PENALTY_LUGRE, LAW_PENALTY_MOD_COULOMB)
from ..contact.penalty import normal_force

__all__ = ["KernelArrays", "phase_eval_into", "phase_eval", "phase_eval_samples", "work_arrays",
           "event_values_into", "event_values", "specialize", "EVENT_NAMES", "EVENT_DIRECTIONS",
           "NEV", "COMPILED"]

COMPILED = _jit.COMPILED
NO_REFCOUNT = _jit.NO_REFCOUNT      # the numba options of the allocation-free functions


@compiled
def work_arrays(arrs):
    """The work arrays ``(W, Mw, Xw)`` of :func:`phase_eval_into` for the model of the modal data
    ``arrs`` (a :class:`KernelArrays`: nd = 1 + N + Na from its tip values Phi_L, Psi_L)."""
    n = arrs.Phi_L.shape[0]
    nd = 1 + n + arrs.Psi_L.shape[0]
    return np.empty((14, max(n * n, nd))), np.empty((nd, nd)), np.empty((nd, 3))


@hot
def phase_eval_into(t, y, mode, model, mult, par, arrs, W, Mw, Xw, dy, out, want_T):
    """dy/dt of the phase ``mode`` and the algebraic outputs at (t, y), written into ``dy`` and
    ``out``; returns the kinetic energy T = q'^T M q' / 2 if ``want_T``, else 0.

    The integrator's right-hand side: it allocates nothing.  ``W``, ``Mw``, ``Xw`` come from
    :func:`work_arrays`: W rows 0-6 hold the contracted tensors of
    :func:`flexlib.bodies.beam.mass_forces_into`, row 7 H_L B, rows 8, 9 the tip rows Psi_q, Gamma_q,
    row 10 Q, rows 11-13 the work space of :func:`flexlib.bodies.beam.mass_forces_quad_into` (axial
    modes); Mw = M (destroyed by the solve), Xw = [Q | Psi_q | Gamma_q] and then M^-1 of it.
    There are no shape checks on this hot path (numba does not bounds-check): the work arrays
    must come from ``work_arrays(arrs)``, ``y`` and ``dy`` must have the model's length
    2 nd + 5 and ``out`` NOUT entries."""
    n = arrs.Phi_L.shape[0]
    na = arrs.Psi_L.shape[0]
    nd = 1 + n + na
    iz = 2 * nd
    for k in range(NOUT):
        out[k] = np.nan
    Qw = W[10]
    mass_forces_arrs_into(y[:nd], y[nd:2 * nd], par, arrs, W, Mw, Qw)      # the body
    T = 0.0
    if want_T:
        T = 0.5 * quad_at(Mw, y, nd, nd)
    for k in range(y.shape[0]):
        dy[k] = 0.0
    dy[iz + Y_WD] = damping_power(y, nd, arrs)
    dy[iz + Y_WTAU] = par[P_TAU] * y[nd]
    for i in range(nd):
        dy[i] = y[nd + i]
        Xw[i, 0] = Qw[i]
    if model == LAW_NO_CONTACT:
        solve_into(Mw, Xw, 1)
        for i in range(nd):
            dy[nd + i] = Xw[i, 0]
        out[O_N] = 0.0
        out[O_F] = 0.0
        return T
    # ---- tip contact kinematics (eqs (23)-(32), (49)-(58)); gamma_n, gamma_t only in contact
    Pq = W[8, :nd]
    Gq = W[9, :nd]
    gap, sc, v_n, v_t, gam_n, gam_t = tip_into(y[:nd], y[nd:2 * nd], par, arrs.Phi_L, arrs.H_L,
                                               arrs.Psi_L, W[7], Pq, Gq,
                                               mode != 0 and model < LAW_PENALTY)
    for i in range(nd):
        Xw[i, 1] = Pq[i]
        Xw[i, 2] = Gq[i]
    out[O_GAP] = gap
    out[O_S] = sc
    out[O_VN] = v_n
    out[O_VT] = v_t
    if mode == 0:
        solve_into(Mw, Xw, 1)
        for i in range(nd):
            dy[nd + i] = Xw[i, 0]
        out[O_N] = 0.0
        out[O_F] = 0.0
        return T
    if model >= LAW_PENALTY:
        _penalty_contact(y, mode, model, par, gap, v_n, v_t, Pq, Gq, Xw, Mw, nd, iz, dy, out)
        return T
    # ---- the constraint method: Baumgarte-stabilised multipliers (flexlib.contact.constraint)
    chi, beta = par[P_CHI], par[P_BETA]
    r1, s11 = normal_constraint(gap, v_n, gam_n, chi, beta, Pq, Mw, Xw, nd)
    N = 0.0
    F = 0.0
    if mode == 1 and model == LAW_FRICTIONLESS:
        N = normal_solve(r1, s11)
    elif mode == 2 and (model == LAW_COULOMB or model == LAW_LUGRE or model == LAW_CUSTOM):
        N, F = stick_solve(gam_t, v_t, sc, chi, beta, par[P_S_STAR], r1, s11, Pq, Gq, Xw, nd,
                           mult, out)
    elif model == LAW_COULOMB or model == LAW_LUGRE or model == LAW_CUSTOM:
        # slip (and the unified law's CONTACT): F_t = c N with c = -dir mu_d (Coulomb, eq (69)),
        # c = -mu of the LuGre bristle state (eq (68)) or c = -mu of a registered law
        if model == LAW_COULOMB:
            cf = -par[P_DIR] * par[P_MU_D]
            out[O_MU] = -cf
        elif model == LAW_CUSTOM:
            zd, mu = custom_friction(v_t, y[iz + Y_Z], par)
            out[O_ZDOT] = zd
            out[O_MU] = mu
            dy[iz + Y_Z] = zd
            cf = -mu
        else:
            zd, mu = lugre_rates(v_t, y[iz + Y_Z], par[P_MU_D], par[P_MU_S], par[P_SIGMA0],
                                 par[P_SIGMA1], par[P_SIGMA2], par[P_V_S])
            out[O_ZDOT] = zd
            out[O_MU] = mu
            dy[iz + Y_Z] = zd
            cf = -mu
        N, F = slip_solve(cf, r1, s11, Pq, Xw, nd, mult, out)
    else:
        # a contact phase this law does not define (or an unknown law code): flag, never guess
        for i in range(y.shape[0]):
            dy[i] = np.nan
        return T
    for i in range(nd):
        dy[nd + i] = Xw[i, 0] + Xw[i, 1] * N + Xw[i, 2] * F
    dy[iz + Y_WN] = N * v_n
    dy[iz + Y_WF] = F * v_t
    out[O_N] = N
    out[O_F] = F
    return T


@hot
def _penalty_contact(y, mode, model, par, gap, v_n, v_t, Pq, Gq, Xw, Mw, nd, iz, dy, out):
    """The contact phase of the continuous contact force method: the penalty normal force of
    :func:`flexlib.contact.penalty.normal_force` and the friction law with that N enter as the
    generalised force Psi_q N + Gamma_q F_t; no constraint, no multiplier.  ``Xw[:, 0]`` holds
    Q on entry; writes dy (q'', z', the work rates) and ``out``."""
    if mode != 1 or model > LAW_PENALTY_LUGRE:
        for i in range(y.shape[0]):      # a phase this law does not define: flag, never guess
            dy[i] = np.nan
        return
    N, raw = normal_force(gap, v_n, par[P_K_C], par[P_N_C], par[P_D_C], par[P_C_C], par[P_V_IN])
    mu = 0.0
    if model == LAW_PENALTY_MOD_COULOMB:
        mu = modified_coulomb(v_t, par[P_MU_D], par[P_V0], par[P_V1])
    elif model == LAW_PENALTY_LUGRE:
        zd, mu = lugre_rates(v_t, y[iz + Y_Z], par[P_MU_D], par[P_MU_S], par[P_SIGMA0],
                             par[P_SIGMA1], par[P_SIGMA2], par[P_V_S])
        out[O_ZDOT] = zd
        dy[iz + Y_Z] = zd
    F = -mu * N
    for i in range(nd):
        Xw[i, 0] += Pq[i] * N + Gq[i] * F
    solve_into(Mw, Xw, 1)
    for i in range(nd):
        dy[nd + i] = Xw[i, 0]
    dy[iz + Y_WN] = N * v_n
    dy[iz + Y_WF] = F * v_t
    out[O_N] = N
    out[O_F] = F
    out[O_MU] = mu
    out[O_NRAW] = raw


@hot
def custom_friction(v, z, par):
    """The friction law of a registered model whose :class:`~flexlib.models.FrictionLaw` brings
    its own compiled function: (z', mu) at tangential velocity v [m/s], internal state z and
    parameters ``par``, with F_t = -mu N.  This placeholder gives NaN (the phase is flagged);
    :func:`specialize` compiles the right-hand side with the law's function in its place."""
    return np.nan, np.nan


@compiled
def phase_eval(t, y, mode, model, mult, par, arrs):
    """dy/dt of the phase ``mode`` and the algebraic outputs ``out`` at (t, y): (dy, out)."""
    W, Mw, Xw = work_arrays(arrs)
    dy = np.empty(y.shape[0])
    out = np.empty(NOUT)
    phase_eval_into(t, y, mode, model, mult, par, arrs, W, Mw, Xw, dy, out, False)
    return dy, out


@hot
def _samples_into(ts, Y, modes, discs, model, mult, p, arrs, y, dy, W, Mw, Xw, outs, T):
    """The loop of :func:`phase_eval_samples` (allocation-free; ``p`` is a copy of par)."""
    for k in range(ts.shape[0]):
        for j in range(discs.shape[1]):
            p[DISC_SLOTS[j]] = discs[k, j]
        for j in range(y.shape[0]):
            y[j] = Y[k, j]
        T[k] = phase_eval_into(ts[k], y, modes[k], model, mult, p, arrs, W, Mw, Xw, dy, outs[k],
                               True)


@compiled
def phase_eval_samples(ts, Y, modes, discs, model, mult, par, arrs):
    """``out`` and the kinetic energy at every row of ``Y``, the samples of a whole run.

    Each sample k carries its own phase: mode ``modes[k]`` and the discrete state ``discs[k]``
    (slip direction, stick anchor, approach speed: the slots :data:`flexlib.solver.layout.DISC_SLOTS`).
    One call for the whole history instead of one per phase: a run has a few hundred phases
    (172-285 for the four models of case 3.2), and a call from Python costs ~10 us before it
    does any work."""
    m = ts.shape[0]
    outs = np.empty((m, NOUT))
    T = np.empty(m)
    y = np.empty(Y.shape[1])
    W, Mw, Xw = work_arrays(arrs)
    _samples_into(ts, Y, modes, discs, model, mult, par.copy(), arrs, y, np.empty(Y.shape[1]), W,
                  Mw, Xw, outs, T)
    return outs, T


# Event functions of the state machine.  Index, name, direction of the zero crossing that counts.
# GAP-OPEN ends a penalty contact (the gap opens, Psi = 0 increasing); SEPARATE a constraint one.
EVENT_NAMES = ("CONTACT-ON", "SEPARATE", "STICK->SLIP", "STICK-DRIFT", "PAINLEVE", "SLIP-STOP", "ARM",
               "GAP-OPEN")
EVENT_DIRECTIONS = (-1.0, -1.0, -1.0, -1.0, -1.0, 0.0, 1.0, -1.0)   # SLIP-STOP: set per phase
#                                                                     by the simulator
NEV = 8


@hot
def event_values_into(out, epar, eoff, ev):
    """Values of the 8 event functions from the phase outputs ``out``, minus the offsets
    ``eoff``, written into ``ev``.

    ``epar`` = [mu_lim, Dv, painleve_min, slip_dir]: CONTACT-ON = gap; SEPARATE = N;
    STICK->SLIP = mu_lim N - |F_t|; STICK-DRIFT = Dv - |v_t|; PAINLEVE = margin - painleve_min;
    SLIP-STOP = slip_dir * v_t (slip_dir = 1 for LuGre, dir for Coulomb); ARM = |v_t| - Dv;
    GAP-OPEN = -gap."""
    ev[0] = out[O_GAP] - eoff[0]
    ev[1] = out[O_N] - eoff[1]
    ev[2] = (epar[0] * out[O_N] - abs(out[O_F])) - eoff[2]
    ev[3] = (epar[1] - abs(out[O_VT])) - eoff[3]
    ev[4] = (out[O_MARGIN] - epar[2]) - eoff[4]
    ev[5] = epar[3] * out[O_VT] - eoff[5]
    ev[6] = (abs(out[O_VT]) - epar[1]) - eoff[6]
    ev[7] = -out[O_GAP] - eoff[7]


@compiled
def event_values(out, epar):
    """Values of the 8 event functions from the phase outputs ``out`` (see
    :func:`event_values_into`)."""
    ev = np.empty(NEV)
    event_values_into(out, epar, np.zeros(NEV), ev)
    return ev


_jit.flush_module(__name__)


# ---------------------------------------------------------------- friction laws from outside
_SPECIALIZED = {}


def specialize(friction_function):
    """The right-hand side compiled with ``friction_function`` in the place of
    :func:`custom_friction`: a namespace with ``phase_eval_into``, ``phase_eval`` and
    ``phase_eval_samples`` (the same code, another friction law; built once per function and
    not cached on disk).  ``friction_function(v, z, par) -> (zdot, mu)`` must be compiled with
    numba (when numba is on) and allocate nothing."""
    if friction_function in _SPECIALIZED:
        return _SPECIALIZED[friction_function]
    g = dict(globals())
    g["custom_friction"] = friction_function
    made = {}
    for name in ("phase_eval_into", "phase_eval", "_samples_into", "phase_eval_samples"):
        f = globals()[name]
        py = getattr(f, "py_func", f)
        new = types.FunctionType(py.__code__, g, name, py.__defaults__, py.__closure__)
        if COMPILED:
            opts = NO_REFCOUNT if name in ("phase_eval_into", "_samples_into") else {}
            new = _jit.njit(**opts)(new)
        g[name] = made[name] = new
    ns = types.SimpleNamespace(**made)
    _SPECIALIZED[friction_function] = ns
    return ns
