"""The contact-constraint method against the continuous contact force method: the studies.

The paper models the impact of the beam tip on the slope with a velocity jump (eqs (39)-(48)),
then a contact constraint held by a Lagrange multiplier with Baumgarte stabilisation (eqs (36),
(63)) and one of three friction laws (eqs (68)-(69)).  General multibody codes usually take the
other route, the continuous contact force method: the tip may penetrate the slope by delta and
the slope pushes back with a penalty force N = K delta^n (1 + D(e) delta' / delta'_in) (Hunt &
Crossley 1975; Lankarani & Nikravesh 1990; Flores et al. 2011), with a friction law that needs
no stick state, such as the modified Coulomb law (Ambrosio 2002).  flexlib has both
(:mod:`flexlib.contact.penalty`, models ``continuous_coulomb`` and ``continuous_lugre``).

This module only runs the simulator and condenses the runs into numbers; it holds no physics and
draws nothing (the figures are in :mod:`flexlib.viz.plots`, notebook 08 shows both):

* :func:`compare_methods`: the constraint models and the continuous ones on one case, side by
  side per impact (start, duration, energy lost, peak N, penetration) with their wall times;
* :func:`stiffness_study`: the continuous models over the penalty stiffness K, with the
  constraint method's values as the rigid (K -> infinity) reference;
* :func:`creep_study`: where hybrid Coulomb sticks (axial modes >= 1), how far the modified
  Coulomb law lets the tip creep.
"""
from __future__ import annotations

import math

import numpy as np

from .. import __version__, models
from ..params import Case, paper_case
from ..paper import SimulationError, simulate

__all__ = ["CONSTRAINT_MODELS", "CONTINUOUS_MODELS", "COUNTERPART", "PENALTY_DEFAULTS",
           "run_model", "impact_summary", "compare_methods", "side_by_side", "stiffness_study",
           "creep_study", "study_data", "panel_simulate"]

CONSTRAINT_MODELS = models.CONTACT_MODELS          # frictionless, hybrid Coulomb, hybrid LuGre, LuGre
# the continuous models with friction (continuous Coulomb, continuous LuGre), each against its
# constraint counterpart
CONTINUOUS_MODELS = tuple(m for m in models.CONTINUOUS_MODELS if models.get(m).has_friction)
# The constraint model each continuous model is compared with: the same friction level and, for
# LuGre, the same law throughout the contact (unified LuGre has no stick/slip switching either).
COUNTERPART = {"continuous_coulomb": "hybrid_coulomb", "continuous_lugre": "lugre"}
# The continuous models' defaults: Hertz's exponent of a point contact, a stiffness of the order
# of a steel-aluminium point contact, the Flores et al. (2011) damping, which is valid for any
# 0 < e <= 1, and e = 0.5 (the constraint method's e = 0 has no penalty equivalent).
PENALTY_DEFAULTS = dict(contact_law="flores", contact_stiffness=1.0e9, contact_exponent=1.5, e=0.5)


def _case(case) -> Case:
    return case if isinstance(case, Case) else paper_case(case)


def run_model(case, model: str, t_end: float, **overrides):
    """(result, message): ``simulate``; a run that stops with a SimulationError gives its partial
    result and the error text instead of "reached t_end"."""
    try:
        res = simulate(case, model, t_end, **overrides)
        return res, res.message
    except SimulationError as err:
        return err.result, str(err)


def panel_simulate(case, model, t_end, constraint_e: float = 0.0, **kwargs):
    """``simulate`` for the notebook's panel: the continuous models run with the panel's case,
    the constraint models with restitution ``constraint_e`` (the paper's 0), so one panel can
    compare the two methods while its ``e`` slider sets the penalty law's restitution."""
    if not models.get(model).is_penalty:
        case = case.with_(e=constraint_e)
    return simulate(case, model, t_end, **kwargs)


def impact_summary(res) -> list[dict]:
    """One row per impact (cluster of contact episodes) of a run: start and end time [s],
    duration [s], episodes, energy lost [J] (E before - E after the cluster, jumps included),
    peak normal force [N] (for the constraint method without the impulse of its velocity jump),
    peak |F_t| [N] and the largest penetration [m] (0 up to round-off for the constraint method)."""
    return [dict(impact=k, t_start=float(im["t_start"]), t_end=float(im["t_end"]),
                 duration=float(im["duration"]), episodes=int(im["episodes"]),
                 energy_lost=float(im["energy_lost"]), peak_N=float(im["peak_normal_force"]),
                 peak_Ft=float(im["peak_friction_force"]),
                 max_penetration=float(im.get("max_penetration") or 0.0))
            for k, im in enumerate(res.impacts, 1)]


