"""The slider panel every notebook shares: parameters in, one simulation per model, a plot out.

    p = panel(fields=["mu_d", "mu_s"], models=["hybrid_coulomb", "lugre"], t_end=0.75,
              plot=fl.viz.plots.fig_normal_force)
    p                    # displays sliders, model check-boxes, status, readout and the plot

Behaviour (tested in ``tests/test_widgets.py``):

* every slider has ``continuous_update=False``: a run starts when the slider is released;
* one value change runs :attr:`Panel.simulate_fn` once per selected model; several changes made
  inside ``with p.hold_trait_notifications():`` (or one slider's own) run it once per model;
* results are cached by ``(model, case.key(), t_end)``, so returning to a setting is instant (its
  plot is kept too: nothing is drawn again);
* a slider no selected model uses (a contact stiffness under constraint models, a LuGre
  parameter under Coulomb friction, e under the elastic Hertz law: :func:`unused_reason`) is
  disabled with the reason as its tooltip; it is left out of each model's cache key, so moving
  it reruns nothing;
* beside each slider a text box takes a typed value (the slider's own readout would clamp an
  out-of-range value silently): one that is not a number, out of the slider's range or not whole
  for a count is refused in the status line with the reason (:func:`parse_entry`), and nothing
  runs;
* the static friction coefficient stays at or above the kinetic one, as :mod:`flexlib.params`
  requires: moving the μ_d slider above μ_s moves the μ_s slider up with it, moving μ_s below μ_d
  moves μ_d down (one run), and a panel without a μ_s slider raises the case's μ_s to μ_d; the
  status line says what was moved.  Inside ``with p.hold_trait_notifications():`` the rule is
  applied once, when the block ends, to the friction slider moved last in it;
* an invalid combination (``v0 >= v1`` raises ValueError in :mod:`flexlib.params`) or a run
  that stops (:class:`~flexlib.paper.SimulationError`) is shown as one line in
  :attr:`Panel.status`; the last good plot stays, and nothing is raised;
* a readout that looks wrong at first sight (a LuGre friction force above μ_s N, a penalty
  force far above the constraint method's) gets a line under the table that says why;
* the beam's basis is a drop-down list (``basis``: the paper's assumed modes, finite elements or
  the partition) with its sizes as sliders (``n_modes``, ``elements``, ``local_length``,
  ``local_modes``); a size the chosen basis does not use changes nothing and runs nothing (the
  case's key of a modal beam leaves the element sizes out), and a combination the beam refuses
  (more local modes than the end region's 2 n_e coordinates) is one line in the status.  The
  default, the paper's N = 3 modes, reruns in a fraction of a second; 8 elements take about a
  minute for 0.75 s (the cost of each basis: notebook 12);
* shown without a kernel (GitHub, nbviewer, a notebook opened before it is run) the panel is one
  line that says what it does and that it needs a running kernel, with the readout table of the
  start values (:meth:`Panel.describe`), instead of a widget repr such as ``VBox(children=...``.
"""
from __future__ import annotations

import contextlib
import math
import time

import ipywidgets as w

from .. import models
from ..contact import penalty
from ..bodies.bases import BASES
from ..params import Case, paper_case
from ..paper import SimulationError, simulate
from ..models import canonical_model
from ..text import fixed, noun, num, plural
from . import theme

__all__ = ["panel", "Panel", "PanelDisplay", "SLIDERS", "CHOICES"]

