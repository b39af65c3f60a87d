"""Every reference to a section of docs/model.md resolves to one of its headings.

A reader follows "docs/model.md §8.5", "docs/model.md, section 12" or a link
``docs/model.md#12-impacts-episodes-and-clusters`` from the README, a notebook, a figure's text or a
docstring; each must name a section the document has.  In the notebooks and the README a bare "§N"
also means docs/model.md (notebook 01 says so); the paper's own sections are written out ("the
paper's section 3.2").

Scope: README.md, docs/*.md, figures/*.md, benchmarks/README.md, the cell sources and text outputs
of notebooks/*.ipynb, the notebook builders scripts/build_notebook*.py and every .py file of
flexlib/, tests/ and examples/.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODEL = ROOT / "docs" / "model.md"

_HEADING = re.compile(r"^(#{2,4})\s+(.*?)\s*$")
_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)\.?\s")
_SECTION_SIGN = re.compile(r"§\s?(\d+(?:\.\d+)*)")
_SECTION_WORD = re.compile(r"model\.md\)?,?\s+(?:sections?|§)\s*((?:\d+(?:\.\d+)*)(?:\s*(?:,|–|-|and|to)\s*\d+(?:\.\d+)*)*)")
_ANCHOR = re.compile(r"model\.md#([A-Za-z0-9_\-]+)")


def github_anchor(heading: str) -> str:
    """The anchor GitHub (and JupyterLab's Markdown links to it) gives a heading: lower case,
    punctuation other than hyphens and underscores dropped, spaces turned into hyphens."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def model_sections() -> tuple[set, set]:
    """(section numbers, anchors) of docs/model.md's headings."""
    numbers, anchors = set(), set()
    in_code = False
    for line in MODEL.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else _HEADING.match(line)
        if not m:
            continue
        anchors.add(github_anchor(m.group(2)))
        n = _NUMBER.match(m.group(2))
        if n:
            numbers.add(n.group(1))
    return numbers, anchors


def _texts():
    """(place, text) of everything a reader may follow a reference from."""
    md = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "figures").glob("*.md")),
          ROOT / "benchmarks" / "README.md"]
    for p in md:
        if p.exists():
            yield p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")
    for p in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = json.loads(p.read_text(encoding="utf-8"))
        for k, cell in enumerate(nb["cells"]):
            parts = ["".join(cell.get("source", ""))]
            for o in cell.get("outputs", []) or []:
                parts.append("".join(o.get("text", "")))
                for mime, v in (o.get("data") or {}).items():
                    if mime in ("text/plain", "text/markdown", "text/html"):
                        parts.append("".join(v))
            yield f"{p.relative_to(ROOT).as_posix()} (cell {k})", "\n".join(parts)
    py = [*sorted((ROOT / "scripts").glob("build_notebook*.py")), *sorted((ROOT / "flexlib").rglob("*.py")),
          *sorted((ROOT / "tests").rglob("*.py")), *sorted((ROOT / "examples").rglob("*.py"))]
    for p in py:
        if p.resolve() != Path(__file__).resolve():
            yield p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")


def unresolved() -> list[str]:
    numbers, anchors = model_sections()
    bad = []
    for place, text in _texts():
        if place == "docs/model.md":
            continue                    # its own "section 10" cross-references are checked below
        for m in _SECTION_SIGN.finditer(text):
            if m.group(1) not in numbers:
                bad.append(f"{place}: §{m.group(1)} ({text[max(0, m.start() - 40):m.end()]!r})")
        for m in _SECTION_WORD.finditer(text):
            for num in re.findall(r"\d+(?:\.\d+)*", m.group(1)):
                if num not in numbers:
                    bad.append(f"{place}: section {num} ({m.group(0)!r})")
        for m in _ANCHOR.finditer(text):
            if m.group(1) not in anchors:
                bad.append(f"{place}: #{m.group(1)}")
    return bad


def test_model_md_has_numbered_sections():
    numbers, anchors = model_sections()
    assert {"1", "4.1", "8.5", "12", "17"} <= numbers
    assert "12-impacts-episodes-and-clusters" in anchors
    assert "7-impact-onset-the-impulsemomentum-jump" in anchors      # the en dash is dropped


@pytest.mark.parametrize("text, ok", [
    ("see docs/model.md §8.5", True), ("see docs/model.md §8.6", False), ("(§13.2)", False),
    ("docs/model.md, section 12", True), ("docs/model.md sections 4.1–4.3", True),
    ("docs/model.md sections 4.1–4.4", False), ("[x](../docs/model.md#13-energy-audit)", True),
    ("[x](../docs/model.md#13-energy)", False)])
def test_the_patterns(text, ok, monkeypatch):
    monkeypatch.setattr(__import__(__name__), "_texts", lambda: iter([("t", text)]))
    assert (unresolved() == []) == ok, unresolved()


def test_every_section_reference_resolves():
    bad = unresolved()
    assert not bad, ("references to sections docs/model.md does not have (its headings are the "
                     "'## N.' and '### N.M' lines):\n" + "\n".join(bad))
