"""Figures of multibody runs (:class:`flexlib.multibody.result.SystemResult`).

Snapshots of the deformed links, contact forces and the contact map per point, angular rates,
deflections and the energy books.

Every figure function takes ``runs``: a dict {legend label: SystemResult} (or one result) and
returns a Matplotlib figure.  The colour and dash pattern of a curve come from the run's contact
model (:func:`model_of`), so a model looks the same here as in the paper's figures
(:data:`flexlib.viz.plots.STYLES`); the frictionless Hertz contact ``continuous``, which only the
multibody cases have, gets its own colour.  A rigid run (``n_modes = 0``) is drawn thin and dotted
in its model's colour.  Contact points keep one colour each (P1, P2, ... in order).
"""
from __future__ import annotations

import numpy as np

from .. import models
from ..text import num
from . import theme
from .plots import IMPACT_BAND

__all__ = ["model_of", "is_rigid", "curve_style", "point_colors", "deflection", "chord_deflection",
           "first_impact", "after_first_impact", "link_shapes", "fig_pendulum_snapshots", "fig_beam_snapshots",
           "fig_contact_forces", "fig_contact_map", "fig_theta_dot", "fig_deflection",
           "fig_energy", "fig_beam_motion", "first_impact_window", "peak_force_shown", "fig_first_impact", "fig_beside_outside", "CODE_STYLES",
           "MULTIBODY_FIGURES", "RESOLUTION_FAMILIES", "fig_resolution"]

# a friction law from outside the package (flexlib.multibody.FrictionLaw), labelled by its name
CUSTOM_STYLE = dict(color="#882255", ls=(0, (5, 2)), lw=1.8)
_POINT_CMAP = "viridis"
_NOTE = 8


# ---------------------------------------------------------------------------- which model
def model_of(result) -> str:
    """The contact model id of a run, read from its first contact point's laws (``free`` if it
    has none): ``continuous``, ``continuous_coulomb``, ``frictionless``, ``hybrid_coulomb``, ...,
    or ``custom`` for a friction law from outside the package."""
    from ..multibody.models import MODELS
    contacts = result.system.contacts
    if not contacts:
        return "free"
    laws = contacts[0].laws
    if laws.custom is not None:
        return "custom"
    for name, spec in MODELS.items():
        if spec is not None and spec == (laws.method, laws.friction, laws.can_stick):
            return name
    return "free"


def is_rigid(result) -> bool:
    """True if every body of the run is rigid (no deformation coordinates)."""
    return all(result.system.model(b.name).n + result.system.model(b.name).na == 0
               for b in result.system.bodies)


def curve_style(label: str, result) -> dict:
    """Matplotlib keywords of a run's curves: its model's colour and dashes, thin and dotted if
    the run is rigid; the legend text is ``label`` (for a law from outside the package, its name
    if ``label`` is empty)."""
    m = model_of(result)
    if m == "custom":
        st = dict(CUSTOM_STYLE, label=label or result.system.contacts[0].laws.custom.name)
        label = st["label"]
    else:
        st = dict(models.get(m).style())
    for k in ("marker", "ms", "mfc", "mew", "markevery"):
        st.pop(k, None)                     # the markers' spacing is meant for the paper's long runs
    if is_rigid(result):
        st.update(ls=":", lw=1.3)
    st["label"] = label
    return st


def point_colors(names) -> dict:
    """{contact point: colour}, the same colour for P_k in every figure of a run."""
    import matplotlib
    cmap = matplotlib.colormaps[_POINT_CMAP]
    n = len(names)
    return {p: cmap(0.1 + 0.75 * k / max(n - 1, 1)) for k, p in enumerate(names)}


def _runs(runs) -> dict:
    return runs if isinstance(runs, dict) else {model_of(runs): runs}


def _window(h, window):
    t = h["t"]
    if window is None:
        return slice(None)
    return (t >= window[0]) & (t <= window[1])


