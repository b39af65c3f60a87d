"""``python -m flexlib``: see :mod:`flexlib.cli`."""
import sys

from .cli import main

sys.exit(main())
