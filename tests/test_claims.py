"""flexlib.studies.claims on small synthetic runs whose answers follow from their construction.

A fake run has what the claims read from a SimulationResult: ``t``, ``h``, ``jumps`` (each with
"t"), ``impacts`` and ``sample(times, key)``.  Its histories are functions of time evaluated
exactly (as a dense output would be), with a step at each velocity jump; the history holds two
samples at a jump time (before and after) and ``sample`` at a jump time returns the post-jump
value.
"""
import math

import numpy as np
import pytest

from flexlib.studies import claims as cl


class FakeRun:
    def __init__(self, funcs, jumps=(), impacts=(), t_end=1.0, dt=1e-5, offset=0.0):
        self.funcs = funcs                      # key -> f(t) (vectorised, post-jump at a jump time)
        self.jumps = [dict(t=t) for t in jumps]
        self.impacts = [dict(im) for im in impacts]
        grid = np.arange(offset, t_end, dt)
        self.t = np.sort(np.concatenate((grid, jumps, jumps)))   # two samples at each jump
        self.h = {k: f(self.t) for k, f in funcs.items()}
        for tj in jumps:                        # the first of the two samples is the pre-jump value
            i = int(np.searchsorted(self.t, tj, side="left"))
            for k, f in funcs.items():
                self.h[k][i] = _before(f, tj)

    def sample(self, times, key):
        return self.funcs[key](np.asarray(times, float))


def _before(f, tj):
    """The value just before a jump at tj: the limit from the left (f is piecewise smooth)."""
    return float(f(np.array([np.nextafter(tj, -np.inf)]))[0])


def force(t_jump, step=100.0, bump=0.0, bump_at=0.5, width=0.01):
    """A smooth force with a step of ``step`` at ``t_jump`` and a Gaussian bump of height ``bump``."""
    def f(t):
        t = np.asarray(t, float)
        return (50.0 * np.sin(2 * np.pi * t) + step * (t >= t_jump)
                + bump * np.exp(-((t - bump_at) / width) ** 2))
    return f


def _range(f, t_end=1.0):
    v = f(np.linspace(0.0, t_end, 200001))
    return v.max() - v.min()


def test_jump_offset_by_a_picosecond_compares_as_identical():
    tj = 0.3
    a = FakeRun({"N": force(tj)}, jumps=[tj], impacts=[dict(t_start=0.2, t_end=0.9)])
    b = FakeRun({"N": force(tj + 1e-12)}, jumps=[tj + 1e-12], impacts=[dict(t_start=0.2, t_end=0.9)],
                offset=3e-6)
    d = cl.compare(a, b, "N", 0.0, 0.99)
    assert d.value < 1e-9
    assert cl.rel_diff(a, b, "N", 0.0, 0.99) == d.value
    # the stricter pointwise comparison sees the whole step at one instant
    assert d.pointwise == pytest.approx(100.0 / _range(force(tj)), rel=1e-3)
    assert d.n_pairs == 1 and d.n_unmatched == 0
    assert d.dt_jump == pytest.approx(1e-12, rel=1e-3)
    assert cl.fmt_dt(d.dt_jump) == "1 ps"


def test_real_force_difference_is_not_hidden():
    """The same jump, and a bump of 10 N far from it: the comparison reports 10 N / range."""
    tj = 0.3
    imp = [dict(t_start=0.2, t_end=0.9)]
    a = FakeRun({"N": force(tj)}, jumps=[tj], impacts=imp)
    b = FakeRun({"N": force(tj, bump=10.0, bump_at=0.6)}, jumps=[tj], impacts=imp)
    d = cl.compare(a, b, "N", 0.0, 0.99)
    assert d.value == pytest.approx(10.0 / _range(force(tj)), rel=1e-3)
    assert d.value > cl.COINCIDE
    assert d.abs == pytest.approx(10.0, rel=1e-6)


