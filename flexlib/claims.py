"""The paper's checkable claims (section 3.2 and conclusions) evaluated on our runs.

Thresholds (chosen here, not by the paper):

* "coincide / identical / no obvious difference": max |a - b| <= 1 % of the quantity's range
  over the window (``COINCIDE``);
* "basically / essentially the same": <= 5 % (``SIMILAR``);
* "differs slightly": between 1 % and 10 %; "clearly / considerably different": > 10 % (``CLEAR``).

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

__all__ = ["evaluate_claims", "claims_markdown", "add_robustness", "ROBUSTNESS_VARIANTS",
           "COINCIDE", "SIMILAR", "CLEAR", "rel_diff"]

# The variants a verdict must survive to be called robust: the same runs with tolerances 10x
# tighter, and with one more assumed mode (N = 4).  A verdict that flips in either is reported
# as "not robust": it depends on numerical detail (e.g. resting energies that differ by ~1e-4 J)
# or on the modal truncation (peak forces are not converged in N), not on the friction model.
ROBUSTNESS_VARIANTS = {"tolerances 10x tighter": dict(rtol=1e-9, atol=1e-11),
                       "N = 4 modes": dict(n_modes=4)}

COINCIDE, SIMILAR, CLEAR = 0.01, 0.05, 0.10
HOLDS, FAILS, NA = "holds", "does not hold", "not checkable"
C, HL, UL = "hybrid_coulomb", "hybrid_lugre", "lugre"


def rel_diff(ra, rb, key, t0, t1) -> float:
    """max |a - b| over [t0, t1] divided by the range of both curves (NaN samples ignored).

    Both histories are compared on the union of their sample times (10 us in contact)."""
    ta, tb = ra.t, rb.t
    grid = np.union1d(ta[(ta >= t0) & (ta <= t1)], tb[(tb >= t0) & (tb <= t1)])
    if len(grid) < 2:
        return float("nan")
    va, vb = ra.sample(grid, key), rb.sample(grid, key)
    ok = np.isfinite(va) & np.isfinite(vb)
    if not ok.any():
        return float("nan")
    va, vb = va[ok], vb[ok]
    rng = max(va.max(), vb.max()) - min(va.min(), vb.min())
    if rng == 0.0:
        return 0.0
    return float(np.max(np.abs(va - vb)) / rng)


def _starts(r):
    return [im["t_start"] for im in r.impacts]


def _claim(cid, text, metric, threshold, value, verdict, detail=""):
    return dict(id=cid, text=text, metric=metric, threshold=threshold,
                value=value if value is None or isinstance(value, str) else float(value),
                verdict=verdict, detail=detail)


def _verdict(ok):
    return HOLDS if ok else FAILS


def _peak_between(r, key, t0, t1, absval=True):
    m = (r.t >= t0) & (r.t <= t1)
    if not m.any():
        return float("nan")
    v = r.h[key][m]
    return float(np.nanmax(np.abs(v) if absval else v))


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
    diffs = {k: rel_diff(rh, ru, k, 0.0, t_end) for k in keys}
    worst = max(diffs, key=lambda k: diffs[k] if math.isfinite(diffs[k]) else -1)
    out.append(_claim("C1", "The LuGre pair (hybrid and unified) gives the same results for every quantity.",
                      "max over 14 quantities of max|hybrid LuGre - unified LuGre| / range, whole run",
                      f"<= {COINCIDE:.0%}", diffs[worst], _verdict(diffs[worst] <= COINCIDE),
                      f"worst: {worst}; " + ", ".join(f"{k} {v:.2%}" for k, v in diffs.items())))
    return out

def _claims_c2(x: _Runs) -> list:
    """C2."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(1):
        t0 = min(r.impacts[0]["t_start"] for r in (rc, rh, ru))
        t1 = max(r.impacts[0]["t_end"] for r in (rc, rh, ru))
        d = max(rel_diff(a, b, "N", t0, t1) for a, b in ((rc, rh), (rc, ru), (rh, ru)))
        pk = [r.impacts[0]["peak_normal_force"] for r in (rc, rh, ru)]
        out.append(_claim("C2", "During the first impact the normal force is identical for all three models.",
                          "max pairwise max|dN| / range over impact 1", f"<= {COINCIDE:.0%}", d,
                          _verdict(d <= COINCIDE), "peak N: " + ", ".join(f"{p:.4g} N" for p in pk)))
    else:
        out.append(_claim("C2", "First-impact normal force identical.", "", "", None, NA, "no impact"))
    return out

