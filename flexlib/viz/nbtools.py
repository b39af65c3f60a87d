"""Small helpers the notebooks share: stacked history figures, Markdown tables, rounded key numbers.

The paper's whole-run figures are in :mod:`flexlib.viz.plots`; these draw the short live runs of the
notebooks (the first impacts) with the same colour and line style per model.
"""
from __future__ import annotations

import math

import numpy as np

from ..text import fixed, num, plural
from . import theme
from .plots import IMPACT_BAND, STYLES, first_impact_window, style

__all__ = ["QUANTITIES", "history_figure", "run_and_first_impact", "first_impact_figure", "markdown_table", "impact_table",
           "stick_summary", "key_numbers", "cached", "fmt_time", "fmt_force", "fmt_energy",
           "ROUNDOFF", "roundoff_spread", "spread_text"]

# history key: (axis label, scale)
QUANTITIES = {
    "theta": (r"$\theta$ [rad]", 1.0),
    "theta_dot": (r"$\dot\theta$ [rad/s]", 1.0),
    "tip_deflection": (r"tip $u_y(L)$ [mm]", 1e3),
    "tip_Y": (r"tip $Y_P$ [m]", 1.0),
    "N": ("normal force N [N]", 1.0),
    "F_t": (r"friction $F_t$ [N]", 1.0),
    "v_t": (r"$v_t$ [m/s]", 1.0),
    "v_n": (r"$v_n$ [m/s]", 1.0),
    "mu_eff": (r"$\mu_{eff}=-F_t/N$ [–]", 1.0),
    "s": (r"tangential position s [mm]", 1e3),
    "z": (r"bristle z [µm]", 1e6),
    "E": ("mechanical energy E [J]", 1.0),
    "V_E": (r"elastic energy $V_E$ [J]", 1.0),
}
_CONTACT_ONLY = ("v_t", "mu_eff", "s", "z")
_LABELS = {m: st["label"] for m, st in STYLES.items()}


def _draw_histories(axs, results, keys, window=None, band_label=True):
    """``keys`` of every run against time into ``axs`` (one per key), impacts of the first run
    shaded; only the samples inside ``window`` (t0, t1) if given."""
    first = next(iter(results.values()))
    for ax, key in zip(axs, keys):
        label, scale = QUANTITIES.get(key, (key, 1.0))
        for j, im in enumerate(first.impacts):
            ax.axvspan(im["t_start"], im["t_end"], **IMPACT_BAND,
                       label=f"impacts ({_LABELS.get(first.model, first.model)} run): contact clusters"
                       if j == 0 and band_label else None)
        for m, r in results.items():
            v = np.asarray(r.h["s_all"] if key == "s" else r.h[key], float) * scale
            if key in _CONTACT_ONLY:
                v = np.where(r.mode > 0, v, np.nan)
            k = slice(None) if window is None else (r.t >= window[0]) & (r.t <= window[1])
            ax.plot(r.t[k], v[k], **style(m))
        ax.set_ylabel(label)
        ax.grid(True, lw=0.3, alpha=0.6)
    if window is not None:
        axs[-1].set_xlim(*window)
    axs[-1].set_xlabel("time t [s]")


def history_figure(results, keys=("theta", "tip_deflection", "N"), window=None, title=None):
    """Stacked plots of ``keys`` against time for {model: result}; the impacts of the first run are
    shaded grey (and named in the legend)."""
    import matplotlib.pyplot as plt
    results = results if isinstance(results, dict) else {results.model: results}
    fig, axs = plt.subplots(len(keys), 1, figsize=(7.5, 1.9 * len(keys) + 0.6), sharex=True,
                            constrained_layout=True, squeeze=False)
    _draw_histories(axs[:, 0], results, keys, window)
    axs[0, 0].legend(fontsize=theme.SMALL, loc="best")
    if title:
        fig.suptitle(title, fontsize=theme.TITLE)
    return fig