_LIN, _LOG, _INT = w.FloatSlider, w.FloatLogSlider, w.IntSlider
# name: (widget class, options, description with units).  Log sliders take exponents of 10.
SLIDERS = {
    "mu_d": (_LIN, dict(min=0.0, max=1.0, step=0.01), "μ_d [–]"),
    "mu_s": (_LIN, dict(min=0.0, max=1.5, step=0.01), "μ_s [–]"),
    "sigma0": (_LOG, dict(min=3, max=7, step=0.1), "σ0 [1/m]"),
    "sigma1": (_LOG, dict(min=-1, max=4, step=0.1), "σ1 [s/m]"),
    "sigma2": (_LIN, dict(min=0.0, max=10.0, step=0.1), "σ2 [s/m]"),
    "v_s": (_LOG, dict(min=-5, max=-1, step=0.1), "v_s [m/s]"),
    "Dv": (_LOG, dict(min=-6, max=-2, step=0.1), "D_v [m/s]"),
    "e": (_LIN, dict(min=0.0, max=1.0, step=0.05), "e [–]"),
    "alpha": (_LIN, dict(min=0.05, max=0.6, step=0.01), "slope α [rad]"),
    "X1": (_LIN, dict(min=0.1, max=0.9, step=0.01), "slope X1 [m]"),
    "n_modes": (_INT, dict(min=1, max=12, step=1), "modes N [–]"),
    # the beam's basis (with the "basis" drop-down list): elements of the whole beam (fe) or of
    # the end region (partition), the end region's length and its kept fixed-interface modes
    "elements": (_INT, dict(min=1, max=16, step=1), "elements n_e [–]"),
    "local_length": (_LIN, dict(min=0.05, max=0.8, step=0.05), "local length ℓ [m]"),
    "local_modes": (_INT, dict(min=0, max=8, step=1), "local modes k [–]"),
    # an extension beyond the paper: 0 (the default) is the paper's inextensible beam
    "axial_modes": (_INT, dict(min=0, max=4, step=1), "axial modes Nₐ [–]"),
    "t_end": (_LIN, dict(min=0.05, max=2.0, step=0.05), "t_end [s]"),
    "E": (_LOG, dict(min=9, max=12, step=0.05), "E [Pa]"),
    "rho": (_LIN, dict(min=500.0, max=10000.0, step=10.0), "ρ [kg/m³]"),
    "theta0": (_LIN, dict(min=0.2, max=1.5, step=0.01), "θ0 [rad]"),
    # the continuous contact force models (penalty normal force, modified Coulomb friction)
    "contact_stiffness": (_LOG, dict(min=6, max=11, step=0.25), "K [N/m^n]"),
    "v0": (_LOG, dict(min=-6, max=-2, step=0.1), "v0 [m/s]"),
    "v1": (_LOG, dict(min=-5, max=-1, step=0.1), "v1 [m/s]"),
}
# name: (choices, description): parameters with a few named values, shown as a drop-down list.
CHOICES = {
    "contact_law": (penalty.LAWS, "contact law [–]"),
    "basis": (BASES, "basis [–]"),
}
# the basis sizes each basis leaves unused (kept at the case's value, so moving them reruns nothing)
_UNUSED_BY = {"modal": ("elements", "local_length", "local_modes"),
              "fe": ("n_modes", "local_length", "local_modes"), "partition": ()}
_LABELS = {m: spec.label for m, spec in models.REGISTRY.items()}


def _param_value(case: Case, name: str):
    return getattr(getattr(case, case.group_of(name)), name)


def _make_slider(name: str, value):
    if name in CHOICES:
        options, desc = CHOICES[name]
        return w.Dropdown(options=list(options), value=value, description=desc,
                          style={"description_width": "110px"}, layout=w.Layout(width="420px"))
    cls, opts, desc = SLIDERS[name]
    fmt = dict(readout_format=".2e") if cls is _LOG else {}
    return cls(value=value, description=desc, continuous_update=False, **opts, **fmt,
               style={"description_width": "110px"}, layout=w.Layout(width="420px"))


def _short(err: Exception, limit: int = 240) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text if len(text) <= limit else text[:limit - 1] + "…"


# the parameters only a continuous (penalty) contact uses, the friction laws' own parameters
_PENALTY_ONLY = ("contact_stiffness", "contact_law")
_FRICTION_OWN = {"v0": "modified_coulomb", "v1": "modified_coulomb", "sigma0": "lugre",
                 "sigma1": "lugre", "sigma2": "lugre", "v_s": "lugre"}