def _claims_c3(x: _Runs) -> list:
    """C3."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(3):
        d1 = max(rel_diff(rc, ru, "theta", 0.0, win[1][0]), rel_diff(rh, ru, "theta", 0.0, win[1][0]))
        d2 = rel_diff(rc, ru, "theta", win[1][0], t_end)
        reb_c = _peak_between(rc, "theta", rc.impacts[1]["t_end"], rc.impacts[2]["t_start"], absval=False)
        reb_l = _peak_between(ru, "theta", ru.impacts[1]["t_end"], ru.impacts[2]["t_start"], absval=False)
        ok = d1 <= SIMILAR and d2 > COINCIDE and reb_c > reb_l
        out.append(_claim("C3", "theta: the three are essentially equal through the first impact; after the "
                          "second Coulomb differs and rebounds higher.",
                          "theta diff up to impact 2; Coulomb-vs-LuGre diff after impact 2; max rebound "
                          "angle after impact 2", f"<= {SIMILAR:.0%}; > {COINCIDE:.0%}; Coulomb higher",
                          d2, _verdict(ok),
                          f"diff before impact 2 {d1:.2%}, after {d2:.2%}; rebound Coulomb {reb_c:.4f} rad, "
                          f"unified LuGre {reb_l:.4f} rad"))
    else:
        out.append(_claim("C3", "theta after the second impact", "", "", None, NA, f"only {nimp} impacts"))
    return out

def _claims_c4(x: _Runs) -> list:
    """C4."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(2):
        dl = rel_diff(rh, ru, "theta_dot", win[0][0], win[1][0])
        dc = rel_diff(rc, ru, "theta_dot", win[0][0], win[1][0])
        dlater = rel_diff(rc, ru, "theta_dot", win[1][0], t_end)
        ok = dl <= COINCIDE and COINCIDE < dc <= CLEAR and dlater > CLEAR
        out.append(_claim("C4", "theta': after impact 1 the LuGre pair is identical and Coulomb differs "
                          "slightly; from impact 2 on Coulomb differs considerably.",
                          "theta' diff in [impact 1, impact 2): LuGre pair; Coulomb; after impact 2: Coulomb",
                          "<= 1%; 1-10%; > 10%", dlater, _verdict(ok),
                          f"LuGre pair {dl:.2%}, Coulomb {dc:.2%}, Coulomb after impact 2 {dlater:.2%}"))
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
        ok = d1 <= SIMILAR and pc2 > pl2 and pc3 > pl3 * (1 + CLEAR) and dl <= COINCIDE
        out.append(_claim("C5", "Tip deformation: coincide after impact 1; Coulomb slightly larger after "
                          "impact 2 and clearly larger after impact 3; LuGre pair identical.",
                          "diff after impact 1; peak |u_y| after impacts 2, 3 (Coulomb vs unified LuGre); "
                          "LuGre pair diff", "<= 5%; larger; > 10% larger; <= 1%", d1, _verdict(ok),
                          f"after 1: {d1:.2%}; after 2: {1e3 * pc2:.3f} vs {1e3 * pl2:.3f} mm; after 3: "
                          f"{1e3 * pc3:.3f} vs {1e3 * pl3:.3f} mm; LuGre pair {dl:.2%}"))
    else:
        out.append(_claim("C5", "tip deformation", "", "", None, NA, f"only {nimp} impacts"))
    return out

