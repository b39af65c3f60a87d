"""The same numbers, to the last bit, on every x86-64 CPU.

flexlib's compiled code (numba) rounds alike on every x86-64 CPU, but two libraries it uses pick
their code by the processor: NumPy's vectorised sin, cos, exp, ... have an AVX-512 version
(Intel's SVML) that differs from the AVX2 one in the last bit, and OpenBLAS has matrix kernels
per CPU family.  The modal integrals of the beam (:mod:`flexlib.modes`) go through both, so an
AVX-512 machine starts a run from mass matrices that differ in the 16th digit, and the
event-driven runs amplify that: the frictionless run of case 3.2 makes 67 velocity jumps in
0-2 s on an AMD EPYC and 59 on an Intel Xeon with AVX-512, the LuGre runs agree to 1e-5.

:func:`pins` is the environment that makes both libraries take their AVX2 paths on a CPU that
has AVX2 and FMA: ``OPENBLAS_CORETYPE=Haswell`` (the kernels OpenBLAS also uses on AMD Zen) and,
where the CPU has AVX-512, ``NPY_DISABLE_CPU_FEATURES`` for NumPy's AVX-512 targets.  Both are
read when NumPy is imported, so they must be set before: the README's two commands
(scripts/figures.sh and scripts/test.sh, through scripts/_venv.sh) run
``python flexlib/_numerics.py``, which prints them as shell ``export`` lines, and export
them.  With them an Intel Xeon (family 6 model 167) reproduces the figures and fingerprints
made on an AMD EPYC (family 25 model 1) to the bit.  :func:`numerics_id` names the numeric
environment of the running process (a hash of what NumPy and OpenBLAS return for fixed inputs),
so that results recorded under one environment are compared to the bit only under the same one.
"""
from __future__ import annotations

import hashlib
import os
import platform

NUMPY_AVX512 = "X86_V4 AVX512_ICL AVX512_SPR"      # NumPy 2's AVX-512 dispatch targets


def _cpu_flags() -> set:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return set(line.partition(":")[2].split())
    except OSError:
        pass
    return set()


def pins() -> dict:
    """The environment variables that make NumPy and OpenBLAS round as on an AVX2 CPU (empty
    where they are not needed or not safe: not x86-64, or no AVX2 and FMA)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return {}
    flags = _cpu_flags()
    if not {"avx2", "fma"} <= flags:
        return {}
    env = {"OPENBLAS_CORETYPE": "Haswell"}
    if "avx512f" in flags:
        env["NPY_DISABLE_CPU_FEATURES"] = NUMPY_AVX512
    return env


def pinned() -> bool:
    """Whether this process runs with :func:`pins` (or a CPU that needs none)."""
    return all(os.environ.get(k) == v for k, v in pins().items())


def numerics_id() -> str:
    """A short hash of how NumPy's elementwise functions and OpenBLAS round here: sin, cos, exp,
    matrix-matrix and vector-matrix products of fixed inputs, the operations of the modal
    integrals (40 Gauss nodes, a few modes)."""
    import numpy as np
    x = np.linspace(-30.0, 30.0, 4099)
    a = np.sin(x) + np.cos(0.7 * x) + np.exp(-np.abs(x)) + np.exp(0.02 * x)
    m = np.cos(np.outer(np.arange(1.0, 41.0), np.arange(1.0, 9.0)))
    w = np.linspace(0.1, 1.0, 40)
    h = hashlib.sha256()
    for arr in (a, m.T @ (w[:, None] * m), np.einsum("ki,kj->ij", m, m), w @ m, w @ m[:, :3]):
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()[:12]


if __name__ == "__main__":      # `python flexlib/_numerics.py`: the pins as shell exports
    for key, value in pins().items():
        print(f"export {key}=\"${{{key}:-{value}}}\"")