def compare_methods(case="3.2", mu_d=None, t_end: float = 2.0, e: float = 0.5,
                    contact_law: str = "flores", contact_stiffness: float = 1.0e9,
                    contact_exponent: float = 1.5, constraint_models=CONSTRAINT_MODELS,
                    continuous_models=CONTINUOUS_MODELS, constraint_e: float = 0.0,
                    **overrides) -> dict:
    """Run the constraint models (restitution ``constraint_e``, 0 as in the paper) and the
    continuous ones (penalty law ``contact_law`` with restitution ``e``, stiffness
    ``contact_stiffness`` [N/m^n], exponent ``contact_exponent``) on ``case`` over [0, t_end] s,
    all with the same kinetic friction ``mu_d`` (the case's when None) and ``overrides``.

    Returns a dict: ``results`` {model: SimulationResult}, ``messages`` {model: why the run
    ended}, ``impacts`` {model: :func:`impact_summary` rows}, ``rows`` (the same, one flat list
    with ``model`` and ``method`` = "constraint"/"continuous" in each row: the side-by-side table
    per impact, see :func:`side_by_side`), ``wall_time_s`` {model: wall time of the run [s]},
    ``n_steps`` {model: integrator steps} and ``params`` (the settings above).

    Impacts are numbered in each run's own order; after the first impact the runs no longer hit
    the slope at the same times, so impact k of two models is not necessarily the same event."""
    base = _case(case)
    if mu_d is not None:
        overrides = dict(overrides, mu_d=mu_d)
    penalty = dict(e=e, contact_law=contact_law, contact_stiffness=contact_stiffness,
                   contact_exponent=contact_exponent)
    results, messages = {}, {}
    for m in constraint_models:
        results[m], messages[m] = run_model(base, m, t_end, e=constraint_e, **overrides)
    for m in continuous_models:
        results[m], messages[m] = run_model(base, m, t_end, **penalty, **overrides)
    impacts = {m: impact_summary(r) for m, r in results.items()}
    rows = [dict(model=m, method="continuous" if models.get(m).is_penalty else "constraint", **row)
            for m, rs in impacts.items() for row in rs]
    return dict(results=results, messages=messages, impacts=impacts, rows=rows,
                wall_time_s={m: float(r.stats.get("wall_time_s", math.nan)) for m, r in results.items()},
                n_steps={m: int(r.stats.get("n_steps", 0)) for m, r in results.items()},
                params=dict(case=base.name, t_end=float(t_end),
                            mu_d=float(base.with_(**overrides).coulomb.mu_d),
                            constraint_e=float(constraint_e), **penalty))


def side_by_side(comparison: dict, quantity: str = "energy_lost", n_impacts: int | None = None):
    """A :class:`pandas.DataFrame` of one per-impact ``quantity`` of :func:`compare_methods`
    (``t_start``, ``duration``, ``energy_lost``, ``peak_N``, ``max_penetration``, ...): one row
    per impact number, one column per model; NaN where a run has fewer impacts."""
    import pandas as pd
    imp = comparison["impacts"]
    n = max((len(v) for v in imp.values()), default=0)
    n = min(n, n_impacts) if n_impacts else n
    data = {m: [rows[k][quantity] if k < len(rows) else math.nan for k in range(n)]
            for m, rows in imp.items()}
    return pd.DataFrame(data, index=pd.Index(range(1, n + 1), name="impact"))


def _first_cluster(res) -> dict:
    """Numbers of a run's first impact: duration [s], theta at its end [rad], peak N [N], max
    penetration [m], energy lost [J] (NaN without an impact)."""
    nan = math.nan
    if not res.impacts:
        return dict(duration=nan, theta_after=nan, peak_N=nan, max_penetration=nan, energy_lost=nan)
    im = res.impacts[0]
    return dict(duration=float(im["duration"]),
                theta_after=float(res.sample(np.array([im["t_end"]]), "theta")[0]),
                peak_N=float(im["peak_normal_force"]),
                max_penetration=float(im.get("max_penetration") or 0.0),
                energy_lost=float(im["energy_lost"]))