def _claims_c6(x: _Runs) -> list:
    """C6."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    dY = rel_diff(rc, ru, "tip_Y", 0.0, t_end)
    dYd = rel_diff(rc, ru, "tip_Ydot", 0.0, t_end)
    dl = max(rel_diff(rh, ru, "tip_Y", 0.0, t_end), rel_diff(rh, ru, "tip_Ydot", 0.0, t_end))
    per = [rel_diff(rc, ru, "tip_Y", a, b) for (a, b) in win[:n_impacts]]
    gts = _grows_then_shrinks(per)
    ok = dY <= SIMILAR and dl <= COINCIDE and bool(gts)
    out.append(_claim("C6", "Tip Y displacement and velocity basically the same for all three; LuGre pair "
                      "coincides; the Coulomb-LuGre difference first grows then shrinks.",
                      "tip Y diff Coulomb vs LuGre (whole run); LuGre pair; per-interval diff sequence",
                      "<= 5%; <= 1%; interior maximum", dY, _verdict(ok) if gts is not None else NA,
                      f"tip Y {dY:.2%}, tip Y' {dYd:.2%}, LuGre pair {dl:.2%}; per interval: "
                      + ", ".join(f"{p:.2%}" for p in per)))
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
        dl = max(abs(rh.impacts[i]["peak_normal_force"] - ru.impacts[i]["peak_normal_force"])
                 / max(ru.impacts[i]["peak_normal_force"], 1e-12) for i in range(k))
        out.append(_claim("C7", "Impact duration and normal force differ between Coulomb and LuGre more "
                          "with each impact; the LuGre pair shows no obvious difference.",
                          f"|d duration| and |d peak N| (Coulomb vs unified LuGre) non-decreasing over the "
                          f"first {k} impacts; LuGre pair peak-N difference", "monotone; <= 1%",
                          dl, _verdict(grow and dl <= COINCIDE),
                          "d duration [ms]: " + ", ".join(f"{1e3 * x:.3f}" for x in dd)
                          + "; d peak N [N]: " + ", ".join(f"{x:.3g}" for x in dn)))
    else:
        out.append(_claim("C7", "impact-count trend", "", "", None, NA, f"only {nimp} impacts"))
    return out

def _claims_c8(x: _Runs) -> list:
    """C8."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(1):
        i0 = ru.impacts[0]
        t0, t1 = i0["t_start"], max(r.impacts[0]["t_end"] for r in (rc, rh, ru))
        d = rel_diff(rc, ru, "F_t", t0, t1)
        ts = i0["t_start"]
        early = lambda r: float(np.mean(np.abs(r.sample(np.linspace(ts, ts + 5e-4, 51), "F_t"))))
        fl, fc = early(ru), early(rc)
        dlall = rel_diff(rh, ru, "F_t", 0.0, t_end)
        dlater = rel_diff(rc, ru, "F_t", win[1][0], t_end) if len(win) > 1 else float("nan")
        ok = d <= SIMILAR and fl > fc and dlall <= COINCIDE and dlater > CLEAR
        out.append(_claim("C8", "Friction essentially the same in impact 1, LuGre slightly larger at its "
                          "start; LuGre pair identical throughout; Coulomb clearly different later.",
                          "F_t diff in impact 1; mean |F_t| over its first 0.5 ms; LuGre pair; Coulomb after "
                          "impact 1", "<= 5%; LuGre > Coulomb; <= 1%; > 10%", d, _verdict(ok),
                          f"impact 1 diff {d:.2%}; early mean |F_t| LuGre {fl:.4g} N vs Coulomb {fc:.4g} N; "
                          f"LuGre pair {dlall:.2%}; Coulomb later {dlater:.2%}"))
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
                      None, _verdict(okall) if nimp >= 2 else NA, "; ".join(rows)))
    return out

def _claims_c10(x: _Runs) -> list:
    """C10."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(1):
        lc, lh, lu = (r.impacts[0]["energy_lost"] for r in (rc, rh, ru))
        rel = (lu - lc) / lc
        ok = lh > lc and lu > lc and rel < SIMILAR
        out.append(_claim("C10", "In the first impact the LuGre pair dissipates slightly more energy than "
                          "Coulomb.", "(lost_LuGre - lost_Coulomb) / lost_Coulomb, impact 1", "0 < x < 5%",
                          rel, _verdict(ok),
                          f"lost: Coulomb {lc:.5f} J, hybrid LuGre {lh:.5f} J, unified LuGre {lu:.5f} J"))
    return out

def _claims_c11_c23(x: _Runs) -> list:
    """C11, C23."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if nimp >= 3:
        kk = min(nimp, n_impacts)
        dE = [abs(rc.impacts[i]["energy_after"] - ru.impacts[i]["energy_after"]) for i in range(kk)]
        gts = _grows_then_shrinks(dE)
        dl = rel_diff(rh, ru, "E", 0.0, t_end)
        out.append(_claim("C11", "The energy difference between the models first grows, then shrinks; the "
                          "LuGre pair shows no obvious difference.",
                          "|E_Coulomb - E_LuGre| after each impact; LuGre pair E diff",
                          "interior maximum; <= 1%", dl, _verdict(bool(gts) and dl <= COINCIDE),
                          "after impacts: " + ", ".join(f"{x:.4g} J" for x in dE) + f"; LuGre pair {dl:.2%}"))
        dth = [rel_diff(rc, ru, "theta", a, b) for (a, b) in win[:kk]]
        g2 = _grows_then_shrinks(dth)
        out.append(_claim("C23", "The Coulomb-LuGre difference grows with the impact count, then decreases "
                          "as the system settles.", "theta diff per inter-impact interval",
                          "interior maximum", None, _verdict(bool(g2)) if g2 is not None else NA,
                          ", ".join(f"{x:.2%}" for x in dth)))
    else:
        out.append(_claim("C11", "energy difference trend", "", "", None, NA, f"only {nimp} impacts"))
        out.append(_claim("C23", "difference trend", "", "", None, NA, f"only {nimp} impacts"))
    return out