def test_a_difference_right_at_a_jump_is_left_out_only_within_the_window():
    """A narrow bump inside the window around the jump is not seen (only pointwise); the same bump
    far from the jump is."""
    tj, w, imp = 0.3, cl.JUMP_WINDOW / 10, [dict(t_start=0.2, t_end=0.9)]
    base = FakeRun({"N": force(tj)}, jumps=[tj], impacts=imp)
    near = FakeRun({"N": force(tj, bump=10.0, bump_at=tj + cl.JUMP_WINDOW / 2, width=w)}, jumps=[tj],
                   impacts=imp)
    d = cl.compare(base, near, "N", 0.0, 0.99)
    assert d.value < 1e-6 < 10.0 / _range(force(tj)) / 2 < d.pointwise
    far = FakeRun({"N": force(tj, bump=10.0, bump_at=0.6, width=1e-3)}, jumps=[tj], impacts=imp)
    assert cl.compare(base, far, "N", 0.0, 0.99).value == pytest.approx(10.0 / _range(force(tj)), rel=1e-3)


@pytest.mark.parametrize("dt_us", [10, 30, 45])
def test_jump_offsets_beyond_the_window_are_compared_as_they_are(dt_us):
    """The same step 10, 30 or 45 us later in one run.  10 us is a timing offset (at most
    JUMP_WINDOW): left out, ~0 %, with a timing note.  30 and 45 us are farther apart: compared as
    they are, so the value is the pointwise difference (the whole step over the range), and the
    two windows around the jumps (which would join for 20-40 us) hide nothing."""
    tj, dt = 0.3, dt_us * 1e-6
    imp = [dict(t_start=0.2, t_end=0.9)]
    a = FakeRun({"N": force(tj)}, jumps=[tj], impacts=imp)
    b = FakeRun({"N": force(tj + dt)}, jumps=[tj + dt], impacts=imp)
    d = cl.compare(a, b, "N", 0.0, 0.99)
    step = 100.0 / _range(force(tj))
    assert d.n_pairs == 1 and d.n_unmatched == 0 and d.dt_jump == pytest.approx(dt, rel=1e-6)
    assert d.pointwise == pytest.approx(step, rel=1e-2)
    if dt <= cl.JUMP_WINDOW:
        assert d.value < 1e-3 and cl._offset(d) and d.n_far == 0
        assert "jump times differ by up to 10 µs" in cl._diff_note(d)
    else:
        assert d.value == pytest.approx(d.pointwise) and not cl._offset(d) and d.n_far == 1
        note = cl._diff_note(d)
        assert "jump times differ" not in note and "1 matched jump more than 20 µs apart" in note


def test_a_jump_without_a_partner_is_compared_as_it_is():
    """A step in one run only (an extra jump in the same impact): nothing is left out."""
    imp = [dict(t_start=0.2, t_end=0.9)]
    a = FakeRun({"N": force(0.3)}, jumps=[0.3], impacts=imp)
    b = FakeRun({"N": force(0.3, step=0.0)}, jumps=[], impacts=imp)
    d = cl.compare(a, b, "N", 0.0, 0.99)
    assert d.n_pairs == 0 and d.n_unmatched == 1
    assert d.value == pytest.approx(d.pointwise) and d.value > 0.5
    assert "1 jump without a partner in the other run, compared as it is" in cl._diff_note(d)


def test_a_window_ending_where_an_impact_starts_leaves_its_jump_to_the_next_window():
    """Window [impact 1, impact 2) of the reference run: its impact 2 jump is at the window's end,
    the other run's 200 us later (a pair farther apart than JUMP_WINDOW).  The state after the jump
    at t1 belongs to the next window, so the window compares nothing of it: 0 %.  Over a window
    that goes on past both jumps the step shows for 200 us."""
    imp = [dict(t_start=0.1, t_end=0.2), dict(t_start=0.5, t_end=0.6)]
    a = FakeRun({"T": force(0.5)}, jumps=[0.1, 0.5], impacts=imp)
    b = FakeRun({"T": force(0.5 + 2e-4)}, jumps=[0.1, 0.5 + 2e-4], impacts=imp)
    assert cl.compare(a, b, "T", 0.1, 0.5).value < 1e-9
    assert cl.compare(a, b, "T", 0.1, 0.7).value == pytest.approx(100.0 / _range(force(0.5), 0.7), rel=1e-2)


