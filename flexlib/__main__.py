"""``python -m flexlib``: see :mod:`flexlib.cli`."""
import sys

from . import _numerics

# Guarded: the worker processes of a sweep (spawn / forkserver) import the main module again.
if __name__ == "__main__":
    _numerics.reexec_pinned()          # only if NumPy was loaded before flexlib, without the pins
    from .cli import main
    sys.exit(main())
