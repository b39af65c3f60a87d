"""The paper's figures (Figs 2-14) with one colour, line style and marker per model everywhere.

Every function takes ``results``: a dict {model id: SimulationResult} (or one result) and
returns a Matplotlib figure.  :func:`save_figure` writes PNG and SVG and embeds how the figure
was made (flexlib version, case parameters, tolerances) in both files' metadata; the files carry
no date and the SVG ids a fixed salt, so the same figure is saved as the same bytes.

Each figure explains itself: the title names the case (and the model, for one model), grey bands
mark the impacts (clusters of contact episodes) and are in the legend, and a footnote says which
model is left out of a figure and why.  Where the friction models coincide (most of the first
impact) the lines still stay apart: hybrid Coulomb is drawn wide and solid underneath, the other
two dashed or dotted on top, and each model has its own sparse markers.
"""
from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg") if matplotlib.get_backend().lower() in ("", "agg") else None
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .. import models  # noqa: E402
from ..text import num  # noqa: E402
from . import theme  # noqa: E402

__all__ = ["STYLES", "style", "save_figure", "FIGURES", "figure_title", "IMPACT_BAND",
           "fig_method_comparison", "fig_energy_per_impact", "fig_stiffness_study", "fig_creep",
           "CONTINUOUS_FIGURES"]

# The look of each model (colour, dash pattern, width, marker) comes from the model registry, so
# it is the same in every figure, notebook and panel.
STYLES = {m: spec.style() for m, spec in models.REGISTRY.items()}
ORDER = tuple(m for m in models.REGISTRY if m != "free") + ("free",)
IMPACT_BAND = dict(color="0.9", lw=0, zorder=0)      # the grey impact bands
_NOTE_FONTSIZE = theme.SMALL


def style(model: str) -> dict:
    """Keyword arguments of ``Axes.plot`` for ``model``: colour, line style, width, marker, label."""
    return models.get(model).style()


def _as_dict(results):
    if isinstance(results, dict):
        return {m: results[m] for m in (*ORDER, *results) if m in results}
    return {results.model: results}


def _label(model: str) -> str:
    return models.get(model).style()["label"] if model in models.REGISTRY else model


def _reference(results):
    """The model whose impacts are shaded: unified LuGre if present (it runs to t_end)."""
    d = _as_dict(results)
    for m in ("lugre", "hybrid_lugre", "hybrid_coulomb", "frictionless", "free"):
        if m in d:
            return m


def _shade_impacts(ax, results):
    """Grey bands over the impacts of the reference run, with one legend entry."""
    m = _reference(results)
    if m is None:
        return
    res = _as_dict(results)[m]
    for k, im in enumerate(res.impacts):
        ax.axvspan(im["t_start"], max(im["t_end"], im["t_start"] + 1e-4), **IMPACT_BAND,
                   label=f"impacts ({_label(m)} run): contact clusters" if k == 0 else None)


def figure_title(fig) -> str:
    """The figure's title: its suptitle, else the first axes' title."""
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text():
        return sup.get_text()
    return fig.axes[0].get_title() if fig.axes else ""


def _title(results, base: str) -> str:
    """``base``, then the case, then the model when there is only one: distinct for every figure."""
    d = _as_dict(results)
    cases = sorted({r.case.name for r in d.values()})
    text = f"{base}, case {', '.join(cases)}" if cases else base
    if len(d) == 1:
        text += f", {_label(next(iter(d)))}"
    return text


def _note(fig, text: str, char_width: float = 0.5):
    """A footnote under the axes (wrapped to the figure's width): what the figure leaves out and
    why.  The constrained layout keeps the axes above it.  ``char_width``: the mean width of a
    character in units of the font size, for the wrapping (larger: shorter lines)."""
    if not text:
        return
    import textwrap
    width_pt = fig.get_figwidth() * 72
    lines = textwrap.wrap(text, width=max(40, int(width_pt / (char_width * _NOTE_FONTSIZE))))
    height = (len(lines) * 1.35 * _NOTE_FONTSIZE + 6) / (fig.get_figheight() * 72)
    fig.get_layout_engine().set(rect=(0, height, 1, 1 - height))
    fig.text(0.01, 3 / (fig.get_figheight() * 72), "\n".join(lines), fontsize=_NOTE_FONTSIZE,
             color="0.25", ha="left", va="bottom", linespacing=1.2)


