"""``python -m flexlib notebooks``: re-execute the notebooks in place and store them clean.

Each notebook runs top to bottom in a fresh kernel "flexlib" (this environment's Python with the
numerical settings of :mod:`flexlib._numerics`, the kernel the notebooks name; written into the
environment if it is missing, else the plain ``python3`` kernel, which inherits the settings from
this process) with its own folder as the working directory (so ``../figures/...`` links resolve).
Afterwards the widget state (``metadata.widgets``) and the execution-timing metadata are removed,
so a re-run changes only what the computation changes.  A notebook whose execution fails is left
untouched.

The run never hangs and never shows a traceback:

* every cell has a time limit (``timeout``, 600 s by default; ``--timeout`` on the command
  line); a cell that exceeds it is interrupted and its notebook stopped;
* each notebook is run by a runner process of its own (``python -m flexlib.notebooks --one``),
  which starts the notebook's kernel and shuts it down when the notebook ends, however it
  ends.  Nothing of one notebook's run (kernel, event loop, sockets, signal handlers) is left
  for the next, so the order of the notebooks does not matter, and the runner process itself
  is stopped if it outlives every cell's limit;
* a notebook that fails (a cell raises, exceeds its limit, or its kernel dies) is reported in
  one line with the notebook's name and the cell (its position, counted from 1 over all
  cells, Markdown included, and its first line of source); the next notebook still runs, and
  the command ends with exit status 1.  Ctrl-C stops the kernel and the run (exit status 130).
  What the runner process and the kernel print themselves (ipykernel's warnings, say) goes to a
  temporary file, not to the terminal.
"""
from __future__ import annotations

import json
import logging
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .params import check_number
from .text import plural

__all__ = ["NOTEBOOK_DIR", "CELL_TIMEOUT", "NotebookFailed", "notebook_paths", "clean", "execute",
           "execute_all"]

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
CELL_TIMEOUT = 600          # s per cell
TIMEOUT_ENAME = "CellTimeout"   # the error name the runner gives a cell stopped at its limit
# The runner process of one notebook gets, beyond every cell's limit, this long to start the
# kernel (nbclient waits up to 60 s), shut it down and write the notebook, before it is stopped.
RUNNER_SLACK = 180          # s
RUNNER_STOP_WAIT = 20       # s between asking a runner process to stop and killing it


class NotebookFailed(Exception):
    """A notebook did not run to its end; the message says where and why, in one line."""


def notebook_paths(paths=None) -> list[Path]:
    """The given notebooks, or every ``notebooks/*.ipynb`` in name order."""
    if paths:
        return [Path(p) for p in paths]
    return sorted(NOTEBOOK_DIR.glob("*.ipynb"))


def check_timeout(timeout) -> float:
    """The per-cell time limit as a float [s]; a clear error for anything but a number > 0."""
    valid = "a number of seconds > 0 (a time limit per cell)"
    t = check_number("timeout", timeout, valid)
    if not t > 0:
        raise ValueError(f"parameter 'timeout' = {timeout!r} is invalid: valid range is {valid}")
    return t


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


def _one_line(text, limit=200) -> str:
    lines = [ln.strip() for ln in str(text).strip().splitlines() if ln.strip()]
    first = lines[0] if lines else ""
    return first if len(first) <= limit else first[:limit - 3] + "..."


def _where(nb, index) -> str:
    """``at cell 7 of 15 ('time.sleep(30)')``: the position counted from 1 over all cells, and
    the first line of the cell's source."""
    if index is None:
        return "before its first cell"
    source = _one_line(nb.cells[index].source, 60)
    return f"at cell {index + 1} of {len(nb.cells)} ({source!r})"


