"""Outputs whole or not at all, ``--save`` and :func:`flexlib.load_result` on every case, and sample
times outside the run refused.

Each defect has a test that reproduced it before the fix:
- an unwritable ``--json`` beside a writable ``--csv`` refused before the run, neither file written;
- a writer failing after the run (here the CSV writer, made to raise): no output file, no partial
  file and no temporary file left, exit 1 in one line;
- ``--save`` of the falling beam failed (stick intervals of unequal numbers per episode), and
  ``load_result`` could not open a saved multibody run (it had no ``meta``);
- ``SystemResult.sample``/``history`` clamped times past the run, ``SimulationResult`` gave NaN.

The commands run in this process through :func:`flexlib.cli.main` (short runs), one through
``python -m flexlib`` in a subprocess.
"""
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import flexlib
from flexlib import outputs
from flexlib.cli import main
from flexlib.outputs import OutputError, Outputs

ROOT = Path(__file__).resolve().parents[1]
T = "0.05"                                  # s: the end time of the runs whose numbers do not matter


def _files(folder):
    """Every entry of ``folder``, hidden ones (temporary files) included."""
    return sorted(p.name for p in Path(folder).iterdir())


def _one_line(err):
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("flexlib: error: "), err
    assert "Traceback" not in err
    return lines[0]


# ---------------------------------------------------------------------- the set of outputs itself
def test_a_failing_writer_removes_every_file_of_its_set(tmp_path):
    def boom(p):
        p.write_text("half")
        raise TypeError("not serialisable")
    with pytest.raises(OutputError, match=r"cannot write --csv '.*b.csv': not serialisable"):
        with Outputs() as out:
            out.write(tmp_path / "a.json", lambda p: p.write_text("{}"), "--json")
            out.write(tmp_path / "b.csv", boom, "--csv")
    assert _files(tmp_path) == []


def test_an_error_in_the_block_discards_and_a_good_end_commits(tmp_path):
    (tmp_path / "a.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with Outputs() as out:
            out.write(tmp_path / "a.txt", lambda p: p.write_text("new"))
            assert out.pending == [tmp_path / "a.txt"]
            assert (tmp_path / "a.txt").read_text() == "old"        # not before the end
            raise RuntimeError("the run failed")
    assert _files(tmp_path) == ["a.txt"] and (tmp_path / "a.txt").read_text() == "old"
    with Outputs() as out:
        out.write(tmp_path / "a.txt", lambda p: p.write_text("new"))
        out.write(tmp_path / "b.txt", lambda p: p.write_text("b"))
    assert _files(tmp_path) == ["a.txt", "b.txt"] and (tmp_path / "a.txt").read_text() == "new"
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "b.txt").stat().st_mode & 0o777 == 0o666 & ~mask      # not mkstemp's 0600


def test_a_rename_that_fails_takes_back_the_ones_before_it(tmp_path):
    """A target that became a folder after the check: the commit fails at it, and the file
    renamed before it in the same commit is removed again."""
    with pytest.raises(OutputError, match=r"cannot write --csv '.*late'"):
        with Outputs() as out:
            out.write(tmp_path / "a.json", lambda p: p.write_text("{}"), "--json")
            out.write(tmp_path / "late", lambda p: p.write_text("x"), "--csv")
            (tmp_path / "late").mkdir()
            (tmp_path / "late" / "inside").write_text("")         # a folder os.replace cannot replace
    assert _files(tmp_path) == ["late"]


def test_write_joins_the_open_set_and_a_cache_does_not(tmp_path):
    with pytest.raises(RuntimeError):
        with Outputs():
            outputs.write_text(tmp_path / "a.txt", "a")             # joins the open set
            with Outputs():
                outputs.write_text(tmp_path / "b.txt", "b")         # an inner set joins it too
            with Outputs(join=False) as cache:
                cache.write(tmp_path / "cache.txt", lambda p: p.write_text("c"))
            names = _files(tmp_path)
            assert "cache.txt" in names and "a.txt" not in names and "b.txt" not in names
            assert sum(n.startswith((".a.txt.", ".b.txt.")) for n in names) == 2      # pending
            raise RuntimeError
    assert _files(tmp_path) == ["cache.txt"]
    outputs.write_text(tmp_path / "c.txt", "c")                     # no set open: at once
    assert (tmp_path / "c.txt").read_text() == "c"


def test_check_names_the_option_and_the_path(tmp_path):
    (tmp_path / "afile").write_text("")
    with pytest.raises(ValueError, match=r"--json '.*afile/x.json': '.*afile' is a file, not a directory"):
        Outputs.check("--json", tmp_path / "afile" / "x.json")
    with pytest.raises(ValueError, match=r"--csv '.*': is a directory"):
        Outputs.check("--csv", tmp_path)
    with pytest.raises(ValueError, match=r"--save '/nonexistent-flexlib-dir/x.npz': the directory "
                                         r"'/nonexistent-flexlib-dir' does not exist"):
        Outputs.check("--save", "/nonexistent-flexlib-dir/x.npz")
    assert Outputs.check("--save", tmp_path / "x.npz") == tmp_path / "x.npz"
    assert _files(tmp_path) == ["afile"]                            # the probe is gone