def _left_out(results, shown, why: str) -> str:
    """The footnote sentence for the models of ``results`` that are not in ``shown``."""
    gone = [m for m in _as_dict(results) if m not in shown]
    if not gone:
        return ""
    names = ", ".join("the frictionless reference" if m == "frictionless" else _label(m) for m in gone)
    return f"Not shown: {names} ({why})."


def _plot_series(ax, results, key, *, window=None, contact_only=False, scale=1.0, models=None):
    for m, r in _as_dict(results).items():
        if models is not None and m not in models:
            continue
        t = r.t
        v = np.asarray(r.h[key], float) * scale
        if contact_only:
            v = np.where(r.mode > 0, v, np.nan)
        if window is not None:
            k = (t >= window[0]) & (t <= window[1])
            t, v = t[k], v[k]
        st = style(m)
        if not r.success:
            st["label"] += f" (run stopped at {r.t[-1]:.3f} s)"
        ax.plot(t, v, **st)


def _finish(ax, ylabel, title=None, legend=True):
    ax.set_xlabel("time t [s]")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=theme.LARGE)
    ax.grid(True, lw=0.3, alpha=0.6)
    if legend:
        ax.legend(fontsize=theme.SMALL, loc="best")


def first_impact_window(results, pad_before=1e-3, pad_after=2e-3):
    """[t0, t1] covering the first impact cluster of every run (plus padding), s."""
    rs = [r for r in _as_dict(results).values() if r.impacts]
    if not rs:
        return None
    t0 = min(r.impacts[0]["t_start"] for r in rs) - pad_before
    t1 = max(r.impacts[0]["t_end"] for r in rs) + pad_after
    return t0, t1


def first_impacts_window(results, n=3, pad=0.01):
    rs = [r for r in _as_dict(results).values() if r.impacts]
    if not rs:
        return None
    t0 = min(r.impacts[0]["t_start"] for r in rs) - pad
    t1 = max(r.impacts[min(n, len(r.impacts)) - 1]["t_end"] for r in rs) + 5 * pad
    return t0, t1


def _simple(results, key, ylabel, title, *, scale=1.0, contact_only=False, models=None):
    fig, ax = plt.subplots(figsize=(7, 3.6), constrained_layout=True)
    _shade_impacts(ax, results)
    _plot_series(ax, results, key, scale=scale, contact_only=contact_only, models=models)
    _finish(ax, ylabel, _title(results, title))
    return fig


def fig_theta(results, title="Angular displacement of the beam"):
    """Figs 2 and 4: theta(t), rad."""
    return _simple(results, "theta", r"angle $\theta$ [rad]", title)


def fig_theta_dot(results):
    """Fig 5: theta'(t), rad/s."""
    return _simple(results, "theta_dot", r"angular velocity $\dot\theta$ [rad/s]",
                   "Angular velocity of the beam")


def fig_tip_Y(results, title="Y displacement of the beam tip"):
    """Figs 3 and 7: Y coordinate of the tip in the inertial frame, m."""
    return _simple(results, "tip_Y", r"tip $Y_P$ [m]", title)


def fig_tip_Ydot(results):
    """Fig 8: Y velocity of the tip, m/s."""
    return _simple(results, "tip_Ydot", r"tip $\dot Y_P$ [m/s]", "Y velocity of the beam tip")


def fig_tip_deflection(results):
    """Fig 6: tip transverse deformation u_y(L) = Phi_L B, mm; (a) whole run, (b) first impacts."""
    fig, axs = plt.subplots(2, 1, figsize=(7, 6), constrained_layout=True)
    for ax in axs:
        _shade_impacts(ax, results)
    _plot_series(axs[0], results, "tip_deflection", scale=1e3)
    _finish(axs[0], r"tip deformation $u_y(L)$ [mm]", "(a) whole run")
    w = first_impacts_window(results)
    if w:
        _plot_series(axs[1], results, "tip_deflection", scale=1e3, window=w)
        axs[1].set_xlim(*w)
    _finish(axs[1], r"tip deformation $u_y(L)$ [mm]", "(b) first three impacts", legend=False)
    fig.suptitle(_title(results, "Transverse deformation of the beam tip"), fontsize=theme.TITLE)
    return fig