STIFFNESS_VARIABLES = {
    "duration": ("duration of the first impact cluster", "s"),
    "theta_after": ("beam angle theta at the end of the first impact cluster", "rad"),
    "peak_N": ("peak normal force in the first impact", "N"),
    "max_penetration": ("largest penetration of the tip into the slope in the first impact", "m"),
    "energy_lost": ("mechanical energy lost in the first impact", "J"),
    "n_impacts": ("number of impacts up to t_end", "1"),
    "n_steps": ("integrator steps of the run", "1"),
    "wall_time": ("wall time of the run (machine dependent)", "s"),
}


def _study_row(r) -> dict:
    """The stiffness study's numbers of one run: its first impact, impact count, steps, wall time."""
    row = _first_cluster(r)
    row.update(n_impacts=len(r.impacts), n_steps=r.stats.get("n_steps", np.nan),
               wall_time=r.stats.get("wall_time_s", np.nan))
    return row


def _fill(arrays: dict, i: int, j: int, row: dict):
    """arrays[k][i, j] = row[k] for every study variable k."""
    for k, a in arrays.items():
        a[i, j] = row[k]


def stiffness_study(Ks=(1e7, 1e8, 1e9, 1e10), models=CONTINUOUS_MODELS, case="3.2",
                    t_end: float = 0.45, e: float = 0.5, contact_law: str = "flores",
                    contact_exponent: float = 1.5, reference_e=(0.0, 0.5), **overrides):
    """The continuous models over the penalty stiffness K [N/m^n]: an :class:`xarray.Dataset`
    with dims (model, K) and the first-impact numbers of :data:`STIFFNESS_VARIABLES` (duration of
    the first cluster, theta at its end, peak N, max penetration, energy lost), the number of
    impacts, integrator steps and wall time of each run over [0, t_end] s.

    The constraint method is the rigid limit K -> infinity: the variables ``ref_<name>`` (dims
    model, e_ref) hold the same numbers for each continuous model's constraint counterpart
    (:data:`COUNTERPART`) run with restitution ``e_ref`` in ``reference_e`` (0: the paper's
    setting; ``e``: the restitution the penalty law is built for).  ``status`` holds why each run
    ended.  Not :func:`flexlib.sweep`, because the penetration and theta after the impact are not
    among its metrics; the runs are made one after the other (8 runs of ~1 s by default).

    The default t_end = 0.45 s covers the first impact (at 0.333 s) and the flight after it."""
    import xarray as xr
    base = _case(case)
    Ks = [float(k) for k in Ks]
    models_ = [m for m in models]
    names = [k for k in STIFFNESS_VARIABLES]
    data = {k: np.full((len(models_), len(Ks)), np.nan) for k in names}
    status = np.empty((len(models_), len(Ks)), dtype=object)
    for i, m in enumerate(models_):
        for j, K in enumerate(Ks):
            r, msg = run_model(base, m, t_end, e=e, contact_law=contact_law, contact_stiffness=K,
                               contact_exponent=contact_exponent, **overrides)
            _fill(data, i, j, _study_row(r))
            status[i, j] = msg
    ref_e = [float(x) for x in reference_e]
    ref = {k: np.full((len(models_), len(ref_e)), np.nan) for k in names}
    ref_status = np.empty((len(models_), len(ref_e)), dtype=object)
    for i, m in enumerate(models_):
        for j, er in enumerate(ref_e):
            r, msg = run_model(base, COUNTERPART[m], t_end, e=er, **overrides)
            _fill(ref, i, j, _study_row(r))
            ref_status[i, j] = msg
    ds = xr.Dataset(
        {**{k: (("model", "K"), data[k], dict(long_name=STIFFNESS_VARIABLES[k][0],
                                             units=STIFFNESS_VARIABLES[k][1])) for k in names},
         "status": (("model", "K"), status.astype(str)),
         **{f"ref_{k}": (("model", "e_ref"), ref[k],
                         dict(long_name=STIFFNESS_VARIABLES[k][0] + ", constraint method (K = infinity)",
                              units=STIFFNESS_VARIABLES[k][1])) for k in names},
         "ref_status": (("model", "e_ref"), ref_status.astype(str)),
         "ref_model": (("model",), np.array([COUNTERPART[m] for m in models_]))},
        coords=dict(model=models_, K=("K", Ks, dict(long_name="penalty stiffness", units="N/m^n")),
                    e_ref=("e_ref", ref_e, dict(long_name="restitution of the constraint runs",
                                                units="1"))),
        attrs=dict(case=base.name, t_end=float(t_end), e=float(e), contact_law=contact_law,
                   contact_exponent=float(contact_exponent), flexlib_version=__version__))
    return ds