# ---------------------------------------------------------------------------- numbers
def deflection(result, body: str, xs, h=None) -> np.ndarray:
    """The transverse deflection v(x) = Phi(x) B [m] of ``body`` at the material points ``xs``
    (in its floating frame, which is tangent to the beam at x = 0), shape (len(t), len(xs)),
    at the times of the histories ``h`` (default: :meth:`SystemResult.steps`)."""
    h = result.steps() if h is None else h
    model = result.system.model(body)
    q = h[f"{body}.q"]
    if model.n == 0:
        return np.zeros((len(h["t"]), len(np.atleast_1d(xs))))
    phi = np.asarray(model.station_data(np.atleast_1d(np.asarray(xs, float)))[1])
    phi = phi.reshape(len(np.atleast_1d(xs)), -1)[:, :model.n]
    return q[:, :model.n] @ phi.T


def chord_deflection(result, body: str, x: float, times) -> np.ndarray:
    """The distance [m] of the material point ``x`` of ``body`` from the chord through its two
    ends, positive on the left of the chord (from x = 0 to x = L) — the sag of the beam at x, free
    of the frame's choice; at ``times`` [s]."""
    L = result.system.body(body).beam.L
    P = result.points(body, [0.0, float(x), L], result.sample(times))
    a, p, b = P[:, 0], P[:, 1], P[:, 2]
    d = b - a
    n = np.stack([-d[:, 1], d[:, 0]], axis=1) / np.linalg.norm(d, axis=1)[:, None]
    return np.sum((p - a) * n, axis=1)


def first_impact(result, contact: str | None = None) -> dict | None:
    """The first contact episode (of ``contact``, or of any point) of a run, or None."""
    for im in result.impacts:
        if contact is None or im["contact"] == contact:
            return im
    return None


def after_first_impact(result, gap: float = 0.02, tau: float = 0.01) -> dict:
    """Numbers of the first impact of a run, taken as the cluster of contact episodes that starts
    with the first one and ends at the first opening followed by ``gap`` [s] of flight: its start
    and end [s], duration [s], number of episodes, peak normal force [N] (``inf`` if the cluster
    has a velocity jump and nothing else), impulse [N s], every body's angular rate [rad/s] at its
    end (``{body}.theta_dot``) and its mean rate over the ``tau`` [s] after the end
    (``{body}.mean_rate`` = (theta(t_end + tau) - theta(t_end)) / tau, the rate without the
    vibration; needs the run to reach t_end + tau)."""
    imps = result.impacts
    if not imps:
        return {}
    t0 = imps[0]["t_start"]
    t1 = imps[0]["t_end"]
    k = 1
    for im in imps[1:]:
        if im["t_start"] > t1 + gap:
            break
        t1 = max(t1, im["t_end"])
        k += 1
    cl = imps[:k]
    h = result.history([t1, min(t1 + tau, result.t_end)])
    out = dict(t_start=t0, t_end=t1, duration=t1 - t0, episodes=k,
               peak_normal_force=max(im["peak_normal_force"] for im in cl),
               impulse=sum(im["normal_impulse"] for im in cl))
    for b in result.system.bodies:
        out[f"{b.name}.theta_dot"] = float(h[f"{b.name}.theta_dot"][0])
        th = h[f"{b.name}.theta"]
        out[f"{b.name}.mean_rate"] = float((th[1] - th[0]) / tau) if t1 + tau <= result.t_end else float("nan")
    return out


# ---------------------------------------------------------------------------- snapshots
def _rigid_and_deformed(result, body, xs, Y):
    """(rigid-frame positions, deformed positions) (len(Y), len(xs), 2) of material points."""
    P = result.points(body, xs, Y)
    R, _ = result.frame_origins(Y)
    i = result.system.index(body)
    _, offs = result.system.coordinates()
    th = Y[:, offs[i][1]]
    u = np.stack([np.cos(th), np.sin(th)], axis=1)
    P0 = R[:, i][:, None, :] + np.asarray(xs)[None, :, None] * u[:, None, :]
    return P0, P


