"""Animations of multibody runs that play without a kernel: the deformed bodies, the obstacles, the time.

    from IPython.display import HTML
    HTML(animate(result, exaggeration=None).to_jshtml(default_mode="once"))

:func:`animate` draws every body of a :class:`flexlib.multibody.result.SystemResult` (or of several,
given as {label: result}) with the shape function of the snapshot figures
(:func:`flexlib.viz.multibody_plots.link_shapes`), its deflection magnified by a stated factor
(chosen from the run's own deflection amplitude by :func:`exaggeration_for` unless given), the
half-plane obstacles shaded, each contact point filled while it is closed, and the time.
:func:`animation_html` is the same as an embedded HTML player (base64 PNG frames, no kernel
needed; about 10-20 kB per frame at the default size).
"""
from __future__ import annotations

import numpy as np

from .multibody_plots import link_shapes

__all__ = ["deflection_amplitude", "exaggeration_for", "animate", "animation_html", "JSHTML_MARKER"]

# the class of the <div> that matplotlib's to_jshtml() writes around its player (a stored notebook
# output that contains it carries an animation)
JSHTML_MARKER = "animation"
# one line colour and dash pattern per run (Okabe-Ito colours), in the order of the runs
_RUN_STYLES = (("#0072B2", "-"), ("#D55E00", "--"), ("#009E73", "-."), ("#CC79A7", ":"))


def _as_runs(runs) -> dict:
    return runs if isinstance(runs, dict) else {"": runs}


def _times(runs, times, frames):
    if times is not None:
        return np.asarray(times, float)
    t_end = min(r.t_end for r in runs.values())
    return np.linspace(0.0, t_end, int(frames))


def deflection_amplitude(result, times) -> float:
    """The largest distance [m] of a material point of any body from its place on the undeformed
    body (the frame line), over ``times`` [s]."""
    Y = result.sample(np.asarray(times, float))
    rigid, bent = link_shapes(result, Y, 0.0), link_shapes(result, Y, 1.0)
    return max(float(np.max(np.linalg.norm(bent[b] - rigid[b], axis=-1), initial=0.0)) for b in rigid)


def exaggeration_for(runs, times, fraction=0.15) -> float:
    """A round magnification (1, 2 or 5 × 10^k, at least 1) that draws the largest deflection
    of ``runs`` over ``times`` as about ``fraction`` of the longest body."""
    runs = _as_runs(runs)
    amp = max(deflection_amplitude(r, times) for r in runs.values())
    length = max(b.beam.L for r in runs.values() for b in r.system.bodies)
    if not amp > 0.0:
        return 1.0
    want = fraction * length / amp
    if want <= 1.0:
        return 1.0
    k = 10.0 ** np.floor(np.log10(want))
    return float(max(m * k for m in (1.0, 2.0, 5.0) if m * k <= want))


def _legend(label, scales, exaggeration):
    if exaggeration != "each":
        return label or None
    return f"{label}, deflection ×{scales[label]:g}" if label else f"deflection ×{scales[label]:g}"


def _factors(scales, exaggeration) -> str:
    """The deflection factors as text: "deflection ×50" or "deflection ×20 (2 points), ×500 (5 points)"."""
    if exaggeration != "each":
        return f"deflection ×{next(iter(scales.values())):g}"
    return "deflection " + ", ".join(f"×{v:g}" + (f" ({k})" if k else "") for k, v in scales.items())


def _limits(shapes, pad):
    pts = np.concatenate([P.reshape(-1, 2) for s in shapes for P in s.values()])
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    span = max(float(np.max(hi - lo)), 1e-3)
    return lo - pad * span, hi + pad * span


def _obstacle(ax, obstacle, lo, hi, first):
    """Shade the half-plane behind ``obstacle``'s boundary line (its normal points to the free side)."""
    o = np.asarray(obstacle.origin, float)
    n = np.asarray(obstacle.normal, float) / np.hypot(*obstacle.normal)
    t = np.array([n[1], -n[0]])
    big = 10.0 * float(np.max(hi - lo)) + 10.0 * float(np.max(np.abs(o)))
    poly = np.array([o - big * t, o + big * t, o + big * t - big * n, o - big * t - big * n])
    ax.fill(poly[:, 0], poly[:, 1], color="0.82", zorder=0, lw=0,
            label=f"obstacle ({obstacle.name})" if first else None)
    ax.plot(poly[:2, 0], poly[:2, 1], color="0.35", lw=1.0, zorder=1)