def fig_normal_force(results):
    """Fig 9: normal contact force N (jump impulses are not included), N."""
    fig, axs = plt.subplots(2, 1, figsize=(7, 6), constrained_layout=True)
    _plot_series(axs[0], results, "N")
    _finish(axs[0], "normal force N [N]", "(a) whole run")
    w = first_impact_window(results)
    if w:
        _plot_series(axs[1], results, "N", window=w)
        axs[1].set_xlim(*w)
    _finish(axs[1], "normal force N [N]", "(b) first impact", legend=False)
    fig.suptitle(_title(results, "Impact (normal) force"), fontsize=theme.TITLE)
    _note(fig, "The impulses of the velocity jumps at impact onset are not included (they act in "
               "zero time).")
    return fig


def _friction_models(results):
    return [m for m in _as_dict(results) if m != "frictionless"]


def fig_friction_force(results):
    """Fig 10: friction force F_t along the slope tangent, N; (a) whole run, (b) first impact."""
    fig, axs = plt.subplots(2, 1, figsize=(7, 6), constrained_layout=True)
    models = _friction_models(results)
    _plot_series(axs[0], results, "F_t", models=models)
    _finish(axs[0], r"friction force $F_t$ [N]", "(a) whole run")
    w = first_impact_window(results)
    if w:
        _plot_series(axs[1], results, "F_t", window=w, models=models)
        axs[1].set_xlim(*w)
    _finish(axs[1], r"friction force $F_t$ [N]", "(b) first impact", legend=False)
    fig.suptitle(_title(results, "Friction force"), fontsize=theme.TITLE)
    _note(fig, _left_out(results, models, "its friction force is zero"))
    return fig


def fig_energy(results):
    """Fig 11: (a) mechanical E, (b) kinetic T, (c) elastic V_E, (d) gravitational V_G, J."""
    fig, axs = plt.subplots(2, 2, figsize=(10, 6.5), constrained_layout=True)
    for ax, key, lab in zip(axs.flat, ("E", "T", "V_E", "V_G"),
                            ("(a) mechanical energy E [J]", "(b) kinetic energy T [J]",
                             r"(c) elastic energy $V_E$ [J]", r"(d) gravitational energy $V_G$ [J]")):
        _plot_series(ax, results, key)
        _finish(ax, lab.split(") ", 1)[1], lab.split(" [")[0], legend=(key == "E"))
    fig.suptitle(_title(results, "Energy of the beam"), fontsize=theme.TITLE)
    return fig


def fig_tangential_displacement(results):
    """Fig 12: tangential tip position s along the slope during the first impact, mm.

    Stick intervals, if a run has any, are shaded in the model's colour (and named in the
    legend); without any, a footnote says so."""
    fig, ax = plt.subplots(figsize=(7, 3.8), constrained_layout=True)
    w = first_impact_window(results, pad_before=2e-4, pad_after=2e-4)
    models = _friction_models(results)
    stick = []
    for m, r in _as_dict(results).items():
        if m not in models or not r.impacts:
            continue
        im = r.impacts[0]
        k = (r.t >= im["t_start"]) & (r.t <= im["t_end"]) & (r.mode > 0)
        ax.plot(r.t[k], 1e3 * r.h["s_all"][k], **style(m))
        for j, (a, b) in enumerate(im["stick_intervals"]):
            ax.axvspan(a, b, color=STYLES[m]["color"], alpha=0.15, lw=0,
                       label=f"stick, {_label(m)}" if j == 0 else None)
        if im["stick_intervals"]:
            stick.append(m)
    if w:
        ax.set_xlim(*w)
    base = "Tangential displacement of the tip along the slope, first impact"
    _finish(ax, "tangential position s [mm]",
            _title(results, base + (" (stick shaded)" if stick else "")))
    notes = []
    if not stick:
        notes.append(("No stick interval in the first impact of this run"
                      if len(models) == 1 else "No stick interval in the first impact of these runs")
                     + ": nothing to shade.")
    if "lugre" in models:
        notes.append("Unified LuGre has no stick state.")
    notes.append(_left_out(results, models, "the paper's Fig. 12 compares the friction models"))
    _note(fig, " ".join(n for n in notes if n))
    return fig


def fig_tangential_velocity(results):
    """Fig 13: tangential sliding velocity v_t in contact, m/s (NaN in flight)."""
    fig, axs = plt.subplots(2, 1, figsize=(7, 6), constrained_layout=True)
    models = _friction_models(results)
    _plot_series(axs[0], results, "v_t", contact_only=True, models=models)
    _finish(axs[0], r"tangential velocity $v_t$ [m/s]", "(a) whole run (contact only)")
    w = first_impact_window(results)
    if w:
        _plot_series(axs[1], results, "v_t", contact_only=True, window=w, models=models)
        axs[1].set_xlim(*w)
    _finish(axs[1], r"$v_t$ [m/s]", "(b) first impact", legend=False)
    fig.suptitle(_title(results, "Tangential velocity of the tip during impact"), fontsize=theme.TITLE)
    _note(fig, "Gaps in the lines: the tip is in flight. "
          + _left_out(results, models, "the paper's Fig. 13 compares the friction models"))
    return fig


