"""``python -m flexlib``: see :mod:`flexlib.cli`."""
import sys

from .cli import main

# Guarded: the worker processes of a sweep (spawn / forkserver) import the main module again.
if __name__ == "__main__":
    sys.exit(main())