def link_shapes(result, Y, scale, n=41):
    """{body: (len(Y), n, 2)} of every body's points with the deflection times ``scale``."""
    out = {}
    for b in result.system.bodies:
        xs = np.linspace(0.0, b.beam.L, n)
        P0, P = _rigid_and_deformed(result, b.name, xs, Y)
        out[b.name] = P0 + scale * (P - P0)
    return out


def fig_pendulum_snapshots(result, times, scale=20.0, title=None):
    """The double pendulum at ``times`` [s]: both links with their deflection magnified ``scale``
    times (the hinge between them moved with it), the contact point and the stop X <= 0."""
    import matplotlib.pyplot as plt
    times = np.asarray(times, float)
    Y = result.sample(times)
    links = link_shapes(result, Y, scale)
    fig, ax = plt.subplots(figsize=(7.5, 4.2), constrained_layout=True)
    cmap = plt.get_cmap("plasma")
    names = [b.name for b in result.system.bodies]
    for k, t in enumerate(times):
        col = cmap(0.85 * k / max(len(times) - 1, 1))
        for j, b in enumerate(names):
            P = links[b][k]
            ax.plot(P[:, 0], P[:, 1], color=col, lw=2.2 if j == 0 else 1.5,
                    label=f"t = {t:.3f} s" if j == 0 else None)
        for c in result.system.contacts:
            xs = np.array([c.x])
            P0, P = _rigid_and_deformed(result, c.body, xs, Y[k:k + 1])
            p = P0[0, 0] + scale * (P[0, 0] - P0[0, 0])
            ax.plot(*p, "o", color=col, ms=4)
    ymin = min(links[b][..., 1].min() for b in names)
    ymax = max(links[b][..., 1].max() for b in names)
    ax.axvspan(-0.15, 0.0, color="0.8", zorder=0, label="stop X ≤ 0")
    ax.plot(0.0, 0.0, "k^", ms=8, label="hinge O")
    ax.set_xlim(-0.15, max(0.2, max(links[b][..., 0].max() for b in names) + 0.05))
    ax.set_ylim(ymin - 0.05, max(ymax, 0.0) + 0.05)
    ax.set_aspect("equal")
    ax.set_xlabel("X [m]")
    ax.set_ylabel("Y [m]")
    ax.grid(True, lw=0.3)
    ax.legend(fontsize=theme.SMALL, ncol=2, loc="lower right")
    ax.set_title(title or f"Double pendulum ({curve_style('', result)['label'] or model_of(result)} run): "
                 f"links drawn with the deflection × {scale:g}, • = contact point", fontsize=theme.MEDIUM)
    return fig


def fig_beam_snapshots(result, times, scale=1.0, title=None, ax=None):
    """The falling beam at ``times`` [s] with its deflection magnified ``scale`` times; a contact
    point is drawn filled while it is closed (touching) and open while it is not."""
    import matplotlib.pyplot as plt
    times = np.asarray(times, float)
    Y = result.sample(times)
    links = link_shapes(result, Y, scale)
    h = result.history(times)
    names = result.contact_names
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(7.5, 3.4), constrained_layout=True)
    else:
        fig = ax.figure
    cmap = plt.get_cmap("plasma")
    body = result.system.bodies[0].name
    for k, t in enumerate(times):
        col = cmap(0.85 * k / max(len(times) - 1, 1))
        P = links[body][k]
        ax.plot(P[:, 0], P[:, 1], color=col, lw=1.8, label=f"t = {t:.3f} s")
        for c in result.system.contacts:
            P0, Pc = _rigid_and_deformed(result, c.body, np.array([c.x]), Y[k:k + 1])
            p = P0[0, 0] + scale * (Pc[0, 0] - P0[0, 0])
            closed = h[f"{c.name}.mode"][k] != 0
            ax.plot(*p, "o", color=col, ms=5, mfc=col if closed else "white")
    ax.axhspan(-0.03, 0.0, color="0.8", zorder=0, label="ground Y ≤ 0")
    ax.set_ylim(-0.03, None)
    ax.set_xlabel("X [m]")
    ax.set_ylabel("Y [m]")
    ax.grid(True, lw=0.3)
    ax.legend(fontsize=theme.SMALL, ncol=3, loc="upper right")
    ax.set_title(title or f"Falling beam, contact points {', '.join(names)} (● closed, ○ open)"
                 + (f", deflection × {scale:g}" if scale != 1 else ""), fontsize=theme.MEDIUM)
    return fig


