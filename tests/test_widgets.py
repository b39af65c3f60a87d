"""The shared slider panel (flexlib.viz.widgets): no browser, a stub simulate where speed matters."""
import time
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from flexlib.viz import widgets  # noqa: E402
from flexlib.paper import SimulationError  # noqa: E402

FRICTION_FIELDS = ["mu_d", "mu_s", "sigma0", "sigma1", "sigma2", "v_s", "Dv", "e", "alpha", "X1",
                   "n_modes", "t_end"]


class StubSimulate:
    """Records every call; returns a result-like object with one impact."""

    def __init__(self, fail_when=None):
        self.calls = []
        self.fail_when = fail_when

    def __call__(self, case, model, t_end, **kw):
        self.calls.append((model, case.coulomb.mu_d, case.coulomb.mu_s, t_end, case.beam.axial_modes))
        if self.fail_when is not None and self.fail_when(case, model):
            raise SimulationError(f"{model}: Painleve singularity at t = 0.333 s", t=0.333, state="SLIP",
                                  model=model, cause="test", result=None)
        impact = dict(t_start=0.3329, peak_normal_force=123.456, peak_friction_force=45.6789,
                      energy_lost=0.12345)
        return SimpleNamespace(model=model, case=case, t=np.array([0.0, t_end]), impacts=[impact])


def _blank_plot(results):
    return plt.figure()


def _panel(models=("hybrid_coulomb", "lugre"), fields=FRICTION_FIELDS, **kw):
    stub = StubSimulate(kw.pop("fail_when", None))
    p = widgets.panel(fields=fields, models=models, case="3.2", t_end=0.75, plot=_blank_plot,
                      simulate_fn=stub, **kw)
    return p, stub


def test_every_slider_waits_for_release():
    p, _ = _panel(fields=list(widgets.SLIDERS))
    assert set(p.sliders) == set(widgets.SLIDERS)
    for name, s in p.sliders.items():
        assert s.continuous_update is False, name
        assert "[" in s.description and "]" in s.description, f"{name}: no unit in {s.description!r}"


def test_start_values_come_from_the_case():
    p, _ = _panel(fields=list(widgets.SLIDERS))
    assert p.sliders["mu_d"].value == 0.4 and p.sliders["mu_s"].value == 0.5
    assert p.sliders["sigma0"].value == pytest.approx(1e5)
    assert p.sliders["X1"].value == 0.5 and p.sliders["t_end"].value == 0.75
    assert p.sliders["alpha"].value == pytest.approx(np.pi / 10)


def test_one_change_one_call_per_model():
    p, stub = _panel()
    assert len(stub.calls) == 2                  # the initial draw
    stub.calls.clear()
    p.sliders["mu_d"].value = 0.3
    assert sorted(c[0] for c in stub.calls) == ["hybrid_coulomb", "lugre"]
    assert all(c[1] == 0.3 for c in stub.calls)
    assert p.error is None and "ready" in p.status.value


def test_unselected_model_is_not_run():
    p, stub = _panel()
    p.checkboxes["lugre"].value = False          # cached already: no call
    stub.calls.clear()
    p.sliders["mu_d"].value = 0.3
    assert [c[0] for c in stub.calls] == ["hybrid_coulomb"]
    stub.calls.clear()
    p.sliders["sigma1"].value = 10.0             # a LuGre parameter: hybrid Coulomb does not use it
    assert stub.calls == []


def test_held_changes_run_once():
    p, stub = _panel()
    stub.calls.clear()
    with p.hold_trait_notifications():
        p.sliders["mu_d"].value = 0.6             # alone invalid (mu_s = 0.5 < mu_d) ...
        p.sliders["mu_s"].value = 0.7             # ... but valid together
    assert len(stub.calls) == 2
    assert {(c[1], c[2]) for c in stub.calls} == {(0.6, 0.7)}
    assert p.error is None
    # one slider's own traitlets hold also compresses to one notification
    stub.calls.clear()
    s = p.sliders["mu_d"]
    with s.hold_trait_notifications():
        s.value = 0.1
        s.value = 0.2
        s.value = 0.25
    assert len(stub.calls) == 2 and all(c[1] == 0.25 for c in stub.calls)