# ---------------------------------------------------------------------- the command line
@pytest.mark.parametrize("case", ["3.2", "double-pendulum"])
def test_an_unwritable_json_is_refused_before_the_run_and_nothing_is_written(case, tmp_path, capsys):
    (tmp_path / "afile").write_text("")
    bad = str(tmp_path / "afile" / "out.json")
    rc = main(["simulate", "--case", case, "--t-end", T, "--quiet", "--json", bad,
               "--csv", str(tmp_path / "out.csv"), "--save", str(tmp_path / "out.npz")])
    assert rc == 2
    line = _one_line(capsys.readouterr().err)
    assert "--json" in line and bad in line
    assert _files(tmp_path) == ["afile"]


def test_the_refusal_from_a_subprocess(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "flexlib", "compare", "--case", "3.2", "--t-end", T,
                        "--csv", "out.csv", "--json", str(tmp_path)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    line = _one_line(p.stderr)
    assert "--json" in line and "is a directory" in line
    assert _files(tmp_path) == []


def _csv_fails(monkeypatch, system):
    """Make the CSV writer of the runs of one engine raise after writing half a file."""
    if system:
        from flexlib.multibody.result import SystemResult as cls
    else:
        from flexlib.result import SimulationResult as cls

    def to_csv(self, path, times=None):
        Path(path).write_text("t [s]\n0.0\n")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(cls, "to_csv", to_csv)


@pytest.mark.parametrize("command, case", [("simulate", "3.2"), ("simulate", "beam-on-slope"),
                                           ("compare", "double-pendulum")])
def test_a_failure_after_the_run_leaves_no_file(command, case, tmp_path, monkeypatch, capsys):
    """The JSON (and, for compare, the first model's files) are written before the failing CSV:
    none of them appears, the earlier outputs of the same names stay as they were, and no
    temporary file is left."""
    _csv_fails(monkeypatch, system=case != "3.2")
    (tmp_path / "out.json").write_text("earlier")
    models = ["--models", "frictionless,continuous"] if command == "compare" else []
    rc = main([command, "--case", case, *models, "--t-end", T, "--quiet",
               "--json", str(tmp_path / "out.json"), "--save", str(tmp_path / "out.npz"),
               "--csv", str(tmp_path / "out.csv")])
    assert rc == 1
    line = _one_line(capsys.readouterr().err)
    assert "--csv" in line and "No space left on device" in line and "no output file" in line
    assert _files(tmp_path) == ["out.json"] and (tmp_path / "out.json").read_text() == "earlier"


def test_a_sweep_writes_its_dataset_and_table_together(tmp_path, monkeypatch, capsys):
    pd = pytest.importorskip("pandas")
    argv = ["sweep", "--case", "3.2", "--model", "frictionless", "--t-end", T, "--engine", "serial",
            "--no-progress", "--out", str(tmp_path / "s.nc"), "--table", str(tmp_path / "s.csv")]

    def to_csv(self, *a, **k):
        raise OSError(28, "No space left on device")
    with monkeypatch.context() as m:
        m.setattr(pd.DataFrame, "to_csv", to_csv)
        assert main(argv) == 1
    assert "s.csv" in _one_line(capsys.readouterr().err)
    assert _files(tmp_path) == []
    assert main(argv) == 0
    assert _files(tmp_path) == ["s.csv", "s.nc"]


def test_a_figure_writes_both_files_or_neither(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from flexlib.viz.plots import save_figure
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    real = fig.savefig

    def savefig(path, format=None, **k):
        if format == "svg":
            raise ValueError("the SVG backend failed")
        return real(path, format=format, **k)
    fig.savefig = savefig
    with pytest.raises(OutputError, match="svg"):
        save_figure(fig, "fig_x", tmp_path)
    assert _files(tmp_path) == []
    fig, ax = plt.subplots()
    save_figure(fig, "fig_y", tmp_path)
    assert _files(tmp_path) == ["fig_y.png", "fig_y.svg"]


# ---------------------------------------------------------------------- --save and load_result
CASES = [
    ("3.2", []),
    ("beam-on-slope", ["--model", "frictionless"]),
    ("double-pendulum", []),
    # dropped nearly flat from 1 cm: by 0.1 s some of its episodes stick once and others never,
    # the ragged stick intervals that --save could not stack
    ("falling-beam", ["--h0", "0.01", "--theta0", "0.05"]),
]


@pytest.mark.parametrize("case, extra", CASES, ids=[c for c, _ in CASES])
def test_save_and_load_result_on_every_case(case, extra, tmp_path):
    t_end = "0.1" if case == "falling-beam" else T
    files = {k: tmp_path / f"run.{k}" for k in ("json", "csv", "npz")}
    assert main(["simulate", "--case", case, *extra, "--t-end", t_end, "--quiet",
                 "--json", str(files["json"]), "--csv", str(files["csv"]),
                 "--save", str(files["npz"])]) == 0
    summary = json.loads(files["json"].read_text())
    r = flexlib.load_result(files["npz"])
    assert r.params == summary["params"]
    assert r.summary()["impacts"] == summary["impacts"]
    assert r.summary()["energy"] == summary["energy"]
    assert r.t_end == pytest.approx(float(t_end), abs=1e-12) and r.success
    # the histories of the file are those of the CSV written by the same run (12 digits there)
    header = next(csv.reader(files["csv"].read_text().splitlines()[:1]))
    table = np.loadtxt(files["csv"], delimiter=",", skiprows=1, ndmin=2)
    names = [h.split(" [")[0] for h in header]
    # (the paper case's B_1.. of the CSV are the columns of its array B)
    for j, name in [(j, n) for j, n in enumerate(names) if n in r.h][:8]:
        np.testing.assert_allclose(np.asarray(r.h[name], float), table[:, j], rtol=1e-11, atol=1e-13,
                                   err_msg=name)
    assert np.array_equal(r.history([0.0, float(t_end)])["t"], [0.0, float(t_end)])
    if case != "3.2":
        assert r.summary() == summary                       # the summary it was saved with
        assert set(r.h) == set(names) and r.units["t"] == "s"
        assert len(r.impact_records()) == len(summary["impacts"])
    if case == "falling-beam":
        counts = {len(e["stick_intervals"]) for e in r.impacts}
        assert 0 in counts and len(counts) > 1, counts      # ragged: the case that failed
        assert all(len(iv) == 2 for e in r.impacts for iv in e["stick_intervals"])


def test_save_without_the_npz_suffix_writes_it_with_the_suffix(tmp_path):
    """As numpy's savez names it (and as before): --save out writes out.npz, compare's per model."""
    assert main(["compare", "--case", "double-pendulum", "--models", "frictionless,continuous",
                 "--t-end", T, "--quiet", "--save", str(tmp_path / "out")]) == 0
    assert _files(tmp_path) == ["out_continuous.npz", "out_frictionless.npz"]
    assert flexlib.load_result(tmp_path / "out_continuous.npz").params["model"] == "continuous"


def test_load_result_names_a_file_that_is_not_a_saved_run(tmp_path):
    np.savez(tmp_path / "other.npz", t=np.zeros(3))
    with pytest.raises(ValueError, match="has no array 'meta'"):
        flexlib.load_result(tmp_path / "other.npz")


# ---------------------------------------------------------------------- sample times
def _runs():
    from flexlib.cases import simulate as simulate_case
    return dict(paper=flexlib.simulate("3.2", "frictionless", 0.05),
                system=simulate_case("double-pendulum", t_end=0.05))


@pytest.fixture(scope="module")
def runs():
    return _runs()


@pytest.mark.parametrize("bad", [0.06, -0.01, float("nan")])
def test_times_outside_the_run_are_refused(runs, bad):
    pattern = r"'times' = %s is outside the run: valid range is \[0, 0\.05\] s" % (
        "nan" if bad != bad else repr(bad).replace(".", r"\."))
    for name, r in runs.items():
        calls = [lambda: r.history([0.0, bad])]
        calls.append((lambda: r.sample([bad], "theta")) if name == "paper" else (lambda: r.sample([bad])))
        for call in calls:
            with pytest.raises(ValueError, match=pattern):
                call()


def test_times_at_the_ends_of_the_run_are_sampled(runs):
    """0 and t_end (and t_end past by rounding alone) are inside; the paper case's and the system's
    results give the same values at t_end either way."""
    for name, r in runs.items():
        h = r.history([0.0, 0.05, 0.05 * (1 + 1e-15)])
        key = "theta" if name == "paper" else "B1.theta"
        assert np.isfinite(h[key]).all() and h[key][1] == h[key][2]


def test_a_loaded_paper_result_refuses_them_too(runs, tmp_path):
    runs["paper"].save(tmp_path / "p.npz")
    r = flexlib.load_result(tmp_path / "p.npz")
    with pytest.raises(ValueError, match=r"'times' = 0\.07"):
        r.history([0.07])                                   # it used to extrapolate linearly


def test_the_summary_of_a_stopped_run_gives_null_past_its_end():
    from flexlib.result import samples_within
    seen = []

    def sample(t):
        seen.append(list(t))
        return dict(t=list(t), theta=[1.0] * len(t), bodies=[dict(name="b", R=[[0, 0]] * len(t))])
    out = samples_within([0.0, 0.5, 1.0], 0.6, sample)
    assert seen == [[0.0, 0.5]]
    assert out == dict(t=[0.0, 0.5, 1.0], theta=[1.0, 1.0, None],
                       bodies=[dict(name="b", R=[[0, 0], [0, 0], None])])
