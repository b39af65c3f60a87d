"""The figures explain themselves and are saved reproducibly (flexlib.viz.plots, flexlib.studies.figures,
flexlib.studies.axial's figures).

Short runs (0.75 s: two impacts) stand in for the 0-2 s runs of ``python -m flexlib figures``;
the axial figures use the committed ``figures/data/axial_study.json``.
"""
import hashlib
import json
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from flexlib.studies import axial, figures  # noqa: E402
from flexlib.viz import plots

UNIT = re.compile(r"\[[^\]]+\]")
INTERNAL = re.compile(r"MODEL\.md|\bissue\b|\b[DRTC]\d+\b(?!\.)")   # spec codes, issue numbers


@pytest.fixture(scope="module")
def runs():
    res32, _ = figures.run_models("3.2", figures.ALL_MODELS, t_end=0.75)
    res31, _ = figures.run_models("3.1", ("hybrid_coulomb",), t_end=0.75)
    return {"3.2": res32, "3.1": res31}


@pytest.fixture(scope="module")
def study():
    s = axial.load_axial_study(compute_if_missing=False)
    if s is None:
        pytest.skip("figures/data/axial_study.json is missing (python -m flexlib figures)")
    return s


def _figure(name, runs):
    fn, case, models, _caption = plots.FIGURES[name]
    res = runs[case]
    return fn({m: res[m] for m in models} if models else res)


@pytest.fixture(scope="module")
def all_figures(runs, study):
    """{name: figure} of every registered figure (closed at the end)."""
    figs = {name: _figure(name, runs) for name in plots.FIGURES}
    figs.update({name: fn(study) for name, (fn, _cap) in axial.AXIAL_FIGURES.items()})
    yield figs
    for f in figs.values():
        plt.close(f)


def _texts(fig):
    """Every text the figure shows: titles, labels, legend entries, footnotes."""
    out = [t.get_text() for t in fig.texts]
    if getattr(fig, "_suptitle", None) is not None:
        out.append(fig._suptitle.get_text())
    for ax in fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        leg = ax.get_legend()
        if leg is not None:
            out += [t.get_text() for t in leg.get_texts()]
    return [t for t in out if t]


def _shared_label(ax, axis):
    """The axis label of ``ax``, or of an axes sharing that axis with it (a label shown once)."""
    get = (lambda a: a.get_xlabel()) if axis == "x" else (lambda a: a.get_ylabel())
    group = ax.get_shared_x_axes() if axis == "x" else ax.get_shared_y_axes()
    return get(ax) or next((get(a) for a in group.get_siblings(ax) if get(a)), "")


def test_titles_are_unique(all_figures):
    titles = {name: plots.figure_title(fig) for name, fig in all_figures.items()}
    assert all(titles.values()), {n: t for n, t in titles.items() if not t}
    seen = {}
    for name, t in titles.items():
        assert t not in seen, f"{name} and {seen.get(t)} have the same title {t!r}"
        seen[t] = name
    assert "3.1" in titles["fig02_theta_caseA"] and "3.2" in titles["fig04_theta"]


def test_every_axis_has_a_label_with_a_unit(all_figures):
    bad = []
    for name, fig in all_figures.items():
        for k, ax in enumerate(fig.axes):
            for axis in ("x", "y"):
                label = _shared_label(ax, axis)
                if not UNIT.search(label):
                    bad.append(f"{name}, axes {k}, {axis}: {label!r}")
    assert not bad, "axis labels without a unit in brackets:\n" + "\n".join(bad)


def test_no_internal_references(all_figures):
    captions = [c for _f, _case, _m, c in plots.FIGURES.values()]
    captions += [c for _f, c in axial.AXIAL_FIGURES.values()]
    texts = [(n, t) for n, fig in all_figures.items() for t in _texts(fig)]
    bad = [(n, t) for n, t in texts + [("caption", c) for c in captions] if INTERNAL.search(t)]
    assert not bad


def test_impact_bands_are_in_the_legend(all_figures):
    for name in ("fig04_theta", "fig05_theta_dot", "fig07_tipY", "fig06_tip_deflection"):
        legend = all_figures[name].axes[0].get_legend()
        assert any("impact" in t.get_text() for t in legend.get_texts()), name


def test_each_model_keeps_its_style_and_markers(all_figures):
    """Same colour, dash pattern and marker per model in every figure; the friction models have
    distinct markers and widths, so a line hidden under another still shows."""
    friction = ("hybrid_coulomb", "hybrid_lugre", "lugre")
    assert len({plots.STYLES[m]["marker"] for m in friction}) == 3
    assert len({plots.STYLES[m]["lw"] for m in friction}) >= 2
    label_to_model = {plots.STYLES[m]["label"]: m for m in plots.STYLES}
    for name, fig in all_figures.items():
        if name.startswith("axial"):
            continue
        for ax in fig.axes:
            for line in ax.get_lines():
                m = label_to_model.get(line.get_label().split(" (run stopped")[0])
                if m is None:
                    continue
                st = plots.STYLES[m]
                assert matplotlib.colors.same_color(line.get_color(), st["color"]), (name, m)
                assert line.get_marker() == st.get("marker", "None"), (name, m)


def test_footnotes_say_what_is_left_out(all_figures):
    note14 = " ".join(t.get_text() for t in all_figures["fig14_friction_coefficient"].texts)
    assert "hybrid Coulomb" in note14 and "no LuGre friction coefficient" in note14
    fig12 = all_figures["fig12_tangential_displacement"]
    note12 = " ".join(t.get_text() for t in fig12.texts)
    title12 = plots.figure_title(fig12)
    # the paper's beam never sticks in the first impact: no "stick shaded", and the note says so
    assert "stick shaded" not in title12 and "No stick interval" in note12
    note10 = " ".join(t.get_text() for t in all_figures["fig10_friction_force"].texts)
    assert "frictionless" in note10