def unused_reason(name: str, model: str, contact_law: str = "hertz") -> str | None:
    """Why the parameter ``name`` cannot change a run of ``model`` (None if it can): a contact
    stiffness under a constraint model, a friction coefficient under a frictionless one, the
    restitution e under an elastic Hertz contact, ...  ``contact_law``: the penalty force law."""
    from ..multibody.models import MODELS
    spec = MODELS.get(model)
    method, friction = (spec[0], spec[1]) if spec else (None, "none")
    label = _LABELS.get(model, model)
    if method is None:
        if name in (*_PENALTY_ONLY, "e", "mu_d", "mu_s", "Dv", *_FRICTION_OWN):
            return f"{label} has no contact"
        return None
    if name in _PENALTY_ONLY and method != "penalty":
        return f"{label} holds the contact as a constraint: no contact stiffness"
    if name in ("mu_d", "mu_s", "Dv") and friction == "none":
        return f"{label} has no friction"
    if name in _FRICTION_OWN and friction != _FRICTION_OWN[name]:
        return f"{label} does not use the {_FRICTION_OWN[name].replace('_', ' ')} friction law"
    if name == "e" and method == "penalty" and penalty.damping_factor(contact_law, 0.5) == 0.0:
        return f"{label} with the {contact_law} law is elastic: no restitution coefficient"
    return None


def _bounds(slider):
    """(min, max) of a slider's values (a log slider's are 10 to the power of its min, max)."""
    if isinstance(slider, _LOG):
        return slider.base ** slider.min, slider.base ** slider.max
    return slider.min, slider.max


def parse_entry(slider, text: str):
    """The value typed as ``text`` for ``slider``; ValueError naming the control, the text and
    the valid range if it is not a number, out of range or not a whole number for a count."""
    desc = slider.description
    try:
        v = float(str(text).strip())
    except ValueError:
        raise ValueError(f"{desc}: {str(text).strip()!r} is not a number") from None
    lo, hi = _bounds(slider)
    if not math.isfinite(v) or not lo <= v <= hi:
        raise ValueError(f"{desc}: {v:g} is out of range: valid range is {lo:g} to {hi:g}")
    if isinstance(slider, _INT):
        if v != int(v):
            raise ValueError(f"{desc}: {v:g} is not a whole number")
        v = int(v)
    return v


def _entry_text(slider) -> str:
    return f"{slider.value:.3g}" if isinstance(slider, _LOG) else f"{slider.value:g}"


def set_applicable(control, reason: str | None, entry=None):
    """Enable ``control`` (and its typed ``entry``), or disable it with ``reason`` as its tooltip."""
    for c in (control, entry):
        if c is not None:
            c.disabled = reason is not None
            c.tooltip = f"not used: {reason}" if reason else None