def test_returning_to_a_setting_uses_the_cache():
    p, stub = _panel()
    p.sliders["mu_d"].value = 0.3
    stub.calls.clear()
    p.sliders["mu_d"].value = 0.4                # the start value
    p.sliders["mu_d"].value = 0.3
    assert stub.calls == []
    p.sliders["t_end"].value = 0.5               # t_end is part of the key
    assert len(stub.calls) == 2


def test_invalid_combination_shows_a_message():
    p, stub = _panel(models=("continuous_coulomb",), fields=["v0", "v1"])
    p.output.outputs = ({"output_type": "stream", "name": "stdout", "text": "last good plot"},)
    stub.calls.clear()
    p.sliders["v0"].value = 1e-2                 # above v1 = 1e-3: ValueError in params
    assert stub.calls == []
    assert "v0" in p.error and "v1" in p.status.value
    assert "Traceback" not in p.status.value
    assert p.output.outputs[0]["text"] == "last good plot"
    p.sliders["v0"].value = 1e-4                 # valid again (and cached)
    assert p.error is None and stub.calls == []


def test_mu_d_above_mu_s_moves_mu_s_up_with_it():
    """A user who drags μ_d past μ_s expects μ_s to follow (μ_s ≥ μ_d), not a refusal."""
    p, stub = _panel()
    stub.calls.clear()
    p.sliders["mu_d"].value = 0.8                # mu_s = 0.5 before
    assert p.sliders["mu_s"].value == 0.8
    assert len(stub.calls) == 2 and {(c[1], c[2]) for c in stub.calls} == {(0.8, 0.8)}
    assert p.error is None and "μ_s moved up to 0.8" in p.status.value
    stub.calls.clear()
    p.sliders["mu_s"].value = 0.3                # below mu_d: mu_d follows it down
    assert p.sliders["mu_d"].value == 0.3
    assert len(stub.calls) == 2 and {(c[1], c[2]) for c in stub.calls} == {(0.3, 0.3)}
    assert "μ_d moved down to 0.3" in p.status.value
    stub.calls.clear()
    p.sliders["mu_s"].value = 0.6                # no crossing: nothing else moves, no note
    assert p.sliders["mu_d"].value == 0.3 and "moved" not in p.status.value
    assert {(c[1], c[2]) for c in stub.calls} == {(0.3, 0.6)}


def test_mu_s_follows_mu_d_inside_a_hold_too():
    """Inside ``hold_trait_notifications()`` the μ_s ≥ μ_d rule applies when the block ends (to
    the friction slider moved last), not a ValueError in the status line."""
    p, stub = _panel()
    stub.calls.clear()
    with p.hold_trait_notifications():
        p.sliders["mu_d"].value = 0.8            # mu_s = 0.5
    assert p.sliders["mu_s"].value == 0.8
    assert len(stub.calls) == 2 and {(c[1], c[2]) for c in stub.calls} == {(0.8, 0.8)}
    assert p.error is None and "μ_s moved up to 0.8" in p.status.value
    stub.calls.clear()
    with p.hold_trait_notifications():           # nested holds: still one run, at the outer end
        with p.hold_trait_notifications():
            p.sliders["e"].value = 0.5
            p.sliders["mu_s"].value = 0.2        # below mu_d = 0.8: mu_d follows it down
        assert stub.calls == [] and p.sliders["mu_d"].value == 0.8
    assert p.sliders["mu_d"].value == 0.2 and len(stub.calls) == 2
    assert {(c[1], c[2]) for c in stub.calls} == {(0.2, 0.2)}
    assert p.error is None and "μ_d moved down to 0.2" in p.status.value
    stub.calls.clear()
    with p.hold_trait_notifications():           # crossing and back inside the block: no move
        p.sliders["mu_d"].value = 0.6
        p.sliders["mu_s"].value = 0.9
    assert {(c[1], c[2]) for c in stub.calls} == {(0.6, 0.9)} and "moved" not in p.status.value