def run_and_first_impact(results, keys=("theta", "N", "F_t"), title=None):
    """``keys`` over the whole run (left column) and over the first impact (right column, the
    window of :func:`first_impact_figure`): at the scale of the run an impact of about 10 ms is
    only a spike, so its forces and what the sliders change in them show in the zoom."""
    import matplotlib.pyplot as plt
    results = results if isinstance(results, dict) else {results.model: results}
    fig, axs = plt.subplots(len(keys), 2, figsize=(11, 1.8 * len(keys) + 0.7), sharex="col",
                            constrained_layout=True, squeeze=False,
                            gridspec_kw={"width_ratios": [1.3, 1]})
    _draw_histories(axs[:, 0], results, keys)
    if any(r.impacts for r in results.values()):
        w = first_impact_window(results, pad_before=2e-4, pad_after=5e-4)
        _draw_histories(axs[:, 1], results, keys, window=w, band_label=False)
        axs[0, 1].set_title(f"first impact ({1e3 * (w[1] - w[0]):.1f} ms)", fontsize=theme.LARGE)
    else:
        for ax in axs[:, 1]:
            ax.set_axis_off()
        axs[0, 1].set_title("no impact", fontsize=theme.LARGE)
    axs[0, 0].set_title(f"0–{max(float(r.t[-1]) for r in results.values()):g} s", fontsize=theme.LARGE)
    axs[0, 0].legend(fontsize=theme.SMALL, loc="best")
    if title:
        fig.suptitle(title, fontsize=theme.TITLE)
    return fig


def first_impact_figure(results, keys=("N", "F_t", "v_t", "mu_eff", "s"), title=None):
    """``keys`` over the first impact cluster; stick intervals shaded in the model's colour (and
    named in the legend)."""
    results = results if isinstance(results, dict) else {results.model: results}
    w = first_impact_window(results, pad_before=2e-4, pad_after=5e-4)
    fig = history_figure(results, keys, window=w, title=title or "First impact")
    for i, ax in enumerate(fig.axes):
        for m, r in results.items():
            for j, (a, b) in enumerate(r.impacts[0]["stick_intervals"] if r.impacts else []):
                ax.axvspan(a, b, color=STYLES[m]["color"], alpha=0.2, lw=0,
                           label=f"stick, {STYLES[m]['label']}" if i == 0 and j == 0 else None)
    if any(r.impacts and r.impacts[0]["stick_intervals"] for r in results.values()):
        fig.axes[0].legend(fontsize=theme.SMALL, loc="best")
    return fig


def markdown_table(rows, columns) -> str:
    """A Markdown table. ``columns``: list of (key, header, format) with format a str.format spec
    or a callable; missing or non-finite values print as "–"."""
    def cell(v, f):
        if v is None or (isinstance(v, float) and not math.isfinite(v)):
            return "–"
        if isinstance(v, bool):
            v = "yes" if v else "no"
        text = f(v) if callable(f) else format(v, f)
        return text.replace("|", "\\|").replace("\n", " ")
    out = ["| " + " | ".join(h for _k, h, _f in columns) + " |",
           "|" + "|".join("---:" for _ in columns) + "|"]
    for r in rows:
        out.append("| " + " | ".join(cell(r.get(k), f) for k, _h, f in columns) + " |")
    return "\n".join(out)


_IMPACT_COLUMNS = [("impact", "#", "d"), ("t_start", "start [s]", ".4f"), ("t_end", "end [s]", ".4f"),
                   ("episodes", "episodes", "d"), ("peak_N", "peak N [N]", ".3g"),
                   ("peak_Ft", "peak abs(F_t) [N]", ".3g"), ("energy_lost", "energy lost [J]", ".4f"),
                   ("jump_loss", "of it in jumps [J]", ".4f"), ("friction_work", "W_f [J]", ".4f"),
                   ("n_stick_tests", "stick tests", "d"), ("max_stick_ratio", "max ratio asked", ".3g"),
                   ("n_stick", "stick intervals", "d"), ("n_slip", "slip intervals", "d")]


def impact_table(rows, frictionless=False) -> str:
    """Markdown table of :func:`flexlib.studies.figures.impact_rows` rows (e.g. from key_numbers.json)."""
    cols = _IMPACT_COLUMNS
    if frictionless:
        cols = [c for c in cols if c[0] not in ("peak_Ft", "friction_work", "n_stick_tests", "n_stick",
                                                 "n_slip", "max_stick_ratio")]
    return markdown_table(rows, cols)


