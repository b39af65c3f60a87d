"""A friction law from outside flexlib: Stribeck-Coulomb with a viscous term, as a hybrid model.

In slip the friction coefficient is (F_t = -mu N, v the tangential tip velocity, dir its sign)

    mu = dir (mu_d + (mu_s - mu_d) exp(-(v / v_s)^2)) + sigma2 v,

and the tip sticks when |F_t| <= mu_s N, like hybrid Coulomb (whose slip law is mu = dir mu_d).
The law is one compiled function with its parameters named; registering it as a model is all
flexlib needs to run it on a paper case, whose parameters of those names (mu_d, mu_s, v_s,
sigma2) it takes.  The same law serves any system's contact points (flexlib.multibody.laws).

    python examples/custom_friction.py [t_end]
"""
import math
import sys

import numba

import flexlib as fl
from flexlib import models
from flexlib.multibody.laws import FrictionLaw


@numba.njit
def stribeck_viscous(v, z, dirn, p):
    """(z', mu) at tangential velocity v [m/s] in slip direction dirn (0: follow v itself);
    p = (mu_d, mu_s, v_s, sigma2); no internal state (z' = 0)."""
    d = dirn if dirn != 0.0 else (1.0 if v >= 0.0 else -1.0)
    g = p[0] + (p[1] - p[0]) * math.exp(-(v / p[2]) ** 2)
    return 0.0, d * g + p[3] * v


LAW = FrictionLaw("stribeck_viscous", stribeck_viscous,
                  params=(("mu_d", 0.0, 10.0), ("mu_s", 0.0, 10.0), ("v_s", 1e-9, math.inf),
                          ("sigma2", 0.0, math.inf)), stick_limit="mu_s")
SPEC = models.ModelSpec("hybrid_stribeck", models.TIP_ON_SLOPE,
                        models.FrictionLaw("stribeck_viscous", has_bristles=False,
                                           direction_candidates=(1.0, -1.0), stick_limit="mu_s",
                                           custom=LAW),
                        True, "hybrid Stribeck", "#CC79A7", ":", 1.4,
                        "stick/slip switching, Stribeck-Coulomb-viscous slip")


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