def test_without_a_mu_s_slider_the_case_mu_s_follows_mu_d():
    p, stub = _panel(fields=["mu_d"])
    stub.calls.clear()
    p.sliders["mu_d"].value = 0.9                # the whole slider range runs
    assert p.error is None and {(c[1], c[2]) for c in stub.calls} == {(0.9, 0.9)}
    assert "μ_s raised to 0.9" in p.status.value
    p.sliders["mu_d"].value = 0.3
    assert {(c[1], c[2]) for c in stub.calls[-2:]} == {(0.3, 0.5)} and "raised" not in p.status.value


def test_a_lugre_friction_force_above_mu_s_n_is_explained():
    p, stub = _panel(models=("lugre", "hybrid_coulomb"), fields=["mu_d"])
    assert "bristle damping" not in p.readout.value      # the stub's 45.7 N < 0.5 x 123 N
    big = dict(t_start=0.3329, peak_normal_force=3800.0, peak_friction_force=14000.0, energy_lost=0.6)
    results = {m: SimpleNamespace(model=m, case=p.case, t=np.array([0.0, 0.75]), impacts=[big])
               for m in ("lugre", "hybrid_coulomb", "continuous_lugre")}
    notes = widgets.readout_notes(results)
    assert len(notes) == 3
    assert "unified LuGre" in notes[0] and "σ1 ż" in notes[0] and "3.7 × peak N" in notes[0]
    assert "penalty" in notes[2] and "stiffness K" in notes[2]
    assert not any("hybrid Coulomb" in n for n in notes)


def test_simulation_error_shows_a_message():
    p, stub = _panel(fail_when=lambda case, model: model == "lugre" and case.lugre.sigma1 > 500)
    good = dict(p.results)
    p.sliders["sigma1"].value = 1000.0
    assert "Painleve" in p.error and "unified LuGre" in p.status.value
    assert p.results == good                     # last good results (and plot) kept
    n = len(stub.calls)
    p.sliders["sigma1"].value = 100.0
    p.sliders["sigma1"].value = 1000.0           # a failed setting is cached too
    assert len(stub.calls) == n


def test_axial_modes_field():
    """The axial-modes control (docs/model.md section 16): 0..4, starts at the case's 0, one run per model."""
    p, stub = _panel(fields=["mu_d", "axial_modes"])
    s = p.sliders["axial_modes"]
    assert (s.min, s.max, s.step, s.value) == (0, 4, 1, 0)
    assert isinstance(s.value, int) and s.continuous_update is False
    assert {c[4] for c in stub.calls} == {0}
    stub.calls.clear()
    s.value = 2
    assert sorted(c[0] for c in stub.calls) == ["hybrid_coulomb", "lugre"]
    assert {c[4] for c in stub.calls} == {2} and {c[1] for c in stub.calls} == {0.4}
    assert p.error is None
    stub.calls.clear()
    s.value = 0                                  # back to the paper's model: cached
    assert stub.calls == []
    s.value = 9                                  # the slider clamps to its range
    assert s.value == 4 and {c[4] for c in stub.calls} == {4} and len(stub.calls) == 2
    with p.hold_trait_notifications():           # with another field: still one run per model
        stub.calls.clear()
        s.value = 1
        p.sliders["mu_d"].value = 0.3
    assert len(stub.calls) == 2 and {(c[1], c[4]) for c in stub.calls} == {(0.3, 1)}


