"""Every relative link in README.md and docs/*.md leads to a file of the repository, and every
``#anchor`` to a heading of the Markdown file it names (GitHub's anchors).

A newcomer follows the README to docs/ and from one document to another; a moved or renamed
section must not leave a link that goes nowhere.  Web links (``http``, ``https``, ``mailto``) are
not fetched.
"""
import re
from pathlib import Path

import pytest

from test_doc_references import github_anchor

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?\s*\)")


def headings(path: Path) -> set:
    anchors, in_code = set(), False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if m:
            anchors.add(github_anchor(m.group(1)))
    return anchors


def broken(path: Path, text: str) -> list[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)          # code blocks hold no links
    bad = []
    for target in LINK.findall(text) + IMAGE.findall(text):
        if re.match(r"^(https?:|mailto:)", target):
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            bad.append(f"{path.relative_to(ROOT)}: {target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in headings(dest):
            bad.append(f"{path.relative_to(ROOT)}: {target} (no such heading)")
    return bad


@pytest.mark.parametrize("text, n_bad", [
    ("[a](docs/model.md) [b](docs/model.md#1-the-physical-problem)", 0),
    ("[a](docs/nowhere.md) ![f](figures/none.png)", 2),
    ("[a](docs/findings.md#no-such-section) [w](https://example.org/x#y)", 1),
    ("```\n[a](docs/nowhere.md)\n```", 0)])
def test_the_checker(text, n_bad):
    assert len(broken(ROOT / "README.md", text)) == n_bad


def test_every_link_resolves():
    bad = [b for p in DOCS for b in broken(p, p.read_text(encoding="utf-8"))]
    assert not bad, "links that go nowhere:\n" + "\n".join(bad)
