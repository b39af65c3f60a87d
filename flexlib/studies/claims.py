"""The paper's checkable claims (section 3.2 and conclusions) evaluated on our runs.

Thresholds (chosen here, not by the paper):

* "coincide / identical / no obvious difference": max |a - b| <= 1 % of the quantity's range
  over the window (``COINCIDE``);
* "basically / essentially the same": <= 5 % (``SIMILAR``);
* "differs slightly": between 1 % and 10 %; "clearly / considerably different": > 10 % (``CLEAR``).

How a claim is measured:

* by the quantity its sentence names: "identical force" by the peak force, "rebounds higher" by the
  rebound angle (max theta), a per-impact statement impact by impact; where a stricter
  whole-history measure differs, the detail shows it beside;
* two histories are compared away from the velocity jumps that are the same event in both runs
  (:func:`compare`: a matched pair of jumps at most ``JUMP_WINDOW`` apart, left out from
  ``JUMP_WINDOW`` before the earlier to ``JUMP_WINDOW`` after the later): theta', the tip velocity,
  N, F_t, T and E step at a jump, and two runs whose jumps are a few picoseconds apart would
  otherwise differ by the whole step.  How far apart such jumps are is reported on its own, as a
  timing difference (:func:`jump_pairs`); a jump without a partner, or farther than
  ``JUMP_WINDOW`` from it, is compared as it is;
* "the difference grows, then shrinks" is read on every inter-impact interval up to the end of the
  run, with the difference in each interval divided by one scale (the quantity's range over the
  whole run), so that the sequence follows the size of the difference itself.

Impact k means the k-th cluster of contact episodes separated by less than
t_cluster = 0.02 s of flight.  Windows between impacts
use the reference model's impact times (the unified LuGre run) unless stated.  A claim whose
data are missing (a run stopped early, fewer impacts than the claim needs) is "not checkable".
Verdicts are reported as found; nothing here is tuned to make a claim hold.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..text import fixed, noun, num, percent, plural

__all__ = ["evaluate_claims", "claims_markdown", "claims_table", "claims_rows", "claims_summary",
           "format_value", "add_robustness", "ROBUSTNESS_VARIANTS", "COINCIDE", "SIMILAR", "CLEAR",
           "JUMP_WINDOW", "MEASUREMENT_NOTE", "Diff", "compare", "rel_diff", "jump_pairs", "fmt_dt", "TABLE_COLUMNS"]

# The variants a verdict must survive to be called robust: the same runs with tolerances 10x
# tighter, and with one more assumed mode (N = 4).  A verdict that flips in either is reported
# as "not robust": it depends on numerical detail (e.g. resting energies that differ by ~1e-4 J)
# or on the modal truncation (peak forces are not converged in N), not on the friction model.
ROBUSTNESS_VARIANTS = {"tolerances 10x tighter": dict(rtol=1e-9, atol=1e-11),
                       "N = 4 modes": dict(n_modes=4)}

COINCIDE, SIMILAR, CLEAR = 0.01, 0.05, 0.10
HOLDS, FAILS, NA = "holds", "does not hold", "not checkable"
C, HL, UL = "hybrid_coulomb", "hybrid_lugre", "lugre"


# Half-width [s] of the interval left out around a matched pair of velocity jumps (at most this far
# apart) when two histories are compared point by point.  At a jump theta', the tip velocity, N, F_t, T and E step
# in one instant, so two runs whose jumps are delta apart differ by the full step over delta,
# however small delta is: the same jump 0.3 ps apart (round-off) would read as a 78 % force
# difference.  20 us is longer than every jump-timing offset seen between two runs of the same
# equations (hybrid and unified LuGre: up to ~12 us after 2 s) and than the 1.6 us between Coulomb
# and LuGre in the first impact, and ~500 times shorter than an impact (~10 ms), so nearly all of
# the contact phase is still compared.  The timing offsets themselves are reported separately
# (:func:`jump_pairs`), as timing differences.
JUMP_WINDOW = 20e-6


# How the table's comparisons are made, for the text above the table (claims.md, notebook 06).
MEASUREMENT_NOTE = (
    "Each claim is measured by the quantity its sentence names (peak force for an identical force, "
    "the rebound angle for a higher rebound, impact by impact for a per-impact statement). "
    "Quantities that jump at an impact (theta', the tip velocity, N, F_t, T, E) are compared away from "
    f"the velocity jumps that are the same event in both runs (a matched pair at most "
    f"{JUMP_WINDOW * 1e6:.0f} µs apart, left out from {JUMP_WINDOW * 1e6:.0f} µs before the earlier to "
    f"{JUMP_WINDOW * 1e6:.0f} µs after the later); how far apart they are is reported in the detail as a "
    "timing difference, a jump without a partner or farther from it is compared as it is, and "
    "\"pointwise incl. jumps\" there is the stricter comparison at every sample. A \"grows, then shrinks\" claim is read "
    "on every inter-impact interval to the end of the run, on one scale (the quantity's range over the "
    "whole run).")

@dataclass(frozen=True)
class Diff:
    """Two runs' histories of one quantity compared over a window (:func:`compare`).

    ``value``: max |a - b| / range away from the matched jumps that are a timing offset (pairs at
    most ``JUMP_WINDOW`` apart, each left out from ``JUMP_WINDOW`` before the earlier to
    ``JUMP_WINDOW`` after the later); ``pointwise``: the same at every sample, jump instants
    included (stricter: a jump-timing offset counts as the jump's full step); ``abs``: max |a - b|
    away from those jumps, in the quantity's unit; ``dt_jump``: the largest |t_a - t_b| of the
    runs' matched jumps in the window [s] (NaN without a matched pair); ``n_pairs`` matched pairs;
    ``n_unmatched``: jumps in the window without a partner in the other run (compared as they
    are); ``dt_offset``: the largest |t_a - t_b| of the pairs left out (0 if none); ``n_far``: the
    matched pairs farther apart than ``JUMP_WINDOW`` (compared as they are: different motions)."""
    value: float
    pointwise: float
    dt_jump: float
    n_pairs: int
    n_unmatched: int
    abs: float = float("nan")
    dt_offset: float = 0.0
    n_far: int = 0


def _impact_index(r, t):
    starts = np.array([im["t_start"] for im in r.impacts])
    return int(np.searchsorted(starts, t, side="right")) - 1


def jump_pairs(ra, rb, t0=-math.inf, t1=math.inf):
    """The two runs' velocity jumps matched by impact: the i-th jump of impact k in ``ra`` with the
    i-th jump of impact k in ``rb``, for the pairs with a jump in [t0, t1) (a window that ends
    where an impact starts leaves that impact's jumps to the next window).  Returns
    ``(pairs, n_unmatched)``: [(t_a, t_b)] and the number of jumps in [t0, t1) without a partner."""
    def groups(r):
        g = {}
        for j in r.jumps:
            k = _impact_index(r, j["t"])
            if k >= 0:
                g.setdefault(k, []).append(j["t"])
        return g
    ga, gb = groups(ra), groups(rb)
    inside = lambda t: t0 <= t < t1
    pairs, unmatched = [], 0
    for k in sorted(set(ga) | set(gb)):
        a, b = ga.get(k, []), gb.get(k, [])
        pairs += [(x, y) for x, y in zip(a, b) if inside(x) or inside(y)]
        unmatched += sum(inside(t) for t in a[len(b):]) + sum(inside(t) for t in b[len(a):])
    return pairs, unmatched


def compare(ra, rb, key, t0, t1, jump_window=JUMP_WINDOW) -> Diff:
    """Compare ``key`` of two runs over [t0, t1] on the union of their sample times (10 us in
    contact), NaN samples ignored; the range is that of both curves over the whole window.

    Left out: around each matched pair of jumps (:func:`jump_pairs`) at most ``jump_window``
    apart, [min(t_a, t_b) - jump_window, max(t_a, t_b) + jump_window] -- the same event, timed
    differently.  A jump without a partner, or a pair farther apart, is a different motion and is
    compared as it is.

    A window that ends at a velocity jump of either run (where the next impact starts) is
    [t0, t1): the state after that jump belongs to the next window, as the jump does in
    :func:`jump_pairs`."""
    ta, tb = ra.t, rb.t
    if any(j["t"] == t1 for j in (*ra.jumps, *rb.jumps)):
        inw = lambda t: (t >= t0) & (t < t1)
    else:
        inw = lambda t: (t >= t0) & (t <= t1)
    # the union of both runs' samples, up to where both have data (a stopped run ends early)
    grid = np.union1d(ta[inw(ta)], tb[inw(tb)])
    grid = grid[grid <= min(ta[-1], tb[-1])]
    pairs, unmatched = jump_pairs(ra, rb, t0, t1)
    dt = max((abs(x - y) for x, y in pairs), default=float("nan"))
    near = [(x, y) for x, y in jump_pairs(ra, rb)[0] if abs(x - y) <= jump_window]
    dt_off = max((abs(x - y) for x, y in pairs if abs(x - y) <= jump_window), default=0.0)
    n_far = sum(abs(x - y) > jump_window for x, y in pairs)
    nan = float("nan")
    if len(grid) < 2:
        return Diff(nan, nan, dt, len(pairs), unmatched, nan, dt_off, n_far)
    va, vb = ra.sample(grid, key), rb.sample(grid, key)
    ok = np.isfinite(va) & np.isfinite(vb)
    if not ok.any():
        return Diff(nan, nan, dt, len(pairs), unmatched, nan, dt_off, n_far)
    rng = max(va[ok].max(), vb[ok].max()) - min(va[ok].min(), vb[ok].min())
    dev = np.abs(va - vb)
    away = ok.copy()
    for x, y in near:
        away[(grid >= min(x, y) - jump_window) & (grid <= max(x, y) + jump_window)] = False
    scale = lambda m: (0.0 if rng == 0.0 else float(dev[m].max() / rng)) if m.any() else nan
    return Diff(scale(away), scale(ok), dt, len(pairs), unmatched,
                float(dev[away].max()) if away.any() else nan, dt_off, n_far)


def rel_diff(ra, rb, key, t0, t1) -> float:
    """max |a - b| over [t0, t1] divided by the range of both curves, away from velocity jumps
    (matched jumps at most ``JUMP_WINDOW`` apart; :func:`compare`)."""
    return compare(ra, rb, key, t0, t1).value


def fmt_dt(dt) -> str:
    """A time difference [s] in a readable unit (ps, ns, us or ms)."""
    if not math.isfinite(dt):
        return "n/a"
    return num(dt, 3, "s", si=True)


def _offset(d: Diff) -> bool:
    """Whether some matched jumps were left out as a timing offset of the same events: apart, but
    by at most ``JUMP_WINDOW`` (farther apart they are different motions, measured by the
    difference itself)."""
    return d.n_pairs > 0 and d.dt_offset > 0.0


def _unmatched(n: int) -> str:
    return f"{plural(n, 'jump')} without a partner in the other run"


def _unpaired(d: Diff) -> list:
    """The jumps compared as they are: without a partner, or farther than ``JUMP_WINDOW`` from it."""
    out = [_unmatched(d.n_unmatched) + ", compared as it is" if d.n_unmatched == 1 else
           _unmatched(d.n_unmatched) + ", compared as they are"] if d.n_unmatched else []
    if d.n_far:
        out.append(f"{d.n_far} matched {noun(d.n_far, 'jump')} more than "
                   f"{fmt_dt(JUMP_WINDOW)} apart (up to {fmt_dt(d.dt_jump)}), compared as "
                   f"{'they are' if d.n_far != 1 else 'it is'}")
    return out


def _diff_note(d: Diff, name="", timing=True) -> str:
    """'<name> x % (pointwise incl. jumps y %; jump times differ by up to z)': x away from jumps."""
    extra = []
    if math.isfinite(d.pointwise) and abs(d.pointwise - d.value) > 5e-5:
        extra.append(f"pointwise incl. jumps {_pct(d.pointwise)}")
    if timing:
        if _offset(d):
            extra.append(f"jump times differ by up to {fmt_dt(d.dt_offset)}")
        extra += _unpaired(d)
    return (f"{name} " if name else "") + f"{_pct(d.value)}" + (f" ({'; '.join(extra)})" if extra else "")


def _starts(r):
    return [im["t_start"] for im in r.impacts]


def _claim(cid, text, metric, threshold, value, verdict, detail="", unit=""):
    """One row of the table; ``unit`` is the unit of ``value``: "%" for a fraction shown as a
    percentage, "J", "rad", ... or "" for a pure number."""
    return dict(id=cid, text=text, metric=metric, threshold=threshold,
                value=value if value is None or isinstance(value, str) else float(value),
                unit=unit, verdict=verdict, detail=detail)


def _verdict(ok, *values):
    """HOLDS or FAILS; NA when a number the claim needs is missing (None or NaN: a window without
    samples, an impact the run does not have), so that no verdict comes from a NaN comparison."""
    if any(v is None or not math.isfinite(v) for v in values):
        return NA
    return HOLDS if ok else FAILS


def _max(*values):
    """The largest value, NaN if any is NaN (a missing number stays missing)."""
    return float("nan") if any(not math.isfinite(v) for v in values) else max(values)


# Peaks (:func:`_peak_between`): every local maximum of the sample grid within PEAK_MARGIN of the
# largest sample is refined on the interpolant (at most PEAK_CANDIDATES of them, the largest).  The
# grid is the integrator's steps (up to ~0.15 ms apart in flight, against a ~1 ms vibration
# period) plus 10 us in contact, so the true peak's lobe can read ~10 % low on the grid, and a
# neighbouring lobe can read higher.
PEAK_MARGIN, PEAK_CANDIDATES = 0.15, 8


def _peak_between(r, key, t0, t1, absval=True, n=17):
    """The largest value (of |key| if ``absval``) over [t0, t1] on the run's interpolant.

    The grid's local maxima within ``PEAK_MARGIN`` of its largest sample (at most
    ``PEAK_CANDIDATES``) are each refined between their neighbouring samples by three rounds of ``n``
    evaluations of ``r.sample`` (each between the best point's neighbours of the one before),
    all candidates in one vectorised call per round, so a peak between two samples is not cut
    off.  NaN without a finite sample in [t0, t1]."""
    t = r.t
    m = (t >= t0) & (t <= t1)
    if not m.any():
        return float("nan")
    f = (lambda v: np.abs(v)) if absval else (lambda v: v)
    v = f(np.asarray(r.h[key], float)[m])
    tm = t[m]
    fin = np.isfinite(v)
    if not fin.any():
        return float("nan")
    v, tm = v[fin], tm[fin]
    best = float(v.max())
    left = np.r_[-np.inf, v[:-1]]
    right = np.r_[v[1:], -np.inf]
    cand = np.flatnonzero((v >= left) & (v >= right) & (v >= best - PEAK_MARGIN * abs(best)))
    cand = cand[np.argsort(v[cand])[::-1][:PEAK_CANDIDATES]]
    # neighbouring sample times (distinct from the candidate's: the grid has two samples at a jump)
    a = np.array([tm[tm < tm[i]][-1] if (tm < tm[i]).any() else tm[i] for i in cand])
    b = np.array([tm[tm > tm[i]][0] if (tm > tm[i]).any() else tm[i] for i in cand])
    u = np.linspace(0.0, 1.0, n)
    for _round in range(3):
        ts = a[:, None] + (b - a)[:, None] * u[None, :]
        vs = f(np.asarray(r.sample(ts.ravel(), key), float)).reshape(ts.shape)
        vs = np.where(np.isfinite(vs), vs, -np.inf)
        j = np.argmax(vs, axis=1)
        best = max(best, float(vs.max()))
        rows = np.arange(len(cand))
        a, b = ts[rows, np.maximum(j - 1, 0)], ts[rows, np.minimum(j + 1, n - 1)]
    return best


def _timing(d: Diff, where: str, key: str) -> str:
    """'; in <where> Coulomb's velocity jumps happen up to X from LuGre's: a timing difference, ...'
    and the jumps compared as they are (without a partner, or farther apart)."""
    out = ""
    if _offset(d):
        out += (f"; in {where} Coulomb's velocity jumps happen up to {fmt_dt(d.dt_offset)} from LuGre's"
                f": a difference in timing, not in {key}, so left out of the comparison")
    un = _unpaired(d)
    if un:
        out += f"; in {where}: " + "; ".join(un)
    return out


def _pct(fraction, sign=False) -> str:
    """A fraction as a percentage with three significant digits ("0.0239 %", not "0.00%")."""
    return percent(100 * fraction, 3, sign=sign)


def _seq(values) -> str:
    return ", ".join("n/a" if not math.isfinite(v) else _pct(v) for v in values)


def _trend(ra, rb, key, windows, t_end):
    """The Coulomb-LuGre difference of ``key`` interval by interval, for a "grows, then shrinks"
    claim: max |a - b| in each window (away from jumps) divided by the range of both curves over
    the whole run, one scale for every interval, so that the sequence follows the size of the
    difference itself.  Also returns the same maxima divided by each interval's own range, which
    stays near 100 % once the motions are out of phase, however small both have become."""
    whole = [r.h[key][(r.t >= 0.0) & (r.t <= t_end)] for r in (ra, rb)]
    rng = max(np.nanmax(w) for w in whole) - min(np.nanmin(w) for w in whole)
    cmp = [compare(ra, rb, key, a, b) for (a, b) in windows]
    return [c.abs / rng if rng > 0 else 0.0 for c in cmp], [c.value for c in cmp]


def _impact_diff(ra, rb, key, k, dt=1e-5) -> float:
    """max |a - b| / range of ``key`` in impact k of each run, both timed from their own impact's
    start (every ``dt`` over the shorter impact; samples where either is NaN, e.g. between
    episodes, are left out).  Two runs whose k-th impacts happen at different times are compared
    impact with impact, not at the same absolute times."""
    ia, ib = ra.impacts[k], rb.impacts[k]
    tau = np.arange(0.0, min(ia["t_end"] - ia["t_start"], ib["t_end"] - ib["t_start"]), dt)
    va, vb = ra.sample(ia["t_start"] + tau, key), rb.sample(ib["t_start"] + tau, key)
    ok = np.isfinite(va) & np.isfinite(vb)
    if not ok.any():
        return float("nan")
    va, vb = va[ok], vb[ok]
    rng = max(va.max(), vb.max()) - min(va.min(), vb.min())
    return 0.0 if rng == 0.0 else float(np.max(np.abs(va - vb)) / rng)


def _worst(values: dict):
    """The key of the largest finite value (the first key if none is finite)."""
    return max(values, key=lambda k: values[k] if math.isfinite(values[k]) else -1)


def _grows_then_shrinks(seq):
    """True when the sequence has an interior maximum (rises, then falls)."""
    seq = [s for s in seq if math.isfinite(s)]
    if len(seq) < 3:
        return None
    k = int(np.argmax(seq))
    return 0 < k < len(seq) - 1


def _claims_c1(x: _Runs) -> list:
    """C1."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    keys = ("theta", "theta_dot", "tip_deflection", "tip_Y", "tip_Ydot", "N", "F_t", "E", "T", "V_E",
            "V_G", "s", "v_t", "mu_eff")
    cmp = {k: compare(rh, ru, k, 0.0, t_end) for k in keys}
    diffs = {k: d.value for k, d in cmp.items()}
    worst = _worst(diffs)
    strict = _worst({k: d.pointwise for k, d in cmp.items()})
    d = cmp[worst]
    detail = f"worst: {worst}; " + ", ".join(f"{k} {_pct(v)}" for k, v in diffs.items())
    if cmp[strict].pointwise > diffs[worst]:
        detail += (f"; stricter, pointwise incl. jumps: worst {strict} {_pct(cmp[strict].pointwise)} ("
                   + ", ".join(f"{k} {_pct(c.pointwise)}" for k, c in cmp.items() if c.pointwise > c.value + 5e-5)
                   + ")")
    if d.n_pairs:
        detail += (f"; the {d.n_pairs} matched velocity jumps happen at times that differ by up to "
                   f"{fmt_dt(d.dt_jump)}" + (f" ({_unmatched(d.n_unmatched)})" if d.n_unmatched else ""))
    out.append(_claim("C1", "The LuGre pair (hybrid and unified) gives the same results for every quantity.",
                      "max over 14 quantities of max|hybrid LuGre - unified LuGre| / range, whole run, "
                      "away from velocity jumps", f"<= {COINCIDE:.0%}", diffs[worst],
                      _verdict(diffs[worst] <= COINCIDE, *diffs.values()), detail, unit="%"))
    return out

def _claims_c2(x: _Runs) -> list:
    """C2."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(1):
        t0 = min(r.impacts[0]["t_start"] for r in (rc, rh, ru))
        t1 = max(r.impacts[0]["t_end"] for r in (rc, rh, ru))
        pk = [r.impacts[0]["peak_normal_force"] for r in (rc, rh, ru)]
        d = (max(pk) - min(pk)) / max(pk)
        whole = {f"{a} vs {b}": compare(ra, rb, "N", t0, t1)
                 for (a, ra), (b, rb) in (((C, rc), (HL, rh)), ((C, rc), (UL, ru)), ((HL, rh), (UL, ru)))}
        w = _worst({k: v.value for k, v in whole.items()})
        out.append(_claim("C2", "During the first impact the normal force is identical for all three models.",
                          "peak normal force in impact 1: (largest - smallest) / largest of the three models",
                          f"<= {COINCIDE:.0%}", d, _verdict(d <= COINCIDE, d),
                          "peak N: " + ", ".join(f"{p:.6g} N" for p in pk)
                          + f" (spread {max(pk) - min(pk):.2g} N); stricter, the whole impact-1 history "
                          f"max|dN| / range: {_diff_note(whole[w], w)}", unit="%"))
    else:
        out.append(_claim("C2", "First-impact normal force identical.", "", "", None, NA, "no impact"))
    return out

def _claims_c3(x: _Runs) -> list:
    """C3."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(3):
        d1 = _max(rel_diff(rc, ru, "theta", 0.0, win[1][0]), rel_diff(rh, ru, "theta", 0.0, win[1][0]))
        d2 = rel_diff(rc, ru, "theta", win[1][0], t_end)
        reb_c = _peak_between(rc, "theta", rc.impacts[1]["t_end"], rc.impacts[2]["t_start"], absval=False)
        reb_l = _peak_between(ru, "theta", ru.impacts[1]["t_end"], ru.impacts[2]["t_start"], absval=False)
        ok = d1 <= SIMILAR and d2 > COINCIDE and reb_c > reb_l
        out.append(_claim("C3", "theta: the three are essentially equal through the first impact; after the "
                          "second Coulomb differs and rebounds higher.",
                          "theta diff up to impact 2; Coulomb-vs-LuGre diff after impact 2; max rebound "
                          "angle after impact 2", f"<= {SIMILAR:.0%}; > {COINCIDE:.0%}; Coulomb higher",
                          d2, _verdict(ok, d1, d2, reb_c, reb_l),
                          f"diff before impact 2 {_pct(d1)}, after {_pct(d2)}; rebound Coulomb {reb_c:.4f} rad, "
                          f"unified LuGre {reb_l:.4f} rad", unit="%"))
    else:
        out.append(_claim("C3", "theta after the second impact", "", "", None, NA, f"only {nimp} impacts"))
    return out

def _claims_c4(x: _Runs) -> list:
    """C4."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(2):
        cl = compare(rh, ru, "theta_dot", win[0][0], win[1][0])
        cc = compare(rc, ru, "theta_dot", win[0][0], win[1][0])
        clater = compare(rc, ru, "theta_dot", win[1][0], t_end)
        dl, dc, dlater = cl.value, cc.value, clater.value
        ok = dl <= COINCIDE and COINCIDE < dc <= CLEAR and dlater > CLEAR
        out.append(_claim("C4", "theta': after impact 1 the LuGre pair is identical and Coulomb differs "
                          "slightly; from impact 2 on Coulomb differs considerably.",
                          "theta' diff in [impact 1, impact 2): LuGre pair; Coulomb; after impact 2: Coulomb "
                          "(max|d theta'| / range, away from velocity jumps)",
                          "<= 1%; 1-10%; > 10%", dlater, _verdict(ok, dl, dc, dlater),
                          f"{_diff_note(cl, 'LuGre pair')}; {_diff_note(cc, 'Coulomb', timing=False)}; "
                          f"Coulomb after impact 2 {_pct(dlater)}" + _timing(cc, "impact 1", "theta'"), unit="%"))
    else:
        out.append(_claim("C4", "theta' comparison", "", "", None, NA, f"only {nimp} impacts"))
    return out

def _claims_c5(x: _Runs) -> list:
    """C5."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(3):
        d1 = rel_diff(rc, ru, "tip_deflection", win[0][0], win[1][0])
        pc2 = _peak_between(rc, "tip_deflection", rc.impacts[1]["t_start"], rc.impacts[2]["t_start"])
        pl2 = _peak_between(ru, "tip_deflection", ru.impacts[1]["t_start"], ru.impacts[2]["t_start"])
        t3c = rc.impacts[3]["t_start"] if len(rc.impacts) > 3 else t_end
        t3l = ru.impacts[3]["t_start"] if len(ru.impacts) > 3 else t_end
        pc3 = _peak_between(rc, "tip_deflection", rc.impacts[2]["t_start"], t3c)
        pl3 = _peak_between(ru, "tip_deflection", ru.impacts[2]["t_start"], t3l)
        dl = rel_diff(rh, ru, "tip_deflection", 0.0, t_end)
        ok = d1 <= COINCIDE and pc2 > pl2 and pc3 > pl3 * (1 + CLEAR) and dl <= COINCIDE
        out.append(_claim("C5", "Tip deformation: coincide after impact 1; Coulomb slightly larger after "
                          "impact 2 and clearly larger after impact 3; LuGre pair identical.",
                          "diff after impact 1; peak |u_y| after impacts 2, 3 (Coulomb vs unified LuGre); "
                          "LuGre pair diff", "<= 1%; larger; > 10% larger; <= 1%", d1, _verdict(ok, d1, pc2, pl2, pc3, pl3, dl),
                          f"after 1: {_pct(d1)}; after 2: {1e3 * pc2:.3f} vs {1e3 * pl2:.3f} mm; after 3: "
                          f"{1e3 * pc3:.3f} vs {1e3 * pl3:.3f} mm; LuGre pair {_pct(dl)}", unit="%"))
    else:
        out.append(_claim("C5", "tip deformation", "", "", None, NA, f"only {nimp} impacts"))
    return out

def _claims_c6(x: _Runs) -> list:
    """C6."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    cY, cYd = compare(rc, ru, "tip_Y", 0.0, t_end), compare(rc, ru, "tip_Ydot", 0.0, t_end)
    dY, dYd = cY.value, cYd.value
    lY, lYd = compare(rh, ru, "tip_Y", 0.0, t_end), compare(rh, ru, "tip_Ydot", 0.0, t_end)
    dl = _max(lY.value, lYd.value)
    per, own = _trend(rc, ru, "tip_Y", win, t_end)
    gts = _grows_then_shrinks(per)
    ok = _max(dY, dYd) <= SIMILAR and dl <= COINCIDE and bool(gts)
    out.append(_claim("C6", "Tip Y displacement and velocity basically the same for all three; LuGre pair "
                      "coincides; the Coulomb-LuGre difference first grows then shrinks.",
                      "tip Y and Y' diff Coulomb vs unified LuGre (whole run, away from velocity jumps); "
                      "LuGre pair; max|d tip Y| in each of the "
                      f"{len(win)} inter-impact intervals / whole-run range",
                      "<= 5%; <= 1%; interior maximum", _max(dY, dYd), _verdict(ok, dY, dYd, dl) if gts is not None else NA,
                      f"tip Y {_pct(dY)}, {_diff_note(cYd, 'tip Y_dot')}; LuGre pair {_diff_note(lY, 'tip Y')}, "
                      f"{_diff_note(lYd, 'tip Y_dot')}; per interval: " + _seq(per)
                      + "; relative to each interval's own range: " + _seq(own), unit="%"))
    return out

def _claims_c7(x: _Runs) -> list:
    """C7."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    k = min(nimp, n_impacts)
    if k >= 3:
        dd = [abs(rc.impacts[i]["duration"] - ru.impacts[i]["duration"]) for i in range(k)]
        dn = [abs(rc.impacts[i]["peak_normal_force"] - ru.impacts[i]["peak_normal_force"]) for i in range(k)]
        grow = all(dd[i + 1] >= dd[i] for i in range(k - 1)) and all(dn[i + 1] >= dn[i] for i in range(k - 1))
        rel = lambda q, i: (abs(rh.impacts[i][q] - ru.impacts[i][q]) / max(abs(ru.impacts[i][q]), 1e-12))
        dln = max(rel("peak_normal_force", i) for i in range(k))
        dld = max(rel("duration", i) for i in range(k))
        dl = _max(dln, dld)
        out.append(_claim("C7", "Impact duration and normal force differ between Coulomb and LuGre more "
                          "with each impact; the LuGre pair shows no obvious difference.",
                          f"|d duration| and |d peak N| (Coulomb vs unified LuGre) non-decreasing over the "
                          f"first {k} impacts; LuGre pair: the larger of the relative differences in "
                          "impact duration and in peak N, impact by impact", "monotone; <= 1%",
                          dl, _verdict(grow and dl <= COINCIDE, dl, *dd, *dn), unit="%", detail=
                          "d duration [ms]: " + ", ".join(fixed(1e3 * x, 3) for x in dd)
                          + "; d peak N [N]: " + ", ".join(f"{x:.3g}" for x in dn)
                          + f"; LuGre pair: duration {_pct(dld)}, peak N {_pct(dln)}"))
    else:
        out.append(_claim("C7", "impact-count trend", "", "", None, NA, f"only {nimp} impacts"))
    return out

def _claims_c8(x: _Runs) -> list:
    """C8."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(2):
        i0 = ru.impacts[0]
        t0, t1 = i0["t_start"], max(r.impacts[0]["t_end"] for r in (rc, rh, ru))
        c1 = compare(rc, ru, "F_t", t0, t1)
        d = c1.value
        ts = i0["t_start"]
        early = lambda r: float(np.mean(np.abs(r.sample(np.linspace(ts, ts + 5e-4, 51), "F_t"))))
        fl, fc = early(ru), early(rc)
        cl = compare(rh, ru, "F_t", 0.0, t_end)
        dlall = cl.value
        dlater = rel_diff(rc, ru, "F_t", win[1][0], t_end)
        ok = d <= SIMILAR and fl > fc and dlall <= COINCIDE and dlater > CLEAR
        out.append(_claim("C8", "Friction essentially the same in impact 1, LuGre slightly larger at its "
                          "start; LuGre pair identical throughout; Coulomb clearly different later.",
                          "F_t diff in impact 1; mean |F_t| over its first 0.5 ms; LuGre pair; Coulomb after "
                          "impact 1 (max|dF_t| / range, away from velocity jumps)",
                          "<= 5%; LuGre > Coulomb; <= 1%; > 10%", d, _verdict(ok, d, fl, fc, dlall, dlater),
                          f"impact 1 diff {_pct(d)}; early mean |F_t| LuGre {fl:.4g} N vs Coulomb {fc:.4g} N; "
                          f"{_diff_note(cl, 'LuGre pair')}; Coulomb later {_pct(dlater)}"
                          + _timing(c1, "impact 1", "F_t"),
                          unit="%"))
    else:
        out.append(_claim("C8", "Friction in impact 1 and after it", "", "", None, NA, f"only {nimp} impacts"))
    return out

def _claims_c9(x: _Runs) -> list:
    """C9."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    rows = []
    okall = True
    for m, r in ((C, rc), (HL, rh), (UL, ru)):
        lost = [im["energy_lost"] for im in r.impacts[:n_impacts]]
        mono = all(lost[i + 1] <= lost[i] for i in range(len(lost) - 1))
        okall &= mono
        rows.append(f"{m}: " + ", ".join(f"{x:.4g}" for x in lost) + " J")
    out.append(_claim("C9", "The energy lost in each impact decreases with the impact count.",
                      f"energy lost per impact, first {n_impacts} impacts, each model", "monotone decrease",
                      None, _verdict(okall, *(im["energy_lost"] for r in (rc, rh, ru) for im in r.impacts[:n_impacts]))
                      if nimp >= 2 else NA, "; ".join(rows)))
    return out

def _claims_c10(x: _Runs) -> list:
    """C10."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(1):
        lc, lh, lu = (r.impacts[0]["energy_lost"] for r in (rc, rh, ru))
        relu, relh = (lu - lc) / lc, (lh - lc) / lc
        rel = _max(relu, relh)
        ok = 0.0 < min(relu, relh) and rel <= COINCIDE
        out.append(_claim("C10", "In the first impact the LuGre pair dissipates slightly, and not noticeably, "
                          "more energy than Coulomb.",
                          "(lost_LuGre - lost_Coulomb) / lost_Coulomb in impact 1, hybrid and unified LuGre "
                          "(the larger shown). \"Not noticeably\" qualifies \"slightly\": the difference is "
                          "read as no obvious difference, <= 1 % (\"differs slightly\" alone would be 1-10 %), "
                          "and \"more\" as > 0", f"0 < x <= {COINCIDE:.0%}",
                          rel, _verdict(ok, relu, relh),
                          f"lost: Coulomb {lc:.5f} J, hybrid LuGre {lh:.5f} J ({_pct(relh, sign=True)}), unified LuGre "
                          f"{lu:.5f} J ({_pct(relu, sign=True)})", unit="%"))
    return out

def _claims_c11_c23(x: _Runs) -> list:
    """C11, C23."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if nimp >= 3:
        dE = [abs(rc.impacts[i]["energy_after"] - ru.impacts[i]["energy_after"]) for i in range(nimp)]
        gts = _grows_then_shrinks(dE)
        cl = compare(rh, ru, "E", 0.0, t_end)
        dl = cl.value
        out.append(_claim("C11", "The energy difference between the models first grows, then shrinks; the "
                          "LuGre pair shows no obvious difference.",
                          f"|E_Coulomb - E_LuGre| after each of the {nimp} impacts; LuGre pair E diff "
                          "(max|dE| / range, away from velocity jumps)",
                          "interior maximum; <= 1%", dl,
                          _verdict(bool(gts) and dl <= COINCIDE, dl) if gts is not None else NA,
                          "after impacts: " + ", ".join(f"{x:.4g} J" for x in dE)
                          + f"; {_diff_note(cl, 'LuGre pair')}", unit="%"))
        dth, own = _trend(rc, ru, "theta", win, t_end)
        g2 = _grows_then_shrinks(dth)
        out.append(_claim("C23", "The Coulomb-LuGre difference grows with the impact count, then decreases "
                          "as the system settles.",
                          f"max|d theta| in each of the {len(win)} inter-impact intervals (to the end of the "
                          "run) / whole-run range of theta", "interior maximum", None,
                          _verdict(bool(g2)) if g2 is not None else NA,
                          _seq(dth) + "; relative to each interval's own range: " + _seq(own)))
    else:
        out.append(_claim("C11", "energy difference trend", "", "", None, NA, f"only {nimp} impacts"))
        out.append(_claim("C23", "difference trend", "", "", None, NA, f"only {nimp} impacts"))
    return out

def _claims_c12(x: _Runs) -> list:
    """C12."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(3):
        cc = compare(rc, ru, "T", win[0][0], win[1][0])
        ch = compare(rh, ru, "T", win[0][0], win[1][0])
        d1 = _max(cc.value, ch.value)
        dl = rel_diff(rc, ru, "T", win[1][0], t_end)
        jumps = all(j["dE"] < 0 for r in (rc, rh, ru) for j in r.jumps)
        ok = jumps and d1 <= SIMILAR and dl > CLEAR
        out.append(_claim("C12", "Kinetic energy changes abruptly at each impact; basically the same after "
                          "impact 1; Coulomb clearly different after later impacts.",
                          "every jump loses T; T diff in [impact 1, impact 2); Coulomb vs LuGre after impact 2 "
                          "(max|dT| / range, away from velocity jumps)",
                          "yes; <= 5%; > 10%", d1, _verdict(ok, d1, dl),
                          f"every jump loses T: {jumps}; after 1: {_diff_note(cc, 'Coulomb', timing=False)}, "
                          f"{_diff_note(ch, 'hybrid LuGre')}; later: {_pct(dl)}" + _timing(cc, "impact 1", "T"),
                          unit="%"))
    return out

def _claims_c13(x: _Runs) -> list:
    """C13."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(3):
        amp = [_peak_between(ru, "V_E", a, b) for (a, b) in win]
        dec = all(amp[i + 1] <= amp[i] for i in range(len(amp) - 1))
        dl = rel_diff(rh, ru, "V_E", 0.0, t_end)
        per, own = _trend(rc, ru, "V_E", win, t_end)
        gts = _grows_then_shrinks(per)
        ok = dec and dl <= COINCIDE and bool(gts)
        out.append(_claim("C13", "Elastic energy: amplitude decreases with the impact count; Coulomb departs "
                          "then returns; no difference within the LuGre pair.",
                          f"peak V_E in each of the {len(win)} inter-impact intervals (unified LuGre); "
                          "max|d V_E| Coulomb vs LuGre per interval / whole-run range; LuGre pair",
                          "decreasing; interior maximum; <= 1%", dl,
                          _verdict(ok, dl, *amp) if gts is not None else NA,
                          "peaks: " + ", ".join(f"{x:.4g} J" for x in amp) + "; Coulomb diff: " + _seq(per)
                          + " (relative to each interval's own range: " + _seq(own) + f"); LuGre pair {_pct(dl)}",
                          unit="%"))
    return out

def _claims_c14(x: _Runs) -> list:
    """C14."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(3):
        between = lambda r, k: _peak_between(r, k, r.impacts[1]["t_end"], r.impacts[2]["t_start"], absval=False)
        thc, thl = between(rc, "theta"), between(ru, "theta")
        gc, gl = between(rc, "V_G"), between(ru, "V_G")
        out.append(_claim("C14", "After the second impact Coulomb rebounds higher (V_G).",
                          "rebound angle: max theta between impacts 2 and 3 (each model's own impacts)",
                          "Coulomb > unified LuGre", thc - thl, _verdict(thc > thl, thc, thl),
                          f"max theta: Coulomb {thc:.5f} rad, unified LuGre {thl:.5f} rad; max V_G, which "
                          f"also holds the beam's bending: Coulomb {gc:.5f} J, unified LuGre {gl:.5f} J",
                          unit="rad"))
    return out

def _claims_c15(x: _Runs) -> list:
    """C15."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(3):
        nc, nl = rc.impacts[2]["peak_normal_force"], ru.impacts[2]["peak_normal_force"]
        fc, fl = rc.impacts[2]["peak_friction_force"], ru.impacts[2]["peak_friction_force"]
        ec, el = rc.impacts[2]["energy_lost"], ru.impacts[2]["energy_lost"]
        lost12c = sum(im["energy_lost"] for im in rc.impacts[:2])
        lost12l = sum(im["energy_lost"] for im in ru.impacts[:2])
        ok = lost12l > lost12c and nl < nc and fl < fc and el < ec
        out.append(_claim("C15", "Having lost more energy in impacts 1-2, the LuGre pair has smaller forces "
                          "and loses less energy in impact 3.",
                          "energy lost in impacts 1-2; peak N, peak |F_t| and energy lost in impact 3",
                          "LuGre > Coulomb; LuGre < Coulomb", None,
                          _verdict(ok, nc, nl, fc, fl, ec, el, lost12c, lost12l),
                          f"lost 1-2: Coulomb {lost12c:.4f}, LuGre {lost12l:.4f} J; impact 3 (Coulomb vs "
                          f"LuGre) peak N {nc:.4g} vs {nl:.4g} N, peak |F_t| {fc:.4g} vs {fl:.4g} N, "
                          f"lost {ec:.4f} vs {el:.4f} J"))
    return out

def _claims_c16(x: _Runs) -> list:
    """C16."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(1):
        t0 = min(r.impacts[0]["t_start"] for r in (rc, rh, ru))
        t1 = max(r.impacts[0]["t_end"] for r in (rc, rh, ru))
        d = _max(rel_diff(rc, ru, "s", t0, t1), rel_diff(rh, ru, "s", t0, t1))
        dl = rel_diff(rh, ru, "s", t0, t1)
        phases = {}
        for m, r in ((C, rc), (HL, rh)):
            im = r.impacts[0]
            vt = r.v_t[(r.t >= im["t_start"]) & (r.t <= im["t_end"])]
            vt = vt[np.isfinite(vt)]
            phases[m] = dict(stick=len(im["stick_intervals"]),
                             fwd=bool((vt > r.case.coulomb.Dv).any()), rev=bool((vt < -r.case.coulomb.Dv).any()))
        im = ru.impacts[0]
        vt = ru.v_t[(ru.t >= im["t_start"]) & (ru.t <= im["t_end"])]
        vt = vt[np.isfinite(vt)]
        phases[UL] = dict(stick=int((np.abs(vt) <= ru.case.coulomb.Dv).sum()),
                          fwd=bool((vt > ru.case.coulomb.Dv).any()), rev=bool((vt < -ru.case.coulomb.Dv).any()))
        all3 = all(p["stick"] > 0 and p["fwd"] and p["rev"] for p in phases.values())
        ok = d <= SIMILAR and dl <= COINCIDE and all3
        out.append(_claim("C16", "First impact: tangential displacement essentially the same; all three show "
                          "forward slip, reverse slip and stick; LuGre pair identical.",
                          "s diff in impact 1; presence of v_t > Dv, v_t < -Dv and stick (hybrid: stick "
                          "intervals; unified: samples with |v_t| <= Dv); LuGre pair", "<= 5%; all present; <= 1%",
                          d, _verdict(ok, d, dl), f"s diff {_pct(d)}, LuGre pair {_pct(dl)}; " + "; ".join(
                              f"{m}: stick {p['stick']}, forward {p['fwd']}, reverse {p['rev']}"
                              for m, p in phases.items()), unit="%"))
    return out

def _claims_c17(x: _Runs) -> list:
    """C17."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if nimp >= 3:
        per = [_impact_diff(rc, ru, "v_t", i) for i in range(min(nimp, n_impacts))]
        ok = all(per[i + 1] >= per[i] for i in range(len(per) - 1))
        missing = [str(i + 1) for i, p in enumerate(per) if not math.isfinite(p)]
        out.append(_claim("C17", "Coulomb's sliding velocity departs progressively from the LuGre pair.",
                          "v_t diff in impact k of Coulomb vs impact k of unified LuGre, both timed from the "
                          "impact's start (samples where both are in contact), max|dv_t| / range",
                          "non-decreasing", None, NA if missing else _verdict(ok), _seq(per)
                          + (f"; impact{'s' if len(missing) > 1 else ''} {', '.join(missing)}: no instant (timed from the impact's start) at "
                             "which both are in contact" if missing else "")))
    return out

def _claims_c18(x: _Runs) -> list:
    """C18."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    d = rel_diff(rh, ru, "mu_eff", 0.0, t_end)
    out.append(_claim("C18", "The friction-coefficient history is the same for the LuGre pair.",
                      "mu_eff diff hybrid vs unified LuGre (contact samples, away from velocity jumps)",
                      f"<= {COINCIDE:.0%}", d, _verdict(d <= COINCIDE, d), unit="%"))
    return out

def _claims_c19_c20_c24(x: _Runs) -> list:
    """C19, C20, C24."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    mu_d, mu_s = ru.case.coulomb.mu_d, ru.case.coulomb.mu_s
    if need(1):
        im = ru.impacts[0]
        m = (ru.t >= im["t_start"]) & (ru.t <= im["t_end"]) & (ru.mode > 0)
        mu = np.abs(ru.mu_eff[m])
        vt = ru.v_t[m]
        above, below = bool((mu > mu_d).any()), bool((mu < mu_d).any())
        mx, mn = (float(mu.max()), float(mu.min())) if len(mu) else (float("nan"), float("nan"))
        out.append(_claim("C19", "In the first impact mu takes values above and below mu_d; at the onset of "
                          "sliding it exceeds mu_d.",
                          "max and min |mu_eff| in impact 1 (unified LuGre); only the first half is measured: "
                          "\"at the onset of sliding it exceeds mu_d\" is not (the unified model has no stick and "
                          "slip states to mark an onset of sliding), and the verdict is the first half's",
                          f"max > {mu_d}, min < {mu_d}", mx, _verdict(above and below, mx, mn),
                          f"max {mx:.4g}, min {mn:.4g}"))
        sticky = np.abs(vt) <= ru.case.coulomb.Dv
        if sticky.any():
            ms = mu[sticky]
            out.append(_claim("C20", "During stick mu takes values both below and above mu_d.",
                              "|mu_eff| range over samples with |v_t| <= Dv in impact 1 (unified LuGre)",
                              f"spans {mu_d}", float(ms.max()),
                              _verdict(ms.min() < mu_d < ms.max()), f"{ms.min():.4g} .. {ms.max():.4g}"))
        else:
            out.append(_claim("C20", "During stick mu spans mu_d.", "", "", None, NA,
                              "no stick-like samples (|v_t| <= Dv) in impact 1"))
    allm = []
    for r in (rh, ru):
        m = (r.mode > 0) & (np.abs(np.nan_to_num(r.v_t, nan=1.0)) <= r.case.coulomb.Dv)
        allm.append(np.abs(r.mu_eff[m]))
    allm = np.concatenate(allm)
    if len(allm):
        out.append(_claim("C24", "During stick-like intervals |mu_eff| <= mu_s (up to the sigma1 z' transient).",
                          "max |mu_eff| over LuGre contact samples with |v_t| <= Dv", f"<= {mu_s} (+5%)",
                          float(allm.max()), _verdict(allm.max() <= mu_s * 1.05), f"{len(allm)} samples"))
    else:
        out.append(_claim("C24", "|mu| <= mu_s in stick", "", "", None, NA, "no stick-like samples"))
    return out

def _claims_c21(x: _Runs) -> list:
    """C21."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if nimp >= 2:
        te = min(rc.t[-1], ru.t[-1])          # the common end time: both energies at the same instant
        Ec, El = float(rc.sample(te, "E")), float(ru.sample(te, "E"))
        gap_c = rc.impacts[1]["t_start"] - rc.impacts[0]["t_end"]
        gap_l = ru.impacts[1]["t_start"] - ru.impacts[0]["t_end"]
        ok = Ec > El and gap_c > gap_l
        out.append(_claim("C21", "Coulomb dissipates less energy and has a longer interval before the next "
                          "impact.", "E at the common end time (the earlier of the two runs' ends); flight time between "
                          "impacts 1 and 2",
                          "Coulomb larger in both", Ec - El, _verdict(ok, Ec, El, gap_c, gap_l),
                          f"E at t = {te:.4g} s: Coulomb {Ec:.4f} J, unified LuGre {El:.4f} J; flight 1->2: "
                          f"{1e3 * gap_c:.2f} vs {1e3 * gap_l:.2f} ms", unit="J"))
    return out

def _claims_c22(x: _Runs) -> list:
    """C22."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if nimp >= 3:
        rat = [rc.impacts[i]["peak_normal_force"] / ru.impacts[i]["peak_normal_force"] - 1
               for i in range(2, min(nimp, n_impacts))]
        out.append(_claim("C22", "From the third impact on Coulomb's impact force is clearly larger.",
                          "peak N Coulomb / unified LuGre - 1, impacts 3..", f"> {CLEAR:.0%}",
                          min(rat), _verdict(min(rat) > CLEAR, *rat), ", ".join(f"{x:+.1%}" for x in rat), unit="%"))
    return out

# One function per claim (or group of claims that share their numbers), in the paper's order.
_CLAIMS = (
    _claims_c1, _claims_c2, _claims_c3, _claims_c4, _claims_c5, _claims_c6, _claims_c7,
    _claims_c8, _claims_c9, _claims_c10, _claims_c11_c23, _claims_c12, _claims_c13, _claims_c14,
    _claims_c15, _claims_c16, _claims_c17, _claims_c18, _claims_c19_c20_c24, _claims_c21,
    _claims_c22)


@dataclass
class _Runs:
    """The three friction models' runs and the impact windows every claim reads."""
    rc: object
    rh: object
    ru: object
    t_end: float
    nimp: int
    win: list
    n_impacts: int

    def need(self, k):
        return self.nimp >= k and len(self.win) >= k

    def unpack(self):
        return (self.rc, self.rh, self.ru, self.t_end, self.nimp, self.win, self.need,
                self.n_impacts)


def evaluate_claims(results: dict, n_impacts: int = 4) -> list[dict]:
    """Evaluate C1-C25 on ``results`` = {model: SimulationResult} for case 3.2."""
    have = all(m in results and results[m] is not None for m in (C, HL, UL))
    if not have:
        return [_claim(f"C{k}", "", "", "", None, NA, "a model run is missing") for k in range(1, 26)]
    rc, rh, ru = results[C], results[HL], results[UL]
    t_end = min(r.t[-1] for r in (rc, rh, ru))
    complete = all(r.success for r in (rc, rh, ru))
    ref = ru
    st = _starts(ref)
    nimp = min(len(rc.impacts), len(rh.impacts), len(ru.impacts))
    win = [(st[k], st[k + 1] if k + 1 < len(st) else t_end) for k in range(len(st))]
    x = _Runs(rc, rh, ru, t_end, nimp, win, n_impacts)
    out = []
    for claims_of in _CLAIMS:
        out += claims_of(x)
    have_ids = {c["id"] for c in out}
    out += [_claim(f"C{k}", "", "", "", None, NA, f"the runs have too few impacts ({nimp})")
            for k in range(1, 25) if f"C{k}" not in have_ids]
    out.append(_claim("C25", "Case 3.1 agrees with ref. [32].", "", "", None, NA,
                      "ref. [32] (Yuan et al. 2016) is not available; Figs 2-3 are reproduced as plots only"))
    if not complete:
        for c in out:
            if c["verdict"] != NA:
                c["detail"] += " (a run stopped early: evaluated on the partial run)"
    order = {f"C{k}": k for k in range(1, 26)}
    return sorted(out, key=lambda c: order.get(c["id"], 99))


def add_robustness(claims: list[dict], variants: dict) -> list[dict]:
    """Add to each claim its verdict in every variant (``variants`` = {name: claims evaluated on
    the variant's runs}) and ``robust``: "robust" if no variant's verdict differs, else
    "not robust (<variant>: <verdict>)".  Returns ``claims`` (changed in place)."""
    by_id = {name: {c["id"]: c for c in cl} for name, cl in variants.items()}
    for c in claims:
        c["variants"] = {name: by_id[name][c["id"]]["verdict"] for name in variants}
        flips = [f"{name}: {v}" for name, v in c["variants"].items() if v != c["verdict"]]
        c["robust"] = "robust" if not flips else "not robust (" + "; ".join(flips) + ")"
    return claims


# The columns of the claims table: (key, header).
TABLE_COLUMNS = (("id", "claim"), ("text", "the paper says"), ("metric", "measured quantity"),
                 ("threshold", "threshold"), ("value", "measured value"), ("verdict", "verdict"),
                 ("robust", "robustness"), ("detail", "detail"))


def format_value(c: dict) -> str:
    """A claim's measured value with its unit: a fraction ("%") as a percentage, "" if none."""
    v, unit = c.get("value"), c.get("unit", "")
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    if not math.isfinite(v):
        return "n/a"
    if unit == "%":
        return _pct(v)
    return num(v, 4, unit)


def claims_rows(claims: list[dict]) -> list[dict]:
    """The cells of the claims table as text, one dict per claim (keys of :data:`TABLE_COLUMNS`;
    "robust" only where :func:`add_robustness` ran)."""
    rows = []
    for c in claims:
        row = {k: str(c.get(k) or "") for k, _h in TABLE_COLUMNS}
        row["value"] = format_value(c)
        rows.append(row)
    return rows


def claims_table(claims: list[dict], fmt: str = "markdown") -> str:
    """The claims table, the same for figures/claims.md (``fmt="markdown"``) and notebook 06
    (``fmt="html"``): claim, the paper's statement, the measured quantity, the threshold, the
    measured value with its unit, the verdict, the robustness (if :func:`add_robustness` ran) and
    the detail, every cell left-aligned."""
    rob = all("robust" in c for c in claims)
    cols = [(k, h) for k, h in TABLE_COLUMNS if rob or k != "robust"]
    rows = claims_rows(claims)
    if fmt == "markdown":
        cell = lambda k, v: (f"**{v}**" if k == "verdict" and v else v).replace("|", "\\|").replace("\n", " ")
        lines = ["| " + " | ".join(h for _k, h in cols) + " |", "|" + "|".join(":---" for _ in cols) + "|"]
        lines += ["| " + " | ".join(cell(k, r[k]) for k, _h in cols) + " |" for r in rows]
        return "\n".join(lines) + "\n"
    if fmt == "html":
        import html
        style = ' style="text-align: left; vertical-align: top"'
        cell = lambda k, v: f"<b>{html.escape(v)}</b>" if k == "verdict" else html.escape(v)
        head = "".join(f"<th{style}>{html.escape(h)}</th>" for _k, h in cols)
        body = "".join("<tr>" + "".join(f"<td{style}>{cell(k, r[k])}</td>" for k, _h in cols) + "</tr>"
                       for r in rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    raise ValueError(f"fmt must be 'markdown' or 'html', not {fmt!r}")


def claims_summary(claims: list[dict]) -> str:
    """One line per verdict with the claims that have it, and the claims marked not robust."""
    by = {}
    for c in claims:
        by.setdefault(c["verdict"], []).append(c["id"])
    out = [f"{v}: {len(ids)} ({', '.join(ids)})" for v, ids in by.items()]
    weak = [c["id"] for c in claims if str(c.get("robust", "robust")) != "robust"]
    if weak:
        out.append(f"not robust (the verdict changes in a variant): {', '.join(weak)}")
    return "\n".join(out)


def claims_markdown(claims: list[dict], header: str = "") -> str:
    """``header`` and the claims table as Markdown (:func:`claims_table`)."""
    return header + "\n\n" + claims_table(claims, "markdown")