def stick_summary(result) -> str:
    """What the stick tests of a run found, as Markdown.

    The ratio is the |F_t|/N a stick phase would need, from the stick solve (eq 62); a test with
    N <= 0 (a micro-impact) has no ratio."""
    tests = result.stick_tests
    valid = [s for s in tests if s["N"] > 0 and math.isfinite(s["ratio"])]
    ratios = np.array([s["ratio"] for s in valid])
    passed = sum(1 for s in valid if s["ratio"] <= s["mu_lim"])
    n_stick = sum(len(im["stick_intervals"]) for im in result.impacts)
    t_stick = sum(b - a for im in result.impacts for a, b in im["stick_intervals"])
    drift = sum(im["n_stick_drift"] for im in result.impacts)
    lines = [f"* stick tests run: **{len(tests)}**, of which {len(valid)} with N > 0 "
             f"({len(tests) - len(valid)} found N <= 0: micro-impacts, back to free flight)"]
    if len(valid):
        lines.append(f"* friction ratio |F_t|/N the stick solve asked for: min {ratios.min():.3g}, median "
                     f"{np.median(ratios):.3g}, max {ratios.max():.3g}; limit mu_lim = {valid[0]['mu_lim']:g}")
    lines.append(f"* tests passed (stick entered): **{passed}**; stick intervals: {n_stick}, total "
                 f"{num(1e3 * t_stick, 3, 'ms')}; STICK-DRIFT events: {drift}")
    for k, im in enumerate(result.impacts, 1):
        ratio = im["max_stick_ratio"]
        lines.append(f"* impact {k}: {plural(im['n_stick_tests'], 'stick test')}, max ratio "
                     f"{num(ratio)}, {len(im['slip_intervals'])} slip and "
                     f"{plural(len(im['stick_intervals']), 'stick interval')}")
    return "\n".join(lines)


def cached(name: str):
    """A cached study from ``figures/data/<name>.json``, or None (with a note) if it is missing."""
    from ..studies.figures import load_study
    try:
        return load_study(name)
    except FileNotFoundError:
        print(f"figures/data/{name}.json is missing: run `python -m flexlib figures` to create it")
        return None


def fmt_time(t) -> str:
    """Time rounded to 1e-4 s."""
    return f"{t:.4f} s"


def fmt_force(f) -> str:
    """Force to 3 significant figures."""
    return f"{float(f):.3g} N"


def fmt_energy(e) -> str:
    """Energy rounded to 1e-4 J (one that rounds to zero is "0 J")."""
    return fixed(e, 4, "J")


def key_numbers(result, n_impacts=None) -> str:
    """The rounded key numbers of one run, one line per impact (for the notebooks' cells whose
    output the test command compares with the stored one)."""
    lines = [f"{result.model}: {plural(len(result.impacts), 'impact')} in 0..{result.t_end:.4f} s"]
    for k, im in enumerate(result.impacts[:n_impacts] if n_impacts else result.impacts, 1):
        lines.append(f"  impact {k}: start {fmt_time(im['t_start'])}, end {fmt_time(im['t_end'])}, "
                     f"peak N {fmt_force(im['peak_normal_force'])}, "
                     f"peak |F_t| {fmt_force(im['peak_friction_force'])}, "
                     f"energy lost {fmt_energy(im['energy_lost'])}")
    return "\n".join(lines)


# Relative changes of the release angle θ0 of a few units in the last place (its ulp is 1.4e-16):
# the size of the differences between CPUs' NumPy and OpenBLAS (flexlib/_numerics.py).
ROUNDOFF = (1e-15, -1e-15, 2e-15, -2e-15)


def roundoff_spread(result, measure=lambda r: len(r.impacts), rel=ROUNDOFF) -> list:
    """``measure`` of ``result`` and of reruns of the same model and case whose release angle
    θ0 is changed by ``rel`` (relative; round-off level), first value ``result``'s own.  A number
    that changes between them depends on the last bits of the computation, as it does between
    two CPUs, and is not a finding; the late impacts of a bouncing sequence are such numbers."""
    from ..paper import simulate
    case, t_end = result.case, result.t_end
    out = [measure(result)]
    for d in rel:
        out.append(measure(simulate(case.with_(theta0=case.beam.theta0 * (1.0 + d)), result.model, t_end)))
    return out


def spread_text(values) -> str:
    """"9 (8–9 with θ0 changed by round-off)" or "6 (the same with ...)" for :func:`roundoff_spread`."""
    lo, hi = min(values), max(values)
    if lo == hi:
        return f"{values[0]:g} (the same with θ0 changed by round-off)"
    return f"{values[0]:g} ({lo:g}–{hi:g} with θ0 changed by round-off)"
