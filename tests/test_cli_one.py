"""One command line for every case: one option name per concept, every case listed, and an option
that does not apply, a misspelled option or a bad value refused with exit status 2 and one sentence
that names it (and no traceback).

Every command here is refused before any run starts, so the tests call ``flexlib.cli.main`` in
this process; two of them also go through ``python -m flexlib`` to see the exit status and the
absence of a traceback from outside."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flexlib.cli import main

ROOT = Path(__file__).resolve().parents[1]
ALL_CASES = ("3.1", "3.2", "double-pendulum", "falling-beam", "beam-on-slope")


def _main(argv, capsys):
    """(exit status, stdout, stderr) of ``python -m flexlib *argv`` run in this process."""
    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code
    out = capsys.readouterr()
    return rc, out.out, out.err


def _refused(argv, capsys, *parts):
    rc, _, err = _main(["simulate", "--quiet", *argv], capsys)
    assert rc == 2, err
    line = [x for x in err.splitlines() if x.startswith("flexlib: error:")]
    assert len(line) == 1, err
    for p in parts:
        assert p in line[0], (p, line[0])
    assert "Traceback" not in err
    return line[0]


# ------------------------------------------------------------------ options that do not apply
NOT_APPLICABLE = [
    # (argv, the option named, the reason's words)
    (["--case", "double-pendulum", "--model", "hybrid_coulomb", "--contact-stiffness", "1e9"],
     "--contact-stiffness", "constraint"),
    (["--case", "falling-beam", "--contact-exponent", "1.5"], "--contact-exponent", "constraint"),
    (["--case", "3.2", "--model", "hybrid_coulomb", "--contact-stiffness", "1e9"],
     "--contact-stiffness", "constraint"),
    (["--case", "3.2", "--L2", "0.4"], "--L2", "double-pendulum"),
    (["--case", "3.2", "--contact-at", "0.9"], "--contact-at", "not of case 3.2"),
    (["--case", "3.1", "--contact-points", "0,1"], "--contact-points", "falling-beam"),
    (["--case", "falling-beam", "--contact-at", "0.9"], "--contact-at", "not of case falling-beam"),
    (["--case", "beam-on-slope", "--h0", "0.2"], "--h0", "falling-beam"),
    (["--case", "double-pendulum", "--X1", "0.4"], "--X1", "does not use it"),
    (["--case", "double-pendulum", "--theta0", "0.1"], "--theta0", "does not use it"),
    (["--case", "double-pendulum", "--dense-dt", "1e-4"], "--dense-dt", "does not use it"),
    (["--case", "double-pendulum", "--chi", "20"], "--chi", "constraint models only"),
    (["--case", "double-pendulum", "--restitution", "0.5"], "--restitution", "'hertz'"),
    (["--case", "double-pendulum", "--contact-damping", "10"], "--contact-damping", "kelvin_voigt"),
    (["--case", "3.2", "--model", "frictionless", "--mu-d", "0.3"], "--mu-d", "no friction"),
    (["--case", "3.2", "--model", "hybrid_coulomb", "--sigma0", "1e5"], "--sigma0", "LuGre"),
    (["--case", "falling-beam", "--model", "frictionless", "--mu-s", "0.3"], "--mu-s", "no friction"),
]


@pytest.mark.parametrize("argv,option,why", NOT_APPLICABLE, ids=[" ".join(a) for a, _, _ in NOT_APPLICABLE])
def test_an_option_that_does_not_apply_is_refused(argv, option, why, capsys):
    _refused(argv, capsys, f"option {option} does not apply", why)


@pytest.mark.parametrize("command", [["compare", "--models", "frictionless,hybrid_coulomb"],
                                     ["sweep", "--model", "frictionless", "--out", "x.nc"]])
def test_compare_and_sweep_refuse_it_too(command, capsys):
    rc, _, err = _main([*command, "--case", "falling-beam", "--L2", "0.4"], capsys)
    assert rc == 2 and "option --L2 does not apply" in err and "Traceback" not in err


def test_an_option_that_applies_to_one_of_the_compared_models_is_accepted():
    """``compare`` refuses an option only if it applies to none of the models."""
    from types import SimpleNamespace
    from flexlib.cases.command import refuse_inapplicable
    a = SimpleNamespace(p_contact_stiffness="1e9", p_mu_d=None)
    refuse_inapplicable(a, "double-pendulum", ["frictionless", "continuous"])
    with pytest.raises(ValueError, match="--contact-stiffness"):
        refuse_inapplicable(a, "double-pendulum", ["frictionless", "hybrid_coulomb"])
    kv = SimpleNamespace(p_contact_damping="10", p_contact_law="kelvin_voigt")
    refuse_inapplicable(kv, "double-pendulum", ["continuous"])


# ------------------------------------------------------------------ one name per concept
@pytest.mark.parametrize("old,new", [("--stop-stiffness", "--contact-stiffness"),
                                     ("--ground-stiffness", "--contact-stiffness"),
                                     ("--stop-exponent", "--contact-exponent"),
                                     ("--e", "--restitution")])
def test_the_old_spellings_are_refused_naming_the_new_one(old, new, capsys):
    case = "falling-beam" if "ground" in old else "double-pendulum"
    _refused(["--case", case, old, "1"], capsys, f"unknown option {old!r}", f"did you mean {new}?")


@pytest.mark.parametrize("typo,near", [("--contact-stifness", "--contact-stiffness"),
                                       ("--restitutoin", "--restitution"),
                                       ("--t_end", "--t-end"), ("--sample-time", "--sample-times")])
def test_a_misspelled_option_names_the_nearest(typo, near, capsys):
    _refused([typo, "1"], capsys, f"unknown option {typo!r}", f"did you mean {near}?")


def test_no_abbreviations(capsys):
    """A prefix of an option is not taken for it (one spelling per option)."""
    _refused(["--contact-stiff", "1e9", "--model", "continuous_coulomb"], capsys,
             "unknown option '--contact-stiff'", "--contact-stiffness")


def test_every_case_takes_the_same_contact_options():
    """The contact settings have one option each, which every case reads under the same name."""
    from flexlib.cli import build_parser
    text = build_parser().commands["simulate"].format_help()
    for option in ("--contact-stiffness", "--contact-exponent", "--contact-damping", "--restitution",
                   "--contact-law"):
        assert option in text
    for old in ("--stop-stiffness", "--ground-stiffness", "--stop-exponent", "--ground-exponent",
                "--e "):
        assert old not in text
    from flexlib.cases import CASES, get_case
    for name in CASES:
        assert not {"stop_stiffness", "ground_stiffness", "stop_exponent",
                    "ground_exponent"} & set(get_case(name).OPTIONS)


# ------------------------------------------------------------------ every case listed
def test_help_and_the_unknown_case_error_list_every_case(capsys):
    for argv in (["--help"], ["simulate", "--help"], ["compare", "--help"]):
        rc, out, _ = _main(argv, capsys)
        assert rc == 0
        flat = " ".join(out.split())
        for case in ALL_CASES:
            assert case in flat, (argv, case)
    line = _refused(["--case", "3.3"], capsys, "'case'", "'3.3'")
    for case in ALL_CASES:
        assert case in line


# ------------------------------------------------------------------ values
BAD_VALUES = [
    # (argv, words of the message: parameter, value, range)
    (["--t-end", "0"], ["'t_end'", "'0'", "(0, 1000] s"]),
    (["--t-end", "-1"], ["'t_end'", "'-1'", "(0, 1000] s"]),
    (["--t-end", "nan"], ["'t_end'", "'nan'", "(0, 1000] s"]),
    (["--t-end", "abc"], ["'t_end'", "'abc'", "not a number"]),
    (["--case", "falling-beam", "--t-end", "nan"], ["'t_end'", "'nan'", "(0, 1000] s"]),
    (["--case", "double-pendulum", "--t-end", "-0.5"], ["'t_end'", "'-0.5'", "(0, 1000] s"]),
    (["--dt", "0", "--t-end", "0.5"], ["'dt'", "'0'", "(0, 0.5] s"]),
    (["--case", "beam-on-slope", "--dt", "0"], ["'dt'", "'0'", "(0, 0.75] s"]),
    (["--sample-times", "0.1,3"], ["'sample_times'", "'3'", "[0, 2] s"]),
    (["--case", "falling-beam", "--sample-times", "-0.1"], ["'sample_times'", "'-0.1'", "[0, 1] s"]),
    (["--sample-times", "0.1,x"], ["'sample_times'", "'x'", "not a number"]),
    (["--case", "double-pendulum", "--L2", "abc"], ["'L2'", "'abc'", "[0.05, 10] m"]),
    (["--case", "double-pendulum", "--contact-stiffness", "1"], ["'contact_stiffness'", "'1'",
                                                                  "[1000, 1e+13]"]),
    (["--case", "falling-beam", "--contact-points", "0,2"], ["'contact_points'", "'0,2'", "[0, 1]"]),
    (["--case", "falling-beam", "--n-modes", "2.5"], ["'n_modes'", "2.5", "[0, 12]"]),
    (["--case", "beam-on-slope", "--restitution", "2"], ["'e'", "2", "[0, 1]"]),
    (["--restitution", "-1"], ["'e'", "-1", "[0, 1]"]),
]


@pytest.mark.parametrize("argv,parts", BAD_VALUES, ids=[" ".join(a) for a, _ in BAD_VALUES])
def test_a_bad_value_is_refused_with_its_range(argv, parts, capsys):
    _refused(argv, capsys, *parts)


def test_from_outside_exit_2_and_no_traceback():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    for argv, part in ((["--t-end", "nan"], "'t_end'"),
                       (["--case", "3.2", "--contact-at", "0.9"], "--contact-at"),
                       (["--case", "double-pendulum", "--stop-stiffness", "1e9"], "--contact-stiffness")):
        p = subprocess.run([sys.executable, "-m", "flexlib", "simulate", "--quiet", *argv], cwd=ROOT,
                           env=env, capture_output=True, text=True, timeout=300)
        assert p.returncode == 2 and part in p.stderr and "Traceback" not in p.stderr, p.stderr