# ---------------------------------------------------------------------------- time histories
def _jump_marks(ax, result, name, style, y):
    """Triangles at the times of the velocity jumps of contact point ``name`` (a jump's force is
    an impulse: no finite value to plot)."""
    tj = [j.t for j in result.log.jumps if name in j.points]
    if tj:
        ax.plot(tj, np.full(len(tj), y), "v", color=style["color"], ms=5, ls="none",
                label=f"{style['label']}: velocity jumps ({len(tj)})")


def _finish(fig, bottom, window, title):
    """The shared last touches of a time-history figure: the time axis label on the ``bottom``
    axes, the window, the title."""
    bottom.set_xlabel("time t [s]")
    if window is not None:
        bottom.set_xlim(*window)
    fig.suptitle(title, fontsize=theme.LARGE)
    return fig


def fig_contact_forces(runs, points=None, window=None, title=None):
    """The normal force N(t) [N] of every contact point (one axes per point), the runs overlaid;
    a constraint run's velocity jumps are marked with triangles (their force is an impulse)."""
    import matplotlib.pyplot as plt
    runs = _runs(runs)
    first = next(iter(runs.values()))
    points = list(points or first.contact_names)
    fig, axes = plt.subplots(len(points), 1, figsize=(7.5, 1.2 + 1.6 * len(points)), sharex=True,
                             constrained_layout=True, squeeze=False)
    for ax, p in zip(axes[:, 0], points):
        top = 0.0
        for label, r in runs.items():
            h = r.steps()
            sel = _window(h, window)
            st = curve_style(label, r)
            ax.plot(h["t"][sel], h[f"{p}.N"][sel], **st)
            top = max(top, float(np.max(h[f"{p}.N"][sel], initial=0.0)))
        for label, r in runs.items():
            _jump_marks(ax, r, p, curve_style(label, r), 1.05 * top if top > 0 else 1.0)
        ax.set_ylabel(f"N at {p} [N]")
        ax.grid(True, lw=0.3)
        ax.legend(fontsize=theme.SMALL, loc="upper right")
    return _finish(fig, axes[-1, 0], window,
                   title or "Contact forces: normal force per contact point")


def fig_contact_map(runs, window=None, title=None):
    """Which contact point is closed when: one row per point, a bar while it is closed (in contact
    or penetrating), a tick at every velocity jump; one axes per run."""
    import matplotlib.pyplot as plt
    runs = _runs(runs)
    n = len(runs)
    npts = max(len(r.contact_names) for r in runs.values())
    fig, axes = plt.subplots(n, 1, figsize=(7.5, 0.9 + (0.35 * npts + 0.5) * n),
                             sharex=True, constrained_layout=True, squeeze=False)
    for ax, (label, r) in zip(axes[:, 0], runs.items()):
        cols = point_colors(r.contact_names)
        h = r.steps()
        t = h["t"]
        for k, p in enumerate(r.contact_names):
            on = h[f"{p}.mode"] != 0
            if r.system.contacts[k].laws.method == "penalty":
                on = on | (h[f"{p}.gap"] < 0)
            edges = np.flatnonzero(np.diff(np.r_[0, on.astype(int), 0]))
            spans = [(t[a], t[min(b, len(t) - 1)] - t[a]) for a, b in zip(edges[::2], edges[1::2])]
            ax.broken_barh(spans, (k - 0.35, 0.7), color=cols[p])
            tj = [j.t for j in r.log.jumps if p in j.points]
            ax.plot(tj, np.full(len(tj), k), "|", color="k", ms=9, mew=0.8,
                    label="velocity jump" if tj and k == 0 else None)
        ax.set_yticks(range(len(r.contact_names)), r.contact_names)
        ax.set_ylim(-0.6, len(r.contact_names) - 0.4)
        ax.set_ylabel("contact point [–]")
        ax.set_title(f"{label}: {len(r.impacts)} contact episodes, {len(r.log.jumps)} velocity jumps",
                     fontsize=theme.MEDIUM)
        ax.grid(True, axis="x", lw=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=theme.SMALL, loc="upper right")
    return _finish(fig, axes[-1, 0], window,
                   title or "Contact map: bars while a point is closed")


