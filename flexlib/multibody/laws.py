"""Friction laws from outside the package, at the contact points of a system.

A friction law is data, a :class:`FrictionLaw`: its name, its function, the names and valid
ranges of its own parameters, whether it carries an internal state z, and which of its parameters
bounds the friction ratio |F_t| / N while the point sticks (none: the law never sticks).  Its
function is

    law(v_t, z, dirn, p) -> (z', mu)        with F_t = -mu N,

``v_t`` the point's tangential velocity [m/s], ``z`` its internal state, ``dirn`` the slip
direction (+1 or -1) the mode selection chose in a slip phase of a point that may stick, and 0
everywhere else (a penalty contact, a constraint contact that never sticks: the law then follows
v_t itself), ``p`` the point's parameter values in the order the law names them (a float array,
possibly longer).  It must be compilable by numba and allocate nothing.

A law serves both contact methods: at a penalty point F_t = -mu N with N of the normal law; at a
constraint point the normal constraint's generalised force carries F_t = -mu N in a slip phase
(or throughout the contact, for a point that never sticks), and a point that may stick switches
between stick and slip like the built-in hybrid laws, sticking while |F_t| <= p[stick_limit] N.

Compiled once, then cached: the law's function is compiled by numba with the disk cache, which
numba keeps beside the law's own source file, keyed on that file and the function's name; the
system's right-hand side and integrator call it through its address (a column of the system's
arrays, read as one of numba's first-class functions), so they are compiled once for all laws
and their cache holds no law.  No copy of a
package function is compiled around a law, hence no cache entry of the package is shared with,
or overwritten by, a law from outside.  A function without a source file (typed into an
interactive interpreter), or whose module was run rather than imported (not in ``sys.modules``),
is not cached on disk: it is compiled once per process.
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass

import numpy as np

from .. import _jit

__all__ = ["FrictionLaw", "law_at", "law_table"]

N_ARGS = ("v_t", "z", "dirn", "p")


@dataclass(frozen=True)
class FrictionLaw:
    """A friction law for the contact points of a system (see the module's text).

    ``params``: the names of its parameters in the order of ``p``, each optionally with its valid
    range, ``("mu_d", ("v_s", 0.0, math.inf))`` or a dict ``{"mu_d": (0.0, 2.0), ...}``; a range
    (lo, hi) is closed and a value must be finite.  ``stick_limit``: the parameter that bounds
    |F_t| / N in stick, or None if the law never sticks.  ``has_bristles``: the law integrates
    its internal state z (else z' is ignored)."""
    name: str
    function: object
    params: tuple = ()
    has_bristles: bool = False
    stick_limit: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "params", _normalised(self.name, self.params))
        names = self.names
        if self.stick_limit is not None and self.stick_limit not in names:
            raise ValueError(f"parameter 'stick_limit' = {self.stick_limit!r} of friction law "
                             f"{self.name!r} is invalid: valid range is one of its parameters "
                             f"{names} or None")
        py = getattr(self.function, "py_func", self.function)
        if not callable(py):
            raise TypeError(f"parameter 'function' = {self.function!r} of friction law "
                            f"{self.name!r} is invalid: valid is a function (v_t, z, dirn, p)")
        try:
            args = list(inspect.signature(py).parameters)
        except (TypeError, ValueError):
            args = None
        if args is not None and len(args) != len(N_ARGS):
            raise TypeError(f"parameter 'function' of friction law {self.name!r} takes {args}: "
                            f"valid is a function of 4 arguments (v_t, z, dirn, p) returning "
                            f"(z', mu)")

    @property
    def names(self) -> tuple:
        """The names of the parameters, in the order of ``p``."""
        return tuple(n for n, _, _ in self.params)

    @property
    def can_stick(self) -> bool:
        return self.stick_limit is not None

    def values(self, given) -> tuple:
        """The parameter values ``given`` (a mapping by name, or a sequence in order) as a tuple
        in the order of ``p``, each checked against its range."""
        names = self.names
        if isinstance(given, dict):
            unknown = [k for k in given if k not in names]
            if unknown:
                raise ValueError(f"parameter {unknown[0]!r} is not a parameter of friction law "
                                 f"{self.name!r}: valid are {names}")
            missing = [k for k in names if k not in given]
            if missing:
                raise ValueError(f"parameter {missing[0]!r} of friction law {self.name!r} is "
                                 f"missing: valid range is {_range(self.params[names.index(missing[0])])}")
            given = [given[k] for k in names]
        given = tuple(given)
        if len(given) != len(names):
            raise ValueError(f"friction law {self.name!r} takes {len(names)} parameters {names}, "
                             f"given {len(given)}: {given!r}")
        out = []
        for (n, lo, hi), v in zip(self.params, given):
            try:
                x = float(v)
            except (TypeError, ValueError):
                x = math.nan
            if isinstance(v, bool) or not (math.isfinite(x) and lo <= x <= hi):
                raise ValueError(f"parameter {n!r} = {v!r} of friction law {self.name!r} is "
                                 f"invalid: valid range is {_range((n, lo, hi))}")
            out.append(x)
        return tuple(out)

    def compiled(self):
        """The law as the compiled right-hand side calls it (compiled at the first call, once per
        function and process; loaded from numba's disk cache when it has been compiled before)."""
        key = id(self.function)
        hit = _COMPILED.get(key)
        if hit is None or hit.function is not self.function:
            hit = _COMPILED[key] = _Compiled(self)
        return hit


def _normalised(name, params) -> tuple:
    """``params`` as a tuple of (name, lo, hi)."""
    items = params.items() if isinstance(params, dict) else [
        (p, None) if isinstance(p, str) else (p[0], tuple(p[1:]) or None) for p in params]
    out = []
    for n, rng in items:
        lo, hi = rng if rng is not None else (-math.inf, math.inf)
        if not isinstance(n, str) or not n.isidentifier() or not float(lo) <= float(hi):
            raise ValueError(f"parameter 'params' of friction law {name!r} is invalid at {n!r}: "
                             f"valid is a name with an optional range (lo, hi), lo <= hi")
        out.append((n, float(lo), float(hi)))
    if len({n for n, _, _ in out}) != len(out):
        raise ValueError(f"parameter 'params' of friction law {name!r} repeats a name: {params!r}")
    return tuple(out)


def _range(param) -> str:
    _, lo, hi = param
    return f"[{lo:g}, {hi:g}]" if math.isfinite(lo) or math.isfinite(hi) else "a finite number"


_COMPILED: dict = {}
_BY_ADDRESS: dict = {}          # address -> the compiled law, which keeps its machine code alive


def _signature():
    from numba import types
    f8 = types.float64
    return types.UniTuple(f8, 2)(f8, f8, f8, types.Array(f8, 1, "C"))


class _Compiled:
    """A law compiled for the signature of :func:`_signature`: ``address`` is the entry of its
    C-callable wrapper, which the compiled code calls (:func:`law_at`); called directly, it runs
    the law in Python.  Without numba the address is a key of this process only."""

    def __init__(self, law: FrictionLaw):
        self.function = law.function
        self.name = law.name
        self.py = getattr(law.function, "py_func", law.function)
        self.dispatcher = None
        self.address = id(self)
        if _jit.COMPILED:
            self.dispatcher, self.address = _compile(law, self.py)
        _BY_ADDRESS[self.address] = self

    def __call__(self, v_t, z, dirn, p):
        return self.py(v_t, z, dirn, p)


def _compile(law, py):
    """(dispatcher, address of its C-callable wrapper) of ``py`` compiled with numba's disk cache
    (beside ``py``'s source file; without one, for this process only)."""
    import sys
    import numba
    sig = _signature()
    disp = None
    if getattr(py, "__module__", None) in sys.modules:
        # numba reloads a cached function's module by name: one not importable (a file run with
        # exec, not imported) would leave an entry that cannot be loaded
        try:
            disp = numba.njit(cache=True)(py)
        except RuntimeError:            # no source file to cache beside
            pass
    disp = disp or numba.njit(py)
    try:
        disp.compile(sig)
        cres = disp.get_compile_result(sig)
    except Exception as err:
        raise TypeError(f"friction law {law.name!r}: its function does not compile as "
                        f"(v_t: float, z: float, dirn: float, p: float array) -> (z', mu): "
                        f"{type(err).__name__}: {str(err).splitlines()[0]}") from None
    if cres.signature.return_type != sig.return_type:
        raise TypeError(f"friction law {law.name!r} returns {cres.signature.return_type}: valid "
                        f"is a pair of floats (z', mu)")
    return disp, cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name)