class PanelDisplay:
    """What every slider panel shares (this one's :class:`Panel` and the multibody
    :class:`~flexlib.viz.multibody_widgets.SystemPanel`): the error line, the redraw of the plot, and
    the fallback for viewers without a kernel or widget state.  A panel has ``widget``,
    ``status``, ``readout``, ``output``, ``error``, ``plot`` and :meth:`describe`."""

    def _fail(self, message):
        self.error = message
        self.status.value = f'<span style="color:#b00020">⚠ {_escape(message)}</span>'

    def _draw(self, results, key=None):
        """Replace the plot (set as the Output widget's outputs, so a run finished in a
        background thread draws into the panel too).  The drawn plot of a settings ``key`` is
        kept: going back to a setting shows it again without drawing."""
        import matplotlib.pyplot as plt
        drawn = self.__dict__.setdefault("_drawn", {})
        if key is not None and key in drawn:
            self.output.outputs = drawn[key]
            return
        fig = self.plot(results)
        if fig is not None:
            self.output.outputs = ()
            self.output.append_display_data(fig)
            plt.close(fig)
            if key is not None:
                drawn[key] = self.output.outputs

    def _entries(self, sliders):
        """A text box beside each slider for a typed value (the slider's own readout clamps an
        out-of-range value silently): {name: Text}."""
        entries = {}
        for name, s in sliders.items():
            if not isinstance(s, (_LIN, _LOG, _INT)):
                continue
            s.readout = False
            e = entries[name] = w.Text(value=_entry_text(s), continuous_update=False,
                                       layout=w.Layout(width="80px"))
            e.observe(lambda ch, n=name: self._typed(n, ch["new"]), names="value")
            s.observe(lambda ch, e=e, s=s: setattr(e, "value", _entry_text(s)), names="value")
        return entries

    def _typed(self, name, text):
        """A value typed into ``name``'s box: moved to the slider if valid, else refused in the
        status line (with the reason) and nothing runs."""
        slider, entry = self.sliders[name], self.entries[name]
        if text == _entry_text(slider):
            return
        try:
            v = parse_entry(slider, text)
        except ValueError as err:
            entry.layout.border = "2px solid #b00020"
            return self._fail(f"{_short(err)}; nothing was run")
        entry.layout.border = None
        if v == slider.value:
            entry.value = _entry_text(slider)
            self.update()                        # the same setting: clear the refusal
        else:
            slider.value = v

    def _controls(self, sliders):
        """The grid cells: each slider with its text box."""
        return [w.HBox([s, self.entries[n]]) if n in self.entries else s for n, s in sliders.items()]

    def _repr_mimebundle_(self, **kwargs):
        """The widget view, plus a text/plain and text/html fallback (:meth:`describe` and the
        readout of the start values) for viewers without a kernel or widget state."""
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/plain"] = self.describe()
        html = f"<p><em>{_escape(self.describe())}</em></p>"
        if self.readout.value and self.error is None:
            html += f"<p>Key numbers at the start values:</p>{self.readout.value}"
        bundle["text/html"] = html
        return bundle


