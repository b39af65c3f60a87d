"""A toy right-hand side for the integrator tests: linear systems, Van der Pol, a falling mass."""
import numpy as np

from flexlib import _jit

NOUT = 1
NEV = 1


def _jit_or_not(fn):
    return _jit.njit(cache=False)(fn) if _jit.COMPILED else fn


@_jit_or_not
def work_arrays(A):
    return (np.zeros(1), np.zeros((1, 1)), np.zeros((1, 1)))


@_jit_or_not
def phase_eval_into(t, y, mode, model, mult, par, A, ws, Mw, Xw, dy, out, want_T):
    """model 0: y' = A y; 1: Van der Pol x'' = mu (1 - x^2) x' - x (mu = par[0]); 2: a mass
    falling under gravity par[0]; 3: y' = -y until t = par[0], NaN after."""
    if model == 0:
        for i in range(y.shape[0]):
            acc = 0.0
            for j in range(y.shape[0]):
                acc += A[i, j] * y[j]
            dy[i] = acc
    elif model == 1:
        dy[0] = y[1]
        dy[1] = par[0] * (1.0 - y[0] * y[0]) * y[1] - y[0]
    elif model == 2:
        dy[0] = y[1]
        dy[1] = -par[0]
    else:
        for i in range(y.shape[0]):
            dy[i] = -y[i] if t < par[0] else np.nan
    out[0] = y[0]
    return 0.0


@_jit_or_not
def event_values_into(out, epar, eoff, ev):
    ev[0] = out[0] - eoff[0]