def law_at(address):
    """The law whose :attr:`_Compiled.address` is ``address`` (Python)."""
    return _BY_ADDRESS[address]


if _jit.COMPILED:
    from numba import types as _types
    from numba.core import cgutils as _cg
    from numba.extending import intrinsic as _intrinsic

    @_intrinsic
    def law_at(typingctx, address):     # noqa: F811 - the compiled variant
        """The law at ``address`` (an int64) as numba's first-class function of the laws'
        signature: calling it calls the law's machine code; nothing of the law is compiled into
        the caller, whose compiled code (and its disk cache) serves every law."""
        fty = _types.FunctionType(_signature())

        def codegen(context, builder, sig, args):
            fn = _cg.create_struct_proxy(fty)(context, builder)
            vp = context.get_value_type(_types.voidptr)
            fn.c_addr = builder.inttoptr(args[0], vp)
            fn.py_addr = _cg.get_null_value(vp)
            fn.jit_addr = _cg.get_null_value(vp)
            return fn._getvalue()

        return fty(_types.int64), codegen


def law_table(laws):
    """(addresses (n,) int64, parameters (n, n_par)) of the contact points' ``laws`` (each a
    pair (FrictionLaw or None, its values)); 0 where a point has no law from outside."""
    n = max(len(laws), 1)
    width = max([1] + [len(v) for _, v in laws])
    addr = np.zeros(n, dtype=np.int64)
    table = np.zeros((n, width))
    for k, (law, v) in enumerate(laws):
        if law is not None:
            addr[k] = law.compiled().address
            table[k, :len(v)] = v
    return addr, table