def _shade(ax, result, window):
    """Grey bands over the contact episodes of ``result`` (the first run) inside ``window``."""
    first = True
    for im in result.impacts:
        if window is not None and (im["t_end"] < window[0] or im["t_start"] > window[1]):
            continue
        ax.axvspan(im["t_start"], max(im["t_end"], im["t_start"] + 2e-5), **IMPACT_BAND,
                   label="contact episodes (first run)" if first else None)
        first = False


def fig_theta_dot(runs, bodies=None, window=None, title=None):
    """The angular rates theta' [rad/s] of the bodies (one axes per body), the runs overlaid,
    the contact episodes of the first run shaded."""
    import matplotlib.pyplot as plt
    runs = _runs(runs)
    first = next(iter(runs.values()))
    bodies = list(bodies or [b.name for b in first.system.bodies])
    fig, axes = plt.subplots(len(bodies), 1, figsize=(7.5, 1.2 + 1.8 * len(bodies)), sharex=True,
                             constrained_layout=True, squeeze=False)
    for ax, b in zip(axes[:, 0], bodies):
        _shade(ax, first, window)
        for label, r in runs.items():
            h = r.steps()
            sel = _window(h, window)
            ax.plot(h["t"][sel], h[f"{b}.theta_dot"][sel], **curve_style(label, r))
        ax.set_ylabel(f"θ̇ of {b} [rad/s]")
        ax.grid(True, lw=0.3)
        ax.legend(fontsize=theme.SMALL, loc="best")
    return _finish(fig, axes[-1, 0], window,
                   title or "Angular rates of the links")


def fig_deflection(runs, where, window=None, title=None):
    """The transverse deflection Phi(x) B [mm] at the material points ``where`` = [(body, x [m],
    name), ...] (one axes each), the runs overlaid; rigid runs are left out (no deflection)."""
    import matplotlib.pyplot as plt
    runs = _runs(runs)
    first = next(iter(runs.values()))
    fig, axes = plt.subplots(len(where), 1, figsize=(7.5, 1.2 + 1.6 * len(where)), sharex=True,
                             constrained_layout=True, squeeze=False)
    for ax, (body, x, name) in zip(axes[:, 0], where):
        _shade(ax, first, window)
        for label, r in runs.items():
            if is_rigid(r):
                continue
            h = r.steps()
            sel = _window(h, window)
            v = deflection(r, body, [x], h)[:, 0]
            ax.plot(h["t"][sel], 1e3 * v[sel], **curve_style(label, r))
        ax.set_ylabel(f"v at {name} [mm]")
        ax.grid(True, lw=0.3)
        ax.legend(fontsize=theme.SMALL, loc="best")
    return _finish(fig, axes[-1, 0], window,
                   title or "Deflection of the links in their floating frames")