def _claims_c12(x: _Runs) -> list:
    """C12."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(3):
        d1 = max(rel_diff(rc, ru, "T", win[0][0], win[1][0]), rel_diff(rh, ru, "T", win[0][0], win[1][0]))
        dl = rel_diff(rc, ru, "T", win[1][0], t_end)
        jumps = all(j["dE"] < 0 for r in (rc, rh, ru) for j in r.jumps)
        ok = jumps and d1 <= SIMILAR and dl > CLEAR
        out.append(_claim("C12", "Kinetic energy changes abruptly at each impact; basically the same after "
                          "impact 1; Coulomb clearly different after later impacts.",
                          "every jump loses T; T diff after impact 1; Coulomb vs LuGre after impact 2",
                          "yes; <= 5%; > 10%", d1, _verdict(ok), f"after 1: {d1:.2%}; later: {dl:.2%}"))
    return out

def _claims_c13(x: _Runs) -> list:
    """C13."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(3):
        amp = [_peak_between(ru, "V_E", a, b) for (a, b) in win[:n_impacts]]
        dec = all(amp[i + 1] <= amp[i] for i in range(len(amp) - 1))
        dl = rel_diff(rh, ru, "V_E", 0.0, t_end)
        per = [rel_diff(rc, ru, "V_E", a, b) for (a, b) in win[:n_impacts]]
        gts = _grows_then_shrinks(per)
        ok = dec and dl <= COINCIDE and bool(gts)
        out.append(_claim("C13", "Elastic energy: amplitude decreases with the impact count; Coulomb departs "
                          "then returns; no difference within the LuGre pair.",
                          "peak V_E per interval (unified LuGre); Coulomb diff per interval; LuGre pair",
                          "decreasing; interior maximum; <= 1%", dl, _verdict(ok),
                          "peaks: " + ", ".join(f"{x:.4g} J" for x in amp) + "; Coulomb diff: "
                          + ", ".join(f"{x:.2%}" for x in per) + f"; LuGre pair {dl:.2%}"))
    return out

def _claims_c14(x: _Runs) -> list:
    """C14."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(3):
        gc = _peak_between(rc, "V_G", rc.impacts[1]["t_end"], rc.impacts[2]["t_start"], absval=False)
        gl = _peak_between(ru, "V_G", ru.impacts[1]["t_end"], ru.impacts[2]["t_start"], absval=False)
        out.append(_claim("C14", "After the second impact Coulomb rebounds higher (V_G).",
                          "max V_G between impacts 2 and 3", "Coulomb > unified LuGre", gc - gl,
                          _verdict(gc > gl), f"Coulomb {gc:.5f} J, unified LuGre {gl:.5f} J"))
    return out

def _claims_c15(x: _Runs) -> list:
    """C15."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(3):
        nc, nl = rc.impacts[2]["peak_normal_force"], ru.impacts[2]["peak_normal_force"]
        ec, el = rc.impacts[2]["energy_lost"], ru.impacts[2]["energy_lost"]
        lost12c = sum(im["energy_lost"] for im in rc.impacts[:2])
        lost12l = sum(im["energy_lost"] for im in ru.impacts[:2])
        ok = lost12l > lost12c and nl < nc and el < ec
        out.append(_claim("C15", "Having lost more energy in impacts 1-2, the LuGre pair has smaller forces "
                          "and loses less energy in impact 3.",
                          "energy lost in impacts 1-2; peak N and energy lost in impact 3",
                          "LuGre > Coulomb; LuGre < Coulomb", None, _verdict(ok),
                          f"lost 1-2: Coulomb {lost12c:.4f}, LuGre {lost12l:.4f} J; impact 3 peak N "
                          f"{nc:.4g} vs {nl:.4g} N, lost {ec:.4f} vs {el:.4f} J"))
    return out