class Panel(PanelDisplay):
    """Sliders + model check-boxes + status + readout + plot.  Build it with :func:`panel`.

    Attributes: ``sliders`` (name -> slider, or drop-down list for the :data:`CHOICES`),
    ``checkboxes`` (model -> Checkbox), ``status``
    (HTML: "computing…", "ready …" or the error), ``readout`` (HTML table of key numbers),
    ``output`` (the plot), ``cache`` ({(model, case.key(), t_end): result or error}),
    ``simulate_fn`` (called as ``simulate_fn(case, model, t_end, **simulate_kwargs)``; replace it
    to count or stub runs), ``results`` (the {model: result} on show), ``error`` (last message).
    """

    def __init__(self, fields, models, case="3.2", t_end=0.75, plot=None, *, results=None,
                 simulate_fn=None, simulate_kwargs=None):
        self.case = case if isinstance(case, Case) else paper_case(case)
        self.t_end = float(t_end)
        self.plot = plot or _default_plot
        self.simulate_fn = simulate_fn or simulate
        self.simulate_kwargs = dict(simulate_kwargs or {})
        self.cache = {}
        self.results = {}
        self.error = None
        self.note = ""                     # what the panel moved for the user (μ_s ≥ μ_d)
        self.n_updates = 0
        self._held = 0
        self._dirty = False
        self._moved = None                 # the friction slider moved last while held
        unknown = [f for f in fields if f not in SLIDERS and f not in CHOICES]
        if unknown:
            raise ValueError(f"unknown panel {noun(len(unknown), 'field')} {unknown}; valid fields: "
                             f"{', '.join([*SLIDERS, *CHOICES])}")
        self.sliders = {f: _make_slider(f, self.t_end if f == "t_end" else _param_value(self.case, f))
                        for f in fields}
        self.entries = self._entries(self.sliders)
        self.checkboxes = {m: w.Checkbox(value=True, description=_LABELS[m], indent=False,
                                         layout=w.Layout(width="150px"))
                           for m in (canonical_model(m) for m in models)}
        self.status = w.HTML()
        self.readout = w.HTML()
        self.output = w.Output()
        for t in [*self.sliders.values(), *self.checkboxes.values()]:
            t.observe(self._on_change, names="value")
        for m, r in (results or {}).items():       # seed the cache with runs made already
            if r is not None and abs(r.t_end - self.t_end) < 1e-9:
                self.cache[self._key(r.case, canonical_model(m), self.t_end)] = r
        self.widget = w.VBox([w.HBox(list(self.checkboxes.values())),
                              w.GridBox(self._controls(self.sliders),
                                        layout=w.Layout(grid_template_columns="repeat(2, 430px)")),
                              self.status, self.readout, self.output])
        self.update()

    # ------------------------------------------------------------------ parameters
    def current(self):
        """(case, t_end, models) of the current settings; ValueError for an invalid combination."""
        values = {k: s.value for k, s in self.sliders.items() if k != "t_end"}
        t_end = float(self.sliders["t_end"].value) if "t_end" in self.sliders else self.t_end
        models = [m for m, c in self.checkboxes.items() if c.value]
        basis = values.get("basis", self.case.beam.basis)
        for name in _UNUSED_BY.get(basis, ()):      # sizes the basis does not use: the case's
            values.pop(name, None)
        if "mu_d" in values and "mu_s" not in values and values["mu_d"] > self.case.coulomb.mu_s:
            values["mu_s"] = values["mu_d"]         # no μ_s slider: the case's μ_s follows μ_d
            self.note = (f"μ_s raised to {values['mu_d']:g} with μ_d (static friction is never "
                         f"below kinetic; this panel's μ_s is otherwise {self.case.coulomb.mu_s:g})")
        return self.case.with_(**values), t_end, models

    @contextlib.contextmanager
    def hold_trait_notifications(self):
        """Change several sliders; the panel recomputes once when the block ends, after keeping
        μ_s ≥ μ_d by moving the other one of the friction slider moved last in the block."""
        self._held += 1
        try:
            yield self
        finally:
            try:
                if self._held == 1 and self._dirty:
                    self.note = ""
                    self._keep_mu_s_above_mu_d(self._moved)   # still held: no run of its own
                    self._moved = None
            finally:
                self._held -= 1
            if self._held == 0 and self._dirty:
                self.update()

    def _on_change(self, change):
        with self.hold_trait_notifications():       # a coupled slider it moves: still one run
            self._dirty = True
            if change["owner"] in (self.sliders.get("mu_d"), self.sliders.get("mu_s")):
                self._moved = change["owner"]

    def _keep_mu_s_above_mu_d(self, moved):
        """Move the other friction slider when ``moved`` crossed it (μ_s ≥ μ_d)."""
        mu_d, mu_s = self.sliders.get("mu_d"), self.sliders.get("mu_s")
        if moved is None or mu_d is None or mu_s is None or mu_s.value >= mu_d.value:
            return
        if moved is mu_d:
            mu_s.value = mu_d.value
            self.note = f"μ_s moved up to {mu_s.value:g} with μ_d (static friction is never below kinetic)"
        elif moved is mu_s:
            mu_d.value = mu_s.value
            self.note = f"μ_d moved down to {mu_d.value:g} with μ_s (kinetic friction is never above static)"

    def _contact_law(self):
        return self.sliders["contact_law"].value if "contact_law" in self.sliders \
            else _param_value(self.case, "contact_law")

    def unused(self, model) -> dict:
        """{slider: why it cannot change ``model``'s run} at the current settings."""
        law = self._contact_law()
        basis = self.sliders["basis"].value if "basis" in self.sliders else self.case.beam.basis
        out = {n: f"the {basis} basis does not use it" for n in _UNUSED_BY.get(basis, ())
               if n in self.sliders}
        for n in self.sliders:
            reason = unused_reason(n, model, law)
            if reason and n not in out:
                out[n] = reason
        return out

    def _for_model(self, case, model):
        """``case`` with the sliders ``model`` does not use back at the panel's start values, so
        that moving them neither changes its cache key nor reruns it."""
        reset = {n: _param_value(self.case, n) for n in self.unused(model)
                 if n != "t_end" and n in self.sliders}
        if "mu_d" in reset:                         # and the μ_s that follows it
            reset["mu_s"] = _param_value(self.case, "mu_s")
        return case.with_(**reset) if reset else case

    def _key(self, case, model, t_end):
        return (model, self._for_model(case, model).key(), t_end)

    def _refresh_controls(self):
        """Disable the sliders no selected model uses, with the reason as their tooltip."""
        selected = [m for m, c in self.checkboxes.items() if c.value] or list(self.checkboxes)
        per_model = [self.unused(m) for m in selected]
        for n, s in self.sliders.items():
            reasons = [u.get(n) for u in per_model]
            reason = "; ".join(dict.fromkeys(reasons)) if all(reasons) else None
            set_applicable(s, reason, self.entries.get(n))

    # ------------------------------------------------------------------ running
    def _run(self, case, model, t_end):
        key = self._key(case, model, t_end)
        case = self._for_model(case, model)
        if key not in self.cache:
            try:
                self.cache[key] = self.simulate_fn(case, model, t_end, **self.simulate_kwargs)
            except (ValueError, SimulationError) as err:
                self.cache[key] = err           # a bad setting stays bad: no rerun when revisited
        return self.cache[key]

    def update(self):
        """Run (or fetch from the cache) every selected model, then redraw.  Never raises."""
        self._dirty = False
        self.n_updates += 1
        self._refresh_controls()
        try:
            case, t_end, models = self.current()
        except ValueError as err:
            return self._fail(_short(err))
        if not models:
            return self._fail("select at least one model")
        self.status.value = "computing…"
        w0 = time.perf_counter()
        results = {}
        try:
            for m in models:
                results[m] = self._run(case, m, t_end)
        except Exception as err:                # a bug must not put a traceback in the panel
            return self._fail(f"{type(err).__name__}: {_short(err)}")
        errors = [f"{_LABELS[m]}: {_short(r)}" for m, r in results.items() if isinstance(r, Exception)]
        if errors:
            return self._fail("; ".join(errors))
        self.results, self.error = results, None
        self.readout.value = readout_html(results) + notes_html(results)
        try:
            self._draw(results, key=tuple(self._key(case, m, t_end) for m in models))
        except Exception as err:
            return self._fail(f"plot failed: {type(err).__name__}: {_short(err)}")
        self.status.value = (f"ready ({plural(len(results), 'run')}, {time.perf_counter() - w0:.1f} s)"
                             + (f"; {_escape(self.note)}" if self.note else ""))

    def describe(self) -> str:
        """One line: what the panel does (its sliders with units, its models, the case) and that
        it needs a running Python kernel.  Shown where the widgets cannot be (static viewers)."""
        sliders = ", ".join(CHOICES[f][1] if f in CHOICES else SLIDERS[f][2]
                            for f in self.sliders) or "none"
        models = ", ".join(_LABELS[m] for m in self.checkboxes)
        span = "" if "t_end" in self.sliders else f", t = 0–{self.t_end:g} s"
        return (f"Interactive panel (case {self.case.name}{span}; models: {models}; sliders: {sliders}): "
                "moving a slider reruns the simulation and redraws the plot. It needs a running "
                "Python kernel: open the notebook in JupyterLab and run it.")