def fig_friction_coefficient(results):
    """Fig 14: mu_eff = -F_t/N for the LuGre pair, (a) all impacts, (b) first impact."""
    fig, axs = plt.subplots(2, 1, figsize=(7, 6), constrained_layout=True)
    models = [m for m in _as_dict(results) if m in ("hybrid_lugre", "lugre")]
    _plot_series(axs[0], results, "mu_eff", contact_only=True, models=models)
    _finish(axs[0], r"$\mu_{eff} = -F_t/N$ [-]", "(a) all impacts")
    w = first_impact_window(results)
    if w:
        _plot_series(axs[1], results, "mu_eff", contact_only=True, window=w, models=models)
        axs[1].set_xlim(*w)
    r0 = next(iter(_as_dict(results).values()))
    mu_d, mu_s = r0.case.coulomb.mu_d, r0.case.coulomb.mu_s
    for ax in axs:
        for v, lab in ((mu_d, r"$\pm\mu_d$"), (-mu_d, None), (mu_s, r"$\pm\mu_s$"), (-mu_s, None)):
            ax.axhline(v, color="0.4", lw=0.6, ls=":" if abs(v) == mu_s else "--", label=lab)
    _finish(axs[1], r"$\mu_{eff}$ [-]", "(b) first impact", legend=False)
    axs[0].legend(fontsize=theme.SMALL)
    fig.suptitle(_title(results, "LuGre friction coefficient during impact"), fontsize=theme.TITLE)
    notes = []
    d = _as_dict(results)
    if "hybrid_coulomb" in d:
        notes.append("Not shown: hybrid Coulomb, which has no LuGre friction coefficient to plot "
                     r"(in slip its $|F_t|/N$ is $\mu_d$ by Coulomb's law; its $F_t$ is in Fig. 10).")
    if "frictionless" in d:
        notes.append("Frictionless reference not shown (no friction).")
    _note(fig, " ".join(notes))
    return fig


# name -> (function, case, models, caption)
FIGURES = {
    "fig02_theta_caseA": (fig_theta, "3.1", ("hybrid_coulomb",),
                          "Fig. 2: angular displacement, case 3.1, hybrid Coulomb"),
    "fig03_tipY_caseA": (fig_tip_Y, "3.1", ("hybrid_coulomb",),
                         "Fig. 3: tip Y displacement, case 3.1, hybrid Coulomb"),
    "fig04_theta": (fig_theta, "3.2", None, "Fig. 4: angular displacement, case 3.2"),
    "fig05_theta_dot": (fig_theta_dot, "3.2", None, "Fig. 5: angular velocity, case 3.2"),
    "fig06_tip_deflection": (fig_tip_deflection, "3.2", None, "Fig. 6: tip transverse deformation, case 3.2"),
    "fig07_tipY": (fig_tip_Y, "3.2", None, "Fig. 7: tip Y displacement, case 3.2"),
    "fig08_tipYdot": (fig_tip_Ydot, "3.2", None, "Fig. 8: tip Y velocity, case 3.2"),
    "fig09_normal_force": (fig_normal_force, "3.2", None, "Fig. 9: impact force, case 3.2"),
    "fig10_friction_force": (fig_friction_force, "3.2", None, "Fig. 10: friction force, case 3.2"),
    "fig11_energy": (fig_energy, "3.2", None, "Fig. 11: energies, case 3.2"),
    "fig12_tangential_displacement": (fig_tangential_displacement, "3.2", None,
                                      "Fig. 12: tangential displacement, first impact, case 3.2"),
    "fig13_tangential_velocity": (fig_tangential_velocity, "3.2", None,
                                  "Fig. 13: tangential velocity, case 3.2"),
    "fig14_friction_coefficient": (fig_friction_coefficient, "3.2", None,
                                   "Fig. 14: LuGre friction coefficient, case 3.2 (hybrid Coulomb "
                                   "has none)"),
}


# --------------------------------------------------------------------------- continuous contact
# The contact-constraint method (the paper) against the continuous contact force method; the
# data come from flexlib.studies.continuous (compare_methods, stiffness_study, creep_study).
COMPARISON_MODELS = ("hybrid_coulomb", "lugre", "continuous_coulomb", "continuous_lugre")


