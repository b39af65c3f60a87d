"""flexlib: oblique frictional impact of a rotating flexible beam on a rigid slope."""
__version__ = "0.1.0"
# First, before anything loads NumPy: the settings that make NumPy and OpenBLAS round alike on
# every x86-64 CPU (flexlib/_numerics.py says why).
from . import _numerics  # noqa: E402
_numerics.pin_this_process()
from .params import (BeamParams, SlopeParams, CoulombParams, LuGreParams, SolverSettings,  # noqa: F401
                     Case, paper_case)
from .bodies.beam import BeamModel  # noqa: F401,E402
from .paper import simulate, SimulationError, spin_up_profile  # noqa: F401,E402
from .models import MODELS, canonical_model  # noqa: F401,E402
from .result import SimulationResult, load_result  # noqa: F401,E402
from .studies.sweep import sweep, sweep_table  # noqa: F401,E402
from . import text  # noqa: F401,E402
