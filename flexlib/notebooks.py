"""``python -m flexlib notebooks``: re-execute the notebooks in place and store them clean.

Each notebook runs top to bottom in a fresh kernel "flexlib" (this environment's Python with the
numerical settings of :mod:`flexlib._numerics`, the kernel the notebooks name; written into the
environment if it is missing, else the plain ``python3`` kernel, which inherits the settings from
this process) with its own folder as the working directory (so ``../figures/...`` links resolve),
600 s per cell at most.  Afterwards the widget
state (``metadata.widgets``) and the execution-timing metadata are removed, so a re-run changes
only what the computation changes.  A notebook whose execution fails is left untouched.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from .text import plural

__all__ = ["NOTEBOOK_DIR", "notebook_paths", "clean", "execute", "execute_all"]

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
CELL_TIMEOUT = 600


def notebook_paths(paths=None) -> list[Path]:
    """The given notebooks, or every ``notebooks/*.ipynb`` in name order."""
    if paths:
        return [Path(p) for p in paths]
    return sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def clean(nb):
    """Drop widget state and execution timing from a notebook node (in place); return it."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("ExecuteTime", None)
    return nb


def kernel_name() -> str:
    """The kernel to run the notebooks on: "flexlib" (written into this environment if missing),
    or "python3" where it cannot be written."""
    from . import _numerics
    try:
        if _numerics.write_kernelspec():
            return _numerics.KERNEL_NAME
    except OSError:
        pass
    return "python3"


def execute(path, timeout: int = CELL_TIMEOUT) -> float:
    """Execute one notebook in place; return the wall time in s.  Raises on a failing cell."""
    import nbformat
    from nbclient import NotebookClient
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name(), record_timing=False,
                            resources={"metadata": {"path": str(path.resolve().parent)}})
    w0 = time.perf_counter()
    client.execute()
    wall = time.perf_counter() - w0
    nbformat.write(clean(nb), path)
    return wall


def execute_all(paths=None) -> int:
    """Execute every notebook (or ``paths``) in place.  Returns 0 if all ran, 1 otherwise."""
    from nbclient.exceptions import CellExecutionError
    failed = []
    for p in notebook_paths(paths):
        try:
            wall = execute(p)
        except (CellExecutionError, OSError) as err:
            failed.append(p.name)
            first = str(err).strip().splitlines()
            sys.stderr.write(f"{p.name}: FAILED ({first[-1] if first else type(err).__name__})\n")
            continue
        print(f"{p.name}: executed in {wall:.1f} s")
    if failed:
        sys.stderr.write(f"{plural(len(failed), 'notebook')} failed: {', '.join(failed)}\n")
        return 1
    return 0