def execute(path, timeout: float = CELL_TIMEOUT, kernel: str | None = None) -> float:
    """Execute one notebook in place in this process, in a fresh kernel (``kernel``, default
    :func:`kernel_name`) that is shut down when it ends; return the wall time in s.  Raises
    :class:`NotebookFailed` (one line: the cell and why) when a cell raises, runs longer than
    ``timeout`` s, or the kernel dies or does not start."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    timeout = check_timeout(timeout)
    path = Path(path)
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as err:          # missing, not JSON, not a notebook
        raise NotebookFailed(f"on reading it: {_one_line(err)}") from None
    at = {"index": None}
    client = NotebookClient(
        nb, timeout=timeout, kernel_name=kernel or kernel_name(), record_timing=False,
        # at its limit a cell is interrupted and reported as an error named TIMEOUT_ENAME,
        # without waiting for the kernel to answer the interrupt
        interrupt_on_timeout=True,
        error_on_timeout={"ename": TIMEOUT_ENAME, "evalue": "", "traceback": []},
        on_cell_execute=lambda cell, cell_index: at.update(index=cell_index),
        resources={"metadata": {"path": str(path.resolve().parent)}})
    quiet = logging.getLogger("flexlib.notebooks.nbclient")    # its errors are reported below
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    client.log = quiet
    w0 = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError as err:
        why = (f"timed out after {timeout:g} s (the limit per cell; --timeout sets it)"
               if err.ename == TIMEOUT_ENAME else
               f"{err.ename}: {_one_line(err.evalue)}" if err.evalue else err.ename)
        raise NotebookFailed(f"{_where(nb, at['index'])}: {why}") from None
    except CellTimeoutError:
        raise NotebookFailed(f"{_where(nb, at['index'])}: the kernel did not answer "
                             f"within {timeout:g} s") from None
    except DeadKernelError:
        raise NotebookFailed(f"{_where(nb, at['index'])}: the kernel died") from None
    except KeyboardInterrupt:
        raise
    except Exception as err:          # the kernel did not start, or a fault of nbclient's
        where = ("before its first cell: the kernel did not start" if at["index"] is None
                 else _where(nb, at["index"]))
        raise NotebookFailed(f"{where}: {type(err).__name__}: {_one_line(err)}") from None
    wall = time.perf_counter() - w0
    nbformat.write(clean(nb), path)
    return wall


def _code_cells(path) -> int:
    try:
        return sum(c.get("cell_type") == "code" for c in json.loads(Path(path).read_text())["cells"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return 0


def _stop(proc):
    """Ask a runner process to stop (it then shuts its kernel down), kill it if it does not."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=RUNNER_STOP_WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_isolated(path, timeout: float = CELL_TIMEOUT, kernel: str | None = None):
    """Run :func:`execute` on one notebook in a runner process of its own; return
    ``(True, wall time in s)`` or ``(False, one line on the failure)``.  The runner's own
    output (and its kernel's) goes to a file, not to the terminal, and is not waited for: a
    process left behind holding it cannot keep this one waiting.  Ctrl-C stops the runner
    (and so the kernel) and is raised again here."""
    timeout = check_timeout(timeout)
    limit = RUNNER_SLACK + (_code_cells(path) + 1) * (timeout + 10)
    with tempfile.TemporaryDirectory(prefix="flexlib-notebook-") as tmp:
        result = Path(tmp) / "result.json"
        log_path = Path(tmp) / "output.txt"
        cmd = [sys.executable, "-m", "flexlib.notebooks", "--one", str(path), "--timeout",
               repr(timeout), "--result", str(result)] + (["--kernel", kernel] if kernel else [])
        with open(log_path, "w") as log:
            # a session of its own: Ctrl-C in the terminal reaches this process only, which
            # then stops the runner in order
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            try:
                proc.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                _stop(proc)
                return False, (f"to finish within {limit:g} s although each cell has "
                               f"{timeout:g} s: its runner was stopped")
            except BaseException:
                _stop(proc)
                raise
        try:
            out = json.loads(result.read_text())
            return bool(out["ok"]), out["wall"] if out["ok"] else out["message"]
        except (OSError, ValueError, KeyError):
            tail = _one_line("\n".join(log_path.read_text(errors="replace").splitlines()[-1:]))
            return False, f"because its runner ended with exit status {proc.returncode}" + (
                f" ({tail})" if tail else "")


def execute_all(paths=None, timeout: float = CELL_TIMEOUT, kernel: str | None = None) -> int:
    """Execute every notebook (or ``paths``) in place, each in a runner process of its own
    (:func:`run_isolated`), and print one line per notebook.  Returns 0 if all ran, 1 if any
    failed (the others still run), 130 on Ctrl-C."""
    timeout = check_timeout(timeout)
    paths = notebook_paths(paths)
    kernel = kernel or kernel_name()
    failed = []
    try:
        for p in paths:
            ok, what = run_isolated(p, timeout, kernel)
            if ok:
                print(f"{p.name}: executed in {what:.1f} s", flush=True)
            else:
                failed.append(p.name)
                sys.stderr.write(f"{p.name}: FAILED {what}\n")
                sys.stderr.flush()
    except KeyboardInterrupt:
        sys.stderr.write("flexlib: notebooks interrupted: the notebook being run was stopped and "
                         "left as it was\n")
        return 130
    if failed:
        sys.stderr.write(f"{plural(len(failed), 'notebook')} failed: {', '.join(failed)}\n")
        return 1
    return 0


def _runner_main(argv=None) -> int:
    """``python -m flexlib.notebooks --one PATH --timeout S --result FILE [--kernel NAME]``: run
    one notebook and write ``{"ok", "wall", "message"}`` to FILE (what :func:`run_isolated`
    starts)."""
    import argparse
    p = argparse.ArgumentParser(prog="python -m flexlib.notebooks")
    p.add_argument("--one", required=True)
    p.add_argument("--timeout", type=float, default=CELL_TIMEOUT)
    p.add_argument("--result", required=True)
    p.add_argument("--kernel", default=None)
    a = p.parse_args(argv)
    logging.getLogger("traitlets").setLevel(logging.CRITICAL)     # the kernel manager's log
    # While the cells run, nbclient answers SIGTERM (run_isolated's stop) by shutting the
    # kernel down; outside them the kernel leaves by itself when this process is gone.
    try:
        out = {"ok": True, "wall": execute(a.one, a.timeout, a.kernel), "message": ""}
    except NotebookFailed as err:
        out = {"ok": False, "wall": None, "message": str(err)}
    except KeyboardInterrupt:
        out = {"ok": False, "wall": None, "message": "as it was stopped"}
    except Exception as err:
        out = {"ok": False, "wall": None,
               "message": f"in its runner: {type(err).__name__}: {_one_line(err)}"}
    Path(a.result).write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(_runner_main())