def panel(fields=("mu_d",), models=("frictionless",), case="3.2", t_end=0.75, plot=None, **kwargs):
    """Build the shared control panel (see the module docstring).

    ``fields``: slider names from :data:`SLIDERS` and drop-down names from :data:`CHOICES`
    (``contact_law``); ``models``: model ids (one check-box each);
    ``case``: a paper case name or a :class:`~flexlib.params.Case` (slider start values come
    from it); ``t_end`` [s] unless a ``t_end`` slider is among the fields; ``plot``: a function
    {model: result} -> Matplotlib figure.  Keyword arguments: ``results`` ({model: result} of
    runs already made at the start values, used as cache), ``simulate_fn``, ``simulate_kwargs``.
    """
    return Panel(list(fields), list(models), case, t_end, plot, **kwargs)


def readout_html(results) -> str:
    """Key numbers of each run: first-impact start, peak N, peak |F_t|, energy lost in impact 1."""
    head = ("<tr><th>model</th><th>impact 1 starts [s]</th><th>peak N [N]</th>"
            "<th>peak |F_t| [N]</th><th>energy lost in impact 1 [J]</th><th>impacts</th></tr>")
    rows = []
    for m, r in results.items():
        if not r.impacts:
            rows.append(f"<tr><td>{_LABELS.get(m, m)}</td><td colspan='5'>no impact</td></tr>")
            continue
        im = r.impacts[0]
        peak_n = max(i["peak_normal_force"] for i in r.impacts)
        peak_f = max(i["peak_friction_force"] for i in r.impacts)
        rows.append(f"<tr><td>{_LABELS.get(m, m)}</td><td>{im['t_start']:.4f}</td>"
                    f"<td>{num(peak_n)}</td><td>{num(peak_f)}</td>"
                    f"<td>{fixed(im['energy_lost'], 4)}</td><td>{len(r.impacts)}</td></tr>")
    return f"<table style='font-size:90%'>{head}{''.join(rows)}</table>"


