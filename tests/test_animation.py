"""The embedded animations (flexlib.viz.animation) and their place in notebooks 01, 10 and 11."""
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from flexlib.viz import animation  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


@pytest.fixture(scope="module")
def landing():
    from flexlib.cases import simulate
    return simulate("falling-beam", "hybrid_coulomb", t_end=0.16)


def test_exaggeration_is_a_round_factor_from_the_amplitude(landing):
    times = np.linspace(0.13, 0.16, 12)
    amp = animation.deflection_amplitude(landing, times)
    scale = animation.exaggeration_for(landing, times, fraction=0.05)
    L = landing.system.bodies[0].beam.L
    assert amp > 0
    mantissa = scale / 10 ** np.floor(np.log10(scale))
    assert min(abs(mantissa - m) for m in (1, 2, 5)) < 1e-9
    # the largest factor of the 1-2-5 series that draws the amplitude at or below 5 % of L
    assert scale * amp <= 0.05 * L * (1 + 1e-12) or scale == 1.0
    assert scale * amp > 0.05 * L / 2.5


def test_html_player_has_the_frames_and_states_the_exaggeration(landing):
    times = np.linspace(0.13, 0.16, 8)
    html = animation.animation_html(landing, times, exaggeration=50, title="landing").data
    assert html.count("data:image/png;base64") == len(times)
    assert "deflection ×50" in html and f'class="{animation.JSHTML_MARKER}"' in html
    anim = animation.animate({"2 points": landing}, times[:2])
    assert anim.exaggeration == animation.exaggeration_for(landing, times[:2])
    assert anim.to_jshtml().count("data:image/png;base64") == 2


@pytest.mark.parametrize("name", ["01-modeling", "10-double-pendulum", "11-multi-point-impact"])
def test_notebook_carries_an_animation(name):
    """The stored notebook has an executed cell whose text/html output is the player."""
    nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text())
    htmls = ["".join(o.get("data", {}).get("text/html", ""))
             for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
    players = [h for h in htmls if f'class="{animation.JSHTML_MARKER}"' in h]
    assert players, f"{name}: no animation output (run the notebook)"
    assert all("deflection ×" in h and "data:image/png;base64" in h for h in players)
