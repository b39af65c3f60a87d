"""User-facing text must not cite the team's internal working documents.

The model is documented for users in ``docs/model.md``. Nothing a user reads may point to the internal
specification ("MODEL.md") or its source files ("seed 001"), to its codes for decisions, readings and typos ("[D9]", "decision D9",
"reading R1", "typo T10", "(R5)", "T5-T9"), or to issue-tracker numbers ("issue 6").

Rules (applied line by line):

* ``MODEL.md`` (case-sensitive, so ``docs/model.md`` is fine);
* ``issue`` or ``issues`` followed by a number (``issue 6``, ``issue #6``), any case;
* ``seed`` followed by a three-digit file number (``seed 001``), any case;
* a spec code: a word-bounded ``D``, ``R`` or ``T`` followed by one or two digits (``D9``, ``R10``,
  ``T14``), bare or in brackets/parentheses. The modal tensors ``T3`` and ``T4`` (``flexlib.bodies.modes``,
  ``flexlib.solver.kernel``) are allowed as bare words; they are flagged only in the spec's forms
  ``[T4]``, ``(T4)``, ``typo T4``, ``reading T4``, ``decision T4``.

Scope: README.md, docs/*.md, figures/*.md, the string values of figures/manifest.json, the cell sources
and text outputs of notebooks/*.ipynb (not images), the notebook sources scripts/build_notebook*.py,
and every string and comment of flexlib/**/*.py and of tests/**/*.py (test docstrings, comments and
assertion messages are read too), except this file, which has to name the forbidden patterns.

The failure message lists every hit as ``file:line: text``.
"""
from __future__ import annotations

import io
import json
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_MODEL_MD = re.compile(r"MODEL\.md")
_ISSUE = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)
_SEED = re.compile(r"\bseeds?\s+\d{3}\b", re.IGNORECASE)
_CODE = re.compile(r"(?<![\w.'])([DRT])(\d{1,2})(?![\w'])")
_SPEC_FORM = re.compile(
    r"(?:\[|\(|\b(?:typos?|readings?|decisions?)\s+)([DRT]\d{1,2})\b", re.IGNORECASE)
ALLOWED_BARE = {"T3", "T4"}         # modal tensor names, int rho S H_ij Phi_k and int rho S H_ij H_kl


def offending(line: str) -> list[str]:
    """The internal references found in one line of text (empty if none)."""
    hits = [m.group(0) for m in _MODEL_MD.finditer(line)]
    hits += [m.group(0) for m in _ISSUE.finditer(line)]
    hits += [m.group(0) for m in _SEED.finditer(line)]
    for m in _CODE.finditer(line):
        if m.group(0) not in ALLOWED_BARE:
            hits.append(m.group(0))
    for m in _SPEC_FORM.finditer(line):
        if m.group(1).upper() in ALLOWED_BARE:
            hits.append(m.group(0))
    return hits


def _scan_lines(rel: str, text: str, first_line: int = 1) -> list[str]:
    out = []
    for k, line in enumerate(text.splitlines()):
        h = offending(line)
        if h:
            out.append(f"{rel}:{first_line + k}: {', '.join(h)}: {line.strip()[:160]}")
    return out


def _raw_line(raw_lines: list[str], needle: str, start: int) -> int:
    """1-based line of the first raw line at or after ``start`` containing ``needle`` (JSON-escaped)."""
    esc = json.dumps(needle)[1:-1]
    for i in range(start, len(raw_lines)):
        if esc in raw_lines[i] or needle in raw_lines[i]:
            return i + 1
    return start + 1


_DATA_URI = re.compile(r"data:image/[a-z]+;base64,[A-Za-z0-9+/=\\\n]+")


