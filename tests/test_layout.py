"""The library's layout rules, checked on its sources: every module opens with a one-line
summary, no function is longer than 120 lines (docstring included), and no module reads another
object's private attribute (``obj._name`` with ``obj`` other than ``self`` or ``cls``)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "flexlib"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
MAX_LINES = 120
# private attributes that belong to other libraries' documented protocols (IPython's display,
# namedtuple's methods, numba's cache and its extension API's struct proxies)
ALLOWED = {"_repr_mimebundle_", "_cache", "_asdict", "_replace", "_fields", "_make", "_getvalue"}


def _tree(path):
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _id(path):
    return str(path.relative_to(PACKAGE.parent))


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_module_opens_with_a_one_line_summary(path):
    doc = ast.get_docstring(_tree(path))
    assert doc, f"{_id(path)} has no module docstring"
    first = doc.split("\n\n")[0]
    assert len(first.splitlines()) == 1, f"{_id(path)}: summary spans lines: {first!r}"


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_no_function_is_longer_than_120_lines(path):
    long = [(n.name, n.end_lineno - n.lineno + 1) for n in ast.walk(_tree(path))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.end_lineno - n.lineno + 1 > MAX_LINES]
    assert not long, f"{_id(path)}: {long}"


@pytest.mark.parametrize("path", MODULES, ids=_id)
def test_no_private_attribute_of_another_object_is_read(path):
    found = []
    for n in ast.walk(_tree(path)):
        if (isinstance(n, ast.Attribute) and n.attr.startswith("_") and not n.attr.startswith("__")
                and n.attr not in ALLOWED):
            base = n.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            if isinstance(base, ast.Name) and base.id in ("np", "numba", "_nb", "os", "sys"):
                continue
            found.append(f"line {n.lineno}: {ast.unparse(n)}")
    assert not found, f"{_id(path)} reads private attributes: {found}"


def test_the_checks_can_fail(tmp_path):
    """The three checks catch a violation (a two-line summary, a 121-line function, a read of
    ``other._x``), so that their passing means something."""
    bad = tmp_path / "bad.py"
    body = "\n".join(["    x = 1"] * 120)
    bad.write_text(f'"""Two\nlines."""\n\ndef f(other):\n{body}\n    return other._x\n')
    tree = _tree(bad)
    doc = ast.get_docstring(tree)
    assert len(doc.split("\n\n")[0].splitlines()) == 2
    (fn,) = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    assert fn.end_lineno - fn.lineno + 1 == 122
    assert any(isinstance(n, ast.Attribute) and n.attr == "_x" for n in ast.walk(tree))
