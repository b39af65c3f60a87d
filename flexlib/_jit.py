"""Compilation of the small physics functions the compiled right-hand side calls.

``hot(f)`` is ``numba.njit(cache=True)`` without reference counting (the kernel's right-hand side,
which inlines these functions, is compiled that way: see :mod:`flexlib.kernel`), or ``f`` itself
with ``FLEXLIB_NO_NUMBA=1`` (the pure-NumPy path) or without numba.  numba's cache of the kernel
is keyed on kernel.py only; :data:`flexlib.kernel.SOURCE_STAMP` hashes the modules that use
``hot`` so that a change in them flushes it.
"""
from __future__ import annotations

import os


def hot(fn):
    """``fn`` as the kernel calls it: compiled when numba is on, else unchanged."""
    return fn


if not os.environ.get("FLEXLIB_NO_NUMBA"):   # the same switch as flexlib.kernel
    try:
        import numba as _nb
    except ImportError:      # pragma: no cover - numba is a declared dependency
        _nb = None
    if _nb is not None:
        import numba.core.options as _nbo
        _OPTS = dict(_nrt=False) if hasattr(_nbo.DefaultOptions, "_nrt") else {}

        def hot(fn):    # noqa: F811 - the compiled variant
            """``fn`` compiled with numba (cached, no reference counting)."""
            return _nb.njit(cache=True, **_OPTS)(fn)
