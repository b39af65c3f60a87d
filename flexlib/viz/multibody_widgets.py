"""A slider panel for the multibody cases: case options in, one run, a figure and key numbers out.

    p = system_panel("double-pendulum", fields=["contact_at", "contact_stiffness", "n_modes", "model"],
                     t_end=0.7, plot=...)
    p                    # sliders, status, readout of the first impact, and the plot

It behaves like the paper cases' panel of :mod:`flexlib.viz.widgets`: every slider has
``continuous_update=False`` (a run starts when the slider is released) and a text box for a typed
value (refused, with the reason, if it is not a number or out of range: nothing runs); runs are
cached by their settings (returning to a setting is instant); a control the chosen model or basis
does not use is disabled with the reason as its tooltip, and moving it reruns nothing; a setting
that fails (an invalid value, a run that stops) is one line in :attr:`SystemPanel.status` while the
last good plot stays; and without a running kernel the panel shows one line that says what it does.

A run expected to take longer than :attr:`SystemPanel.foreground_limit` (1 s; the last run's time
scaled by the bases' highest natural frequency and size, :meth:`SystemPanel.expected_cost`) runs in the
background (a forked process where the platform has fork, else a thread): the panel answers at
once with a progress bar (elapsed time against the expected) and a Cancel
button, and the plot shows the previous settings until the run ends.  A change made meanwhile
cancels it.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import threading
import time

import ipywidgets as w

from ..bodies.bases import BASES
from ..text import noun
from .widgets import _UNUSED_BY, PanelDisplay, _short, set_applicable, unused_reason

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


class RunCancelled(Exception):
    """Raised inside a background run by the panel's Cancel button."""


