"""The README's two set-up commands each leave an environment in which every notebook runs.

scripts/figures.sh and scripts/test.sh install flexlib with some of its extras (pyproject.toml)
into .venv; the README says either prepares what the notebooks need.  The fast test checks that
each command's extras bring every package the notebooks import (or use through flexlib); the slow
one makes the figures command's environment afresh, with the numerical settings removed from the
environment as JupyterLab started by hand would have them, runs every notebook top to bottom in it
and compares the outputs of the checked cells with the stored ones.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = {"figures": ROOT / "scripts" / "figures.sh", "test": ROOT / "scripts" / "test.sh"}
CHECK_TAG = "nbval-check-output"

# Every third-party module a notebook imports, and the extra that installs it (None: flexlib's
# own dependencies).  A new import must be added here, with its extra.
MODULE_EXTRA = {"numpy": None, "scipy": None, "matplotlib": None, "IPython": "notebooks",
                "ipywidgets": "notebooks", "xarray": "studies", "pandas": "studies",
                "distributed": "dask", "dask": "dask"}
# What a notebook uses through flexlib without importing it: (text in a code cell, extra).
USES = [("fl.sweep(", "studies"), ("stiffness_study(", "studies"), ('engine="dask"', "dask"),
        ("widgets.panel(", "notebooks")]
STDLIB = set(sys.stdlib_module_names)


def script_extras(script: Path) -> set:
    m = re.search(r'flexlib_venv "([^"]*)"', script.read_text())
    assert m, f"{script.name} does not call flexlib_venv"
    return {e for e in m.group(1).split(",") if e}


def resolve(extras: set) -> set:
    """The extras and every extra they pull in (``flexlib[studies]`` inside an extra)."""
    table = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    out, todo = set(), list(extras)
    while todo:
        e = todo.pop()
        if e in out:
            continue
        out.add(e)
        for req in table[e]:
            m = re.match(r"flexlib\[([^\]]+)\]", req)
            if m:
                todo += m.group(1).split(",")
    return out


def _code_cells():
    for p in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(p.read_text())["cells"]:
            if cell["cell_type"] == "code":
                yield p.name, "".join(cell["source"])


def notebook_needs() -> dict:
    """{extra or None: notebooks that need it}."""
    need: dict = {}
    for name, src in _code_cells():
        code = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in src.splitlines())
        with warnings.catch_warnings():          # escapes in the cells' strings are not ours to judge
            warnings.simplefilter("ignore")
            tree = ast.parse(code)
        for node in ast.walk(tree):
            mods = []
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module]
            for mod in mods:
                top = mod.split(".")[0]
                if top == "flexlib" or top in STDLIB:
                    continue
                assert top in MODULE_EXTRA, f"{name} imports {top}: add it to MODULE_EXTRA with its extra"
                need.setdefault(MODULE_EXTRA[top], set()).add(name)
        for text, extra in USES:
            if text in src:
                need.setdefault(extra, set()).add(name)
    return need


@pytest.mark.parametrize("command", sorted(SCRIPTS))
def test_each_set_up_command_installs_what_every_notebook_needs(command):
    have = resolve(script_extras(SCRIPTS[command]))
    need = notebook_needs()
    assert {"notebooks", "studies", "dask"} <= set(need)          # the table above is in use
    missing = {extra: sorted(nbs) for extra, nbs in need.items() if extra and extra not in have}
    assert not missing, f"scripts/{command}.sh installs {sorted(have)}; the notebooks also need {missing}"


def _checked_outputs(path: Path) -> list[str]:
    nb = json.loads(path.read_text())
    out = []
    for cell in nb["cells"]:
        if CHECK_TAG in cell.get("metadata", {}).get("tags", []):
            text = []
            for o in cell.get("outputs", []):
                text.append("".join(o.get("text", "")))
                text.append("".join(o.get("data", {}).get("text/plain", "")))
            out.append(re.sub(r"0x[0-9a-fA-F]+", "0x", "".join(text)).strip())
    return out


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_every_notebook_runs_in_the_figures_command_environment(tmp_path):
    """A fresh environment with the figures command's extras (as scripts/figures.sh makes it),
    then every notebook run top to bottom in it with the numerical settings absent from the
    environment: each must run, and its checked cells must print what the stored notebook shows."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "FLEXLIB_NUMERICS_FROM",
                        "VIRTUAL_ENV", "PYTHONPATH")}
    venv = tmp_path / "venv"
    extras = ",".join(sorted(script_extras(SCRIPTS["figures"])))
    made = subprocess.run(["bash", "-c", f'source scripts/_venv.sh && flexlib_venv "{extras}"'],
                          cwd=ROOT, env={**env, "FLEXLIB_VENV": str(venv), "PYTHON": sys.executable},
                          capture_output=True, text=True, timeout=1800)
    assert made.returncode == 0, made.stdout + made.stderr
    copies = tmp_path / "notebooks"
    copies.mkdir()
    stored = sorted((ROOT / "notebooks").glob("*.ipynb"))
    for p in stored:
        shutil.copy(p, copies / p.name)
    run = subprocess.run([str(venv / "bin" / "python"), "-m", "flexlib", "notebooks",
                          *[str(copies / p.name) for p in stored]],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=3000)
    assert run.returncode == 0, run.stdout + run.stderr
    for p in stored:
        assert _checked_outputs(copies / p.name) == _checked_outputs(p), p.name