def _window_slide(res, a, b):
    """(s(b) - s(a) [m], path length int |v_t| dt [m], fraction of the time in contact) of a
    run over [a, b]; s and v_t are the tip's position and velocity along the slope, in contact
    and in flight."""
    t = res.h["t"]
    k = (t >= a) & (t <= b)
    s = res.sample(np.array([a, b]), "s_all")
    c = res.h["mode"][k] > 0
    tk = t[k]
    frac = float(np.diff(tk)[c[:-1] & c[1:]].sum() / (b - a)) if tk.size > 1 and b > a else 0.0
    v = np.abs(res.h["v_t_all"][k])                  # v_t in contact and in flight
    path = float(np.trapezoid(v, t[k])) if k.sum() > 1 else 0.0
    return float(s[1] - s[0]), path, frac


def _window_contact(res, a, b):
    """Over [a, b]: the first time the run is in contact [s] (NaN if never), s(b) - s(that time)
    [m], the smallest |v_t| in contact [m/s], and the time [s] and path [m] in contact with
    |v_t| < v1 (the ramp of the modified Coulomb law), and whether v_t changes sign in contact."""
    t = res.h["t"]
    k = np.flatnonzero((t >= a) & (t <= b) & (res.h["mode"] > 0))
    if k.size < 2:
        return dict(t_contact=math.nan, ds_contact=0.0, min_speed=math.nan, slow_time=0.0,
                    slow_path=0.0, reverses=False)
    tt = t[k]
    v = np.abs(res.h["v_t_all"][k])
    vm, dt = 0.5 * (v[:-1] + v[1:]), np.diff(tt)
    inside = np.diff(k) == 1                     # consecutive samples: no flight between them
    slow = inside & (vm < res.case.coulomb.v1)
    s = res.sample(np.array([tt[0], b]), "s_all")
    vt = res.h["v_t_all"][k]
    return dict(t_contact=float(tt[0]), ds_contact=float(s[1] - s[0]), min_speed=float(v.min()),
                slow_time=float(dt[slow].sum()), slow_path=float((vm * dt)[slow].sum()),
                reverses=bool((vt > 0).any() and (vt < 0).any()))


