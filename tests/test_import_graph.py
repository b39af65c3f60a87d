"""The import graph of flexlib: no cycles, and the physics never imports the presentation.

Imports are read with ``ast`` from every module of the package, including imports inside
functions (a function-level import is still a dependency, only a later one)."""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "flexlib"
PHYSICS = ("kernel", "integrator", "beam", "modes", "bases", "basis_fe", "basis_partition",
           "contact", "jump", "constraint", "penalty", "friction", "linalg", "_jit", "selection", "lcp",
           "models", "params", "simulate", "result", "history", "layout", "_numerics")
PRESENTATION = ("plots", "widgets", "figures", "axial", "claims", "nbtools", "notebooks", "cli",
                "sweep", "continuous", "peer", "accuracy", "multibody_plots", "multibody_widgets")


def _imports(path: Path) -> set:
    """The flexlib modules that ``path`` imports (relative or absolute, at any depth)."""
    mod = path.stem
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                if node.module:
                    out.add(node.module.split(".")[0])
                else:
                    out.update(a.name.split(".")[0] for a in node.names)
            elif node.level == 0 and node.module and node.module.split(".")[0] == "flexlib":
                parts = node.module.split(".")
                if len(parts) > 1:
                    out.add(parts[1])
                else:
                    out.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "flexlib" and len(parts) > 1:
                    out.add(parts[1])
    modules = {p.stem for p in PKG.glob("*.py")}
    return {m for m in out if m in modules and m != mod}


def graph() -> dict:
    return {p.stem: _imports(p) for p in PKG.glob("*.py")
            if p.stem not in ("__init__", "__main__")}


def _cycle(g):
    """One import cycle of ``g`` as a list of modules, or None."""
    state = {}

    def visit(m, stack):
        state[m] = 1
        stack.append(m)
        for n in sorted(g.get(m, ())):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                c = visit(n, stack)
                if c:
                    return c
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(g):
        if m not in state:
            c = visit(m, [])
            if c:
                return c
    return None


def test_no_import_cycles():
    c = _cycle(graph())
    assert c is None, "import cycle: " + " -> ".join(c)


@pytest.mark.parametrize("module", PHYSICS)
def test_physics_does_not_import_presentation(module):
    path = PKG / f"{module}.py"
    if not path.exists():
        pytest.skip(f"flexlib/{module}.py does not exist")
    bad = _imports(path) & set(PRESENTATION)
    assert not bad, f"flexlib/{module}.py imports {sorted(bad)}"


def test_result_does_not_depend_on_the_simulator():
    assert not _imports(PKG / "result.py") & {"simulate", "kernel", "integrator", "history",
                                              "selection"}


def test_every_module_is_classified():
    """A new module is either physics or presentation (or a package entry point), so that the
    rule above covers it."""
    known = set(PHYSICS) | set(PRESENTATION) | {"__init__", "__main__", "_warm"}
    assert {p.stem for p in PKG.glob("*.py")} <= known


def test_the_body_contact_and_laws_do_not_import_the_right_hand_side():
    """The right-hand side (kernel) composes the body, the contact, the constraint solves and the
    laws; none of those imports it, the simulator or the integrator."""
    for module in ("beam", "contact", "jump", "constraint", "penalty", "friction", "linalg"):
        bad = _imports(PKG / f"{module}.py") & {"kernel", "simulate", "integrator", "history"}
        assert not bad, f"flexlib/{module}.py imports {sorted(bad)}"


def test_every_module_with_compiled_code_renews_the_cache_stamp():
    """numba keys a cached function on its own file only; the cache stamp hashes the modules
    listed in flexlib._jit.COMPILED_MODULES, so every module that compiles with the decorators
    ``hot``, ``compiled`` or ``inlined`` must be listed there (else a change in it would leave stale
    machine code in the functions that call it)."""
    import re

    from flexlib import _jit
    for path in PKG.glob("*.py"):
        src = path.read_text()
        if re.search(r"^@(hot|compiled|inlined)$", src, re.M):
            assert path.stem in _jit.COMPILED_MODULES, path.name
            assert "_jit.flush_module(__name__)" in src, path.name
