"""The notebook runner (``python -m flexlib notebooks``): a time limit per cell, a dead kernel and
a failing cell reported in one line each (the notebook and the cell), the other notebooks still
run, exit status 1, no traceback; notebooks run alike in any order.

Tiny notebooks written by the tests into a temporary folder run on the plain ``python3`` kernel
of this environment (``--kernel python3``), so nothing is written into the environment; each one
starts a kernel of its own, a few seconds.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

from flexlib import notebooks as runner  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KERNEL = "python3"


@pytest.fixture(scope="module", autouse=True)
def _kernel_available():
    from jupyter_client.kernelspec import KernelSpecManager
    if KERNEL not in KernelSpecManager().find_kernel_specs():
        pytest.skip(f"no Jupyter kernel {KERNEL!r} in this environment")


def _notebook(folder, name, *sources):
    """A notebook of a Markdown title and one code cell per source; returns its path."""
    v4 = nbformat.v4
    nb = v4.new_notebook(cells=[v4.new_markdown_cell(f"# {name}")]
                         + [v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
    path = Path(folder) / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def _run(paths, *options):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "flexlib", "notebooks", "--kernel", KERNEL,
                        *options, *map(str, paths)], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    return p, time.perf_counter() - t0


def _outputs(path):
    nb = nbformat.read(path, as_version=4)
    return ["".join(o.get("text", "") for o in c.outputs) for c in nb.cells if c.cell_type == "code"]


def test_timeout_dead_kernel_and_error_are_one_line_each_and_the_run_goes_on(tmp_path):
    slow = _notebook(tmp_path, "slow", "x = 1", "import time; time.sleep(120)  # the slow cell")
    dies = _notebook(tmp_path, "dies", "print('alive')", "import os\nos._exit(3)")
    raises = _notebook(tmp_path, "raises", "{}['missing key']")
    fine = _notebook(tmp_path, "fine", "print(6 * 7)")
    before = {p: p.read_bytes() for p in (slow, dies, raises)}
    p, wall = _run([slow, dies, raises, fine], "--timeout", "2")
    text = p.stdout + p.stderr
    assert p.returncode == 1, text
    assert "Traceback" not in text and "Error |" not in text, text
    lines = p.stderr.splitlines()
    assert lines[0] == ("slow.ipynb: FAILED at cell 3 of 3 ('import time; time.sleep(120)  # the "
                        "slow cell'): timed out after 2 s (the limit per cell; --timeout sets it)")
    assert lines[1] == "dies.ipynb: FAILED at cell 3 of 3 ('import os'): the kernel died"
    assert lines[2] == "raises.ipynb: FAILED at cell 2 of 2 (\"{}['missing key']\"): KeyError: 'missing key'"
    assert lines[3] == "3 notebooks failed: slow.ipynb, dies.ipynb, raises.ipynb"
    assert len(lines) == 4
    assert p.stdout.startswith("fine.ipynb: executed in ")
    assert _outputs(fine) == ["42\n"]                     # the notebook after them ran, in place
    assert all(p.read_bytes() == b for p, b in before.items())   # the failed ones are untouched
    assert wall < 120                                     # the 120 s cell was stopped


@pytest.mark.slow
@pytest.mark.parametrize("order", [("first", "second"), ("second", "first")])
def test_notebooks_run_alike_in_either_order(tmp_path, order):
    made = {"first": _notebook(tmp_path, "first", "a = 1\nprint(a)"),
            "second": _notebook(tmp_path, "second", "print('second', a if 'a' in dir() else "
                                                    "'fresh kernel')")}
    p, _ = _run([made[k] for k in order], "--timeout", "60")
    assert p.returncode == 0, p.stdout + p.stderr
    assert [ln.split(":")[0] for ln in p.stdout.splitlines()] == [f"{k}.ipynb" for k in order]
    assert _outputs(made["first"]) == ["1\n"]
    assert _outputs(made["second"]) == ["second fresh kernel\n"]   # no state from the other


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf"])
def test_a_bad_timeout_is_refused_in_one_line(tmp_path, value, capsys):
    from flexlib.cli import main
    nb = _notebook(tmp_path, "x", "1")
    assert main(["notebooks", "--kernel", KERNEL, "--timeout", value, str(nb)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"flexlib: error: parameter 'timeout' = {float(value)!r} is invalid: "
                          "valid range is a number of seconds > 0"), err
    assert _outputs(nb) == [""]                        # nothing ran


def test_a_runner_that_outlives_its_limit_is_stopped(tmp_path, monkeypatch):
    """The backstop behind the per-cell limit: a runner process that is still going when every
    cell's limit (plus a margin, zero here) has passed is stopped and reported."""
    nb = _notebook(tmp_path, "long", "import time; time.sleep(120)")
    monkeypatch.setattr(runner, "RUNNER_SLACK", 1.0)
    monkeypatch.setattr(runner, "_code_cells", lambda path: -1)    # limit = RUNNER_SLACK
    t0 = time.perf_counter()
    ok, message = runner.run_isolated(nb, timeout=60, kernel=KERNEL)
    assert not ok and message.startswith("to finish within 1 s although each cell has 60 s"), message
    assert time.perf_counter() - t0 < runner.RUNNER_STOP_WAIT + 10
    assert json.loads(nb.read_text())["cells"][1]["outputs"] == []


@pytest.mark.slow
def test_an_unreadable_notebook_and_a_missing_kernel_are_one_line_each(tmp_path):
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json")
    fine = _notebook(tmp_path, "fine", "print(1)")
    p, _ = _run([broken, tmp_path / "absent.ipynb"])
    lines = p.stderr.splitlines()
    assert p.returncode == 1 and "Traceback" not in p.stdout + p.stderr, p.stderr
    assert lines[0].startswith("broken.ipynb: FAILED on reading it: ")
    assert lines[1].startswith("absent.ipynb: FAILED on reading it: [Errno 2]")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "flexlib", "notebooks", "--kernel", "no-such-kernel",
                        str(fine)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and "Traceback" not in p.stdout + p.stderr, p.stderr
    assert p.stderr.splitlines()[0] == ("fine.ipynb: FAILED before its first cell: the kernel did "
                                        "not start: NoSuchKernel: No such kernel named "
                                        "no-such-kernel")