def fig_energy(runs, title=None):
    """The energy books of each run (one axes per run): E(t) - E(0) [J] against the works that
    should make it, W_N + W_F (contact forces), W_d (modal damping) and the kinetic energy taken
    by the velocity jumps, and the residual (their difference)."""
    import matplotlib.pyplot as plt
    runs = _runs(runs)
    fig, axes = plt.subplots(len(runs), 1, figsize=(7.5, 1.0 + 2.0 * len(runs)), sharex=True,
                             constrained_layout=True, squeeze=False)
    for ax, (label, r) in zip(axes[:, 0], runs.items()):
        h = r.steps()
        t = h["t"]
        dE = h["E"] - h["E"][0]
        wc = h["W_N"].sum(axis=1) + h["W_F"].sum(axis=1)
        resid = dE - wc - h["W_d"] - h["W_jump"]
        st = curve_style(label, r)
        ax.plot(t, dE, color=st["color"], lw=2.2, label="E(t) − E(0)")
        ax.plot(t, wc, color="k", lw=1.0, ls="--", label="work of the contact forces W_N + W_F")
        ax.plot(t, h["W_jump"], color="0.45", lw=1.2, ls="-.", label="kinetic energy of the velocity jumps")
        if np.any(h["W_d"] != 0):
            ax.plot(t, h["W_d"], color="0.6", lw=1.0, ls=":", label="work of the modal damping W_d")
        ax.plot(t, resid, color="#CC0000", lw=0.9, label=f"residual (max |.| = {num(np.abs(resid).max(), 2, 'J')})")
        ax.set_ylabel("energy [J]")
        ax.set_title(f"{label}: E(0) = {h['E'][0]:.4g} J", fontsize=theme.MEDIUM)
        ax.grid(True, lw=0.3)
        ax.legend(fontsize=theme.SMALL, loc="lower left")
    axes[-1, 0].set_xlabel("time t [s]")
    fig.suptitle(title or "Energy audit: E(t) − E(0) = works of the contact forces and damping + jump losses",
                 fontsize=theme.LARGE)
    return fig


def fig_beam_motion(runs, window=None, title=None):
    """The falling beam's height of its ends and of its mid-span, and the sag of the mid-span
    from the chord (the flexible runs), the runs overlaid."""
    import matplotlib.pyplot as plt
    runs = _runs(runs)
    fig, axes = plt.subplots(2, 1, figsize=(7.5, 4.6), sharex=True, constrained_layout=True)
    first = next(iter(runs.values()))
    _shade(axes[1], first, window)
    for label, r in runs.items():
        t0, t1 = window if window is not None else (0.0, r.t_end)
        tt = np.linspace(t0, min(t1, r.t_end), 1200)
        body = r.system.bodies[0]
        L = body.beam.L
        P = r.points(body.name, [0.0, 0.5 * L, L], r.sample(tt))
        st = curve_style(label, r)
        axes[0].plot(tt, 1e3 * P[:, 1, 1], **st)
        if not is_rigid(r):
            axes[1].plot(tt, 1e6 * chord_deflection(r, body.name, 0.5 * L, tt), **st)
    axes[0].set_ylabel("mid-span height Y [mm]")
    axes[1].set_ylabel("mid-span sag from the chord [µm]")
    axes[1].set_xlabel("time t [s]")
    for ax in axes:
        ax.grid(True, lw=0.3)
        ax.legend(fontsize=theme.SMALL, loc="best")
    if window is not None:
        axes[1].set_xlim(*window)
    fig.suptitle(title or "Falling beam: height and sag of the mid-span", fontsize=theme.LARGE)
    return fig


def first_impact_window(result) -> tuple:
    """(t0, t1) [s] of :func:`fig_first_impact`: 5 ms before the first contact to the run's end."""
    im = first_impact(result)
    return ((im["t_start"] - 0.005) if im else 0.0, result.t_end)


def peak_force_shown(result, window=None) -> tuple:
    """(peak normal force [N] of the force curves drawn over ``window`` (default
    :func:`first_impact_window`), over every contact point; the number of velocity jumps in it,
    whose impulses the curves cannot show)."""
    t0, t1 = window or first_impact_window(result)
    h = result.steps()
    sel = _window(h, (t0, t1))
    peak = max((float(np.max(h[f"{p}.N"][sel], initial=0.0)) for p in result.contact_names), default=0.0)
    return peak, sum(1 for j in result.log.jumps if t0 <= j.t <= t1)