def test_axial_modes_field_real_run():
    """A real run through the panel carries the axial coordinates (one frictionless run)."""
    p = widgets.panel(fields=["axial_modes"], models=["frictionless"], t_end=0.34, plot=_blank_plot)
    assert p.results["frictionless"].stats["axial_modes"] == 0
    p.sliders["axial_modes"].value = 1
    r = p.results["frictionless"]
    assert p.error is None and r.stats["axial_modes"] == 1 and r.C.shape[1] == 1
    assert r.impacts and abs(r.impacts[0]["t_start"] - 0.3329) < 1e-3


def test_readout_has_the_key_numbers():
    p, _ = _panel()
    html = p.readout.value
    for text in ("0.3329", "123", "45.7", "0.1235", "hybrid Coulomb", "unified LuGre"):
        assert text in html


def test_unknown_field_is_rejected():
    with pytest.raises(ValueError, match="unknown panel field"):
        widgets.panel(fields=["mu_x"], models=["lugre"], simulate_fn=StubSimulate())


def test_real_run_and_seeded_cache():
    """One short real frictionless run; a second panel seeded with it makes no call."""
    import flexlib as fl
    p = widgets.panel(fields=["e"], models=["frictionless"], t_end=0.34, plot=_blank_plot)
    r = p.results["frictionless"]
    assert r.impacts and abs(r.impacts[0]["t_start"] - 0.3329) < 1e-3
    assert "0.3329" in p.readout.value
    stub = StubSimulate()
    fl.viz.widgets.panel(fields=["e"], models=["frictionless"], t_end=0.34, plot=_blank_plot,
                     results={"frictionless": r}, simulate_fn=stub)
    assert stub.calls == []


def test_static_fallback_says_what_the_panel_does():
    """Without a kernel (GitHub, nbviewer) a viewer shows text/html or text/plain: one line that
    names the sliders and models and says a kernel is needed, not ``VBox(children=(HBox(...``."""
    p, _ = _panel(fields=["mu_d", "e"])
    bundle = p._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle       # the live view is still there
    plain, html = bundle["text/plain"], bundle["text/html"]
    assert not plain.startswith(("VBox(", "HBox(")) and "children=" not in plain
    assert "\n" not in plain
    for text in ("μ_d [–]", "e [–]", "hybrid Coulomb", "unified LuGre", "kernel", "3.2"):
        assert text in plain, text
        assert text in html, text
    assert "<table" in html and "0.3329" in html                      # the start values' readout
    assert "VBox(" not in html


def test_static_fallback_after_an_error_has_no_stale_table():
    p, _ = _panel(models=("continuous_coulomb",), fields=["v0", "v1"])
    p.sliders["v0"].value = 1e-2                 # invalid: the readout would be stale
    html = p._repr_mimebundle_()["text/html"]
    assert "kernel" in html and "<table" not in html


# ------------------------------------------------------------------ the beam's basis
def test_basis_dropdown_and_its_sizes():
    """The basis is a drop-down list of the three bases with its sizes as sliders; a size the
    chosen basis does not use reruns nothing, one it uses reruns once per model."""
    fields = ["basis", "n_modes", "elements", "local_length", "local_modes"]
    seen = []
    stub = StubSimulate()
    orig = stub.__call__

    def recording(case, model, t_end, **kw):
        b = case.beam
        seen.append((b.basis, b.n_modes, b.elements, b.local_length, b.local_modes))
        return orig(case, model, t_end, **kw)

    p = widgets.panel(fields=fields, models=["frictionless"], case="3.2", t_end=0.75,
                      plot=_blank_plot, simulate_fn=recording)
    d = p.sliders["basis"]
    assert list(d.options) == ["modal", "fe", "partition"] and d.value == "modal"
    assert p.sliders["n_modes"].max == 12 and p.sliders["n_modes"].value == 3
    for f in ("elements", "local_length", "local_modes"):
        assert p.sliders[f].continuous_update is False and "[" in p.sliders[f].description
    assert len(seen) == 1
    p.sliders["elements"].value = 4             # unused by the modal basis: no run
    p.sliders["local_modes"].value = 2
    assert len(seen) == 1 and p.error is None
    d.value = "fe"                              # 4 elements now
    assert seen[-1][:1] == ("fe",) and seen[-1][2] == 4 and len(seen) == 2
    p.sliders["n_modes"].value = 5              # unused by fe: no run
    assert len(seen) == 2
    d.value = "partition"                       # N = 5 far modes, 0.2 m, 4 elements, k = 2
    assert seen[-1] == ("partition", 5, 4, 0.2, 2) and len(seen) == 3
    p.sliders["local_modes"].value = 3          # used by the partition: one run
    assert seen[-1] == ("partition", 5, 4, 0.2, 3) and len(seen) == 4
    p.sliders["elements"].value = 1             # k = 3 > 2 x 1 coordinates: refused, one line
    assert len(seen) == 4 and p.error and "local_modes" in p.error
    assert "basis [–]" in p.describe()