def _claims_c16(x: _Runs) -> list:
    """C16."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if need(1):
        t0 = min(r.impacts[0]["t_start"] for r in (rc, rh, ru))
        t1 = max(r.impacts[0]["t_end"] for r in (rc, rh, ru))
        d = max(rel_diff(rc, ru, "s", t0, t1), rel_diff(rh, ru, "s", t0, t1))
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
                          d, _verdict(ok), f"s diff {d:.2%}, LuGre pair {dl:.2%}; " + "; ".join(
                              f"{m}: stick {p['stick']}, forward {p['fwd']}, reverse {p['rev']}"
                              for m, p in phases.items())))
    return out

def _claims_c17(x: _Runs) -> list:
    """C17."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    if nimp >= 3:
        per = [rel_diff(rc, ru, "v_t", rc.impacts[i]["t_start"] - 1e-3,
                        max(rc.impacts[i]["t_end"], ru.impacts[i]["t_end"]) + 1e-3) for i in range(min(nimp, n_impacts))]
        ok = all(per[i + 1] >= per[i] for i in range(len(per) - 1))
        out.append(_claim("C17", "Coulomb's sliding velocity departs progressively from the LuGre pair.",
                          "v_t diff per impact (Coulomb vs unified LuGre)", "non-decreasing", None,
                          _verdict(ok), ", ".join(f"{x:.2%}" for x in per)))
    return out

def _claims_c18(x: _Runs) -> list:
    """C18."""
    rc, rh, ru, t_end, nimp, win, need, n_impacts = x.unpack()
    out = []
    d = rel_diff(rh, ru, "mu_eff", 0.0, t_end)
    out.append(_claim("C18", "The friction-coefficient history is the same for the LuGre pair.",
                      "mu_eff diff hybrid vs unified LuGre (contact samples)", f"<= {COINCIDE:.0%}", d,
                      _verdict(d <= COINCIDE)))
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
        out.append(_claim("C19", "In the first impact mu takes values above and below mu_d; at the onset of "
                          "sliding it exceeds mu_d.", "max and min |mu_eff| in impact 1 (unified LuGre)",
                          f"max > {mu_d}, min < {mu_d}", float(mu.max()) if len(mu) else None,
                          _verdict(above and below), f"max {mu.max():.4g}, min {mu.min():.4g}"))
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
        Ec, El = rc.h["E"][-1], ru.h["E"][-1]
        gap_c = rc.impacts[1]["t_start"] - rc.impacts[0]["t_end"]
        gap_l = ru.impacts[1]["t_start"] - ru.impacts[0]["t_end"]
        ok = Ec > El and gap_c > gap_l
        out.append(_claim("C21", "Coulomb dissipates less energy and has a longer interval before the next "
                          "impact.", "final E; flight time between impacts 1 and 2",
                          "Coulomb larger in both", Ec - El, _verdict(ok),
                          f"final E: Coulomb {Ec:.4f} J, unified LuGre {El:.4f} J; flight 1->2: "
                          f"{1e3 * gap_c:.2f} vs {1e3 * gap_l:.2f} ms"))
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
                          min(rat), _verdict(min(rat) > CLEAR), ", ".join(f"{x:+.1%}" for x in rat)))
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


def claims_markdown(claims: list[dict], header: str = "") -> str:
    """The claims table as Markdown (with a robustness column if :func:`add_robustness` ran)."""
    rob = all("robust" in c for c in claims)
    lines = [header, "", "| claim | statement | metric | threshold | value | verdict |"
             + (" robustness |" if rob else "") + " detail |",
             "|---|---|---|---|---|---|" + ("---|" if rob else "") + "---|"]
    for c in claims:
        v = c["value"]
        vs = "" if v is None else (v if isinstance(v, str) else f"{v:.4g}")
        lines.append(f"| {c['id']} | {c['text']} | {c['metric']} | {c['threshold']} | {vs} | "
                     f"**{c['verdict']}** |" + (f" {c['robust']} |" if rob else "")
                     + f" {c['detail']} |")
    return "\n".join(lines) + "\n"
