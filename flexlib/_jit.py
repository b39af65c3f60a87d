"""Compilation of the physics functions the simulator runs.

``hot(f)`` is ``numba.njit(cache=True)`` without reference counting, for the allocation-free
functions of the right-hand side (every array argument of a compiled call otherwise costs an
atomic incref/decref pair, which was a third of the right-hand side's cost, 0.28 of 0.89 us at
N = 3); ``inlined(f)`` is ``hot(f)`` inlined by numba into its compiled callers (for the body's
functions that take the modal data as one named tuple: without it the split of the right-hand
side into modules cost 15 % of its time); ``compiled(f)`` is ``numba.njit(cache=True)`` for the
functions that allocate (called from Python: the tip kinematics of an event, the jump, the
sample histories).  With ``FLEXLIB_NO_NUMBA=1`` (the pure-NumPy path) or without numba all
three return ``f`` unchanged.

Every function compiled here is listed in :data:`DISPATCHERS`.  numba keys the disk cache of a
function on its own file only, so a change in a module it calls would leave a stale compiled
version (https://github.com/numba/numba/issues/1833): :data:`SOURCE_STAMP` hashes every module
whose code or constants are compiled (:data:`COMPILED_MODULES`), and each of them ends with
:func:`flush_module`, which drops its caches when the stamp has changed.  The integrator
(:mod:`flexlib.solver.integrator`) and the history loops (:mod:`flexlib.history`) compile their own
loops around these functions with numba directly and flush them with the same stamp.
"""
from __future__ import annotations

import hashlib
import os

COMPILED = False        # True when the physics runs compiled by numba
NO_REFCOUNT = {}        # the numba options of ``hot`` (empty when numba lacks ``_nrt``)
DISPATCHERS = []        # every function compiled by ``hot``, ``compiled`` or ``inlined``
njit = None             # numba.njit when numba is on

# Every module whose code or constants are compiled into the physics
# (tests/test_import_graph.py checks that each module compiling functions here is listed).
COMPILED_MODULES = ("bodies/beam", "contact/slope",
                    "solver/linalg", "contact/friction", "contact/penalty",
                    "layout", "models", "_jit", "multibody/assembly",
                    "multibody/floating", "multibody/kernel", "multibody/laws",
                    "multibody/drives", "multibody/structured", "multibody/newton")


def _source_stamp() -> str:
    """SHA-256 of the modules of :data:`COMPILED_MODULES`."""
    h = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    for name in COMPILED_MODULES:
        try:
            with open(os.path.join(here, name + ".py"), "rb") as fh:
                h.update(fh.read())
        except OSError:      # pragma: no cover - a zipped install: numba does not cache there
            h.update(name.encode())
    return h.hexdigest()


SOURCE_STAMP = _source_stamp()


def hot(fn):
    """``fn`` as the right-hand side calls it: compiled without reference counting when numba
    is on, else unchanged."""
    return fn


def compiled(fn):
    """``fn`` compiled with numba (cached, with reference counting: it may allocate), else
    unchanged."""
    return fn


def inlined(fn):
    """``fn`` as ``hot``, and inlined by numba into every compiled caller (for the small
    functions that take the modal data as one named tuple: a call that passes the tuple is
    not free next to a right-hand side of ~0.4 us)."""
    return fn


if not os.environ.get("FLEXLIB_NO_NUMBA"):   # FLEXLIB_NO_NUMBA=1 selects the pure-NumPy path
    try:
        import numba as _nb
    except ImportError:      # pragma: no cover - numba is a declared dependency
        _nb = None
    if _nb is not None:
        import numba.core.options as _nbo
        NO_REFCOUNT = dict(_nrt=False) if hasattr(_nbo.DefaultOptions, "_nrt") else {}
        COMPILED = True
        njit = _nb.njit

        def hot(fn):    # noqa: F811 - the compiled variant
            """``fn`` compiled with numba (cached, no reference counting)."""
            disp = _nb.njit(cache=True, **NO_REFCOUNT)(fn)
            DISPATCHERS.append(disp)
            return disp

        def compiled(fn):    # noqa: F811 - the compiled variant
            """``fn`` compiled with numba (cached)."""
            disp = _nb.njit(cache=True)(fn)
            DISPATCHERS.append(disp)
            return disp

        def inlined(fn):    # noqa: F811 - the compiled variant
            """``fn`` compiled with numba (cached, no reference counting), inlined into callers."""
            disp = _nb.njit(cache=True, inline="always", **NO_REFCOUNT)(fn)
            DISPATCHERS.append(disp)
            return disp


def flush_stale_cache(dispatchers, stamp_file: str, stamp: str):
    """Flush the numba caches of ``dispatchers`` when ``stamp`` (a hash of the sources compiled
    into them) differs from the one stored in ``stamp_file`` beside their cache, then store it."""
    try:
        path = os.path.join(dispatchers[0]._cache.cache_path, stamp_file)
        old = None
        if os.path.exists(path):
            with open(path) as fh:
                old = fh.read().strip()
        if old != stamp:
            for disp in dispatchers:
                disp._cache.flush()
            with open(path, "w") as fh:
                fh.write(stamp)
    except Exception:   # pragma: no cover - read-only install: numba then won't cache
        pass


def flush_module(module: str):
    """At the end of the module named ``module`` (its ``__name__``): flush the caches of the
    functions compiled there if :data:`SOURCE_STAMP` changed since they were cached."""
    disps = [d for d in DISPATCHERS if getattr(d, "py_func", None) is not None
             and d.py_func.__module__ == module]
    if disps:
        flush_stale_cache(disps, module.rsplit(".", 1)[-1] + ".deps-sha256", SOURCE_STAMP)