def test_basis_field_real_run():
    """A real run through the panel in each basis: the first impact of case 3.2 at 0.333 s."""
    p = widgets.panel(fields=["basis", "elements"], models=["frictionless"], t_end=0.34,
                      plot=_blank_plot)
    assert p.results["frictionless"].case.beam.basis == "modal"
    for basis in ("fe", "partition"):
        p.sliders["elements"].value = 2
        p.sliders["basis"].value = basis
        r = p.results["frictionless"]
        assert p.error is None and r.case.beam.basis == basis and r.case.beam.elements == 2
        assert r.impacts and abs(r.impacts[0]["t_start"] - 0.333) < 2e-3


def test_system_panel_offers_the_basis():
    """The multibody panel: a basis drop-down list and the element slider; unused sizes rerun
    nothing, the chosen basis reaches the simulation."""
    from flexlib.viz import multibody_widgets as mbw
    calls = []

    def stub(case, model, t_end, **params):
        calls.append((model, dict(params)))
        return SimpleNamespace(t_end=t_end)

    p = mbw.system_panel("double-pendulum", ["basis", "n_modes", "elements", "model"],
                         dict(basis="modal", n_modes=3, elements=4, model="continuous"),
                         t_end=0.5, plot=lambda r: None, readout=lambda r: "ok", simulate_fn=stub)
    assert list(p.sliders["basis"].options) == ["modal", "fe", "partition"]
    assert p.sliders["n_modes"].max == 12 and p.sliders["elements"].continuous_update is False
    assert calls == [("continuous", dict(basis="modal", n_modes=3))]
    p.sliders["elements"].value = 6             # unused by the modal basis: cached, no run
    assert len(calls) == 1
    p.sliders["basis"].value = "fe"
    assert calls[-1] == ("continuous", dict(basis="fe", elements=6))
    p.sliders["n_modes"].value = 5              # unused by fe
    assert len(calls) == 2 and p.error is None
    assert "basis [–]" in p.describe()
    with pytest.raises(ValueError, match="unknown panel field"):
        mbw.system_panel("double-pendulum", ["bases"], {}, 0.5, None, None, simulate_fn=stub)


# ------------------------------------------------------------------ answering panels
def _system_stub(calls, sleep=0.0):
    def stub(case, model, t_end, **params):
        calls.append((model, dict(params)))
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < sleep:   # Python-level work: a Cancel can stop it
            time.sleep(0.005)
        return SimpleNamespace(t_end=t_end, model=model, params=dict(params))
    return stub


def _pendulum_panel(calls, sleep=0.0, **start):
    from flexlib.viz import multibody_widgets as mbw
    values = dict(contact_at=0.8, contact_stiffness=1e9, n_modes=3, mu_d=0.0, e=0.0, model="continuous")
    values.update(start)
    return mbw.system_panel("double-pendulum", list(values), values, t_end=0.7,
                            plot=lambda r: None, readout=lambda r: f"run {r.model} {sorted(r.params.items())}",
                            simulate_fn=_system_stub(calls, sleep))