def animate(runs, times=None, exaggeration=None, *, frames=70, title=None, figsize=(5.2, 3.0),
            dpi=80, interval=80, window=None):
    """A :class:`matplotlib.animation.FuncAnimation` of ``runs`` (one SystemResult or {label:
    result}, drawn overlaid, one colour and dash pattern each) at ``times`` [s] (default:
    ``frames`` times over the shortest run).  ``exaggeration``: the factor of the deflection
    (default :func:`exaggeration_for` of all runs), stated in the title, or ``"each"``: each run's
    own factor, stated in the legend (for runs whose deflections differ by orders of magnitude);
    ``window``: fixed axes limits
    ((x0, x1), (y0, y1)) [m] instead of the ones that fit the motion.  The figure is closed (the
    animation keeps it), so a notebook shows only the player."""
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation
    runs = _as_runs(runs)
    times = _times(runs, times, frames)
    if exaggeration == "each":
        scales = {k: exaggeration_for(r, times) for k, r in runs.items()}
    else:
        common = exaggeration_for(runs, times) if exaggeration is None else float(exaggeration)
        scales = dict.fromkeys(runs, common)
    shapes, modes = [], []
    for label, r in runs.items():
        shapes.append(link_shapes(r, r.sample(times), scales[label]))
        h = r.history(times)
        modes.append({c.name: h[f"{c.name}.mode"] != 0 for c in r.system.contacts})
    fig, ax = plt.subplots(figsize=figsize, dpi=dpi, constrained_layout=True)
    lo, hi = _limits(shapes, 0.08) if window is None else (np.array([window[0][0], window[1][0]]),
                                                          np.array([window[0][1], window[1][1]]))
    seen = set()
    for r in runs.values():
        for ob in r.system.obstacles:
            _obstacle(ax, ob, lo, hi, ob.name not in seen)
            seen.add(ob.name)
    lines, dots = [], []
    for k, (label, r) in enumerate(runs.items()):
        color, ls = _RUN_STYLES[k % len(_RUN_STYLES)]
        for j, b in enumerate(r.system.bodies):
            lines.append((k, b.name, ax.plot([], [], color=color, ls=ls, lw=2.0 if j == 0 else 1.5,
                                             label=_legend(label, scales, exaggeration) if j == 0 else None)[0]))
        for c in r.system.contacts:
            dots.append((k, c, ax.plot([], [], "o", color=color, ms=5, zorder=3)[0]))
    clock = ax.text(0.02, 0.95, "", transform=ax.transAxes, va="top", fontsize=9,
                    bbox=dict(fc="white", ec="0.7", lw=0.5))
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("X [m]")
    ax.set_ylabel("Y [m]")
    ax.grid(True, lw=0.3)
    ax.legend(fontsize=7, loc="lower right")
    factors = "deflection magnified as in the legend" if exaggeration == "each" else _factors(scales, None)
    ax.set_title(f"{title or 'Motion'}\n{factors}; ● contact closed, ○ open", fontsize=8)
    xs = {(k, b.name): np.linspace(0.0, b.beam.L, 41) for k, r in enumerate(runs.values())
          for b in r.system.bodies}

    def draw(i):
        for k, b, line in lines:
            P = shapes[k][b][i]
            line.set_data(P[:, 0], P[:, 1])
        for k, c, dot in dots:
            # the contact point on the drawn (magnified) shape: interpolate along its body
            P = shapes[k][c.body][i]
            x = xs[(k, c.body)]
            dot.set_data([np.interp(c.x, x, P[:, 0])], [np.interp(c.x, x, P[:, 1])])
            dot.set_markerfacecolor(dot.get_color() if modes[k][c.name][i] else "white")
        clock.set_text(f"t = {times[i]:.4f} s")
        return [line for _k, _b, line in lines] + [d for _k, _c, d in dots] + [clock]

    anim = FuncAnimation(fig, draw, frames=len(times), interval=interval, blit=False)
    anim.exaggeration = scales if exaggeration == "each" else next(iter(scales.values()))
    anim.factors = _factors(scales, exaggeration)
    anim.times, anim.n_frames = times, len(times)
    plt.close(fig)
    return anim


def animation_html(runs, times=None, exaggeration=None, **kwargs):
    """:func:`animate` as an :class:`IPython.display.HTML` player (frames embedded as base64 PNG,
    played once; it plays in JupyterLab and in a static render of the notebook, no kernel needed)."""
    from IPython.display import HTML
    anim = animate(runs, times, exaggeration, **kwargs)
    note = (f"<p style='font-size:90%'>Animation (press ▶): {anim.factors}, "
            f"{anim.n_frames} frames, t = {anim.times[0]:.4f}–{anim.times[-1]:.4f} s</p>")
    return HTML(note + anim.to_jshtml(default_mode="once"))