def _cnote(fig, text):
    _note(fig, text, char_width=0.58)


def _penalty_text(params) -> str:
    return (f"continuous models: {params['contact_law']} law, K = {num(params['contact_stiffness'], 1)} "
            f"N/m^{params['contact_exponent']:g}, e = {params['e']:g}; constraint models: e = "
            f"{params['constraint_e']:g}; mu_d = {params['mu_d']:g}")


def _comparison_params(results) -> dict:
    """The settings line of a {model: result} dict (the panel's results): as compare_methods'."""
    d = _as_dict(results)
    pen = next((r for m, r in d.items() if models.get(m).is_penalty), None)
    con = next((r for m, r in d.items() if not models.get(m).is_penalty), None)
    r0 = pen or con
    sl = (pen or con).case.slope
    return dict(case=r0.case.name, contact_law=sl.contact_law, contact_stiffness=sl.contact_stiffness,
                contact_exponent=sl.contact_exponent, e=sl.e,
                constraint_e=con.case.slope.e if con is not None else float("nan"),
                mu_d=r0.case.coulomb.mu_d)


def fig_method_comparison(comparison, models=COMPARISON_MODELS):
    """Constraint against continuous contact on one case, same mu_d: (a) theta(t) over the run,
    (b) the normal force N(t) and (c) the tip deformation u_y(L) over the first impact.
    ``comparison``: the dict of :func:`flexlib.studies.continuous.compare_methods`, or a {model: result}
    dict (the notebook's panel); ``models``: the models drawn (None: all)."""
    if "results" in comparison:
        results, params = comparison["results"], comparison["params"]
    else:
        results, params = comparison, _comparison_params(comparison)
    res = {m: r for m, r in results.items() if models is None or m in models}
    fig, axs = plt.subplots(3, 1, figsize=(7.5, 9), constrained_layout=True)
    _shade_impacts(axs[0], res)
    _plot_series(axs[0], res, "theta")
    _finish(axs[0], r"angle $\theta$ [rad]", "(a) beam angle, whole run")
    w = first_impact_window(res)
    for ax, key, lab, scale, title in (
            (axs[1], "N", "normal force N [N]", 1.0, "(b) normal force, first impact"),
            (axs[2], "tip_deflection", r"tip deformation $u_y(L)$ [mm]", 1e3,
             "(c) tip deformation, first impact")):
        _plot_series(ax, res, key, window=w, scale=scale)
        if w:
            ax.set_xlim(*w)
        _finish(ax, lab, title, legend=False)
    fig.suptitle(_title(res, "Contact constraint against continuous contact force"), fontsize=theme.TITLE)
    _cnote(fig, _penalty_text(params) + ". The constraint models' N leaves out the "
           "impulse of the velocity jump at impact onset; the continuous models have no jump, their "
           "N carries the whole impact.")
    return fig


def fig_energy_per_impact(comparison, models=None):
    """Energy lost in each impact [J] against the impact's start time [s], one marker per impact
    and model (:func:`flexlib.studies.continuous.compare_methods`)."""
    fig, ax = plt.subplots(figsize=(7.5, 4), constrained_layout=True)
    for m, rows in comparison["impacts"].items():
        if models is not None and m not in models:
            continue
        st = style(m)
        st.pop("markevery", None)
        st.setdefault("marker", "x")
        st["ms"] = st.get("ms", 5) + 1.5
        st["lw"] = 0.8
        ax.plot([r["t_start"] for r in rows], [r["energy_lost"] for r in rows], **st)
    ax.set_xlabel("start of the impact [s]")
    ax.set_ylabel("energy lost in the impact [J]")
    ax.set_title(f"Energy lost per impact, case {comparison['params']['case']}", fontsize=theme.LARGE)
    ax.grid(True, lw=0.3, alpha=0.6)
    ax.legend(fontsize=theme.SMALL, loc="best")
    _cnote(fig, _penalty_text(comparison["params"]) + ". Energy lost = E before - E after the "
          "impact (a cluster of contact episodes), velocity jumps included.")
    return fig


_STIFF_PANELS = (("duration", "duration of impact 1 [ms]", 1e3, False),
                 ("theta_after", r"$\theta$ after impact 1 [rad]", 1.0, False),
                 ("peak_N", "peak N in impact 1 [N]", 1.0, True),
                 ("max_penetration", "max penetration in impact 1 [mm]", 1e3, True),
                 ("energy_lost", "energy lost in impact 1 [J]", 1.0, False),
                 ("n_steps", "integrator steps of the run [-]", 1.0, False))


