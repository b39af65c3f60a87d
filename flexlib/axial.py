"""The axial-flexibility study (MODEL.md 14): an extension beyond the paper's model.

The paper's beam is axially inextensible.  With ``axial_modes = Na >= 1`` the beam gains the
fixed-free bar modes Psi_j(x) = sqrt(2) sin((2j - 1) pi x / (2L)), the tip can move along the beam
axis, and the tangential stick constraint is no longer nearly redundant with the hinge (MODEL.md
7.4), so the hybrid models can actually stick.  This module runs case 3.2 with the three friction
models for several Na and condenses the runs into a JSON-able dict (``axial_study``), which
``python -m flexlib figures`` caches in ``figures/data/axial_study.json`` and notebook 07 reads.

Helpers shared with the tests: :func:`run_axial` (a run, or the partial result of a run that
stopped with :class:`~flexlib.simulate.SimulationError`), :func:`stick_rows` (number and total
duration of stick and slip intervals per impact) and :func:`run_checks` (energy audit, N >= 0,
gap, Coulomb bound).
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from . import __version__
from .simulate import SimulationError, simulate

__all__ = ["FRICTION_MODELS", "run_axial", "stick_rows", "run_checks", "axial_study",
           "load_axial_study", "STUDY_FILE"]

FRICTION_MODELS = ("hybrid_coulomb", "hybrid_lugre", "lugre")
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
    """Per impact: start time, number and total duration [s] of stick and of slip intervals."""
    rows = []
    for k, im in enumerate(res.impacts, 1):
        st, sl = im["stick_intervals"], im["slip_intervals"]
        rows.append(dict(impact=k, t_start=im["t_start"], t_end=im["t_end"],
                         n_stick=len(st), stick_time=float(sum(b - a for a, b in st)),
                         n_slip=len(sl), slip_time=float(sum(iv[1] - iv[0] for iv in sl)),
                         peak_N=im["peak_normal_force"], peak_Ft=im["peak_friction_force"],
                         max_stick_ratio=im["max_stick_ratio"]))
    return rows


def run_checks(res) -> dict:
    """The consistency numbers of a run: max |audit| / E(0), min N / max N in contact (>= 0 up to
    round-off at separations), max |gap| in contact [m] and, for hybrid Coulomb, the largest
    |F_t| - mu_d N in contact [N]."""
    h = res.h
    c = h["mode"] > 0
    E0 = abs(res.E0)
    N = h["N"][c]
    out = dict(audit_rel=float(np.max(np.abs(h["audit"])) / E0),
               min_N=float(N.min()) if N.size else 0.0, max_N=float(N.max()) if N.size else 0.0,
               max_gap=float(np.max(np.abs(h["gap"][c]))) if N.size else 0.0,
               coulomb_excess=float("nan"))
    if res.model == "hybrid_coulomb" and N.size:
        mu_d = res.case.coulomb.mu_d
        out["coulomb_excess"] = float(np.max(np.abs(h["F_t"][c]) - mu_d * N))
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
                case: str = "3.2", verbose: bool = False) -> dict:
    """Case 3.2 with each friction model and each number of axial modes over [0, t_end].

    Returns a JSON-able dict: ``runs[model][Na]`` with the status, wall time, step and RHS
    counts, the consistency checks of :func:`run_checks`, the per-impact stick/slip rows of
    :func:`stick_rows`, the first impact's s, N, F_t, v_t (``first_impact``) and downsampled
    energies (``energies``); ``claims[Na]`` the paper's claims (flexlib.claims) re-evaluated on
    the three models with that Na (id -> verdict and value)."""
    from .claims import evaluate_claims
    study = dict(flexlib_version=__version__, case=case, t_end=t_end, models=list(models),
                 axial_modes=[int(n) for n in axial_modes], runs={m: {} for m in models}, claims={},
                 note="Extension beyond the paper (MODEL.md 14): axial_modes = 0 is the paper's model.")
    for na in axial_modes:
        results = {}
        for m in models:
            w0 = time.perf_counter()
            res, err = run_axial(m, int(na), t_end, case)
            wall = time.perf_counter() - w0
            results[m] = res
            st = res.stats
            entry = dict(success=res.success, message=err or res.message, wall_s=wall,
                         n_steps=st.get("n_steps"), n_rhs=st.get("n_rhs"), t_last=float(res.t[-1]),
                         final_E=float(res.h["E"][-1]), E0=res.E0, checks=run_checks(res),
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
                                         verdict=c.get("verdict"), value=c.get("value"))
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
        base = Path(__file__).resolve().parent.parent / folder
    path = base / "data" / STUDY_FILE
    if path.exists():
        return json.loads(path.read_text())
    if not compute_if_missing:
        return None
    study = axial_study()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_clean_nan(study), separators=(",", ":")))
    return study


def _clean_nan(x):
    if isinstance(x, dict):
        return {k: _clean_nan(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_clean_nan(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x