def test_jump_pairs_matched_by_impact():
    imp = [dict(t_start=0.1, t_end=0.2), dict(t_start=0.5, t_end=0.6)]
    a = FakeRun({}, jumps=[0.1, 0.15, 0.5], impacts=imp)
    b = FakeRun({}, jumps=[0.1 + 2e-6, 0.15, 0.17, 0.5 + 1e-9], impacts=imp)
    pairs, unmatched = cl.jump_pairs(a, b)
    assert pairs == [(0.1, 0.1 + 2e-6), (0.15, 0.15), (0.5, 0.5 + 1e-9)]
    assert unmatched == 1
    # a window ending where impact 2 starts leaves that impact's jumps out
    pairs, unmatched = cl.jump_pairs(a, b, 0.0, 0.5)
    assert [p[0] for p in pairs] == [0.1, 0.15] and unmatched == 1


# --------------------------------------------------------------------------- claims on fake runs
def _runs(rc, rh, ru, t_end=1.0, n_impacts=4):
    st = [im["t_start"] for im in ru.impacts]
    win = [(st[k], st[k + 1] if k + 1 < len(st) else t_end) for k in range(len(st))]
    nimp = min(len(r.impacts) for r in (rc, rh, ru))
    return cl._Runs(rc, rh, ru, t_end, nimp, win, n_impacts)


def _impacts(starts, dur=0.01, **fields):
    return [dict(t_start=s, t_end=s + dur, **{k: v[i] for k, v in fields.items()}) for i, s in enumerate(starts)]


def test_c2_identical_force_is_measured_by_the_peak():
    """Equal peaks, histories 3 % of the range apart: C2 holds, and the detail shows the stricter
    whole-history measure (12 N out of 400 N)."""
    imps = _impacts([0.2, 0.5, 0.8], peak_normal_force=[400.0, 300.0, 200.0])
    f = lambda t: np.where((t >= 0.2) & (t <= 0.21), 400.0 * np.sin(np.pi * (np.asarray(t) - 0.2) / 0.01), 0.0)
    g = lambda t: f(t) + 12.0 * np.exp(-((np.asarray(t) - 0.203) / 0.001) ** 2)
    rc = FakeRun({"N": g}, impacts=imps)
    rh = FakeRun({"N": f}, impacts=imps)
    ru = FakeRun({"N": f}, impacts=imps)
    c2 = cl._claims_c2(_runs(rc, rh, ru))[0]
    assert c2["verdict"] == cl.HOLDS and c2["value"] == 0.0 and c2["unit"] == "%"
    assert "hybrid_coulomb vs hybrid_lugre 3 %" in c2["detail"]
    imps_c = _impacts([0.2, 0.5, 0.8], peak_normal_force=[420.0, 300.0, 200.0])
    rc = FakeRun({"N": f}, impacts=imps_c)
    c2 = cl._claims_c2(_runs(rc, rh, ru))[0]
    assert c2["verdict"] == cl.FAILS and c2["value"] == pytest.approx(20.0 / 420.0)


def test_c14_rebound_is_the_angle_not_the_gravitational_energy():
    """Between impacts 2 and 3 Coulomb's theta peaks lower, its V_G higher (bending): C14 follows
    theta, and fails; swapping the theta peaks makes it hold."""
    imps = _impacts([0.1, 0.3, 0.7])
    bump = lambda h, at=0.5: (lambda t: h * np.exp(-((np.asarray(t, float) - at) / 0.05) ** 2))
    rc = FakeRun({"theta": bump(0.19), "V_G": bump(0.80)}, impacts=imps)
    ru = FakeRun({"theta": bump(0.20), "V_G": bump(0.79)}, impacts=imps)
    c14 = cl._claims_c14(_runs(rc, ru, ru))[0]
    assert c14["verdict"] == cl.FAILS
    assert c14["value"] == pytest.approx(0.19 - 0.20, abs=1e-6) and c14["unit"] == "rad"
    rc = FakeRun({"theta": bump(0.21), "V_G": bump(0.78)}, impacts=imps)
    assert cl._claims_c14(_runs(rc, ru, ru))[0]["verdict"] == cl.HOLDS