def fig_stiffness_study(ds):
    """The continuous models over the penalty stiffness K (log axis): first-impact duration,
    theta after it, peak N, max penetration, energy lost and integrator steps; horizontal lines
    are the constraint method (the rigid limit K -> infinity) with e = 0 (dotted) and the
    penalty law's e (dashed).  ``ds``: :func:`flexlib.studies.continuous.stiffness_study`."""
    fig, axs = plt.subplots(2, 3, figsize=(11, 6.2), constrained_layout=True)
    K = ds.K.values
    for ax, (key, lab, scale, logy) in zip(axs.flat, _STIFF_PANELS):
        for m in ds.model.values:
            st = style(str(m))
            st.pop("markevery", None)
            ax.plot(K, scale * ds[key].sel(model=m).values, **st)
            ref = str(ds.ref_model.sel(model=m).values)
            if key == "max_penetration":
                continue                     # the constraint method does not penetrate: 0
            for er, ls in zip(ds.e_ref.values, (":", "--", "-.")):
                ax.axhline(scale * float(ds[f"ref_{key}"].sel(model=m, e_ref=er)),
                           color=style(ref)["color"], ls=ls, lw=1.0,
                           label=f"K = \u221e: {_label(ref)}, e = {er:g}")
        ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(f"penalty stiffness K [N/m^{ds.attrs['contact_exponent']:g}]")
        ax.set_ylabel(lab)
        ax.grid(True, which="both", lw=0.3, alpha=0.6)
    axs.flat[0].legend(fontsize=theme.SMALL, loc="best")
    fig.suptitle(f"Penalty stiffness study, case {ds.attrs['case']} ({ds.attrs['contact_law']} law, "
                 f"e = {ds.attrs['e']:g}, n = {ds.attrs['contact_exponent']:g})", fontsize=theme.TITLE)
    _cnote(fig, "Horizontal lines: the contact-constraint counterpart (continuous Coulomb: hybrid "
          "Coulomb; continuous LuGre: unified LuGre), the limit K -> infinity; its peak N leaves out "
          "the impulse of the velocity jump, and it does not penetrate (no line in the penetration "
          "panel).")
    return fig


def fig_creep(creep):
    """Where hybrid Coulomb sticks (axial modes >= 1), continuous Coulomb creeps: (a) tangential
    position s of the tip along the slope in contact during the first impact, relative to its
    value at first contact [um], (b) |v_t| in contact (log) with the modified Coulomb law's v0 and
    v1; hybrid Coulomb's stick intervals shaded.  ``creep``: :func:`flexlib.studies.continuous.creep_study`."""
    res = creep["results"]
    hyb = res["hybrid_coulomb"]
    fig, axs = plt.subplots(2, 1, figsize=(7.5, 6.5), constrained_layout=True)
    w = first_impact_window(res, pad_before=2e-4, pad_after=2e-4)
    for m, r in res.items():
        if not r.impacts:
            continue
        t0 = r.impacts[0]["t_start"]
        s0 = float(r.sample(np.array([t0]), "s_all")[0])
        c = (r.mode > 0) & (r.t >= w[0]) & (r.t <= w[1])
        axs[0].plot(r.t, np.where(c, 1e6 * (r.h["s_all"] - s0), np.nan), **style(m))
        axs[1].plot(r.t, np.where(c, np.abs(r.h["v_t_all"]), np.nan), **style(m))
    for ax in axs:
        for j, (a, b) in enumerate(iv for im in hyb.impacts for iv in im["stick_intervals"]):
            ax.axvspan(a, b, color=STYLES["hybrid_coulomb"]["color"], alpha=0.15, lw=0,
                       label="stick, hybrid Coulomb" if j == 0 else None)
    p = creep["results"]["continuous_coulomb"].case.coulomb
    axs[1].axhline(p.v1, color="0.3", ls="--", lw=0.8, label=f"$v_1$ = {p.v1:g} m/s (full $\\mu_d N$ above)")
    axs[1].axhline(p.v0, color="0.3", ls=":", lw=0.8, label=f"$v_0$ = {p.v0:g} m/s (no friction below)")
    axs[1].set_yscale("log")
    if w:
        for ax in axs:
            ax.set_xlim(*w)
    _finish(axs[0], r"tangential position $s - s_0$ [$\mu$m]", "(a) tip position along the slope, in contact")
    _finish(axs[1], r"tangential speed $|v_t|$ [m/s]", "(b) tangential speed, in contact")
    par = creep["params"]
    fig.suptitle(f"Stick against creep, first impact, case {par['case']}, axial modes = "
                 f"{par['axial_modes']}", fontsize=theme.TITLE)
    _cnote(fig, f"Hybrid Coulomb: e = {par['hybrid_e']:g}; continuous Coulomb: {par['contact_law']} "
          f"law, K = {num(par['contact_stiffness'], 1)} N/m^{par['contact_exponent']:g}, e = {par['e']:g}. "
          "s is measured from its value at first contact; gaps in the lines: the tip is in flight.")
    return fig


