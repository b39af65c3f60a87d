"""The same numbers, to the last bit, on every x86-64 CPU.

flexlib's compiled code (numba) rounds alike on every x86-64 CPU, but two libraries it uses pick
their code by the processor: NumPy's vectorised sin, cos, exp, ... have an AVX-512 version
(Intel's SVML) that differs from the AVX2 one in the last bit, and OpenBLAS has matrix kernels
per CPU family.  The modal integrals of the beam (:mod:`flexlib.bodies.modes`) go through both, so an
AVX-512 machine starts a run from mass matrices that differ in the 16th digit, and the
event-driven runs amplify that: the frictionless run of case 3.2 makes 67 velocity jumps in
0-2 s on an AMD EPYC and 59 on an Intel Xeon with AVX-512, the LuGre runs agree to 1e-5.

:func:`pins` is the environment that makes both libraries take their AVX2 paths on a CPU that
has AVX2 and FMA: ``OPENBLAS_CORETYPE=Haswell`` (the kernels OpenBLAS also uses on AMD Zen) and,
where the CPU has AVX-512, ``NPY_DISABLE_CPU_FEATURES`` for NumPy's AVX-512 targets.  Both are
read when NumPy is imported, so they must be set before.  Five places do it:

* ``import flexlib`` (:func:`pin_this_process`, the first thing the package does) sets them in
  the process's environment when NumPy is not loaded yet: ``python -m flexlib``, a script or a
  notebook that imports flexlib before NumPy, and every process started from them;
* ``python -m flexlib`` started in a process that had loaded NumPy already without them (a
  ``sitecustomize``, say) starts itself again with them, once (:func:`reexec_pinned`);
* the Jupyter kernel "flexlib", which the README's two commands install into ``.venv``
  (``python flexlib/_numerics.py --kernel``; :func:`write_kernelspec`), carries them in its
  environment, and every notebook names that kernel, so JupyterLab started as the README says
  runs pinned whatever the notebook imports first;
* the two commands themselves (scripts/figures.sh and scripts/test.sh, through
  scripts/_venv.sh) run ``python flexlib/_numerics.py``, which prints them as shell ``export``
  lines, and export them;
* a sweep's worker processes (:mod:`flexlib.studies.sweep`, local pool or Dask) start with
  :func:`worker_environment`: the pins and the BLAS thread counts of the process that runs the
  sweep, so that every engine gives the same bits.

A value the user gives one of the two variables (in the shell, or in a ``sitecustomize``) is
always kept: ``import flexlib`` sets only the missing ones, ``python -m flexlib`` does not start
itself again over it, and the CLI prints a note that names the variable.  The CLI prints a note
too when the settings could not apply because NumPy was loaded before them.

The names in ``NPY_DISABLE_CPU_FEATURES`` are NumPy's dispatch targets, which NumPy 2.4 renamed
(before it, AVX-512 code was ``AVX512F``, ``AVX512_SKX``, ...); pyproject.toml therefore asks for
NumPy >= 2.4, and :func:`pinned` asks the loaded NumPy which of its AVX-512 targets are active
(:func:`numpy_avx512_active`) rather than trusting the environment alone.

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

NUMPY_AVX512 = "X86_V4 AVX512_ICL AVX512_SPR"      # NumPy >= 2.4's AVX-512 dispatch targets
KERNEL_NAME = "flexlib"                             # the Jupyter kernel the notebooks name
KERNEL_DISPLAY_NAME = "Python 3 (flexlib)"
# Whether NumPy was already loaded without the pins when flexlib was imported (pin_this_process).
LOADED_UNPINNED = False
# Set in the environment of the process that reexec_pinned starts, so that it starts at most one.
REEXEC_GUARD = "FLEXLIB_NUMERICS_REEXECUTED"
# Whether this process is the one reexec_pinned started (it removes REEXEC_GUARD again).
REEXECUTED = False
# The BLAS thread counts.  Not pinned (how many cores to use is the user's choice), but they too
# change the last bits: OpenBLAS splits some reductions between its threads (the symmetric
# matrix-vector products of an eigensolver, say), and a 200 x 200 eigenvalue problem rounds
# differently with 1 and 2 threads.  Dask's worker processes set all three to 1 by default.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
# The values of pins() and THREAD_VARIABLES in the environment when flexlib was imported (after
# pin_this_process): what NumPy and OpenBLAS loaded with, whatever changes os.environ later.
STARTUP_ENV: dict = {}


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


def numpy_avx512_active() -> list | None:
    """The AVX-512 dispatch targets that the loaded NumPy reports as in use on this CPU (its
    ``__cpu_dispatch__`` entries named ``AVX512*`` or ``X86_V4`` that ``__cpu_features__`` marks
    available; NPY_DISABLE_CPU_FEATURES turns them off there).  None when NumPy is not loaded
    (this never imports it) or does not report them."""
    if "numpy" not in sys.modules:
        return None
    umath = (sys.modules.get("numpy._core._multiarray_umath")
             or sys.modules.get("numpy.core._multiarray_umath"))
    features = getattr(umath, "__cpu_features__", None)
    dispatch = getattr(umath, "__cpu_dispatch__", None)
    if not isinstance(features, dict) or dispatch is None:
        return None
    return [t for t in dispatch
            if (t.startswith("AVX512") or t == "X86_V4") and features.get(t)]


def env_differences() -> dict:
    """{variable: (value in the environment or None if unset, flexlib's value)} for each of
    :func:`pins` that the environment does not give flexlib's value."""
    return {k: (os.environ.get(k), v) for k, v in pins().items() if os.environ.get(k) != v}


def pinned() -> bool:
    """Whether this process runs with :func:`pins` (or a CPU that needs none): the environment
    holds them and, once NumPy is loaded, NumPy reports none of its AVX-512 code as in use.
    (OpenBLAS's choice is not reported; its variable is checked in the environment only.)"""
    if env_differences():
        return False
    return not (numpy_avx512_active() if "NPY_DISABLE_CPU_FEATURES" in pins() else None)


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
    if not STARTUP_ENV:
        STARTUP_ENV.update({k: os.environ.get(k) for k in (*wanted, *THREAD_VARIABLES)})
    if "numpy" not in sys.modules:
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


def worker_environment() -> dict:
    """{variable: value, or None for unset} that a worker process (of a sweep) must start with to
    compute as this process does, bit for bit: :func:`pins`, with the value this process was
    started with where the user gave one, and this process's BLAS thread counts
    (:data:`THREAD_VARIABLES`, unset where they were unset: the library's default).  The values
    are those at ``import flexlib``, not whatever changed ``os.environ`` since (a Dask
    ``LocalCluster`` sets the thread counts to 1 in the process that starts it).  If NumPy was
    loaded here before the pins, a worker still gets them: it then computes as the README and
    the figures do, not as this process."""
    start = STARTUP_ENV or {k: os.environ.get(k) for k in (*pins(), *THREAD_VARIABLES)}
    env = {k: (v if start.get(k) is None else start[k]) for k, v in pins().items()}
    env.update({k: start.get(k) for k in THREAD_VARIABLES})
    return env


def unpinned_summary() -> str | None:
    """A few words on why this process does not run with :func:`pins` (``"OPENBLAS_CORETYPE
    unset, NumPy uses X86_V4"``), or None when it does: what a worker process reports."""
    if pinned():
        return None
    words = [f"{k} {'unset' if have is None else f'= {have!r}'}"
             for k, (have, _) in env_differences().items()]
    active = numpy_avx512_active() if "NPY_DISABLE_CPU_FEATURES" in pins() else None
    if active:
        words.append(f"NumPy uses {' '.join(active)}")
    return ", ".join(words) or "not pinned"


def reexec_pinned(argv=None) -> None:
    """Start this process again with the pins if NumPy was loaded before them (``python -m
    flexlib`` under a ``sitecustomize`` that imports NumPy).  At most once: the new process
    carries :data:`REEXEC_GUARD`, and if it is still not pinned (the ``sitecustomize`` removes
    the variables, say) it runs as it is and the CLI's note says why.  No new process when the
    environment gives one of the variables a value of its own: the user's value is kept."""
    global REEXECUTED
    if os.environ.pop(REEXEC_GUARD, None) is not None:
        REEXECUTED = True
        return
    wanted = pins()
    if not LOADED_UNPINNED or not wanted or pinned():
        return
    if any(os.environ.get(k, v) != v for k, v in wanted.items()):
        return                                      # a value set by the user: kept, no re-exec
    os.environ.update(wanted)                       # only unset ones, by the test above
    os.environ[REEXEC_GUARD] = "1"
    argv = list(argv or getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv])
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, *argv[1:]])


