"""The import graph of flexlib: no cycles, and the physics never imports the presentation.

Imports are read with ``ast`` from every module of the package, including imports inside
functions (a function-level import is still a dependency, only a later one)."""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "flexlib"
# the physics: what a run computes; the presentation: what shows, studies or drives runs
PHYSICS_PACKAGES = ("bodies", "contact", "solver", "multibody")
PHYSICS_MODULES = ("models", "params", "result", "_jit", "_numerics", "outputs", "layout", "paper",
                   "history")
PRESENTATION_PACKAGES = ("studies", "viz")
PRESENTATION_MODULES = ("cli", "notebooks", "cases.command", "text")


def module_name(path: Path) -> str:
    """``flexlib/solver/integrator.py`` -> ``solver.integrator``; a package's ``__init__.py`` -> its
    name."""
    parts = list(path.relative_to(PKG).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PKG.rglob("*.py")) if "__pycache__" not in p.parts}
PHYSICS = sorted(m for m in MODULES if m.split(".")[0] in PHYSICS_PACKAGES or m in PHYSICS_MODULES)
PRESENTATION = sorted(m for m in MODULES
                      if m.split(".")[0] in PRESENTATION_PACKAGES or m in PRESENTATION_MODULES)


def _imports(path: Path) -> set:
    """The flexlib modules that ``path`` imports (relative or absolute, at any depth)."""
    mod = module_name(path)
    package = mod.split(".") if path.stem == "__init__" else mod.split(".")[:-1]
    if mod == "__init__":
        package = []
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
            elif node.module and node.module.split(".")[0] == "flexlib":
                base = []
            else:
                continue
            target = base + (node.module.split(".")[1:] if node.level == 0 else
                             (node.module.split(".") if node.module else []))
            for a in node.names:
                name = ".".join(target + [a.name])
                out.add(name if name in MODULES else ".".join(target))
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "flexlib" and len(parts) > 1:
                    out.add(".".join(parts[1:]))
    return {m for m in out if m in MODULES and m != mod}


def graph() -> dict:
    return {m: _imports(p) for m, p in MODULES.items() if m not in ("__init__", "__main__")}


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
    bad = _imports(MODULES[module]) & set(PRESENTATION)
    assert not bad, f"flexlib.{module} imports {sorted(bad)}"


def test_result_does_not_depend_on_the_simulator():
    assert not _imports(MODULES["result"]) & {"solver.integrator", "history", "paper",
                                              "multibody.simulate", "multibody.kernel"}


def test_the_solver_knows_no_body_contact_or_case():
    """flexlib.solver is the integrator and its linear algebra: it runs whatever right-hand side it
    is given and imports nothing that describes a body, a contact, a model, a case or a run."""
    solver = [m for m in MODULES if m.split(".")[0] == "solver"]
    assert "solver.integrator" in solver
    for module in solver:
        bad = {m for m in _imports(MODULES[module])
               if m.split(".")[0] not in ("solver", "_jit")}
        assert not bad, f"flexlib.{module} imports {sorted(bad)}"


def test_one_simulator():
    """One engine runs every case: the system simulator.  No other module defines a simulator
    class, and the paper's cases reach the engine through flexlib.paper."""
    import re
    found = {m for m, p in MODULES.items()
             if re.search(r"^class \w*Simulator\b", p.read_text(), re.M)}
    assert found == {"multibody.simulate"}, found
    assert "multibody.simulate" in _imports(MODULES["paper"])


def test_every_module_is_classified():
    """A module is physics, presentation, a case definition or a package entry point, so that the
    rule above covers it; the sub-packages are the architecture (bodies, contact, solver,
    multibody: physics; studies, viz: presentation)."""
    known = (set(PHYSICS) | set(PRESENTATION) | {"__init__", "__main__", "_warm"}
             | {m for m in MODULES if m.split(".")[0] == "cases"})
    assert set(MODULES) <= known, sorted(set(MODULES) - known)
    assert {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").exists()} == \
        set(PHYSICS_PACKAGES) | set(PRESENTATION_PACKAGES) | {"cases"}


def test_the_body_contact_and_laws_do_not_import_the_right_hand_side():
    """The right-hand side (multibody.kernel) composes the bodies, the contacts and the laws;
    none of those imports it, the simulator, the integrator or a run's reading (paper, history,
    layout), and no body or contact law imports a slot from elsewhere: a beam's parameter slots
    are its own, the slope's follow them (flexlib.solver holds none)."""
    rhs = {"multibody.kernel", "multibody.simulate", "multibody.result", "solver.integrator",
           "history", "paper", "layout"}
    for module in [m for m in MODULES if m.split(".")[0] in ("bodies", "contact")]:
        imports = _imports(MODULES[module])
        bad = (imports & rhs) | {m for m in imports if m.startswith("solver.")
                                 and m != "solver.linalg"}
        assert not bad, f"flexlib.{module} imports {sorted(bad)}"


def test_every_module_with_compiled_code_renews_the_cache_stamp():
    """numba keys a cached function on its own file only; the cache stamp hashes the modules
    listed in flexlib._jit.COMPILED_MODULES, so every module that compiles with the decorators
    ``hot``, ``compiled`` or ``inlined`` must be listed there (else a change in it would leave stale
    machine code in the functions that call it)."""
    import re

    from flexlib import _jit
    for path in MODULES.values():
        src = path.read_text()
        if re.search(r"^@(hot|compiled|inlined)$", src, re.M):
            assert path.relative_to(PKG).with_suffix("").as_posix() in _jit.COMPILED_MODULES, path.name
            assert "_jit.flush_module(__name__)" in src, path.name