# name -> (function, which study it draws, caption)
CONTINUOUS_FIGURES = {
    "continuous_method_comparison": (fig_method_comparison, "comparison",
                                     "Contact constraint against continuous contact force, case 3.2: "
                                     "theta, N and tip deformation"),
    "continuous_energy_per_impact": (fig_energy_per_impact, "comparison",
                                     "Energy lost per impact, constraint and continuous models, case 3.2"),
    "continuous_stiffness": (fig_stiffness_study, "stiffness",
                             "Continuous models over the penalty stiffness K, first impact, case 3.2"),
    "continuous_creep": (fig_creep, "creep",
                         "Stick (hybrid Coulomb) against creep (continuous Coulomb), axial modes = 1"),
}


def provenance(results) -> dict:
    """How a figure was made: flexlib version, case parameters, tolerances, per model."""
    from .. import __version__
    d = {"flexlib_version": __version__, "runs": {}}
    for m, r in _as_dict(results).items():
        d["runs"][m] = {"case": r.case.name, "t_end": float(r.t[-1]), "params": r.case.as_dict(),
                        "success": r.success}
    return d


def _freeze_layout(fig, digits: int = 10):
    """Run the figure's layout engine once, then fix every axes at its position rounded to
    ``digits`` decimals of the figure size and switch the engine off.

    Constrained layout's solver can end up a few units in the last place apart from one process
    to the next (the order in which it meets the axes follows their memory addresses), which
    changed the SVG's clip-path ids, hashes of the exact axes boxes, from run to run."""
    if fig.get_layout_engine() is None:
        return
    fig.draw_without_rendering()
    boxes = [(ax, [round(v, digits) for v in ax.get_position().bounds]) for ax in fig.axes]
    fig.set_layout_engine("none")
    for ax, box in boxes:
        ax.set_position(box)


def save_figure(fig, name: str, outdir, results=None, extra: dict | None = None):
    """Write ``name``.png and ``name``.svg into ``outdir`` with provenance in their metadata.

    Deterministic: the same figure gives the same bytes (no date, fixed SVG hash salt)."""
    from pathlib import Path
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    prov = provenance(results) if results is not None else {}
    if extra:
        prov.update(extra)
    text = json.dumps(prov, sort_keys=True, default=float)
    # Same figure, same bytes: no date in either file, a fixed software name (no version string
    # of Matplotlib or of the PNG library), SVG ids hashed with a fixed salt, and the layout
    # frozen at rounded axes positions (the SVG's clip-path ids hash the exact axes boxes).
    _freeze_layout(fig)
    from ..outputs import Outputs
    # both files or neither (flexlib.outputs; with the figures command, all its files or none)
    with plt.rc_context({**theme.RC, "svg.hashsalt": "flexlib"}), Outputs() as out:
        out.write(outdir / f"{name}.png", lambda p: fig.savefig(
            p, format="png", dpi=theme.DPI, metadata={"Description": text, "Software": "flexlib"}))
        out.write(outdir / f"{name}.svg", lambda p: fig.savefig(
            p, format="svg", metadata={"Description": text, "Creator": "flexlib", "Date": None}))
    plt.close(fig)
    return prov


# ------------------------------------------------------------------ accuracy against cost
_ACC_PANELS = (("theta", "theta(t), 0-1 s"), ("t_start", "start times, impacts 1-5"),
               ("energy_after", "energy after impacts 1-5"),
               ("normal_impulse", "normal impulse, impacts 1-5"),
               ("peak_N", "peak N, impact 1"), ("t_start_1", "start time, impact 1"),
               ("energy_after_1", "energy after impact 1"),
               ("normal_impulse_1", "normal impulse, impact 1"))