class SystemPanel(PanelDisplay):
    """Sliders + status + readout + plot for one multibody case.  Build it with :func:`system_panel`.

    ``sliders`` (name -> widget), ``entries`` (name -> text box of a slider), ``status``,
    ``progress`` (bar, label and Cancel button, shown while a background run goes), ``readout``
    (HTML), ``output`` (the plot), ``cache`` ({settings: result or error}), ``simulate_fn``
    (called as ``simulate_fn(case, model, t_end, **params)``), ``result`` (the run on show),
    ``error`` (last message), ``n_runs``, ``contact_law`` (of the case's continuous contact: decides
    whether ``e`` applies to it)."""

    foreground_limit = 1.0        # [s]: a run expected to take longer goes to a background thread

    def __init__(self, case, fields, start, t_end, plot, readout, simulate_fn=None,
                 model_choices=SYSTEM_MODELS, contact_law="hertz"):
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
        self.contact_law = contact_law
        self.cache = {}
        self.result = None
        self.error = None
        self.n_runs = 0
        self.last_cost = 0.0                # [s] of the last run made
        self._job = None                    # (generation, thread) of the background run
        self._proc = None                   # its process (where the platform forks)
        self._gen = 0
        self._lock = threading.Lock()
        self.sliders = {f: _widget(f, start[f], model_choices) for f in fields}
        self.entries = self._entries(self.sliders)
        self.status = w.HTML()
        self.readout = w.HTML()
        self.output = w.Output()
        self.bar = w.FloatProgress(min=0.0, max=1.0, layout=w.Layout(width="300px"))
        self.bar_label = w.Label()
        self.cancel = w.Button(description="Cancel", button_style="warning",
                               tooltip="stop this run; the plot keeps the previous settings")
        self.cancel.on_click(lambda _b: self.cancel_run())
        self.progress = w.HBox([self.bar, self.bar_label, self.cancel], layout=w.Layout(display="none"))
        for s in self.sliders.values():
            s.observe(lambda _change: self.update(), names="value")
        self.widget = w.VBox([w.GridBox(self._controls(self.sliders),
                                        layout=w.Layout(grid_template_columns="repeat(2, 450px)")),
                              self.status, self.progress, self.readout, self.output])
        self.update()

    def unused(self) -> dict:
        """{control: why the chosen model or basis cannot use it} at the current settings."""
        model = self.sliders["model"].value if "model" in self.sliders else None
        basis = self.sliders["basis"].value if "basis" in self.sliders else "modal"
        out = {n: f"the {basis} basis does not use it" for n in _UNUSED_BY.get(basis, ())
               if n in self.sliders}
        for n in self.sliders:
            reason = unused_reason(n, model, self.contact_law) if model else None
            if reason and n not in out:
                out[n] = reason
        return out

    def settings(self) -> tuple:
        """(model, {parameter: value}) of the controls the model and basis use."""
        unused = self.unused()
        params = {k: s.value for k, s in self.sliders.items() if k != "model" and k not in unused}
        model = self.sliders["model"].value if "model" in self.sliders else None
        return model, params

    def _key(self, model, params):
        return (model, tuple(sorted(params.items())))

    def _run(self, model, params, compute=None):
        """The result (or error) of a setting: from the cache, or computed by ``compute`` (default
        :func:`_compute` here) and cached."""
        key = self._key(model, params)
        if key not in self.cache:
            w0 = time.perf_counter()
            r = (compute or _compute)(self.simulate_fn, self.case, model, self.t_end, params)
            self.n_runs += 1
            self.cache[key] = r                     # a bad setting stays bad: no rerun when revisited
            self.last_cost = time.perf_counter() - w0
            self._last_work = self.work_rate(model, params)
        return self.cache[key]

    def work_rate(self, model, params) -> float:
        """What a run's cost grows with at a setting (0 for a setting that does not build): the
        bases' highest natural frequency [rad/s], which the explicit integrator's step follows,
        times the number of coordinates, which an evaluation's cost grows with."""
        from ..bodies.beam import BeamModel
        from ..cases import build
        try:
            system, _ = build(self.case, model, **params)
            models = [BeamModel(b.beam, clamp=b.frame_clamp) for b in system.bodies]
            return (max(float(m.natural_frequencies().max()) for m in models)
                    * sum(m.ndof for m in models))
        except Exception:
            return 0.0

    def expected_cost(self, model, params) -> float:
        """The time [s] a run of this setting is expected to take: the last run's, scaled by the
        ratio of :meth:`work_rate` (a new basis size or kind changes the explicit integrator's
        step and the cost of an evaluation).  Measured on the double pendulum after a 0.47 s run:
        N 3 -> 4 expected 1.2 s, took 1.4 s with its plot; modal -> fe 4 elements expected 16 s,
        took 11 s."""
        if self.last_cost <= 0.0:
            return 0.0
        w_new, w_old = self.work_rate(model, params), getattr(self, "_last_work", 0.0)
        return self.last_cost * (max(w_new / w_old, 1.0) if w_old > 0.0 and w_new > 0.0 else 1.0)

    def update(self):
        """Show the current settings: from the cache, by a run here, or by a background run if it
        is expected to take longer than :attr:`foreground_limit` (:meth:`expected_cost`).  Never
        raises."""
        unused = self.unused()
        for n, s in self.sliders.items():
            set_applicable(s, unused.get(n), self.entries.get(n))
        model, params = self.settings()
        self.cancel_run()                           # a newer setting replaces a run under way
        w0 = time.perf_counter()
        if (self._key(model, params) not in self.cache
                and self.expected_cost(model, params) > self.foreground_limit):
            return self._start(model, params)
        self.status.value = "computing…"
        self._show(self._run(model, params), w0, self._key(model, params))

    def _show(self, r, w0, key):
        if isinstance(r, Exception):
            return self._fail(_short(r))
        self.result, self.error = r, None
        try:
            readouts = self.__dict__.setdefault("_readouts", {})
            if key not in readouts:
                readouts[key] = self.readout_fn(r)
            self.readout.value = readouts[key]
            self._draw(r, key)
        except Exception as err:
            return self._fail(f"plot failed: {type(err).__name__}: {_short(err)}")
        self.status.value = f"ready (0–{self.t_end:g} s, {time.perf_counter() - w0:.1f} s)"

    # ------------------------------------------------------------------ background runs
    def _start(self, model, params):
        self._gen += 1
        gen, w0, expected = self._gen, time.perf_counter(), self.expected_cost(model, params)
        self.status.value = "computing in the background… (the plot shows the previous settings)"
        self.bar.value, self.bar_label.value = 0.0, ""
        self.progress.layout.display = "flex"
        thread = threading.Thread(target=self._work, args=(gen, model, params, w0), daemon=True)
        self._job = (gen, thread)
        thread.start()
        threading.Thread(target=self._tick, args=(gen, thread, w0, expected), daemon=True).start()

    def _tick(self, gen, thread, w0, expected):
        """Move the progress bar: the elapsed time against the expected cost."""
        while thread.is_alive() and gen == self._gen:
            el = time.perf_counter() - w0
            self.bar.value = min(el / max(expected, 1e-9), 0.99)
            self.bar_label.value = f"{el:.1f} s (expected about {expected:.1f} s)"
            thread.join(0.25)

    def _work(self, gen, model, params, w0):
        """The background run (in a waiting thread): in a forked process where the platform can
        fork (the kernel stays free to answer, Cancel ends the process), else in this thread."""
        try:
            time.sleep(0.05)        # let the kernel send the progress bar before the run starts
            compute = (lambda *a: self._in_process(gen, *a)) if _FORK else None
            r = self._run(model, params, compute)
            with self._lock:
                if gen != self._gen:
                    return
                self._job = None
            self.progress.layout.display = "none"
            self._show(r, w0, self._key(model, params))
        except RunCancelled:
            pass

    def _in_process(self, gen, fn, case, model, t_end, params):
        ctx = multiprocessing.get_context("fork")
        with self._lock:
            if gen != self._gen:                    # cancelled before it started
                raise RunCancelled()
            recv, send = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(send, fn, case, model, t_end, params), daemon=True)
            self._proc = proc
            proc.start()
        send.close()
        try:
            return recv.recv()
        except EOFError:                            # the process was ended by Cancel
            raise RunCancelled() from None
        finally:
            proc.join()
            recv.close()

    def cancel_run(self):
        """Stop the background run, if one goes (its setting is left uncomputed)."""
        with self._lock:
            job, self._job = self._job, None
            if job is None:
                return
            self._gen += 1
            gen, thread = job
            proc, self._proc = self._proc, None
            if proc is not None and proc.is_alive():
                proc.kill()
            elif thread.is_alive() and not _FORK:   # raised in the run's thread at its next Python instruction
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident),
                                                           ctypes.py_object(RunCancelled))
        self.progress.layout.display = "none"
        self.status.value = "cancelled: the plot shows the previous settings"

    def wait(self, timeout=None):
        """Wait for the background run, if one goes (for scripts and tests)."""
        job = self._job
        if job is not None:
            job[1].join(timeout)

    def describe(self) -> str:
        """One line: what the panel does and that it needs a running Python kernel."""
        names = ", ".join(_DROPDOWNS.get(f) or SYSTEM_SLIDERS[f][2] for f in self.sliders)
        return (f"Interactive panel (case {self.case}, t = 0–{self.t_end:g} s; sliders: {names}): "
                "moving a slider reruns the simulation and redraws the plot. It needs a running "
                "Python kernel: open the notebook in JupyterLab and run it.")