def test_c8_with_one_impact_is_not_checkable():
    """C8 reads the friction after impact 1 (from impact 2 on): with a single impact that part is
    missing, so C8 is not checkable -- not "does not hold" from a NaN comparison."""
    f = FakeRun({"F_t": lambda t: np.sin(50.0 * np.asarray(t, float))}, impacts=_impacts([0.2]))
    c8 = cl._claims_c8(_runs(f, f, f))
    assert [c["verdict"] for c in c8] == [cl.NA]
    two = FakeRun({"F_t": lambda t: np.sin(50.0 * np.asarray(t, float))}, impacts=_impacts([0.2, 0.6]))
    assert cl._claims_c8(_runs(two, two, two))[0]["verdict"] == cl.FAILS   # identical: "later" 0 %


def test_a_missing_number_gives_not_checkable():
    """A history with no finite sample (nothing to compare) makes the claim not checkable."""
    nan = lambda t: np.full(np.shape(t), np.nan)
    f = FakeRun({"mu_eff": nan}, impacts=_impacts([0.2]))
    c18 = cl._claims_c18(_runs(f, f, f))[0]
    assert c18["verdict"] == cl.NA
    assert cl._verdict(True, 0.1, float("nan")) == cl.NA and cl._verdict(False, 0.1) == cl.FAILS
    assert math.isnan(cl._max(0.1, float("nan"))) and math.isnan(cl._max(float("nan"), 0.1))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_peak_between_reads_the_interpolant_not_the_grid(sign):
    """A narrow bump of height 7 peaking 4.3 us after a grid sample (grid 10 us): the grid reads
    7 exp(-(4.3/20)^2) = 6.68; the peak on the interpolant (``sample``) is 7."""
    at, w = 0.5 + 4.3e-6, 2e-5
    r = FakeRun({"u": lambda t: sign * 7.0 * np.exp(-((np.asarray(t, float) - at) / w) ** 2)})
    assert np.max(np.abs(r.h["u"])) == pytest.approx(7.0 * math.exp(-(4.3 / 20) ** 2), rel=1e-6)
    assert cl._peak_between(r, "u", 0.4, 0.6) == pytest.approx(7.0, rel=1e-6)
    signed = cl._peak_between(r, "u", 0.4, 0.6, absval=False)
    assert signed == pytest.approx(7.0, rel=1e-6) if sign > 0 else signed < 1e-6
    assert math.isnan(cl._peak_between(r, "u", 2.0, 3.0))


def test_c21_compares_the_energies_at_the_common_end_time():
    """Coulomb's run lasts 2 s, LuGre's 1 s.  At the common end (t = LuGre's last sample) Coulomb
    has more energy, E_c - E_l = 1 - 0.2 t - 0.75 > 0; at its own end (E_c(2) = 0.6 < 0.75) it
    would read less."""
    imps_c, imps_l = _impacts([0.1, 0.5]), _impacts([0.1, 0.4])    # Coulomb's flight is longer
    rc = FakeRun({"E": lambda t: 1.0 - 0.2 * np.asarray(t, float)}, impacts=imps_c, t_end=2.0)
    ru = FakeRun({"E": lambda t: np.full(np.shape(t), 0.75)}, impacts=imps_l, t_end=1.0)
    c21 = cl._claims_c21(_runs(rc, ru, ru))[0]
    te = ru.t[-1]
    assert c21["verdict"] == cl.HOLDS
    assert c21["value"] == pytest.approx(1.0 - 0.2 * te - 0.75, rel=1e-9)