def fig_first_impact(result, window=None, label=None):
    """One run through its first impact: the normal force at each contact point [N] and the
    angular rate of each body [rad/s] (the panel's figure).  ``window`` defaults to 5 ms before
    the first contact to the end of the run."""
    import matplotlib.pyplot as plt
    label = label or curve_style("", result)["label"] or model_of(result)
    st = curve_style(label, result)
    window = window or first_impact_window(result)
    h = result.steps()
    sel = _window(h, window)
    bodies = [b.name for b in result.system.bodies]
    rows = [*result.contact_names, *bodies]
    fig, axes = plt.subplots(len(rows), 1, figsize=(7.5, 1.0 + 1.5 * len(rows)), sharex=True,
                             constrained_layout=True)
    for ax, p in zip(axes, result.contact_names):
        ax.plot(h["t"][sel], h[f"{p}.N"][sel], **st)
        top = float(np.max(h[f"{p}.N"][sel], initial=0.0))
        _jump_marks(ax, result, p, st, 1.05 * top if top > 0 else 1.0)
        ax.set_ylabel(f"N at {p} [N]")
    for ax, b in zip(axes[len(result.contact_names):], bodies):
        _shade(ax, result, window)
        ax.plot(h["t"][sel], h[f"{b}.theta_dot"][sel], **st)
        ax.set_ylabel(f"θ̇ of {b} [rad/s]")
    for ax in axes:
        ax.grid(True, lw=0.3)
        ax.legend(fontsize=theme.SMALL, loc="upper right")
    axes[-1].set_xlabel("time t [s]")
    axes[-1].set_xlim(*window)
    fig.suptitle(f"First impact: contact force and angular rates ({label})", fontsize=theme.LARGE)
    return fig


# name: caption of the figures the figures command draws (:func:`flexlib.studies.figures.multibody_figures`)
MULTIBODY_FIGURES = {
    "multibody_pendulum_snapshots": "The flexible double pendulum striking the stop (deflection magnified).",
    "multibody_pendulum_impact": "Double pendulum: contact force and angular rates through the first impact, "
                                 "continuous Hertz contact against the contact-constraint method.",
    "multibody_beam_contact_map": "Falling beam (tilted by 0.1 rad) with five contact points: which point "
                                  "touches the ground when.",
}


# ---------------------------------------------------------------------------- beside an outside code
# one colour and marker per code, in every panel
CODE_STYLES = {"flexlib": dict(color="#0072B2", marker="o", ls="-"),
               "Exudyn": dict(color="#D55E00", marker="s", ls="--")}


def fig_beside_outside(panels, title=None, ncols=None, xlabel="elements on the 1 m beam [-]"):
    """Quantities against the mesh, one panel each, every code in its own colour
    (:data:`CODE_STYLES`).

    ``panels``: a list of dicts with ``ylabel`` (with its unit), ``series`` ({code name:
    {elements: value}}; a code missing from :data:`CODE_STYLES` is drawn in grey) and optionally
    ``converged`` (a value drawn as a dotted line, labelled ``converged_label``).  The x axis is
    ``xlabel``, the number of elements, logarithmic in base 2."""
    if not panels:
        raise ValueError("panels=[]: expected at least one panel")
    import matplotlib.pyplot as plt
    n = len(panels)
    ncols = ncols or min(n, 2)
    nrows = -(-n // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.4 * ncols, 2.6 * nrows),
                             constrained_layout=True, squeeze=False)
    for ax, p in zip(axes.flat, panels):
        for code, ser in p["series"].items():
            if not ser:
                continue
            x = sorted(ser)
            ax.plot(x, [ser[k] for k in x], label=code, ms=4, lw=1.3,
                    **CODE_STYLES.get(code, dict(color="0.5", marker="^", ls=":")))
        if p.get("converged") is not None:
            ax.axhline(p["converged"], color=CODE_STYLES["Exudyn"]["color"], ls=":", lw=1.0,
                       label=p.get("converged_label", "converged"))
        ax.set_xscale("log", base=2)
        xs = sorted({k for ser in p["series"].values() for k in ser})
        if xs:
            ax.set_xticks(xs, [f"{k:g}" for k in xs])
            ax.minorticks_off()
        ax.set_xlabel(xlabel)
        ax.set_ylabel(p["ylabel"])
        ax.grid(True, which="both", lw=0.3)
        ax.legend(fontsize=theme.SMALL)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    if title:
        fig.suptitle(title, fontsize=theme.TITLE)
    return fig