def test_system_panel_disables_what_the_model_does_not_use():
    """A constraint model has no contact stiffness, a frictionless one no μ_d, the elastic Hertz
    contact no e: those controls are disabled with the reason as tooltip, and moving them reruns
    nothing."""
    calls = []
    p = _pendulum_panel(calls)
    assert calls == [("continuous", dict(contact_at=0.8, contact_stiffness=1e9, n_modes=3))]
    assert not p.sliders["contact_stiffness"].disabled
    for name in ("mu_d", "e"):
        assert p.sliders[name].disabled and p.entries[name].disabled
        assert p.sliders[name].tooltip.startswith("not used: ")
    assert "friction" in p.sliders["mu_d"].tooltip and "elastic" in p.sliders["e"].tooltip
    p.sliders["mu_d"].value = 0.3               # unused by the continuous (Hertz) model
    assert len(calls) == 1
    p.sliders["model"].value = "hybrid_coulomb"
    assert calls[-1] == ("hybrid_coulomb", dict(contact_at=0.8, n_modes=3, mu_d=0.3, e=0.0))
    assert p.sliders["contact_stiffness"].disabled and "constraint" in p.sliders["contact_stiffness"].tooltip
    assert not p.sliders["mu_d"].disabled and p.sliders["mu_d"].tooltip is None
    p.sliders["contact_stiffness"].value = 1e10    # a continuous-law parameter under a constraint model
    assert len(calls) == 2 and p.error is None and "ready" in p.status.value


def test_typed_values_are_checked_and_refused_visibly():
    """A typed value that is not a number, out of range or not whole is refused in the status line
    with the reason; the slider keeps its value and nothing runs.  A valid one moves the slider."""
    calls = []
    p = _pendulum_panel(calls)
    p.output.outputs = ({"output_type": "stream", "name": "stdout", "text": "last good plot"},)
    for name, text, why in (("contact_at", "abc", "not a number"),
                            ("contact_at", "1.7", "out of range: valid range is 0.3 to 1"),
                            ("contact_stiffness", "1e20", "out of range"),
                            ("n_modes", "3.5", "not a whole number"),
                            ("contact_at", "nan", "out of range")):
        before = p.sliders[name].value
        p.entries[name].value = text
        assert why in p.status.value and "nothing was run" in p.status.value, (text, p.status.value)
        assert p.sliders[name].description in p.error
        assert p.sliders[name].value == before and len(calls) == 1
        assert p.entries[name].layout.border
    assert p.output.outputs[0]["text"] == "last good plot"
    p.entries["contact_at"].value = "0.5"
    assert p.sliders["contact_at"].value == 0.5 and calls[-1][1]["contact_at"] == 0.5
    assert p.error is None and not p.entries["contact_at"].layout.border
    p.sliders["n_modes"].value = 4              # the slider writes its value into the box
    assert p.entries["n_modes"].value == "4"


def test_a_long_run_goes_to_the_background_with_progress_and_cancel():
    calls = []
    p = _pendulum_panel(calls, sleep=0.05)
    p.last_cost = 5.0                           # as if the last run took 5 s
    p.cache.clear()
    t0 = time.perf_counter()
    p.sliders["contact_at"].value = 0.5
    assert time.perf_counter() - t0 < 0.5       # the panel answers at once ...
    assert p.progress.layout.display != "none" and "background" in p.status.value
    p.wait(5.0)                                 # ... and shows the run when it ends
    assert p.progress.layout.display == "none" and "ready" in p.status.value
    assert p.result.params["contact_at"] == 0.5 and p.readout.value.startswith("run continuous")
    p.simulate_fn = _system_stub(calls, sleep=30.0)
    p.last_cost = 30.0
    p.sliders["contact_at"].value = 0.6
    assert p.progress.layout.display != "none"
    thread = p._job[1]
    p.cancel.click()
    thread.join(5.0)
    assert not thread.is_alive()                # the run stopped
    assert "cancelled" in p.status.value and p.progress.layout.display == "none"
    assert p.result.params["contact_at"] == 0.5  # the previous run stays on show
    assert not any(dict(k[1])["contact_at"] == 0.6 for k in p.cache)    # not cached