def _c5_runs(e):
    """Tip deflection sin(20 pi t) (range 2 over impact 1's window) plus bumps at 0.4 and 0.6 of 2
    (LuGre) or 2.5 and 3 (Coulomb); Coulomb also has a bump of ``e`` at 0.2, after impact 1, where
    the sine is 0: the difference after impact 1 is e / 2 of the range."""
    G = lambda at: (lambda t: np.exp(-((np.asarray(t, float) - at) / 0.005) ** 2))
    base = lambda t: np.sin(20 * np.pi * np.asarray(t, float))
    lu = lambda t: base(t) + 2.0 * G(0.4)(t) + 2.0 * G(0.6)(t)
    co = lambda t: lu(t) + e * G(0.2)(t) + 0.5 * G(0.4)(t) + 1.0 * G(0.6)(t)
    imps = _impacts([0.1, 0.3, 0.5, 0.7])
    ru = FakeRun({"tip_deflection": lu}, impacts=imps)
    return _runs(FakeRun({"tip_deflection": co}, impacts=imps), ru, ru)


def test_c5_coincide_after_impact_1_is_within_1_percent():
    """"Coincide after impact 1" is the 1 % of "coincide": a 3 % difference fails it, 0.5 % holds."""
    c5 = cl._claims_c5(_c5_runs(0.06))[0]
    assert c5["verdict"] == cl.FAILS and c5["value"] == pytest.approx(0.03, rel=1e-2)
    assert c5["threshold"].startswith("<= 1%")
    c5 = cl._claims_c5(_c5_runs(0.01))[0]
    assert c5["verdict"] == cl.HOLDS and c5["value"] == pytest.approx(0.005, rel=1e-2)


@pytest.mark.parametrize("x, verdict", [(0.03, cl.FAILS), (0.005, cl.HOLDS)])
def test_c7_lugre_pair_compared_in_duration_too(x, verdict):
    """The LuGre pair's peak forces are equal, its impact durations differ by x: 3 % is an obvious
    difference (fails), 0.5 % is not.  Coulomb's differences grow impact by impact."""
    dur_l = [0.010, 0.010, 0.010]
    ru = FakeRun({}, impacts=_impacts([0.1, 0.3, 0.5], duration=dur_l, peak_normal_force=[100.0] * 3))
    rh = FakeRun({}, impacts=_impacts([0.1, 0.3, 0.5], duration=[d * (1 + x) for d in dur_l],
                                      peak_normal_force=[100.0] * 3))
    rc = FakeRun({}, impacts=_impacts([0.1, 0.3, 0.5], duration=[0.010, 0.011, 0.013],
                                      peak_normal_force=[100.0, 90.0, 70.0]))
    c7 = cl._claims_c7(_runs(rc, rh, ru))[0]
    assert c7["verdict"] == verdict and c7["value"] == pytest.approx(x, rel=1e-9)
    assert f"duration {dict([(0.03, '3 %'), (0.005, '0.5 %')])[x]}, peak N 0 %" in c7["detail"]


@pytest.mark.parametrize("lost_h, lost_u, verdict", [(1.005, 1.004, cl.HOLDS), (1.03, 1.03, cl.FAILS),
                                                      (0.999, 1.004, cl.FAILS)])
def test_c10_not_noticeably_more_is_more_and_within_1_percent(lost_h, lost_u, verdict):
    """Coulomb loses 1 J.  Both LuGre runs 0.4-0.5 % more: holds; 3 % more is noticeable: fails;
    one of them less: fails."""
    mk = lambda lost: FakeRun({}, impacts=_impacts([0.1], energy_lost=[lost]))
    c10 = cl._claims_c10(_runs(mk(1.0), mk(lost_h), mk(lost_u)))[0]
    assert c10["verdict"] == verdict
    assert c10["value"] == pytest.approx(max(lost_h, lost_u) - 1.0, rel=1e-9)