# ---------------------------------------------------------------------------- settings against cost
# one marker and colour per family of settings: the basis, and for the finite elements the integrator
RESOLUTION_FAMILIES = {
    ("modal", "default"): dict(marker="o", color="#0072B2", label="assumed modes N, default integrator"),
    ("fe", "default"): dict(marker="s", color="#D55E00", label="elements n_e, default integrator"),
    ("fe", "Radau 1e-3"): dict(marker="D", color="#009E73", label="elements n_e, Radau, rtol 1e-3"),
    ("fe", "gen-alpha 1e-3"): dict(marker="^", color="#CC79A7",
                                   label="elements n_e, generalized-α, rtol 1e-3"),
}
_RES_PANELS = (("impulses", "impulses (total, first episode's)", (0.05, 0.01)),
               ("peak", "first episode's peak force", (0.15, 0.05)),
               ("motion", "motion at t_end (v_cm, ω_mean)", (0.01,)))
_RES_FLOOR = 1e-5
_RES_TITLES = {"falling-beam": "tilted falling beam, 0–0.16 s",
               "double-pendulum": "double pendulum, first burst, 0–0.65 s"}


def fig_resolution(study: dict):
    """Relative error against the CPU time of a warm run for every setting of
    :mod:`flexlib.studies.resolution`, one row per system and one panel per answer (the larger
    of the total and the first episode's impulse, the first episode's peak force, the largest
    error of the bodies' motion at t_end), against the system's converged reference; dashed
    lines: the accuracy targets; the ringed point is the case's default."""
    import matplotlib.pyplot as plt
    systems = [s for s in _RES_TITLES if s in study]
    fig, axs = plt.subplots(len(systems), len(_RES_PANELS), figsize=(11, 3.6 * len(systems)),
                            sharex="row", sharey=True, constrained_layout=True, squeeze=False)
    for row, system in zip(axs, systems):
        runs = study[system]["runs"]
        ref = study[system]["reference"]
        for ax, (q, title, lines) in zip(row, _RES_PANELS):
            for (basis, integ), st in RESOLUTION_FAMILIES.items():
                f = [r for r in runs if r["setting"]["basis"] == basis
                     and r["setting"]["integrator"] == integ]
                if not f:
                    continue
                x = [r["cpu_s"] for r in f]
                y = [max(r["errors"][q], _RES_FLOOR) for r in f]
                ax.plot(x, y, ls=":", lw=0.8, color=st["color"], marker=st["marker"], ms=5,
                        label=st["label"])
                for r, xi, yi in zip(f, x, y):
                    n = r["setting"]["n_modes" if basis == "modal" else "elements"]
                    ax.annotate(str(n), (xi, yi), fontsize=theme.SMALL, xytext=(3, 2),
                                textcoords="offset points", color=st["color"])
            default = next((r for r in runs if r["setting"] == dict(basis="modal", n_modes=3,
                                                                     integrator="default")), None)
            if default is not None:
                ax.plot(default["cpu_s"], max(default["errors"][q], _RES_FLOOR), ls="none",
                        marker="o", ms=12, mfc="none", mec="k", mew=1.0, label="the case's default")
            for tol, ls in zip(lines, ("--", ":")):
                ax.axhline(tol, color="0.35", ls=ls, lw=0.9)
                ax.annotate(f"{100 * tol:g} %", (1.0, tol), xycoords=("axes fraction", "data"),
                            xytext=(-2, 2), textcoords="offset points", ha="right",
                            fontsize=theme.SMALL, color="0.35")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{_RES_TITLES[system]}:\n{title}", fontsize=theme.MEDIUM)
            ax.grid(True, which="both", lw=0.3, alpha=0.5)
            ax.set_xlabel("CPU time of a warm run [s]")
        row[0].set_ylabel(f"relative error against\n{ref['elements']} elements [-]")
    handles, labels = axs[0, 0].get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    fig.legend(uniq.values(), uniq.keys(), loc="outside lower center", ncol=3,
               fontsize=theme.SMALL)
    fig.suptitle("Which setting gets the contact right, and at what cost: the multibody systems "
                 "against their converged references", fontsize=theme.TITLE)
    return fig