def readout_notes(results) -> list[str]:
    """One line for each readout of :func:`readout_html` that looks wrong at first sight, saying
    why it is right: a LuGre friction force above μ_s N, a penalty model's peak normal force."""
    notes = []
    for m, r in results.items():
        if not r.impacts:
            continue
        spec = models.get(m)
        peak_n = max(i["peak_normal_force"] for i in r.impacts)
        peak_f = max(i["peak_friction_force"] for i in r.impacts)
        c = r.case.coulomb
        if spec.friction.has_bristles and peak_n > 0 and peak_f > 1.01 * max(c.mu_s, c.mu_d) * peak_n:
            notes.append(
                f"{spec.label}: peak |F_t| = {num(peak_f)} N is {num(peak_f / peak_n, 2)} × peak N, above "
                f"μ_s = {c.mu_s:g}. Not an error: the LuGre coefficient σ0 z + σ1 ż + σ2 v_t is bounded "
                f"by μ_s only in steady sliding; where v_t reverses, the bristle damping σ1 ż "
                f"(σ1 = {r.case.lugre.sigma1:g} s/m) is large while z still has the other sign "
                f"(docs/model.md §9.2).")
        if spec.is_penalty:
            notes.append(
                f"{spec.label}: the penalty force carries the first shock as a short spike (peak N "
                f"{num(peak_n)} N, growing with the stiffness K); the constraint method takes it "
                f"as the impulse of its velocity jump instead, so its peak N is much lower.")
    return notes


def notes_html(results) -> str:
    """:func:`readout_notes` as HTML lines under the readout table ("" if there are none)."""
    return "".join(f"<p style='font-size:85%;margin:2px 0'>ⓘ {_escape(n)}</p>" for n in readout_notes(results))


def _escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _default_plot(results):
    """N(t) of every run (the plot used when a notebook passes none)."""
    import matplotlib.pyplot as plt
    from .plots import style
    fig, ax = plt.subplots(figsize=(7, 3), constrained_layout=True)
    for m, r in results.items():
        ax.plot(r.t, r.N, **style(m))
    ax.set_xlabel("time t [s]")
    ax.set_ylabel("normal force N [N]")
    ax.grid(True, lw=0.3)
    ax.legend(fontsize=theme.SMALL)
    return fig
