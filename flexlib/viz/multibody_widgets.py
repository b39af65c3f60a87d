"""A slider panel for the multibody cases: case options in, one run, a figure and key numbers out.

    p = system_panel("double-pendulum", fields=["contact_at", "contact_stiffness", "n_modes", "model"],
                     t_end=0.7, plot=...)
    p                    # sliders, status, readout of the first impact, and the plot

It behaves like the single-beam panel of :mod:`flexlib.viz.widgets`: every slider has
``continuous_update=False`` (a run starts when the slider is released), runs are cached by their
settings (returning to a setting is instant), a setting that fails (an invalid value, a run that
stops) is one line in :attr:`SystemPanel.status` while the last good plot stays, and without a
running kernel the panel shows one line that says what it does.
"""
from __future__ import annotations

import math
import time

import ipywidgets as w

from ..bodies.bases import BASES
from ..text import noun
from .widgets import _UNUSED_BY, PanelDisplay, _short

__all__ = ["SystemPanel", "system_panel", "SYSTEM_SLIDERS"]

_LIN, _LOG, _INT = w.FloatSlider, w.FloatLogSlider, w.IntSlider
# name: (widget class, options, description with units); "model" and "basis" are drop-down lists
SYSTEM_SLIDERS = {
    "contact_at": (_LIN, dict(min=0.3, max=1.0, step=0.05), "contact point B [× L1]"),
    "contact_stiffness": (_LOG, dict(min=7, max=11, step=0.25), "stop K [N/m^1.5]"),
    "n_modes": (_INT, dict(min=0, max=12, step=1), "modes N [–]"),
    # the links' basis (with the "basis" drop-down list; see flexlib.viz.widgets)
    "elements": (_INT, dict(min=1, max=12, step=1), "elements n_e [–]"),
    "local_length": (_LIN, dict(min=0.05, max=0.5, step=0.05), "local length ℓ [m]"),
    "local_modes": (_INT, dict(min=0, max=8, step=1), "local modes k [–]"),
    "mu_d": (_LIN, dict(min=0.0, max=1.0, step=0.05), "μ_d [–]"),
    "e": (_LIN, dict(min=0.0, max=1.0, step=0.05), "e [–]"),
}
_DROPDOWNS = {"model": "model [–]", "basis": "basis [–]"}
SYSTEM_MODELS = ("continuous", "frictionless", "hybrid_coulomb", "continuous_coulomb")


def _widget(name, value, model_choices):
    opts = dict(style={"description_width": "150px"}, layout=w.Layout(width="440px"))
    if name == "model":
        return w.Dropdown(options=list(model_choices), value=value, description="model [–]", **opts)
    if name == "basis":
        return w.Dropdown(options=list(BASES), value=value, description="basis [–]", **opts)
    cls, kw, desc = SYSTEM_SLIDERS[name]
    fmt = dict(readout_format=".2e") if cls is _LOG else {}
    return cls(value=value, description=desc, continuous_update=False, **kw, **fmt, **opts)