def test_peak_between_refines_a_lobe_that_reads_lower_on_the_grid():
    """Two lobes: 6.9 on a grid sample, and 7 peaking 5 us between two samples (grid 10 us), where
    the grid reads 7 exp(-(5/20)^2) = 6.58.  The peak is the second lobe's 7, not the refinement
    of the largest grid sample (6.9)."""
    w = 2e-5
    g = lambda h, at: (lambda t: h * np.exp(-((np.asarray(t, float) - at) / w) ** 2))
    at = float(np.arange(0.0, 1.0, 1e-5)[60000]) + 5e-6
    r = FakeRun({"u": lambda t: g(6.9, 0.3)(t) + g(7.0, at)(t)})
    assert np.max(r.h["u"]) == pytest.approx(6.9, rel=1e-9)
    assert cl._peak_between(r, "u", 0.1, 0.9, absval=False) == pytest.approx(7.0, rel=1e-6)


def _trend_runs(amplitudes):
    """Coulomb's theta differs from LuGre's by a bump of the given height in the middle of each
    inter-impact interval; LuGre's theta = 10 t has the whole-run range 10 t_end."""
    starts = [0.1 * (k + 1) for k in range(len(amplitudes))]
    imps = _impacts(starts, energy_after=[1.0] * len(starts))
    base = lambda t: 10.0 * np.asarray(t, float)
    diff = lambda t: sum(a * np.exp(-((np.asarray(t, float) - s - 0.05) / 0.005) ** 2)
                         for a, s in zip(amplitudes, starts))
    one = lambda t: np.ones_like(np.asarray(t, float))
    rc = FakeRun({"theta": lambda t: base(t) + diff(t), "E": one}, impacts=imps)
    ru = FakeRun({"theta": base, "E": one}, impacts=imps)
    return _runs(rc, ru, ru, t_end=0.1 * (len(amplitudes) + 1))


def test_c23_reads_every_interval_to_see_the_difference_shrink():
    """Rises over the first four intervals and falls over the last three: with every interval
    read, C23 holds; a difference that only rises does not.  Range of theta: 8 (t_end = 0.8)."""
    c23 = [c for c in cl._claims_c11_c23(_trend_runs([0.04, 0.08, 0.16, 0.32, 0.16, 0.08, 0.04]))
           if c["id"] == "C23"][0]
    assert c23["verdict"] == cl.HOLDS
    assert c23["detail"].startswith("0.5 %, 1 %, 2 %, 4 %, 2 %, 1 %, 0.5 %;")
    assert "7 inter-impact intervals" in c23["metric"]
    c23 = [c for c in cl._claims_c11_c23(_trend_runs([0.04, 0.08, 0.16, 0.32, 0.4, 0.48, 0.56]))
           if c["id"] == "C23"][0]
    assert c23["verdict"] == cl.FAILS


def test_grows_then_shrinks():
    assert cl._grows_then_shrinks([1, 3, 2]) is True
    assert cl._grows_then_shrinks([1, 2, 3]) is False
    assert cl._grows_then_shrinks([1, 2]) is None


# --------------------------------------------------------------------------- the table
CLAIMS = [dict(id="C1", text="a | b", metric="max|x|", threshold="<= 1%", value=0.0012, unit="%",
               verdict="holds", detail="d", robust="robust"),
          dict(id="C14", text="t", metric="m", threshold="x", value=-0.0031, unit="rad",
               verdict="does not hold", detail="", robust="not robust (N = 4 modes: holds)"),
          dict(id="C9", text="t", metric="m", threshold="x", value=None, unit="",
               verdict="does not hold", detail="", robust="robust")]


def test_table_markdown_left_aligned_with_units():
    md = cl.claims_table(CLAIMS, "markdown")
    lines = md.strip().split("\n")
    assert lines[1] == "|" + "|".join(":---" for _ in cl.TABLE_COLUMNS) + "|"
    assert "a \\| b" in lines[2] and "max\\|x\\|" in lines[2]
    assert "| 0.12 % |" in lines[2] and "| -0.0031 rad |" in lines[3]
    assert "**does not hold**" in lines[3] and "not robust (N = 4 modes: holds)" in lines[3]
    assert cl.claims_markdown(CLAIMS, "# title").startswith("# title\n\n| claim |")