def describe_unpinned() -> str | None:
    """One paragraph on why this process does not run with :func:`pins` and what to do, or
    None when it does.  Names each variable that is unset or has a value of its own, and says
    when NumPy was loaded before the settings could apply."""
    if pinned():
        return None
    diffs = env_differences()
    missing = [k for k, (have, _) in diffs.items() if have is None]
    other = {k: pair for k, pair in diffs.items() if pair[0] is not None}
    active = numpy_avx512_active() if "NPY_DISABLE_CPU_FEATURES" in pins() else None
    parts = []
    if other:
        parts.append("the environment sets " + ", ".join(
            f"{k}={have!r} (flexlib's value: {want!r})" for k, (have, want) in other.items())
            + "; a value set by the user is kept")
    if missing or (LOADED_UNPINNED and not other) or (active and not diffs):
        names = " and ".join(missing) or "NPY_DISABLE_CPU_FEATURES"
        why = (f"{names} {'is' if len(missing) < 2 else 'are'} not set" if missing
               else f"NumPy still uses its AVX-512 code ({' '.join(active)})" if active else
               "the settings did not apply")
        them = "it" if len(missing) == 1 else "them"
        how = (f"NumPy was loaded before flexlib could set {them} (a sitecustomize or usercustomize "
               "that imports NumPy, or a script that imports NumPy before flexlib)"
               if LOADED_UNPINNED or active else f"something removed {them} after flexlib set {them}")
        if REEXECUTED:
            how += (f"; flexlib started itself again with {them}, and NumPy was loaded without "
                    f"{them} again")
        parts.append(f"{why}: {how}")
    todo = []
    if other:
        todo.append("unset " + " and ".join(other))
    if missing or LOADED_UNPINNED or active:
        todo.append("set the variables before Python starts "
                    "(eval \"$(python flexlib/_numerics.py)\" in bash prints and sets them) or "
                    "import flexlib before NumPy")
    return ("; ".join(parts) + ". So NumPy and OpenBLAS round differently from the runs in the "
            "README and figures/: the numbers can differ in the last digits, and the late impacts "
            "of a run visibly. To get those numbers: " + " and ".join(todo) + ".")


def kernelspec(python: str | None = None) -> dict:
    """The Jupyter kernel spec of the kernel "flexlib": this environment's ipykernel, with
    :func:`pins` in its environment (so the kernel's NumPy loads pinned)."""
    python = python or sys.executable
    return {"argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": KERNEL_DISPLAY_NAME, "language": "python",
            "env": pins(), "metadata": {"debugger": True}}


def write_kernelspec(prefix: str | None = None, python: str | None = None) -> str | None:
    """Write :func:`kernelspec` to ``<prefix>/share/jupyter/kernels/flexlib/solver/kernel.json``
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
