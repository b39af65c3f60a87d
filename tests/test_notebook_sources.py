"""The notebooks have one source: the builder scripts in scripts/ (build_notebooks.py for 01-06,
build_notebook_07.py ... build_notebook_12.py).  The stored, executed .ipynb
files must hold exactly the cells the builders write, in the same order, so an edit made in only
one of the two places fails here.  (Outputs are not compared: they come from executing the notebooks, and nbval
checks the marked cells.)  After editing a builder: run it, then ``python -m flexlib notebooks``.
"""
import importlib
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))


def built_cells():
    """{notebook file name: [(cell type, source)]} as the builders write them."""
    out = {}
    nb16 = importlib.import_module("build_notebooks")
    for name, cells in nb16.NOTEBOOKS.items():
        out[f"{name}.ipynb"] = cells
    for mod in ("build_notebook_07", "build_notebook_08", "build_notebook_09", "build_notebook_10",
                "build_notebook_11", "build_notebook_12"):
        m = importlib.import_module(mod)
        out[Path(m.OUT).name] = m.CELLS
    return {k: [(c.cell_type, c.source, c.metadata.get("tags", [])) for c in v] for k, v in out.items()}


BUILT = built_cells()


def test_every_stored_notebook_has_a_builder():
    stored = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert stored == sorted(BUILT)


@pytest.mark.parametrize("name", sorted(BUILT))
def test_stored_notebook_matches_its_builder(name):
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    stored = [(c.cell_type, c.source, c.metadata.get("tags", [])) for c in nb.cells]
    built = BUILT[name]
    assert len(stored) == len(built), f"{name}: {len(stored)} cells stored, {len(built)} built"
    for k, (s, b) in enumerate(zip(stored, built)):
        assert s == b, f"{name}, cell {k}: the stored notebook differs from its builder"


@pytest.mark.parametrize("name", sorted(BUILT))
def test_notebook_names_the_flexlib_kernel(name):
    """The kernel the set-up commands install, with the numerical settings of flexlib/_numerics.py:
    JupyterLab starts it for the notebook, so its numbers are those of the figures."""
    from flexlib import _numerics
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    assert nb.metadata["kernelspec"]["name"] == _numerics.KERNEL_NAME
    assert nb.metadata["kernelspec"]["display_name"] == _numerics.KERNEL_DISPLAY_NAME


@pytest.mark.parametrize("name", sorted(BUILT))
def test_no_test_machinery_in_what_a_reader_sees(name):
    """Checked cells carry nbval's tag in their metadata; no marker comment, no word about the
    test tools in a cell's text or output, no finished progress bar stored."""
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    for k, cell in enumerate(nb.cells):
        texts = [cell.source]
        for o in cell.get("outputs", []):
            texts.append("".join(o.get("text", "")))
            texts += ["".join(v) for mime, v in o.get("data", {}).items() if mime.startswith("text/")]
        for text in texts:
            for word in ("NBVAL", "nbval", " CI ", "in CI", "%|"):       # "%|": a tqdm bar
                assert word not in text, f"{name}, cell {k}: {word!r}"
    assert sum("nbval-check-output" in c.metadata.get("tags", []) for c in nb.cells) >= 1
