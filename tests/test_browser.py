"""Notebook 06's slider panel driven in a real browser: JupyterLab + Debian Chromium via Playwright.

The test starts a private JupyterLab server on a copy of ``notebooks/06-comparison.ipynb`` (outputs
stripped; the repository's copy is never opened), runs all cells, moves the μ_d slider from 0.40 to
0.45 with the keyboard, and checks that the plot changed and that the panel's readout shows what a
direct :func:`flexlib.simulate` call in this process gives for μ_d = 0.45.  Screenshots before and
after are kept in ``tests/artifacts/`` (gitignored), together with the server log.

Skipped without Playwright or ``/usr/bin/chromium``; a failure instead when
``FLEXLIB_REQUIRE_BROWSER=1`` (see ``conftest.py``).  Never run ``playwright install``.
"""
import json
import re
import shutil
import time
from pathlib import Path

import pytest

from conftest import CHROMIUM
from jupyter_helpers import jupyter_server

REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
NOTEBOOK = "06-comparison.ipynb"

# What notebook 06's "Try it" panel shows: case 3.2, these three models, runs to 0.75 s.
CASE, MODELS, T_END = "3.2", ("hybrid_coulomb", "hybrid_lugre", "lugre"), 0.75
LABELS = {"hybrid_coulomb": "hybrid Coulomb", "hybrid_lugre": "hybrid LuGre", "lugre": "unified LuGre"}
MU_START, MU_END = 0.40, 0.45

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


# ---------------------------------------------------------------------- expected numbers
def expected_rows(mu_d):
    """Readout rows for ``mu_d``, computed here and formatted as the panel's table formats them:
    model label, first-impact start (.4f), peak N and peak |F_t| over all impacts (3 significant
    figures), energy lost in impact 1 (.4f), number of impacts."""
    import flexlib as fl
    case = fl.paper_case(CASE).with_(mu_d=mu_d)
    rows = []
    for m in MODELS:
        r = fl.simulate(case, m, T_END)
        assert r.impacts, f"{m} at mu_d={mu_d}: no impact, the readout test needs one"
        first = r.impacts[0]
        rows.append([LABELS[m], f"{first['t_start']:.4f}",
                     f"{max(i['peak_normal_force'] for i in r.impacts):.3g}",
                     f"{max(i['peak_friction_force'] for i in r.impacts):.3g}",
                     f"{first['energy_lost']:.4f}", str(len(r.impacts))])
    return rows


# ---------------------------------------------------------------------- the server
def _write_settings(settings):
    """User settings for the private Lab: no news toast, every cell rendered (no windowing)."""
    for plugin, values in {
        "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    }.items():
        path = settings / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))


