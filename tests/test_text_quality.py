"""Printed text reads as a person would write it: the notebooks' stored outputs and the command
line's summaries have no template artefacts.

The artefacts looked for:

* "(s)" plurals ("1 jump(s)"): a count chooses its noun (:func:`flexlib.text.plural`);
* a range whose ends are equal as printed ("0.17–0.17 ms", "3-3"): one value (:func:`flexlib.text.span`);
* a zero printed with decimals before a unit ("E0 = 0.0 J", "0.000 ms", "-0.0000 J"): either a
  nonzero value shown with too few digits, or an exact zero that needs no decimals
  (:func:`flexlib.text.num` keeps significant digits and prints an exact zero as "0");
* a zero in exponent form ("0.0e+00");
* an exponent in a percentage ("1.2e+03 %");
* "nan" or "inf" in a summary: a missing value is "–", an infinite one "∞" or said in words.

The first three and the percentage rule apply to every text a notebook shows; the zero, exponent
and nan/inf rules only to summaries (printed text and Markdown), not to the repr of a data table
(a DataFrame's or an xarray Dataset's own formatting of its numbers).  The scanner itself is
tested on bad and good strings first, so that a scanner that finds nothing fails here.
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from flexlib.text import fixed, num, percent, plural, span

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

_UNIT = r"(?:%|[kMGmµμunp]?(?:J|N|s|m|Pa|Hz|W|rad)(?:/s)?(?![\w/]))"
RULES_ANY = {
    "'(s)' plural": re.compile(r"[A-Za-z]\(s\)"),
    "range with equal ends": re.compile(r"(?<![\w.+\-−])(\d+(?:\.\d+)?)(?:–|\s–\s|-)\1(?![\w.])"),
    "exponent in a percentage": re.compile(r"\d[eE][+-]?\d+\s?%"),
}
RULES_SUMMARY = {
    "zero printed with decimals": re.compile(r"(?<![\w.])[-+]?0\.0+\s?" + _UNIT),
    "zero in exponent form": re.compile(r"(?<![\w.])[-+]?0(?:\.0+)?[eE][+-]?0+(?!\d)"),
    "nan or inf in a summary": re.compile(r"(?<![\w.])[-+]?(?:nan|NaN|inf|Inf)(?![\w])"),
}
# parts of an HTML output that are not text (icons, styles, scripts)
_NOT_TEXT = re.compile(r"<(svg|style|script)\b.*?</\1>", re.S | re.I)


def problems(text: str, summary: bool = True) -> list:
    """[(rule, matched text, line)] of ``text``; ``summary``: also the summary-only rules."""
    text = _NOT_TEXT.sub(" ", text)
    rules = {**RULES_ANY, **(RULES_SUMMARY if summary else {})}
    out = []
    for line in text.splitlines():
        for name, rx in rules.items():
            out += [(name, m.group(0), line.strip()[:160]) for m in rx.finditer(line)]
    return out


# ----------------------------------------------------------------- the scanner finds what it should
BAD = [
    ("frictionless: 2 impact(s) in 0..0.7500 s", "'(s)' plural"),
    ("The resting rigid rod makes 1 jump(s), 0 of them", "'(s)' plural"),
    ("a sequence of 2 short pulses of 0.17–0.17 ms", "range with equal ends"),
    ("impacts 3-3 of the run", "range with equal ends"),
    ("energy at 1.5 s -0.000 J (E0 = 0.0 J)", "zero printed with decimals"),
    ("stick intervals: 0, total 0.000 ms", "zero printed with decimals"),
    ("theta 0.00 %, theta_dot 0.00%", "zero printed with decimals"),
    ("tip moves 0.0 µm", "zero printed with decimals"),
    ("theta 0.0e+00, theta_dot 0.0e+00", "zero in exponent form"),
    ("| continuous | 5.3 % | 1.2e+03 % |", "exponent in a percentage"),
    ("largest ratio asked: nan", "nan or inf in a summary"),
    ("   4     P1     0.145848     0.000      -1.405      0.039867         inf", "nan or inf in a summary"),
]
GOOD = [
    "frictionless: 2 impacts in 0..0.7500 s; 1 jump",
    "a sequence of 2 short pulses of 0.16–0.17 ms; 8–11 impacts; 0-0.75 s",
    "Phi_i(L), N = 3: +2.0000 -2.0000 +2.0000",
    "energy at 1.5 s 0 J (E0 = 0 J), peak N 4.33e+03 N, stick 0.67 ms, 0.05 s, 10.0 ms",
    "errors 0.42 %, 2.3×10⁻⁶ %, 1200 %; K = ∞ (rigid)",
    "information about infinite and nano-scale effects",
    '<svg><path d="M16 0c-8.837 0-1-1 2.5-2.5"></path></svg> the same 1.0 ms',
]


@pytest.mark.parametrize("text,rule", BAD)
def test_scanner_flags_a_template_artefact(text, rule):
    assert rule in {p[0] for p in problems(text)}, problems(text)


@pytest.mark.parametrize("text", GOOD)
def test_scanner_passes_text_a_person_would_write(text):
    assert problems(text) == []


def test_data_reprs_keep_their_own_number_format():
    """nan in an xarray/DataFrame repr is data (an impact a run does not have), not a summary."""
    assert problems("[0.33294187, 0.69055312,        nan]", summary=False) == []
    assert problems("DOP853   0.05   1.070235  0.000000e+00", summary=False) == []


# ----------------------------------------------------------------- the formatting helpers
def test_helpers_write_what_the_scanner_accepts():
    """The helpers' output for the cases that made the artefacts above (the helpers' own rules:
    tests/test_text.py)."""
    for text in (plural(1, "jump"), span(1.7e-4, 1.704e-4, 2, "ms"), num(0.0, 3, "J"),
                 percent(1234.0), percent(2.3e-6), fixed(-4e-5, 4, "J"), num(float("nan")),
                 num(float("inf"), unit="N")):
        assert problems(text) == [], text


# ----------------------------------------------------------------- the committed notebooks
def _outputs(nb_path):
    """[(where, text, is_summary)] of every text output of a notebook."""
    nb = json.loads(nb_path.read_text())
    out = []
    for i, cell in enumerate(nb["cells"]):
        for o in cell.get("outputs", []):
            where = f"{nb_path.name} cell {i}"
            if o.get("output_type") == "stream":
                out.append((where, "".join(o.get("text", "")), True))
                continue
            data = o.get("data", {})
            if "text/markdown" in data:
                out.append((where, "".join(data["text/markdown"]), True))
            for kind in ("text/plain", "text/html"):
                if kind in data:
                    out.append((where, "".join(data[kind]), False))
    return out


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_outputs_read_as_written_by_a_person(nb_path):
    found = [(where, *p) for where, text, summary in _outputs(nb_path) for p in problems(text, summary)]
    assert not found, "\n".join(f"{w}: {rule}: {m!r} in {line!r}" for w, rule, m, line in found)


# ----------------------------------------------------------------- the command line's summaries
CLI_RUNS = [
    ["simulate", "--case", "3.2", "--model", "frictionless", "--t-end", "0.4"],
    ["simulate", "--case", "falling-beam", "--t-end", "0.146"],
    ["compare", "--case", "3.2", "--models", "frictionless,hybrid_coulomb", "--t-end", "0.36"],
]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("argv", CLI_RUNS, ids=lambda a: "-".join(a[:3]))
def test_command_line_summary_reads_as_written_by_a_person(argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "flexlib", *argv], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "impact" in run.stdout or "#" in run.stdout          # a summary was printed
    found = problems(run.stdout)
    assert not found, "\n".join(f"{rule}: {m!r} in {line!r}" for rule, m, line in found)