def test_table_html_same_cells_left_aligned():
    html = cl.claims_table(CLAIMS, "html")
    assert html.count("<tr>") == len(CLAIMS) + 1
    assert html.count('text-align: left') == (len(CLAIMS) + 1) * len(cl.TABLE_COLUMNS)
    assert "0.12 %" in html and "-0.0031 rad" in html and "a | b" in html
    with pytest.raises(ValueError):
        cl.claims_table(CLAIMS, "latex")


def test_summary_lists_verdicts_and_robustness():
    s = cl.claims_summary(CLAIMS)
    assert "holds: 1 (C1)" in s and "does not hold: 2 (C14, C9)" in s
    assert "not robust (the verdict changes in a variant): C14" in s


def test_value_formats():
    assert cl.format_value(dict(value=float("nan"), unit="%")) == "n/a"
    assert cl.format_value(dict(value=1.159)) == "1.159"
    assert math.isnan(cl.compare(FakeRun({"N": force(2.0)}), FakeRun({"N": force(2.0)}), "N", 5.0, 6.0).value)


# --------------------------------------------------------------------------- prose against the data
def _ids(text):
    return [s.strip() for s in text.split(",")]


def test_findings_claims_match_claims_json():
    """docs/findings.md's claims finding quotes the verdicts of figures/data/claims.json."""
    import json
    import re
    from pathlib import Path

    from findings_text import finding
    root = Path(__file__).resolve().parents[1]
    claims = json.loads((root / "figures" / "data" / "claims.json").read_text())
    by = {}
    for c in claims:
        by.setdefault(c["verdict"], []).append(c["id"])
    weak = [c["id"] for c in claims if c["robust"] != "robust"]
    text = finding("The paper's claims")
    bullet = text[text.index("**Claims.**"):text.index("- C1 ")]
    m = re.search(r"(\d+) of the 25 hold \(([^)]*)\); (\d+) of them are marked \"not robust\" \(([^)]*)\)", bullet)
    assert m, bullet
    assert int(m[1]) == len(by[cl.HOLDS]) and _ids(m[2]) == by[cl.HOLDS]
    assert _ids(m[4]) == [i for i in weak if i in by[cl.HOLDS]] and int(m[3]) == len(_ids(m[4]))
    m = re.search(r"(\d+) do not hold \(([^;)]*)[;)]", bullet)
    assert int(m[1]) == len(by[cl.FAILS]) and _ids(m[2]) == by[cl.FAILS]
    m = re.search(r"(\d+) cannot be checked \((C\d+):[^;]*; (C\d+):", bullet)
    assert int(m[1]) == len(by[cl.NA]) and [m[2], m[3]] == by[cl.NA]


def test_notebook_07_prose_matches_axial_study():
    """What notebook 07 says about C1, C16, C18 and C20 per number of axial modes."""
    import json
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    study = json.loads((root / "figures" / "data" / "axial_study.json").read_text())
    v = {na: {c["id"]: c["verdict"] for c in cs} for na, cs in study["claims"].items()}
    with_axial = [na for na in v if na != "0"]
    src = (root / "scripts" / "build_notebook_07.py").read_text()
    assert "C1 and C18 do not hold for any Na ≥ 1" in " ".join(src.split())
    for cid in ("C1", "C18"):
        assert v["0"][cid] == cl.HOLDS and all(v[na][cid] == cl.FAILS for na in with_axial)
    flat = " ".join(src.split())           # the builder's line wrapping is not part of the prose
    assert "LuGre pair identical) does not hold for any Na" in flat
    assert all(v[na]["C16"] == cl.FAILS for na in v)
    assert v["0"]["C20"] == cl.NA and any(v[na]["C20"] != cl.NA for na in with_axial)