def test_a_stiffer_basis_is_expected_to_cost_more_and_goes_to_the_background():
    """The expected cost of a setting is the last run's scaled by the bases' highest natural
    frequency (the explicit step follows it) and their number of coordinates (an evaluation's
    cost): N 3 -> 4 gives (lambda_4 / lambda_3)^2 = (10.9955 / 7.8548)^2 = 1.96 for a
    clamped-free beam, times 10 / 8 coordinates (theta and N per link), so after a 0.7 s run the
    change starts in the background; the previous setting, cached, answers at once."""
    calls = []
    p = _pendulum_panel(calls, sleep=0.05)
    model, params = p.settings()
    assert p.expected_cost(model, params) == pytest.approx(p.last_cost, rel=1e-12)
    p.last_cost = 0.7
    four = dict(params, n_modes=4)
    assert p.expected_cost(model, four) == pytest.approx(0.7 * (10.9955 / 7.8548) ** 2 * 10 / 8,
                                                         rel=1e-3)
    p.sliders["n_modes"].value = 4
    assert p.progress.layout.display != "none" and "background" in p.status.value
    p.wait(5.0)
    assert "ready" in p.status.value and p.result.params["n_modes"] == 4
    p.sliders["n_modes"].value = 3                 # cached: shown at once, nothing runs
    assert p.result.params["n_modes"] == 3 and "ready" in p.status.value


def test_readout_reports_the_peak_force_the_plot_shows():
    """The readout's peak N is the top of the force curves that the panel's figure draws (a
    constraint run's first impact has velocity jumps: no 'jump only')."""
    from flexlib.cases import simulate as case_simulate
    from flexlib.viz import multibody_plots as mbp, multibody_widgets as mbw
    r = case_simulate("falling-beam", "hybrid_coulomb", 0.16)     # landing at 0.143 s, with jumps
    fig = mbp.fig_first_impact(r)
    drawn = max(float(np.max(line.get_ydata(), initial=0.0)) for ax in fig.axes[:len(r.contact_names)]
                for line in ax.get_lines() if line.get_linestyle() != "None")
    plt.close(fig)
    html = mbw.impact_readout(r)
    assert "jump only" not in html and drawn > 0
    assert f"<td>{drawn:.4g}</td>" in html


def test_single_beam_panel_disables_and_refuses():
    """The single-beam panel: a control no selected model uses is disabled with the reason and
    reruns nothing; a typed value out of range is refused with the reason."""
    p, stub = _panel(models=("hybrid_coulomb",), fields=["mu_d", "contact_stiffness", "sigma0"])
    for name in ("contact_stiffness", "sigma0"):
        assert p.sliders[name].disabled and p.sliders[name].tooltip.startswith("not used: ")
    assert not p.sliders["mu_d"].disabled
    stub.calls.clear()
    p.sliders["contact_stiffness"].value = 1e10
    assert stub.calls == []
    p.entries["mu_d"].value = "2"
    assert "out of range: valid range is 0 to 1" in p.status.value and stub.calls == []
    p.entries["mu_d"].value = "x"
    assert "not a number" in p.status.value and p.sliders["mu_d"].value == 0.4
    p.entries["mu_d"].value = "0.3"
    assert p.sliders["mu_d"].value == 0.3 and len(stub.calls) == 1 and p.error is None


def test_returning_to_a_setting_shows_the_kept_plot():
    """Going back to a setting draws nothing: the panel shows the plot it drew for it."""
    calls, drawn = [], []
    p = _pendulum_panel(calls)
    p.plot = lambda r: drawn.append(r) or plt.figure()
    p.sliders["contact_at"].value = 0.5
    p.sliders["contact_at"].value = 0.8
    p.sliders["contact_at"].value = 0.5
    assert len(drawn) == 2 and len(calls) == 2 and p.output.outputs