class SystemPanel(PanelDisplay):
    """Sliders + status + readout + plot for one multibody case.  Build it with :func:`system_panel`.

    ``sliders`` (name -> widget), ``status``, ``readout`` (HTML), ``output`` (the plot), ``cache``
    ({settings: result or error}), ``simulate_fn`` (called as ``simulate_fn(case, model, t_end,
    **params)``), ``result`` (the run on show), ``error`` (last message), ``n_runs``."""

    def __init__(self, case, fields, start, t_end, plot, readout, simulate_fn=None,
                 model_choices=SYSTEM_MODELS):
        from ..cases import simulate
        unknown = [f for f in fields if f not in SYSTEM_SLIDERS and f not in _DROPDOWNS]
        if unknown:
            raise ValueError(f"unknown panel {noun(len(unknown), 'field')} {unknown}; valid fields: "
                             f"{', '.join([*SYSTEM_SLIDERS, *_DROPDOWNS])}")
        self.case = case
        self.t_end = float(t_end)
        self.plot = plot
        self.readout_fn = readout
        self.simulate_fn = simulate_fn or simulate
        self.cache = {}
        self.result = None
        self.error = None
        self.n_runs = 0
        self.sliders = {f: _widget(f, start[f], model_choices) for f in fields}
        self.status = w.HTML()
        self.readout = w.HTML()
        self.output = w.Output()
        for s in self.sliders.values():
            s.observe(lambda _change: self.update(), names="value")
        self.widget = w.VBox([w.GridBox(list(self.sliders.values()),
                                        layout=w.Layout(grid_template_columns="repeat(2, 450px)")),
                              self.status, self.readout, self.output])
        self.update()

    def settings(self) -> tuple:
        """(model, {parameter: value}) of the sliders."""
        params = {k: s.value for k, s in self.sliders.items() if k != "model"}
        model = self.sliders["model"].value if "model" in self.sliders else None
        for name in _UNUSED_BY.get(params.get("basis", "modal"), ()):
            params.pop(name, None)              # sizes the basis does not use: no rerun
        return model, params

    def _run(self, model, params):
        key = (model, tuple(sorted(params.items())))
        if key not in self.cache:
            self.n_runs += 1
            try:
                self.cache[key] = self.simulate_fn(self.case, model, self.t_end, **params)
            except Exception as err:                # a bad setting stays bad: no rerun when revisited
                self.cache[key] = err
        return self.cache[key]

    def update(self):
        """Run (or fetch from the cache) the current settings, then redraw.  Never raises."""
        model, params = self.settings()
        self.status.value = "computing…"
        w0 = time.perf_counter()
        r = self._run(model, params)
        if isinstance(r, Exception):
            return self._fail(_short(r))
        self.result, self.error = r, None
        try:
            self.readout.value = self.readout_fn(r)
            self._draw(r)
        except Exception as err:
            return self._fail(f"plot failed: {type(err).__name__}: {_short(err)}")
        self.status.value = f"ready (0–{self.t_end:g} s, {time.perf_counter() - w0:.1f} s)"

    def describe(self) -> str:
        """One line: what the panel does and that it needs a running Python kernel."""
        names = ", ".join(_DROPDOWNS.get(f) or SYSTEM_SLIDERS[f][2] for f in self.sliders)
        return (f"Interactive panel (case {self.case}, t = 0–{self.t_end:g} s; sliders: {names}): "
                "moving a slider reruns the simulation and redraws the plot. It needs a running "
                "Python kernel: open the notebook in JupyterLab and run it.")



def system_panel(case, fields, start, t_end, plot, readout, **kwargs) -> SystemPanel:
    """Build a :class:`SystemPanel` for the multibody ``case`` (``double-pendulum``,
    ``falling-beam``): ``fields`` from :data:`SYSTEM_SLIDERS`, ``model`` and ``basis`` (the links'
    basis: assumed modes, finite elements or the partition, sized by the ``n_modes``,
    ``elements``, ``local_length`` and ``local_modes`` sliders; a size the basis does not use
    reruns nothing); ``start`` their start
    values; ``t_end`` [s] of every run; ``plot`` a function result -> figure; ``readout`` a function
    result -> HTML.  Keyword arguments: ``simulate_fn``, ``model_choices``."""
    return SystemPanel(case, list(fields), dict(start), t_end, plot, readout, **kwargs)


def impact_readout(result) -> str:
    """An HTML table of the first impact of a run: start, duration, episodes, peak N, impulse and
    the angular rates after it (:func:`flexlib.viz.multibody_plots.after_first_impact`)."""
    from .multibody_plots import after_first_impact
    a = after_first_impact(result)
    if not a:
        return "<p>no impact in this window</p>"
    bodies = [b.name for b in result.system.bodies]
    head = ("<tr><th>impact 1 starts [s]</th><th>lasts [ms]</th><th>episodes</th><th>peak N [N]</th>"
            "<th>impulse [N s]</th>" + "".join(f"<th>θ̇ of {b} after [rad/s]</th>" for b in bodies)
            + "</tr>")
    peak = a["peak_normal_force"]
    peak_s = "jump only" if not math.isfinite(peak) else f"{peak:.4g}"
    row = (f"<tr><td>{a['t_start']:.4f}</td><td>{1e3 * a['duration']:.3f}</td><td>{a['episodes']}</td>"
           f"<td>{peak_s}</td><td>{a['impulse']:.4f}</td>"
           + "".join(f"<td>{a[f'{b}.theta_dot']:.3f}</td>" for b in bodies) + "</tr>")
    return f"<table style='font-size:90%'>{head}{row}</table>"
