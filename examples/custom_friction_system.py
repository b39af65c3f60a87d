"""A friction law from outside flexlib at the contact points of a system, with both contact methods.

The law is Stribeck-Coulomb with a viscous term (F_t = -mu N, v the tangential velocity of the
contact point, dir the slip direction):

    mu = dir (mu_d + (mu_s - mu_d) exp(-(v / v_s)^2)) + sigma2 v,

and a point may stick while |F_t| <= mu_s N.  Where no slip direction is set (the continuous
contact force method) dir is replaced by tanh(v / v_reg), a smooth sign.  The law is a plain
function of (v, z, dir, p), p its own parameters in the order it names them; a
:class:`flexlib.multibody.laws.FrictionLaw` says what it is, and the contact points carry it with
their parameter values.  flexlib compiles the function once and numba keeps it on disk beside
this file, so a second run loads it; the system's compiled code is the same for every law.

The laws below it re-implement LuGre, Coulomb and the modified Coulomb law of the built-in models
``lugre``, ``hybrid_coulomb`` and ``continuous_coulomb`` (the tests check that they give the
same runs).  LuGre integrates a state z (``has_bristles``); every contact starts with the
bristles at rest, z = 0, as the paper's LuGre does.

    python examples/custom_friction_system.py [t_end]
"""
import dataclasses
import math
import sys

from flexlib.cases import build
from flexlib.multibody.laws import FrictionLaw
from flexlib.multibody.simulate import SystemSimulator


def stribeck_viscous(v, z, dirn, p):
    """(z', mu) of the Stribeck-Coulomb-viscous law; p = (mu_d, mu_s, v_s, sigma2, v_reg)."""
    mu_d, mu_s, v_s, sigma2, v_reg = p[0], p[1], p[2], p[3], p[4]
    s = dirn if dirn != 0.0 else math.tanh(v / v_reg)
    return 0.0, s * (mu_d + (mu_s - mu_d) * math.exp(-(v / v_s) ** 2)) + sigma2 * v


def lugre(v, z, dirn, p):
    """LuGre in coefficient form (the built-in unified LuGre law), with its bristle state z;
    p = (mu_d, mu_s, v_s, sigma0, sigma1, sigma2)."""
    mu_d, mu_s, v_s, sigma0, sigma1, sigma2 = p[0], p[1], p[2], p[3], p[4], p[5]
    g = mu_d + (mu_s - mu_d) * math.exp(-(v / v_s) ** 2)
    zd = v - sigma0 * abs(v) * z / g
    return zd, sigma0 * z + sigma1 * zd + sigma2 * v


def coulomb(v, z, dirn, p):
    """Coulomb: mu = dir mu_d in slip (the built-in hybrid Coulomb law); p = (mu_d,)."""
    return 0.0, dirn * p[0]


def modified_coulomb(v, z, dirn, p):
    """The modified Coulomb law of the continuous models; p = (mu_d, v0, v1)."""
    mu_d, v0, v1 = p[0], p[1], p[2]
    a = abs(v)
    if a <= v0:
        return 0.0, 0.0
    c = 1.0 if a >= v1 else (a - v0) / (v1 - v0)
    return 0.0, c * mu_d if v > 0.0 else -c * mu_d


INF = math.inf
STRIBECK = FrictionLaw("stribeck_viscous", stribeck_viscous,
                       params={"mu_d": (0.0, 10.0), "mu_s": (0.0, 10.0), "v_s": (1e-9, INF),
                               "sigma2": (0.0, INF), "v_reg": (1e-9, INF)},
                       stick_limit="mu_s")
COULOMB = FrictionLaw("coulomb_again", coulomb, params={"mu_d": (0.0, 10.0)}, stick_limit="mu_d")
MODIFIED_COULOMB = FrictionLaw("modified_coulomb_again", modified_coulomb,
                               params={"mu_d": (0.0, 10.0), "v0": (0.0, INF), "v1": (0.0, INF)})
LUGRE = FrictionLaw("lugre_again", lugre,
                    params={"mu_d": (0.0, 10.0), "mu_s": (0.0, 10.0), "v_s": (1e-9, INF),
                            "sigma0": (1e-9, INF), "sigma1": (0.0, INF), "sigma2": (0.0, INF)},
                    has_bristles=True)
STRIBECK_VALUES = dict(mu_d=0.3, mu_s=0.4, v_s=0.05, sigma2=0.05, v_reg=1e-3)


def run(model, law=None, values=None, t_end=0.3, case="falling-beam", **params):
    """The falling beam (tilted: one end lands first and slides), or another ``case``, with
    ``model``'s contact method and, if given, ``law`` with its parameter ``values`` at every
    contact point."""
    if case == "falling-beam":
        params.setdefault("theta0", 0.2)
    system, solver = build(case, model, **params)
    if law is not None:
        laws = dataclasses.replace(system.contacts[0].laws, friction=law, friction_params=values,
                                   can_stick=law.can_stick and model.startswith("hybrid"))
        system = system.with_laws(laws)
    return SystemSimulator(system, t_end, solver).run()


def main(t_end=0.3):
    """The Stribeck law with the constraint method (stick/slip) and the penalty method."""
    out = {}
    for model in ("hybrid_coulomb", "continuous_coulomb"):
        res = out[model] = run(model, STRIBECK, STRIBECK_VALUES, t_end)
        a = res.audit()
        print(f"{STRIBECK.name} ({res.system.contacts[0].laws.method}): t = {res.t_end:.3f} s, "
              f"{len(res.impacts)} contact episodes, friction work {sum(a['W_F']):.4f} J, "
              f"audit {a['max_residual']:.1e} J of {a['scale']:.3f} J")
    return out


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 0.3)