def _notebook_hits(path: Path) -> list[str]:
    rel = path.relative_to(ROOT).as_posix()
    raw = path.read_text(encoding="utf-8")
    raw_lines = raw.splitlines()
    nb = json.loads(raw)
    out, pos = [], 0
    for ci, cell in enumerate(nb.get("cells", [])):
        texts = [("source", cell.get("source", ""))]
        for o in cell.get("outputs", []) or []:
            if "text" in o:
                texts.append(("output", o["text"]))
            for mime, val in (o.get("data") or {}).items():
                if mime.startswith("text/"):
                    texts.append(("output", val))
            if o.get("output_type") == "error":
                texts.append(("error", [o.get("evalue", "")] + list(o.get("traceback", []))))
        for kind, val in texts:
            text = "".join(val) if isinstance(val, list) else str(val)
            text = _DATA_URI.sub("data:…", text)      # an embedded animation's frames are images
            for line in text.splitlines():
                h = offending(line)
                if h:
                    n = _raw_line(raw_lines, line.strip()[:60], pos)
                    pos = max(pos, n - 1)
                    out.append(f"{rel}:{n}: (cell {ci}, {kind}) {', '.join(h)}: {line.strip()[:160]}")
    return out


def _python_hits(path: Path) -> list[str]:
    rel = path.relative_to(ROOT).as_posix()
    src = path.read_text(encoding="utf-8")
    out = []
    text_tokens = {tokenize.STRING, tokenize.COMMENT}
    if hasattr(tokenize, "FSTRING_MIDDLE"):                     # Python >= 3.12
        text_tokens.add(tokenize.FSTRING_MIDDLE)
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in text_tokens:
            out += _scan_lines(rel, tok.string, tok.start[0])
    return out


def _json_strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _json_strings(k)
            yield from _json_strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _json_strings(v)


def _manifest_hits(path: Path) -> list[str]:
    rel = path.relative_to(ROOT).as_posix()
    raw_lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for s in _json_strings(json.loads("\n".join(raw_lines))):
        for line in s.splitlines():
            h = offending(line)
            if h:
                n = _raw_line(raw_lines, line[:60], 0)
                out.append(f"{rel}:{n}: {', '.join(h)}: {line.strip()[:160]}")
    return sorted(set(out))


def user_facing_hits() -> list[str]:
    hits: list[str] = []
    md = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "figures").glob("*.md"))]
    for p in md:
        if p.exists():
            hits += _scan_lines(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))
    manifest = ROOT / "figures" / "manifest.json"
    if manifest.exists():
        hits += _manifest_hits(manifest)
    for p in sorted((ROOT / "notebooks").glob("*.ipynb")):
        hits += _notebook_hits(p)
    for p in [*sorted((ROOT / "scripts").glob("build_notebook*.py")), *sorted((ROOT / "flexlib").rglob("*.py"))]:
        hits += _python_hits(p)
    this = Path(__file__).resolve()
    for p in sorted((ROOT / "tests").rglob("*.py")):
        if p.resolve() != this:                 # this file must name the patterns it forbids
            hits += _python_hits(p)
    return hits


def test_rules():
    bad = ["see MODEL.md 8.4", "(MODEL.md D9)", "[D9]", "decision D9", "reading R1", "typo T10",
           "(R5)", "typo T4", "(T4)", "[T3]", "T5-T9", "issue 6", "Issue #12", "the trial computation of seed 001", "D10/D11", "R10."]
    good = ["docs/model.md, section 10", "the tensors T3, T4 of", "mi.T4 @ B", "T4B = mi.T4 @ B",
            "T4' : BB", "3D motion", "DOP853", "the claims C1 and C16", "issue", "R = int rho S p dx",
            "a T-shaped joint", "rng seed 42", "seed=1234", "UTF8", "x_R1", "R2D2x"]
    for s in bad:
        assert offending(s), s
    for s in good:
        assert not offending(s), (s, offending(s))


def test_no_internal_references_in_user_facing_text():
    hits = user_facing_hits()
    assert not hits, (f"{len(hits)} internal reference(s) in user-facing text "
                      "(cite docs/model.md or the paper's equation numbers instead):\n" + "\n".join(hits))