# a background run goes to a forked process where the platform has fork (the kernel stays free to
# answer while it runs, and Cancel ends it); elsewhere to a thread, which a Cancel stops at its next
# Python instruction (compiled code holds the interpreter until it returns to Python)
_FORK = "fork" in multiprocessing.get_all_start_methods()


def _compute(fn, case, model, t_end, params):
    """``fn(case, model, t_end, **params)``, or the exception it raised (a setting that fails)."""
    try:
        return fn(case, model, t_end, **params)
    except RunCancelled:
        raise
    except Exception as err:
        return err


def _child(conn, fn, case, model, t_end, params):
    """A forked background run: its result (or error) sent back through ``conn``."""
    r = _compute(fn, case, model, t_end, params)
    try:
        conn.send(r)
    except Exception as err:                        # an error that does not pickle: its text
        conn.send(RuntimeError(f"{type(r).__name__}: {_short(r)}" if isinstance(r, Exception)
                               else f"the run's result could not be sent back: {err}"))
    conn.close()


def system_panel(case, fields, start, t_end, plot, readout, **kwargs) -> SystemPanel:
    """Build a :class:`SystemPanel` for the multibody ``case`` (``double-pendulum``,
    ``falling-beam``): ``fields`` from :data:`SYSTEM_SLIDERS`, ``model`` and ``basis`` (the links'
    basis: assumed modes, finite elements or the partition, sized by the ``n_modes``,
    ``elements``, ``local_length`` and ``local_modes`` sliders; a size the basis does not use
    reruns nothing); ``start`` their start
    values; ``t_end`` [s] of every run; ``plot`` a function result -> figure; ``readout`` a function
    result -> HTML.  Keyword arguments: ``simulate_fn``, ``model_choices``, ``contact_law``."""
    return SystemPanel(case, list(fields), dict(start), t_end, plot, readout, **kwargs)


def impact_readout(result) -> str:
    """An HTML table of the first impact of a run: start, duration, episodes, impulse and the
    angular rates after it (:func:`flexlib.viz.multibody_plots.after_first_impact`), and the peak
    of the normal force curves that :func:`~flexlib.viz.multibody_plots.fig_first_impact` draws
    (over its window), with the number of velocity jumps there (impulses: no force to draw)."""
    from .multibody_plots import after_first_impact, first_impact_window, peak_force_shown
    a = after_first_impact(result)
    if not a:
        return "<p>no impact in this window</p>"
    t0, t1 = first_impact_window(result)
    peak, jumps = peak_force_shown(result, (t0, t1))
    bodies = [b.name for b in result.system.bodies]
    head = ("<tr><th>impact 1 starts [s]</th><th>lasts [ms]</th><th>episodes</th>"
            f"<th>peak N in the plot, {t0:.3f}–{t1:.3g} s [N]</th><th>velocity jumps there</th>"
            "<th>impulse of impact 1 [N s]</th>"
            + "".join(f"<th>θ̇ of {b} after [rad/s]</th>" for b in bodies) + "</tr>")
    row = (f"<tr><td>{a['t_start']:.4f}</td><td>{1e3 * a['duration']:.3f}</td><td>{a['episodes']}</td>"
           f"<td>{peak:.4g}</td><td>{jumps}</td><td>{a['impulse']:.4f}</td>"
           + "".join(f"<td>{a[f'{b}.theta_dot']:.3f}</td>" for b in bodies) + "</tr>")
    return f"<table style='font-size:90%'>{head}{row}</table>"