# the double pendulum's panels (flexlib.studies.accuracy.DOUBLE_PENDULUM)
_ACC_PANELS_DP = (("theta1", "theta1(t), upper link"), ("theta2", "theta2(t), lower link"),
                  ("t_start_1", "start time, impact 1"), ("duration_1", "duration, impact 1"),
                  ("peak_N", "peak N, impact 1"), ("normal_impulse_1", "normal impulse, impact 1"),
                  ("omega1_after_1", "upper link's rate after impact 1"),
                  ("strain_energy_after_1", "strain energy after impact 1"))
_ACC_FAMILIES = {"modal": dict(marker="o", color="#0072B2"), "fe": dict(marker="s", color="#D55E00"),
                 "partition": dict(marker="^", color="#009E73")}
_ACC_CEILING = 3.0          # a missing impact (infinite error) is drawn here


def fig_accuracy_cost(err, model: str, reference: str, tol: float = 0.01, study=None):
    """Relative error against CPU time of a warm run, one panel per quantity, for ``model``:
    every representation of the beam (modal N, finite elements n_e, partition), its error-cost
    front (black steps) and the ``tol`` line.  ``err``: :func:`flexlib.studies.accuracy.errors`;
    ``reference``: the label of the reference run (left out); ``study``: a
    :class:`flexlib.studies.accuracy.Study` (default case 3.2's)."""
    from ..studies.accuracy import PAPER, pareto
    study = study or PAPER
    paper = study is PAPER or study.case == PAPER.case
    panels = _ACC_PANELS if paper else _ACC_PANELS_DP
    d = err[(err.model == model) & (err.label != reference) & (err.method == "DOP853")]
    # eight panels in four rows of two, so that a page-wide figure keeps its labels legible
    fig, axs = plt.subplots(4, 2, figsize=(9, 11.5), sharex=True, sharey=True,
                            constrained_layout=True)
    for ax, (q, title) in zip(axs.flat, panels):
        for fam, st in _ACC_FAMILIES.items():
            f = d[d.basis == fam]
            for tight in (False, True):
                g = f[f.tight == tight]
                if not len(g):
                    continue
                y = np.minimum(g[q].to_numpy(float), _ACC_CEILING)
                ax.plot(g.cpu_s, np.maximum(y, 1e-7), ls="none", ms=5, mec=st["color"],
                        marker=st["marker"], mfc="none" if tight else st["color"], alpha=0.85,
                        label=f"{fam}{' (tight tolerances)' if tight else ''}")
            if fam in ("modal", "fe"):
                for _, r in f.iterrows():
                    n = r.label.split()[-1].split("=")[-1]
                    ax.annotate(n, (r.cpu_s, max(min(r[q], _ACC_CEILING), 1e-7)), fontsize=theme.SMALL,
                                xytext=(3, 2), textcoords="offset points", color=st["color"])
        front = pareto(d, q)
        ax.step(front.cpu_s, np.clip(front[q], 1e-7, _ACC_CEILING), where="post", color="k",
                lw=0.9, label="error-cost front")
        ax.axhline(tol, color="0.4", ls="--", lw=0.8, label=f"{100 * tol:g} %")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title, fontsize=theme.MEDIUM)
        ax.grid(True, which="both", lw=0.3, alpha=0.5)
    for ax in axs[-1]:
        ax.set_xlabel("CPU time of a warm run [s]")
    for ax in axs[:, 0]:
        ax.set_ylabel("relative error [-]")
    handles, labels = axs.flat[0].get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    axs.flat[0].legend(uniq.values(), uniq.keys(), fontsize=theme.SMALL, loc="lower left")
    what = "case 3.2" if paper else f"the {study.case.replace('-', ' ')}"
    fig.suptitle(f"Accuracy against cost of the beam's bases, {what}, model {model};\n"
                 f"compared with {reference} at tight tolerances", fontsize=theme.TITLE)
    span = ("Per-impact quantities: the largest relative error over the impacts the reference "
            "has in 0-1 s. Partition: N far modes, local length and elements as in the tables."
            if paper else f"Angles: the largest difference over 0-{study.t_end:g} s divided by "
            f"the reference's range; the coordinates are both links'.")
    _cnote(fig, f"Numbers beside the points: N (modal) and n_e (fe). An impact the reference has "
                f"and the run misses is drawn at {_ACC_CEILING:g}; errors below 10⁻⁷ at 10⁻⁷. "
                + span)
    return fig
