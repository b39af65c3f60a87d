"""The text of one finding of docs/findings.md, for the tests that hold its numbers to the data."""
from __future__ import annotations

import re
from pathlib import Path

FINDINGS = Path(__file__).resolve().parents[1] / "docs" / "findings.md"


def finding(title: str) -> str:
    """The finding whose ``###`` heading contains ``title``: from that heading to the next heading,
    with every run of whitespace made one space (the line wrapping is not part of the text)."""
    text = FINDINGS.read_text(encoding="utf-8")
    heads = [m for m in re.finditer(r"^#{2,3} .*$", text, re.M)]
    hits = [k for k, m in enumerate(heads) if m.group(0).startswith("### ") and title in m.group(0)]
    assert len(hits) == 1, f"expected one finding titled {title!r} in {FINDINGS.name}, found {len(hits)}"
    k = hits[0]
    end = heads[k + 1].start() if k + 1 < len(heads) else len(text)
    return " ".join(text[heads[k].start():end].split())