def creep_study(axial_modes: int = 1, t_end: float = 1.2, case="3.2", hybrid_e: float = 0.0,
                **penalty):
    """Hybrid Coulomb against continuous Coulomb where hybrid Coulomb sticks.

    With ``axial_modes`` >= 1 the tip of the hybrid Coulomb model sticks (its tangential position
    s is constant during a stick interval).  The modified Coulomb law of the continuous model has
    no stick state: below v1 it applies less than mu_d N and below v0 none (Ambrosio 2002), so the
    tip creeps.  Both models run on ``case`` with ``axial_modes`` over [0, t_end] s; hybrid
    Coulomb with restitution ``hybrid_e`` (the paper's 0), continuous Coulomb with
    :data:`PENALTY_DEFAULTS` updated by ``penalty`` (any parameter overrides).

    Returns a dict with ``results`` {model: result}, ``messages``, ``params`` and:

    * ``intervals``: one row per stick interval of hybrid Coulomb: start ``a`` and end ``b`` [s],
      its impact number, duration [s], the hybrid tip's displacement ``ds_hybrid`` = s(b) - s(a)
      [m] (0 up to the stick drift), and over the same times the continuous tip's ``ds_continuous``
      [m], its sliding path ``path_continuous`` = int |v_t| dt [m] and the fraction of the
      interval's time it is in contact (``contact_continuous``; after the first impact the two runs meet
      the slope at different times, so a later interval may find the continuous tip in flight);
      and, over the part of the interval in which the continuous tip is in contact: how long after
      ``a`` it is first in contact (``land_delay`` [s], NaN if never), its displacement from then
      to ``b`` (``ds_continuous_contact`` [m]), its smallest |v_t| (``min_speed`` [m/s]) and the
      time and path with |v_t| < v1 (``slow_time`` [s], ``slow_path`` [m]) and whether v_t changes
      sign (``reverses``);
    * ``hybrid``: number of stick intervals, total stick time [s], largest |ds| in stick [m];
    * ``overlap``: the stick intervals in which the continuous tip is in contact too (for any part
      of the interval): their number, total time [s], the continuous tip's total |ds| and sliding
      path over them [m];
    * ``continuous``: contact time [s]; time with |v_t| < v1 (the ramp of the law: less than the
      full friction) and with |v_t| <= v0 (no friction) [s]; the sliding path in those times [m]
      and the total sliding path in contact [m].
    """
    base = _case(case)
    pen = dict(PENALTY_DEFAULTS, **penalty)
    hyb, msg_h = run_model(base, "hybrid_coulomb", t_end, axial_modes=axial_modes, e=hybrid_e)
    con, msg_c = run_model(base, "continuous_coulomb", t_end, axial_modes=axial_modes, **pen)
    rows = []
    for k, im in enumerate(hyb.impacts, 1):
        for a, b in im["stick_intervals"]:
            ds_h, _, _ = _window_slide(hyb, a, b)
            ds_c, path_c, frac = _window_slide(con, a, b)
            wc = _window_contact(con, a, b)
            rows.append(dict(a=float(a), b=float(b), impact=k, duration=float(b - a),
                             ds_hybrid=ds_h, ds_continuous=ds_c, path_continuous=path_c,
                             contact_continuous=frac, land_delay=wc["t_contact"] - float(a),
                             ds_continuous_contact=wc["ds_contact"], min_speed=wc["min_speed"],
                             slow_time=wc["slow_time"], slow_path=wc["slow_path"],
                             reverses=wc["reverses"]))
    # continuous model: time and sliding path at low tangential speed, in contact
    h = con.h
    c = h["mode"] > 0
    t = h["t"]
    dt = np.diff(t)
    mid_c = c[:-1] & c[1:]                                   # sample intervals inside a contact
    v = np.abs(np.nan_to_num(h["v_t"]))
    vm = 0.5 * (v[:-1] + v[1:])
    v0, v1 = con.case.coulomb.v0, con.case.coulomb.v1
    slow = mid_c & (vm < v1)
    still = mid_c & (vm <= v0)
    cont = dict(contact_time=float(dt[mid_c].sum()), slow_time=float(dt[slow].sum()),
                no_friction_time=float(dt[still].sum()), slow_path=float((vm * dt)[slow].sum()),
                no_friction_path=float((vm * dt)[still].sum()),
                path=float((vm * dt)[mid_c].sum()), v0=float(v0), v1=float(v1))
    hyb_sum = dict(n_stick=len(rows), stick_time=float(sum(r["duration"] for r in rows)),
                   max_abs_ds=float(max((abs(r["ds_hybrid"]) for r in rows), default=0.0)))
    both = [r for r in rows if r["contact_continuous"] > 0.0]
    overlap = dict(n_intervals=len(both), time=float(sum(r["duration"] for r in both)),
                   abs_ds=float(sum(abs(r["ds_continuous"]) for r in both)),
                   path=float(sum(r["path_continuous"] for r in both)))
    return dict(results={"hybrid_coulomb": hyb, "continuous_coulomb": con},
                messages={"hybrid_coulomb": msg_h, "continuous_coulomb": msg_c},
                intervals=rows, hybrid=hyb_sum, continuous=cont, overlap=overlap,
                params=dict(case=base.name, axial_modes=int(axial_modes), t_end=float(t_end),
                            hybrid_e=float(hybrid_e), **pen))


def study_data(comparison: dict, stiffness, creep: dict) -> dict:
    """The numbers of the three studies as a JSON-able dict without wall times (so the stored
    file is the same on every machine): what ``python -m flexlib figures`` writes to
    ``figures/data/continuous_study.json``."""
    st = {k: stiffness[k].values.tolist() for k in STIFFNESS_VARIABLES if k != "wall_time"}
    st.update({f"ref_{k}": stiffness[f"ref_{k}"].values.tolist()
               for k in STIFFNESS_VARIABLES if k != "wall_time"})
    st.update(model=list(stiffness.model.values), K=stiffness.K.values.tolist(),
              e_ref=stiffness.e_ref.values.tolist(), ref_model=stiffness.ref_model.values.tolist(),
              status=stiffness.status.values.tolist(), attrs=dict(stiffness.attrs))
    return dict(flexlib_version=__version__,
                comparison=dict(params=comparison["params"], messages=comparison["messages"],
                                impacts=comparison["impacts"], n_steps=comparison["n_steps"]),
                stiffness=st,
                creep=dict(params=creep["params"], messages=creep["messages"],
                           intervals=creep["intervals"], hybrid=creep["hybrid"],
                           overlap=creep["overlap"],
                           continuous=creep["continuous"]))
