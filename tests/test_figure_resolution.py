"""Figures are legible: every PNG is at least 1000 px wide or stored at 150 dpi or more, and no
text in a figure is smaller than 8 pt at the figure's own size.

* the files: every ``figures/*.png`` and every image a notebook stores in its outputs (base64);
  width from the IHDR chunk, resolution from the pHYs chunk (pixels per metre);
* the fonts: figures built through the library (the eight-panel accuracy figure from the
  committed study results, the nine-panel axial figure from its cached study, the energy figure
  of a short run, a multibody contact map) with every visible Text artist's size checked
  against :data:`flexlib.viz.theme.MIN_FONT_PT` — and that constant checked against 8 pt.
"""
import base64
import json
import struct
import zlib
from pathlib import Path

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from flexlib.viz import theme  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MIN_WIDTH_PX = 1000
MIN_DPI = 150
MIN_FONT_PT = 8.0


def png_info(data: bytes) -> dict:
    """Width, height [px] and dpi (None without a pHYs chunk in metres) of a PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, info = 8, {"dpi": None}
    while pos < len(data):
        (length,), kind = struct.unpack(">I", data[pos:pos + 4]), data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            info["width"], info["height"] = struct.unpack(">II", body[:8])
        elif kind == b"pHYs":
            ppx, _ppy, unit = struct.unpack(">IIB", body)
            if unit == 1:
                info["dpi"] = ppx * 0.0254
        elif kind == b"IEND":
            break
        pos += 12 + length
    return info


def legible(info) -> bool:
    return info["width"] >= MIN_WIDTH_PX or (info["dpi"] is not None and info["dpi"] >= MIN_DPI - 0.5)


def _png(width, height, dpi=None) -> bytes:
    """A minimal PNG (one grey row repeated) of the given size and optional pHYs, for the reader's test."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
    if dpi:
        ppm = round(dpi / 0.0254)
        out += chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1))
    return out + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def test_png_reader_and_rule_on_made_images():
    """The check fails where it should: small at 72 dpi, or small without a resolution."""
    assert not legible(png_info(_png(500, 300, dpi=72)))
    assert not legible(png_info(_png(500, 300)))
    assert legible(png_info(_png(500, 300, dpi=150)))
    assert legible(png_info(_png(1050, 20)))
    assert png_info(_png(640, 10, dpi=300))["dpi"] == pytest.approx(300, abs=0.05)


def test_png_reader_agrees_with_matplotlib(tmp_path):
    from matplotlib.figure import Figure
    fig = Figure(figsize=(4, 2))
    fig.savefig(tmp_path / "f.png", dpi=120)
    info = png_info((tmp_path / "f.png").read_bytes())
    assert (info["width"], info["height"]) == (480, 240)
    assert info["dpi"] == pytest.approx(120, abs=0.05)


# ----------------------------------------------------------------- the stored images
FIGURE_PNGS = sorted((ROOT / "figures").glob("*.png"))


def notebook_images():
    out = []
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for i, cell in enumerate(json.loads(nb.read_text())["cells"]):
            for k, o in enumerate(cell.get("outputs", [])):
                png = o.get("data", {}).get("image/png")
                if png:
                    out.append((f"{nb.stem}-cell{i}-out{k}", png))
    return out


NOTEBOOK_PNGS = notebook_images()


def test_there_are_images_to_check():
    assert len(FIGURE_PNGS) >= 20 and len(NOTEBOOK_PNGS) >= 20


@pytest.mark.parametrize("path", FIGURE_PNGS, ids=lambda p: p.stem)
def test_figure_file_is_legible(path):
    info = png_info(path.read_bytes())
    assert legible(info), f"{path.name}: {info['width']} px wide at {info['dpi']} dpi"


@pytest.mark.parametrize("where,png", NOTEBOOK_PNGS, ids=[w for w, _ in NOTEBOOK_PNGS])
def test_notebook_image_is_legible(where, png):
    info = png_info(base64.b64decode("".join(png) if isinstance(png, list) else png))
    assert legible(info), f"{where}: {info['width']} px wide at {info['dpi']} dpi"


# ----------------------------------------------------------------- the fonts at save time
def test_theme_meets_the_rule():
    import matplotlib as mpl
    from matplotlib.font_manager import FontProperties
    assert theme.DPI >= MIN_DPI and theme.MIN_FONT_PT >= MIN_FONT_PT
    assert min(theme.SMALL, theme.MEDIUM, theme.LARGE, theme.TITLE) >= MIN_FONT_PT
    for key, value in theme.RC.items():
        if key.endswith("size") and key != "figure.figsize":
            assert FontProperties(size=value).get_size_in_points() >= MIN_FONT_PT, key
    theme.use()
    for key in ("font.size", "axes.titlesize", "axes.labelsize", "xtick.labelsize",
                "ytick.labelsize", "legend.fontsize", "figure.titlesize"):
        size = mpl.rcParams[key]
        pts = FontProperties(size=size).get_size_in_points()
        assert pts >= MIN_FONT_PT, f"{key} = {size} ({pts} pt)"


def small_texts(fig) -> list:
    """[(text, size)] of every visible, non-empty Text artist below ``MIN_FONT_PT``."""
    from matplotlib.text import Text
    fig.canvas.draw()                          # tick labels exist only once drawn
    return [(t.get_text()[:40], t.get_fontsize()) for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and t.get_fontsize() < MIN_FONT_PT]


def test_small_texts_finds_a_small_label():
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    ax.set_title("tiny", fontsize=6)
    assert ("tiny", 6.0) in small_texts(fig)
    plt.close(fig)


def _check(fig):
    import matplotlib.pyplot as plt
    bad = small_texts(fig)
    plt.close(fig)
    assert not bad, f"texts below {MIN_FONT_PT} pt: {bad[:10]}"


def test_eight_panel_accuracy_figure_has_legible_fonts():
    from flexlib.studies import accuracy
    from flexlib.viz.plots import fig_accuracy_cost
    study = accuracy.STUDIES["3.2"]
    if not study.results_csv.exists() or not study.summary_json.exists():
        pytest.skip("the accuracy study's results are not in benchmarks/results/")
    summary = json.loads(study.summary_json.read_text())
    ref = summary["reference"]["label"]
    err = accuracy.errors(accuracy.load_table(study=study), ref, study)
    fig = fig_accuracy_cost(err, "hybrid_coulomb", ref, summary["tolerance"], study)
    assert len(fig.axes) == 8
    _check(fig)


def test_nine_panel_axial_figure_has_legible_fonts():
    from flexlib.studies import axial
    if not (ROOT / "figures" / "data" / "axial_study.json").exists():
        pytest.skip("figures/data/axial_study.json is missing")
    study = axial.load_axial_study(ROOT / "figures", compute_if_missing=False)
    _check(axial.fig_axial_first_impact(study))


def test_paper_figure_of_a_short_run_has_legible_fonts():
    import flexlib as fl
    from flexlib.viz.plots import FIGURES
    case = fl.paper_case("3.2")
    res = {m: fl.simulate(case, m, 0.36) for m in ("frictionless", "hybrid_coulomb")}
    fn = FIGURES["fig11_energy"][0]
    _check(fn(res))


def test_multibody_figure_has_legible_fonts():
    from flexlib.cases import simulate as simulate_case
    from flexlib.viz import multibody_plots as mbp
    run = simulate_case("falling-beam", "hybrid_coulomb", 0.146)
    _check(mbp.fig_contact_map(run))
