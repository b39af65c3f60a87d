"""The axial-flexibility study: an extension beyond the paper's model.

The paper's beam is axially inextensible.  With ``axial_modes = Na >= 1`` the beam gains the
fixed-free bar modes Psi_j(x) = sqrt(2) sin((2j - 1) pi x / (2L)), the tip can move along the beam
axis, and the tangential stick constraint is no longer nearly redundant with the hinge, so the
hybrid models can actually stick.  This module runs case 3.2 with the three friction
models for several Na and condenses the runs into a JSON-able dict (``axial_study``), which
``python -m flexlib figures`` caches in ``figures/data/axial_study.json`` and notebook 07 reads.

Helpers shared with the tests: :func:`run_axial` (a run, or the partial result of a run that
stopped with :class:`~flexlib.paper.SimulationError`), :func:`stick_rows` (number and total
duration of stick and slip intervals per impact) and :func:`run_checks` (energy audit, N >= 0,
gap, Coulomb bound).
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from .. import __version__, models
from ..outputs import write_text
from ..paper import SimulationError, simulate
from ..text import num, plural
from ..viz import theme

__all__ = ["FRICTION_MODELS", "run_axial", "stick_rows", "run_checks", "axial_study",
           "load_axial_study", "save_axial_study", "STUDY_FILE", "stick_geometry",
           "claims_depending_on_na", "dependence_summary", "stick_table_markdown", "fig_axial_first_impact",
           "fig_axial_stick", "fig_axial_energy", "AXIAL_FIGURES"]

FRICTION_MODELS = models.FRICTION_MODELS
STUDY_FILE = "axial_study.json"
_FIRST_POINTS = 400        # samples of the first-impact histories kept in the JSON
_RUN_POINTS = 400          # samples of the whole-run energy histories kept in the JSON


def run_axial(model: str, axial_modes: int, t_end: float = 1.2, case: str = "3.2", **overrides):
    """(result, error message or None): ``simulate`` with ``axial_modes``; a run that stops with a
    SimulationError returns its partial result and the message."""
    try:
        return simulate(case, model, t_end, axial_modes=axial_modes, **overrides), None
    except SimulationError as err:
        return err.result, str(err)


def stick_rows(res) -> list[dict]:
    """Per impact: start and end time [s], number and total duration [s] of stick and of slip
    intervals, peak N and |F_t| [N], the largest |F_t|/N a stick test asked for, and the energy
    lost in the impact with its friction-work part [J]."""
    rows = []
    for k, im in enumerate(res.impacts, 1):
        st, sl = im["stick_intervals"], im["slip_intervals"]
        rows.append(dict(impact=k, t_start=im["t_start"], t_end=im["t_end"],
                         n_stick=len(st), stick_time=float(sum(b - a for a, b in st)),
                         n_slip=len(sl), slip_time=float(sum(iv[1] - iv[0] for iv in sl)),
                         peak_N=im["peak_normal_force"], peak_Ft=im["peak_friction_force"],
                         max_stick_ratio=im["max_stick_ratio"], n_stick_tests=im["n_stick_tests"],
                         energy_lost=im["energy_lost"], friction_work=im["friction_work"]))
    return rows


def run_checks(res) -> dict:
    """The consistency numbers of a run: max |audit| / E(0), min N / max N in contact (>= 0 up to
    round-off at separations), max |gap| in contact [m] and, for hybrid Coulomb, the largest
    |F_t| - mu_d N in contact (``coulomb_excess``) and in slip only (``coulomb_excess_slip``) [N]."""
    from ..layout import SLIP
    h = res.h
    c = h["mode"] > 0
    E0 = abs(res.E0)
    N = h["N"][c]
    out = dict(audit_rel=float(np.max(np.abs(h["audit"])) / E0),
               min_N=float(N.min()) if N.size else 0.0, max_N=float(N.max()) if N.size else 0.0,
               max_gap=float(np.max(np.abs(h["gap"][c]))) if N.size else 0.0,
               coulomb_excess=float("nan"), coulomb_excess_slip=float("nan"))
    if res.model == "hybrid_coulomb" and N.size:
        mu_d = res.case.coulomb.mu_d
        out["coulomb_excess"] = float(np.max(np.abs(h["F_t"][c]) - mu_d * N))
        sl = h["mode"] == SLIP
        if sl.any():
            out["coulomb_excess_slip"] = float(np.max(np.abs(h["F_t"][sl]) - mu_d * h["N"][sl]))
    return out


def _r(x, sig=6):
    """Round to ``sig`` significant digits for a compact JSON (None for non-finite)."""
    x = float(x)
    if not math.isfinite(x):
        return None
    return float(f"{x:.{sig}g}")


def _first_impact(res):
    if not res.impacts:
        return None
    im = res.impacts[0]
    t0, t1 = im["t_start"], im["t_end"]
    tt = np.linspace(t0, t1, _FIRST_POINTS)
    t = res.h["t"]
    k0 = int(np.searchsorted(t, t0, side="right"))      # after the jump
    k1 = int(np.searchsorted(t, t1, side="right"))
    ts = t[k0:k1]
    out = dict(t=[_r(v, 9) for v in tt], stick_intervals=[[a, b] for a, b in im["stick_intervals"]],
               slip_intervals=[[a, b, d] for a, b, d in im["slip_intervals"]])
    for key in ("s_all", "N", "F_t", "v_t", "mode"):
        v = np.asarray(res.h[key][k0:k1], float)
        if len(ts) >= 2:
            vi = np.interp(tt, ts, v)
        else:
            vi = np.full(len(tt), np.nan)
        out["s" if key == "s_all" else key] = [_r(x) for x in vi]
    return out


def _energies(res):
    t = res.h["t"]
    tt = np.linspace(t[0], t[-1], _RUN_POINTS)
    out = dict(t=[_r(v, 7) for v in tt])
    for key in ("E", "T", "V_E", "V_G", "theta"):
        out[key] = [_r(x) for x in np.interp(tt, t, res.h[key])]
    if "V_A" in res.h:
        out["V_A"] = [_r(x) for x in np.interp(tt, t, res.h["V_A"])]
    return out


def axial_study(axial_modes=(0, 1, 2, 3), models=FRICTION_MODELS, t_end: float = 1.2,
                case: str = "3.2", verbose: bool = False, timings: dict | None = None) -> dict:
    """Case 3.2 with each friction model and each number of axial modes over [0, t_end].

    Returns a JSON-able dict: ``runs[model][Na]`` with the status, step and RHS counts, the
    consistency checks of :func:`run_checks`, the per-impact stick/slip rows of :func:`stick_rows`,
    the first impact's s, N, F_t, v_t (``first_impact``) and downsampled energies (``energies``);
    ``claims[Na]`` the paper's claims (flexlib.studies.claims) re-evaluated on the three models with that
    Na (id -> verdict and value).

    The dict depends only on the code and the arguments (the runs are made one after the other,
    and no wall time is stored), so the cached JSON is the same after every regeneration; pass a
    dict as ``timings`` to receive the wall time of each run [s] under "model/Na"."""
    from .claims import evaluate_claims
    study = dict(flexlib_version=__version__, case=case, t_end=t_end, models=list(models),
                 axial_modes=[int(n) for n in axial_modes], runs={m: {} for m in models}, claims={},
                 note="Extension beyond the paper: axial_modes = 0 is the paper's model.")
    for na in axial_modes:
        results = {}
        for m in models:
            w0 = time.perf_counter()
            res, err = run_axial(m, int(na), t_end, case)
            wall = time.perf_counter() - w0
            results[m] = res
            st = res.stats
            if timings is not None:
                timings[f"{m}/{na}"] = wall
            entry = dict(success=res.success, message=err or res.message,
                         n_steps=st.get("n_steps"), n_rhs=st.get("n_rhs"), t_last=res.t_end,
                         final_E=res.E_final, E0=res.E0, checks=run_checks(res),
                         impacts=stick_rows(res), first_impact=_first_impact(res),
                         energies=_energies(res))
            study["runs"][m][str(na)] = entry
            if verbose:
                print(f"axial_modes = {na}, {m}: {wall:.1f} s, {st.get('n_steps')} steps, "
                      f"{len(res.impacts)} impacts, {'ok' if err is None else err}")
        try:
            cl = evaluate_claims(results)
        except Exception as exc:          # pragma: no cover - a claim needs a missing quantity
            cl = [dict(id="-", verdict="error", value=None, detail=str(exc))]
        study["claims"][str(na)] = [dict(id=c.get("id"), claim=c.get("text", ""),
                                         verdict=c.get("verdict"), value=c.get("value"),
                                         detail=c.get("detail", ""))
                                    for c in cl]
    return _clean_nan(json.loads(json.dumps(study, default=_default)))


def _default(x):
    if isinstance(x, (np.floating,)):
        v = float(x)
        return v if math.isfinite(v) else None
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(type(x))


def load_axial_study(folder="figures", compute_if_missing: bool = True):
    """The cached study ``figures/data/axial_study.json`` (computed and written if missing)."""
    base = Path(folder)
    if not base.is_absolute() and not (base / "data").exists():
        base = Path(__file__).resolve().parents[2] / folder
    path = base / "data" / STUDY_FILE
    if path.exists():
        return json.loads(path.read_text())
    if not compute_if_missing:
        return None
    study = axial_study()
    save_axial_study(study, base)
    return study


def _clean_nan(x):
    if isinstance(x, dict):
        return {k: _clean_nan(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean_nan(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def save_axial_study(study: dict, folder="figures") -> Path:
    """Write ``study`` to ``folder/data/axial_study.json`` (compact; what notebook 07 reads)."""
    path = Path(folder) / "data" / STUDY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(_clean_nan(study), separators=(",", ":")))
    return path


# ---------------------------------------------------------------------------- analysis helpers
def stick_geometry(axial_modes=(0, 1, 2, 3), case: str = "3.2", t_before: float = 0.3329) -> list[dict]:
    """How independent the two contact constraints are (normal and tangential, at the tip).

    The beam flies frictionless to ``t_before`` [s] (just before the first contact of case 3.2);
    at that theta, B (and C = C' = 0) the stick matrix S = A M^-1 A^T, A = [Psi_q; Gamma_q], is
    formed for each number of axial modes.  Returns per Na: ``cos`` = S12 / sqrt(S11 S22) (the
    cosine of the angle between Psi_q and Gamma_q in the M^-1 metric; 1 means redundant) and
    ``cond`` = cond(S)."""
    from ..bodies.beam import BeamModel
    from ..contact.slope import Slope, tip_contact
    from ..params import paper_case
    pre = simulate(case, "frictionless", t_before)
    q0 = np.concatenate(([pre.theta[-1]], pre.B[-1]))
    qd0 = np.concatenate(([pre.theta_dot[-1]], pre.B_dot[-1]))
    out = []
    for na in axial_modes:
        cs = paper_case(case).with_(axial_modes=int(na))
        bm = BeamModel(cs.beam)
        k = tip_contact(bm, Slope.from_params(cs.slope), np.concatenate((q0, np.zeros(na))),
                        np.concatenate((qd0, np.zeros(na))))
        A = np.vstack((k.Psi_q, k.Gamma_q))
        S = A @ np.linalg.solve(bm.mass_matrix(np.concatenate((q0, np.zeros(na)))), A.T)
        out.append(dict(axial_modes=int(na), cos=float(S[0, 1] / np.sqrt(S[0, 0] * S[1, 1])),
                        cond=float(np.linalg.cond(S))))
    return out


def claims_depending_on_na(study: dict) -> list[str]:
    """Ids of the claims whose verdict is "holds" for some Na and "does not hold" or "not
    checkable" for another (claims not evaluated, e.g. after a run stopped early, do not count)."""
    nas = [str(n) for n in study["axial_modes"]]
    by_na = {na: {c["id"]: c["verdict"] for c in study["claims"][na]} for na in nas}
    out = []
    for cid in (c["id"] for c in study["claims"][nas[0]]):
        v = {by_na[na].get(cid) for na in nas}
        if "holds" in v and v & {"does not hold", "not checkable"}:
            out.append(cid)
    return out


def dependence_summary(study: dict) -> str:
    """Markdown bullets, generated from the study: stick per setting of the hybrid models, the
    claims whose verdict depends on Na (with the verdict per Na) and the runs that stopped early."""
    nas = [str(n) for n in study["axial_modes"]]
    out = []
    for m in ("hybrid_coulomb", "hybrid_lugre"):
        if m not in study["runs"]:
            continue
        parts = []
        for na in nas:
            imps = study["runs"][m][na]["impacts"]
            n = sum(im["n_stick"] for im in imps)
            with_stick = sum(im["n_stick"] > 0 for im in imps)
            tot = 1e3 * sum(im["stick_time"] for im in imps)
            first = imps[0] if imps else None
            parts.append(f"Na = {na}: {plural(n, 'stick interval')}, {num(tot, 3, 'ms')} in {with_stick} of "
                         f"{plural(len(imps), 'impact')}"
                         + (f" (first impact: {first['n_stick']}, {num(1e3 * first['stick_time'], 3, 'ms')})"
                            if first else ""))
        out.append(f"* **{_MODEL_LABELS[m]}**, stick over 0–{study['t_end']:g} s: " + "; ".join(parts) + ".")
    by_na = {na: {c["id"]: c["verdict"] for c in study["claims"][na]} for na in nas}
    for cid in claims_depending_on_na(study):
        groups = {}
        for na in nas:
            groups.setdefault(by_na[na].get(cid, "not evaluated"), []).append(na)
        out.append(f"* **{cid}**: " + "; ".join(f"{v} for Na = {', '.join(g)}" for v, g in groups.items()) + ".")
    for m, runs in study["runs"].items():
        for na in nas:
            r = runs[na]
            if not r["success"]:
                why = (r["message"] or "").split(" at t =")[0].split(": ", 1)[-1]
                out.append(f"* {_MODEL_LABELS.get(m, m)}, Na = {na}: stopped at {r['t_last']:.3f} s ({why}).")
    return "\n".join(out)


def stick_table_markdown(study: dict, model: str) -> str:
    """Markdown table: per impact and Na, number / total duration [ms] of stick and of slip."""
    nas = [str(n) for n in study["axial_modes"]]
    runs = study["runs"][model]
    lines = ["| impact | " + " | ".join(f"Na = {na}: stick n / ms, slip n / ms" for na in nas) + " |",
             "|---|" + "---|" * len(nas)]
    for k in range(max(len(runs[na]["impacts"]) for na in nas)):
        cells = []
        for na in nas:
            imps = runs[na]["impacts"]
            if k < len(imps):
                im = imps[k]
                cells.append(f"{im['n_stick']} / {1e3 * im['stick_time']:.3f}, "
                             f"{im['n_slip']} / {1e3 * im['slip_time']:.3f}")
            else:
                cells.append("–")
        lines.append(f"| {k + 1} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- figures
NA_COLORS = {"0": "0.35", "1": "#0072B2", "2": "#E69F00", "3": "#009E73", "4": "#CC79A7"}
_MODEL_LABELS = {m: spec.label for m, spec in models.REGISTRY.items()}


def _na_label(study, model, na):
    r = study["runs"][model][na]
    lab = f"Na = {na}" + (" (paper's model)" if na == "0" else "")
    return lab if r["success"] else lab + f", stopped at {r['t_last']:.3f} s"


def fig_axial_first_impact(study: dict):
    """The paper's Fig 12 with axial modes: first impact's tangential displacement s - s(t_c) [mm],
    normal force N [N] and friction force F_t [N] per model, one colour per Na, stick intervals
    shaded in the colour of their Na (named in the legend); a footnote says where there are none."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    models = study["models"]
    nas = [str(n) for n in study["axial_modes"]]
    fig, axs = plt.subplots(3, len(models), figsize=(4 * len(models), 7.9), sharex="col",
                            constrained_layout=True, squeeze=False)
    no_stick = []
    for j, m in enumerate(models):
        stick_nas = []
        for na in nas:
            fi = study["runs"][m][na]["first_impact"]
            if fi is None:
                continue
            t = np.array(fi["t"], float)
            t0, col = t[0], NA_COLORS.get(na, None)
            s = np.array(fi["s"], float)
            axs[0, j].plot(1e3 * (t - t0), 1e3 * (s - s[0]), color=col, lw=1.2,
                           label=_na_label(study, m, na))
            axs[1, j].plot(1e3 * (t - t0), np.array(fi["N"], float), color=col, lw=1.2)
            axs[2, j].plot(1e3 * (t - t0), np.array(fi["F_t"], float), color=col, lw=1.2)
            for a, b in fi["stick_intervals"]:
                for ax in axs[:, j]:
                    ax.axvspan(1e3 * (a - t0), 1e3 * (b - t0), color=col, alpha=0.18, lw=0)
            if fi["stick_intervals"]:
                stick_nas.append(na)
        if not stick_nas:
            no_stick.append(_MODEL_LABELS.get(m, m))
        axs[0, j].set_title(_MODEL_LABELS.get(m, m), fontsize=theme.LARGE)
        axs[2, j].set_xlabel("time since first contact [ms]")
        handles, labels = axs[0, j].get_legend_handles_labels()
        for na in stick_nas:
            handles.append(Patch(color=NA_COLORS.get(na), alpha=0.18, lw=0))
            labels.append(f"stick, Na = {na}")
        axs[0, j].legend(handles, labels, fontsize=theme.SMALL)
        axs[0, j].set_ylabel("s − s(t_c) [mm]")
        axs[1, j].set_ylabel("normal force N [N]")
        axs[2, j].set_ylabel("friction force F_t [N]")
    for ax in axs.flat:
        ax.grid(True, lw=0.3, alpha=0.6)
    fig.suptitle(f"First impact with 0–{nas[-1]} axial modes, case {study['case']} "
                 "(an extension beyond the paper): stick shaded", fontsize=theme.TITLE)
    note = ("Na = number of axial modes; Na = 0 is the paper's inextensible beam. t_c: time of first "
            "contact.")
    if no_stick:
        note += (f" No stick interval in the first impact for {', '.join(no_stick)}"
                 + (" (no stick state)" if no_stick == ["unified LuGre"] else "") + ".")
    _footnote(fig, note)
    return fig


def _footnote(fig, text):
    """A footnote under the axes (the same as the paper figures' notes, :mod:`flexlib.viz.plots`)."""
    from ..viz.plots import _note
    _note(fig, text)


def fig_axial_stick(study: dict, models=("hybrid_coulomb", "hybrid_lugre")):
    """Stick intervals per impact: number (top) and total duration [ms] (bottom), grouped by Na,
    for the models with a stick state."""
    import matplotlib.pyplot as plt
    nas = [str(n) for n in study["axial_modes"]]
    models = [m for m in models if m in study["runs"]]
    fig, axs = plt.subplots(2, len(models), figsize=(6 * len(models), 5.8), sharex="col", constrained_layout=True,
                            squeeze=False)
    width = 0.8 / len(nas)
    for j, m in enumerate(models):
        for i, na in enumerate(nas):
            imps = study["runs"][m][na]["impacts"]
            x = np.arange(1, len(imps) + 1) + (i - (len(nas) - 1) / 2) * width
            col = NA_COLORS.get(na, None)
            axs[0, j].bar(x, [im["n_stick"] for im in imps], width, color=col,
                          label=_na_label(study, m, na))
            axs[1, j].bar(x, [1e3 * im["stick_time"] for im in imps], width, color=col)
        axs[0, j].set_title(_MODEL_LABELS.get(m, m), fontsize=theme.LARGE)
        axs[0, j].set_ylabel("stick intervals [–]")
        axs[1, j].set_ylabel("total stick time [ms]")
        axs[1, j].set_xlabel("impact (cluster of contact episodes) [–]")
        axs[0, j].set_ylim(top=1.4 * axs[0, j].get_ylim()[1])     # room for the legend
        axs[0, j].legend(fontsize=theme.SMALL, loc="upper left")
        for ax in axs[:, j]:
            ax.grid(True, axis="y", lw=0.3, alpha=0.6)
            ax.set_xticks(range(1, 1 + max(len(study["runs"][m][na]["impacts"]) for na in nas)))
    fig.suptitle(f"Stick intervals per impact with 0–{nas[-1]} axial modes, case {study['case']}, "
                 f"0–{study['t_end']:g} s (an extension beyond the paper)", fontsize=theme.TITLE)
    never = [na for na in nas
             if not any(im["n_stick"] for m in models for im in study["runs"][m][na]["impacts"])]
    note = "Na = number of axial modes; Na = 0 is the paper's inextensible beam."
    if never:
        note += (f" No stick interval at all for Na = {', '.join(never)}: "
                 + ("its bars are" if len(never) == 1 else "their bars are") + " zero.")
    if "lugre" in study["runs"] and "lugre" not in models:
        note += " Unified LuGre is not shown: it has no stick state."
    _footnote(fig, note)
    return fig


def fig_axial_energy(study: dict):
    """Mechanical energy E = T + V_E + V_G [J] over the run, per model, one colour per Na."""
    import matplotlib.pyplot as plt
    models = study["models"]
    nas = [str(n) for n in study["axial_modes"]]
    fig, axs = plt.subplots(1, len(models), figsize=(4 * len(models), 3.3), sharey=True,
                            constrained_layout=True, squeeze=False)
    for ax, m in zip(axs[0], models):
        for na in nas:
            e = study["runs"][m][na]["energies"]
            ax.plot(e["t"], np.array(e["E"], float), color=NA_COLORS.get(na), lw=1.1,
                    label=_na_label(study, m, na))
        ax.set_title(_MODEL_LABELS.get(m, m), fontsize=theme.LARGE)
        ax.set_xlabel("time t [s]")
        ax.grid(True, lw=0.3, alpha=0.6)
        ax.legend(fontsize=theme.SMALL)
    axs[0, 0].set_ylabel("mechanical energy E [J]")
    fig.suptitle(f"Mechanical energy with 0–{nas[-1]} axial modes, case {study['case']} "
                 "(an extension beyond the paper)", fontsize=theme.TITLE)
    return fig


# name -> (function of the study, caption); written by ``python -m flexlib figures``
AXIAL_FIGURES = {
    "axial_first_impact": (fig_axial_first_impact,
                           "Extension beyond the paper: first impact with axial modes, s, N, F_t, "
                           "stick shaded"),
    "axial_stick_per_impact": (fig_axial_stick,
                               "Extension beyond the paper: number and duration of stick intervals "
                               "per impact"),
}
