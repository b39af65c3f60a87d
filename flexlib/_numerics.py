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
read when NumPy is imported, so they must be set before.  Four places do it:

* ``import flexlib`` (:func:`pin_this_process`, the first thing the package does) sets them in
  the process's environment when NumPy is not loaded yet: ``python -m flexlib``, a script or a
  notebook that imports flexlib before NumPy, and every process started from them;
* ``python -m flexlib`` started in a process that had loaded NumPy already without them (a
  ``sitecustomize``, say) starts itself again with them (:func:`reexec_pinned`);
* the Jupyter kernel "flexlib", which the README's two commands install into ``.venv``
  (``python flexlib/_numerics.py --kernel``; :func:`write_kernelspec`), carries them in its
  environment, and every notebook names that kernel, so JupyterLab started as the README says
  runs pinned whatever the notebook imports first;
* the two commands themselves (scripts/figures.sh and scripts/test.sh, through
  scripts/_venv.sh) run ``python flexlib/_numerics.py``, which prints them as shell ``export``
  lines, and export them.

With them an Intel Xeon (family 6 model 167) reproduces the figures and fingerprints made on an
AMD EPYC (family 25 model 1) to the bit.  A process that imported NumPy before flexlib without
the pins on a CPU with AVX-512 gets a warning (:func:`pin_this_process`).  :func:`numerics_id` names the numeric
environment of the running process (a hash of what NumPy and OpenBLAS return for fixed inputs),
so that results recorded under one environment are compared to the bit only under the same one.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import warnings

NUMPY_AVX512 = "X86_V4 AVX512_ICL AVX512_SPR"      # NumPy 2's AVX-512 dispatch targets
KERNEL_NAME = "flexlib"                             # the Jupyter kernel the notebooks name
KERNEL_DISPLAY_NAME = "Python 3 (flexlib)"
# Whether NumPy was already loaded without the pins when flexlib was imported (pin_this_process).
LOADED_UNPINNED = False


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


def pin_this_process() -> bool:
    """Set :func:`pins` in this process's environment (a value the user set is kept) if NumPy is
    not loaded yet, so that NumPy and OpenBLAS read them when they load; return whether they are
    in effect.  If NumPy was loaded before without them, nothing can change its code paths any
    more: on a CPU with AVX-512 (where they differ) this warns once."""
    global LOADED_UNPINNED
    wanted = pins()
    if "numpy" not in sys.modules:
        for key, value in wanted.items():
            os.environ.setdefault(key, value)
        return pinned()
    LOADED_UNPINNED = not pinned()
    argv = list(getattr(sys, "orig_argv", []))
    as_cli = any(a == "-m" and b == "flexlib" for a, b in zip(argv, argv[1:]))   # re-executes
    if LOADED_UNPINNED and "NPY_DISABLE_CPU_FEATURES" in wanted and not as_cli:
        warnings.warn("NumPy was imported before flexlib without the settings that make its "
                      "results the same on every x86-64 CPU, so late impacts can differ from the "
                      "README and the figures: import flexlib before NumPy, or run the notebooks "
                      "with the kernel 'Python 3 (flexlib)' (see flexlib/_numerics.py)",
                      RuntimeWarning, stacklevel=3)
    return not LOADED_UNPINNED


def reexec_pinned(argv=None) -> None:
    """Start this process again with the pins if NumPy was loaded before them (``python -m
    flexlib`` under a ``sitecustomize`` that imports NumPy).  Once only: the new process has
    them in its environment, so it does not come back here."""
    if not LOADED_UNPINNED or not pins() or pinned():
        return
    os.environ.update(pins())
    argv = list(argv or getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv])
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, *argv[1:]])


def kernelspec(python: str | None = None) -> dict:
    """The Jupyter kernel spec of the kernel "flexlib": this environment's ipykernel, with
    :func:`pins` in its environment (so the kernel's NumPy loads pinned)."""
    python = python or sys.executable
    return {"argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": KERNEL_DISPLAY_NAME, "language": "python",
            "env": pins(), "metadata": {"debugger": True}}


def write_kernelspec(prefix: str | None = None, python: str | None = None) -> str | None:
    """Write :func:`kernelspec` to ``<prefix>/share/jupyter/kernels/flexlib/kernel.json``
    (default prefix: this environment's, ``sys.prefix``), where JupyterLab and nbclient started
    from this environment find it.  Returns the path, or None without ipykernel (nothing to
    start).  The file is rewritten only when its content changes."""
    import importlib.util
    if importlib.util.find_spec("ipykernel") is None:
        return None
    folder = os.path.join(prefix or sys.prefix, "share", "jupyter", "kernels", KERNEL_NAME)
    path = os.path.join(folder, "kernel.json")
    text = json.dumps(kernelspec(python), indent=1) + "\n"
    try:
        with open(path) as fh:
            if fh.read() == text:
                return path
    except OSError:
        pass
    os.makedirs(folder, exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    return path


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


if __name__ == "__main__":
    if sys.argv[1:] == ["--kernel"]:         # `python flexlib/_numerics.py --kernel`: the kernel spec
        written = write_kernelspec()
        if written is None:
            print("flexlib: ipykernel is not installed here: no Jupyter kernel written", file=sys.stderr)
    else:                                     # `python flexlib/_numerics.py`: the pins as shell exports
        for key, value in pins().items():
            print(f"export {key}=\"${{{key}:-{value}}}\"")