def _copy_notebook(root):
    """Copy notebook 06 (outputs and widget state stripped) and figures/ into ``root``."""
    (root / "notebooks").mkdir(parents=True)
    nb = json.loads((REPO / "notebooks" / NOTEBOOK).read_text())
    nb.get("metadata", {}).pop("widgets", None)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    (root / "notebooks" / NOTEBOOK).write_text(json.dumps(nb))
    shutil.copytree(REPO / "figures", root / "figures")     # the Markdown links to ../figures/*.png


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on a free port serving a temporary root; yields its base URL.
    Stopped in teardown even when the test fails (see :func:`jupyter_helpers.jupyter_server`)."""
    root, home = tmp_path / "root", tmp_path / "jupyter"
    _copy_notebook(root)
    _write_settings(home / "settings")
    ARTIFACTS.mkdir(exist_ok=True)
    with jupyter_server(["lab", f"--ServerApp.root_dir={root}"], cwd=root, home=home,
                        log_path=ARTIFACTS / "browser_lab.log") as base:
        yield base


@pytest.fixture
def page(lab):
    """A Chromium page (Debian's binary, never a downloaded one); closed in teardown."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            pg = browser.new_page(viewport={"width": 1400, "height": 1300})
            pg.set_default_timeout(60_000)
            yield pg
        finally:
            browser.close()


# ---------------------------------------------------------------------- the panel in the page
PANEL_STATE_JS = """cell => {
  const html = Array.from(cell.querySelectorAll('.widget-html-content'));
  const table = html.find(e => e.querySelector('table'));
  const status = html.find(e => !e.querySelector('table'));
  const img = cell.querySelector('.widget-output img');
  return {
    slider: (() => {   // the value in the text box beside the mu_d slider (the panel's readout of it)
      const box = Array.from(cell.querySelectorAll('.widget-hbox'))
        .find(b => b.querySelector('.widget-slider') && b.textContent.includes('μ_d'));
      const input = box ? box.querySelector('.widget-text input') : null;
      return input ? input.value.trim() : null;
    })(),
    status: status ? status.textContent.trim() : null,
    rows: table ? Array.from(table.querySelectorAll('tr')).slice(1)
                    .map(tr => Array.from(tr.cells).map(td => td.textContent.trim())) : [],
    img: img ? img.getAttribute('src') : null,
  };
}"""


def _value(state):
    """The μ_d value the panel shows, rounded to the slider's step (None if it shows none)."""
    try:
        return round(float(state["slider"]), 2)
    except (TypeError, ValueError):
        return None


def _state(cell):
    return cell.evaluate(PANEL_STATE_JS)


def _wait_for(cell, what, predicate, timeout=60):
    """Poll the panel's state until ``predicate(state)``; fail with the last state seen."""
    deadline = time.monotonic() + timeout
    while True:
        state = _state(cell)
        if predicate(state):
            return state
        if time.monotonic() > deadline:
            shown = {k: (v[:60] + "…" if k == "img" and v else v) for k, v in state.items()}
            pytest.fail(f"timed out after {timeout} s waiting for {what}; panel shows {shown}")
        time.sleep(0.2)


def _screenshot(page, cell, name):
    cell.evaluate("c => c.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)      # let the image paint before the capture
    page.screenshot(path=str(ARTIFACTS / name))


def test_mu_d_slider_reruns_the_three_models(lab, page):
    for name in ("browser_before.png", "browser_after.png", "browser_failure.png"):
        (ARTIFACTS / name).unlink(missing_ok=True)          # no stale picture from an earlier run
    try:
        _drive_panel(lab, page)
    except BaseException:
        try:                                                # what the page showed, for the log
            page.screenshot(path=str(ARTIFACTS / "browser_failure.png"))
        except Exception:
            pass
        raise


def _drive_panel(lab, page):
    from flexlib.viz.widgets import SLIDERS
    step = SLIDERS["mu_d"][1]["step"]
    presses = round((MU_END - MU_START) / step)
    before_rows, after_rows = expected_rows(MU_START), expected_rows(MU_END)
    assert before_rows != after_rows, "mu_d 0.40 -> 0.45 must change the readout, else this proves nothing"

    page.goto(f"{lab}/lab/tree/notebooks/{NOTEBOOK}?reset")
    page.locator(".jp-Notebook").first.wait_for(state="visible")
    # Kernel ready: the status bar says "| Idle" (the toolbar's indicator says idle too early).
    page.wait_for_function(
        "() => { const t = document.querySelector('#jp-main-statusbar')?.textContent ?? '';"
        " return t.includes('| Idle') && !t.includes('No Kernel'); }", timeout=60_000)

    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()

    cell = page.locator(".jp-CodeCell").filter(has=page.locator(".widget-slider")).first
    cell.wait_for(state="attached", timeout=90_000)
    state0 = _wait_for(cell, "the panel's first plot", lambda s: s["img"] and s["rows"]
                       and (s["status"] or "").startswith("ready"), timeout=90)
    assert _value(state0) == MU_START, state0["slider"]
    assert state0["rows"] == before_rows
    _screenshot(page, cell, "browser_before.png")

    slider = cell.locator(".widget-slider").filter(has_text="μ_d")
    handle = slider.locator(".noUi-handle")
    handle.focus()
    for _ in range(presses):
        handle.press("ArrowRight")
    # Each press is one kernel round trip: wait for the state of the *final* value.  The status
    # returns to "ready" only after the plot is drawn, and the image must then differ.
    state1 = _wait_for(cell, f"the readout for mu_d = {MU_END:.2f}",
                       lambda s: _value(s) == MU_END and s["rows"] == after_rows
                       and (s["status"] or "").startswith("ready") and s["img"]
                       and s["img"] != state0["img"], timeout=60)
    _screenshot(page, cell, "browser_after.png")

    assert state1["img"] != state0["img"], "the plot did not change"
    assert state1["rows"] == after_rows
