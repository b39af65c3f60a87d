"""A system of one's own from flexlib's public parts: a flexible triple pendulum whose lowest link
strikes the ground.

Three links hang from a hinge at O, each hinged to the tip of the one above; they start straight
along +X at rest and fall under gravity.  The lowest link's tip may touch the ground Y <= -1.2 m
(a continuous Hertz contact, frictionless).  Nothing in flexlib knows this system: it is data
(bodies, joints, an obstacle, a contact point with its laws), and the solver assembles and runs it.

    python examples/triple_pendulum.py [t_end]
"""
import sys

import flexlib.multibody as mb
from flexlib.params import BeamParams
from flexlib.cases.command import episodes_table


def triple_pendulum(n_modes: int = 2) -> mb.System:
    beam = BeamParams(n_modes=n_modes)                        # the paper's section and material
    bodies = (mb.Body("L1", beam.replace(L=0.6), mb.GroundHinge((0.0, 0.0))),
              mb.Body("L2", beam.replace(L=0.5), mb.Hinge("L1", x=0.6)),
              mb.Body("L3", beam.replace(L=0.4), mb.Hinge("L2", x=0.5)))
    ground = mb.HalfPlane("ground", origin=(0.0, -1.2), normal=(0.0, 1.0))
    hertz = mb.laws_for("continuous", contact_law="hertz", contact_stiffness=5e9)
    tip = mb.ContactPoint("tip", body="L3", x=0.4, obstacle="ground", laws=hertz)
    return mb.System(bodies=bodies, obstacles=(ground,), contacts=(tip,))


def main(t_end: float = 1.0):
    res = mb.SystemSimulator(triple_pendulum(), t_end).run()
    print(episodes_table(res) if res.impacts else "no impacts")
    au = res.audit()
    print(f"energy: initial {au['E0']:.6f} J, final {au['E_end']:.6f} J, "
          f"audit residual {au['max_residual']:.2e} J, wall time {res.wall_time:.2f} s")
    return res


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