def test_fig12_shades_stick_when_there_is_some():
    """With one axial mode the hybrid Coulomb model sticks in the first impact (notebook 07)."""
    r, err = axial.run_axial("hybrid_coulomb", 1, t_end=0.35)
    assert err is None and r.impacts[0]["stick_intervals"]
    fig = plots.fig_tangential_displacement({"hybrid_coulomb": r})
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "stick shaded" in plots.figure_title(fig)
    assert any(t.startswith("stick") for t in legend)
    assert not any("No stick interval" in t.get_text() for t in fig.texts)
    plt.close(fig)


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_save_figure_is_byte_reproducible(runs, tmp_path):
    """The same figure saved twice (into two folders) gives identical PNG and SVG bytes: no date,
    a fixed software name, a fixed SVG hash salt."""
    res = {"frictionless": runs["3.2"]["frictionless"]}
    for d in ("a", "b"):
        plots.save_figure(plots.fig_theta(res), "fig", tmp_path / d, res)
    for ext in ("png", "svg"):
        assert _digest(tmp_path / "a" / f"fig.{ext}") == _digest(tmp_path / "b" / f"fig.{ext}"), ext
    svg = (tmp_path / "a" / "fig.svg").read_text()
    assert "<dc:date>" not in svg and "Matplotlib v" not in svg
    png = (tmp_path / "a" / "fig.png").read_bytes()
    assert b"Matplotlib" not in png and b"flexlib" in png


_SVG_SCRIPT = """
import sys
from flexlib.studies import axial
from flexlib.viz import plots
plots.save_figure(axial.fig_axial_first_impact(axial.load_axial_study()), "fig", sys.argv[1])
"""


def test_svg_is_the_same_in_separate_processes(study, tmp_path):
    """Constrained layout could place an axes a few ulp differently in another process, which
    changed the SVG's clip-path ids; save_figure freezes the layout at rounded positions.  (The
    3x3 axial figure with shared x axes showed it in about half of the processes.)"""
    import subprocess
    import sys
    for d in ("a", "b", "c"):
        subprocess.run([sys.executable, "-c", _SVG_SCRIPT, str(tmp_path / d)], check=True)
    digests = {_digest(tmp_path / d / "fig.svg") for d in ("a", "b", "c")}
    assert len(digests) == 1


def _keys(obj):
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def test_studies_store_no_wall_time_and_repeat_exactly():
    """What the figures command caches is a function of the code only: two runs of a (small)
    study give the same JSON, and no wall time is stored; the timings go to a separate dict."""
    timings = {}
    a = figures.mode_study(modes=(2,), models=("frictionless", "hybrid_coulomb"), t_end=0.4,
                           n_impacts=1, timings=timings)
    b = figures.mode_study(modes=(2,), models=("frictionless", "hybrid_coulomb"), t_end=0.4, n_impacts=1)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert set(timings) == {"frictionless/2", "hybrid_coulomb/2"}
    small = dict(axial_modes=(1,), models=("hybrid_coulomb",), t_end=0.4)
    s1, s2 = axial.axial_study(**small, timings=timings), axial.axial_study(**small)
    assert json.dumps(s1, sort_keys=True) == json.dumps(s2, sort_keys=True)
    assert "hybrid_coulomb/1" in timings
    for d in (a, s1, figures.run_summaries({"frictionless": figures.run_models(
            "3.2", ("frictionless",), t_end=0.4)[0]["frictionless"]})):
        assert not {k for k in _keys(d) if "wall" in k}, sorted(k for k in _keys(d) if "wall" in k)


def test_partial_run_keeps_the_manifest(tmp_path):
    """``--only`` rewrites its own entries of manifest.json and keeps the others."""
    path = tmp_path / "manifest.json"
    figures._write_manifest(path, {"a": {"caption": "A"}, "b": {"caption": "B"}}, complete=True)
    figures._write_manifest(path, {"b": {"caption": "B2"}}, complete=False)
    assert json.loads(path.read_text()) == {"a": {"caption": "A"}, "b": {"caption": "B2"}}
    figures._write_manifest(path, {"b": {"caption": "B3"}}, complete=True)
    assert json.loads(path.read_text()) == {"b": {"caption": "B3"}}


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_figures_command_twice_writes_the_same_bytes(tmp_path):
    """``python -m flexlib figures`` run twice (here without the long studies, into two folders)
    writes byte-identical files; only the untracked timings.json may differ.  (.ci/run makes the
    stronger check: a full run on a clean clone must leave ``git status`` clean.)"""
    import subprocess
    import sys
    digests = []
    for d in ("a", "b"):
        out = tmp_path / d
        subprocess.run([sys.executable, "-m", "flexlib", "figures", "--no-studies", "--out", str(out)],
                       check=True, capture_output=True, text=True)
        digests.append({p.relative_to(out).as_posix(): _digest(p) for p in sorted(out.rglob("*"))
                        if p.is_file() and p.name != "timings.json"})
    assert digests[0].keys() == digests[1].keys()
    changed = [k for k in digests[0] if digests[0][k] != digests[1][k]]
    assert not changed, f"a second figures run changed {changed}"
    assert {"fig04_theta.png", "fig04_theta.svg", "manifest.json", "data/key_numbers.json"} <= digests[0].keys()
