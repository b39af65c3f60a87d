"""A friction law from outside flexlib: Stribeck-Coulomb with a viscous term, as a hybrid model.

In slip the friction coefficient is (F_t = -mu N, v the tangential tip velocity, dir its sign)

    mu = dir (mu_d + (mu_s - mu_d) exp(-(v / v_s)^2)) + sigma2 v,

and the tip sticks when |F_t| <= mu_s N, like hybrid Coulomb (whose slip law is mu = dir mu_d).
The law is one compiled function; registering it as a model is all flexlib needs to run it:
the simulator compiles its right-hand side around the function (once per process).

    python examples/custom_friction.py [t_end]
"""
import math
import sys

import numba

import flexlib as fl
from flexlib import models
from flexlib.layout import P_DIR, P_MU_D, P_MU_S, P_SIGMA2, P_V_S


@numba.njit
def stribeck_viscous(v, z, par):
    """(z', mu) at tangential velocity v [m/s]; no internal state (z' = 0)."""
    g = par[P_MU_D] + (par[P_MU_S] - par[P_MU_D]) * math.exp(-(v / par[P_V_S]) ** 2)
    return 0.0, par[P_DIR] * g + par[P_SIGMA2] * v


LAW = models.FrictionLaw("stribeck_viscous", 3, has_bristles=False,
                         direction_candidates=(1.0, -1.0), stick_limit="mu_s",
                         kernel_function=stribeck_viscous)
SPEC = models.ModelSpec("hybrid_stribeck", models.TIP_ON_SLOPE, LAW, True, "hybrid Stribeck",
                        "#CC79A7", ":", 1.4, "stick/slip switching, Stribeck-Coulomb-viscous slip")


def main(t_end=0.5, sigma2=0.02):
    """Register the model (once) and run it on the paper's case 3.2 over [0, t_end] s."""
    if SPEC.id not in models.REGISTRY:
        models.register(SPEC)
    try:
        res = fl.simulate("3.2", SPEC.id, t_end, sigma2=sigma2)
    except fl.SimulationError as err:       # the hybrid models may stop in micro-impact chatter
        print(f"stopped: {err}")
        res = err.result
    print(f"{SPEC.label}: t = {res.t[-1]:.4f} s, {len(res.impacts)} impacts, "
          f"audit {res.audit_residual_max:.2e} J")
    for k, im in enumerate(res.impacts[:3], 1):
        print(f"  impact {k}: t = {im['t_start']:.6f} s, peak N = {im['peak_normal_force']:.1f} N, "
              f"peak |F_t| = {im['peak_friction_force']:.1f} N, lost {im['energy_lost']:.4f} J")
    return res


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 0.5)
