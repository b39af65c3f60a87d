"""The three dependency lists agree: pyproject.toml, environment.yml and constraints.txt."""
import re
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")
yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[1]
PROJECT = "flexlib"

# conda-forge name -> PyPI name, where the two differ (none so far).
CONDA_TO_PIP: dict[str, str] = {}
# Extras that environment.yml deliberately leaves to pip (see the comment at its top).
PIP_ONLY_EXTRAS = {"browser", "peers"}    # peers: Exudyn, published on PyPI only
CONDA_ONLY = {"python", "pip"}


def normalise(name):
    """PEP 503 normalised project name."""
    return re.sub(r"[-_.]+", "-", name).strip().lower()


def requirement_name(spec):
    """'numpy>=1.24' / 'flexlib[notebooks]' / 'foo; python_version<\"3.11\"' -> normalised name."""
    return normalise(re.split(r"[\s\[<>=!~;@]", spec.strip(), maxsplit=1)[0])


def requirement_extras(spec):
    match = re.search(r"\[([^\]]*)\]", spec)
    return [e.strip() for e in match.group(1).split(",")] if match else []


def pyproject_dependencies(extras):
    """Names of the core dependencies plus those of the given extras, with flexlib[...] expanded."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    optional = project.get("optional-dependencies", {})
    names, todo, seen = set(), [None, *extras], set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for spec in project["dependencies"] if extra is None else optional[extra]:
            if requirement_name(spec) == PROJECT:
                todo.extend(requirement_extras(spec))
            else:
                names.add(requirement_name(spec))
    return names


def all_extras():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return sorted(project.get("optional-dependencies", {}))


def environment_dependencies():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    names = set()
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            for spec in dep.get("pip", []):
                if spec.split()[0] in ("-e", "--editable") or spec.strip() == ".":
                    continue  # flexlib itself
                names.add(requirement_name(spec))
            continue
        # conda match spec: "name", "name>=1", "name=1.2", "channel::name"
        name = normalise(re.split(r"[\s<>=!~]", dep.split("::")[-1], maxsplit=1)[0])
        if name not in CONDA_ONLY:
            names.add(CONDA_TO_PIP.get(name, name))
    return names


def pinned_constraints():
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        pins[normalise(name)] = version.strip() if sep else None
    return pins


def test_environment_yml_matches_pyproject():
    extras = [e for e in all_extras() if e not in PIP_ONLY_EXTRAS]
    in_pyproject = pyproject_dependencies(extras)
    in_environment = environment_dependencies()
    problems = [f"  {n}: in pyproject.toml (core + {', '.join(extras)}), missing from environment.yml"
                for n in sorted(in_pyproject - in_environment)]
    problems += [f"  {n}: in environment.yml, not in pyproject.toml (core + {', '.join(extras)})"
                 for n in sorted(in_environment - in_pyproject)]
    assert not problems, "dependency lists disagree:\n" + "\n".join(problems)


def test_every_dependency_is_pinned_in_constraints():
    pins = pinned_constraints()
    needed = pyproject_dependencies(all_extras())
    problems = [f"  {n}: not in constraints.txt" for n in sorted(needed) if n not in pins]
    problems += [f"  {n}: in constraints.txt without an exact '==' pin"
                 for n, v in sorted(pins.items()) if not v]
    if PROJECT in pins:
        problems.append(f"  {PROJECT}: the project itself must not be pinned in constraints.txt")
    assert not problems, "constraints.txt is incomplete:\n" + "\n".join(problems)


# Dependencies come from PyPI through pyproject.toml and constraints.txt, never from a file in the
# repository: a tracked wheel or archive is a copy nobody updates, and bloats every clone.
ARCHIVE_SUFFIXES = (".whl", ".tar.gz", ".tgz", ".zip")


def tracked_archives(paths):
    """The paths among ``paths`` that name a wheel or an archive."""
    return [p for p in paths if p.lower().endswith(ARCHIVE_SUFFIXES)]


def test_tracked_archives_recognises_wheels_and_archives():
    paths = ["pyflakes-4.1.0-py2.py3-none-any.whl", "dist/flexlib-0.1.0.tar.gz", "data/x.ZIP",
             "a.tgz", "figures/fig04_theta.png", "notes.tar", "README.md"]
    assert tracked_archives(paths) == paths[:4]


def test_no_wheel_or_archive_is_tracked():
    import shutil
    import subprocess
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip(f"not a git checkout: {out.stderr.strip()}")
    found = tracked_archives(out.stdout.split("\0"))
    assert not found, ("wheels or archives are tracked (install dependencies from PyPI via "
                       f"pyproject.toml and constraints.txt instead; git rm them): {found}")
