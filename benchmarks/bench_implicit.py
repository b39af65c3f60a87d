"""flexlib's integrators on the finite-element beams, side by side with Exudyn at the same meshes.

Default: the tilted falling beam (theta0 = 0.1 rad, continuous Hertz contact, ``--basis fe``,
0-0.16 s: flight, landing, the first episodes) at 4, 8, 16, 32, 64 elements; ``--theta0 0.1 0``
adds the flat drop (both ends land together), each angle its own table.  flexlib runs DOP853
at the first of ``--rtols`` and ``auto`` (Radau in undisturbed flight, DOP853 elsewhere) at each,
with ``--radau`` also Radau IIA throughout at each (``--methods Radau gen-alpha``: those
integrators throughout at each tolerance instead), every run a fresh ``python -m flexlib simulate`` process; its solve time is the wall time of the
0.16 s command minus that of the same command with ``--t-end 0.001`` (start-up, loading the
compiled code and the first steps cancel; a warm-up process of the short command runs first;
with ``--pairs K`` the median over K pairs run in alternation, and Exudyn's 5 us solve the median of
K runs).
Columns: solve time, accepted steps, right-hand side evaluations (the Jacobians' difference columns
included), Jacobians, the run's own time per evaluation, the answers (v_cm_y and omega_mean at
0.16 s, the landing impulse, the first episode's duration and impulse) and their relative
differences from Exudyn's stored 1 us answer at the same mesh
(``figures/data/exudyn_falling_beam.json``).  Exudyn, when importable, runs the same beam built by
``scripts/exudyn_falling_beam.py`` (its stages: 20 us until 0.14 s, then the step h) at h = 5 us with
modified Newton and at 1 us with full Newton, in this process; its solve time is that of the
solver calls alone (not the build).  Then the double pendulum 0-0.65 s at ``--pendulum-elements``:
flexlib ``auto`` at rtol 1e-8 (DOP853 for hinged bodies; with ``--radau`` also DOP853 and Radau IIA
at each of ``--rtols``) and Exudyn (``scripts/exudyn_double_pendulum.py``'s
build, N elements per metre, 5 us, modified Newton).  A setting whose solve at half the mesh times
GROWTH exceeds ``--budget`` seconds is skipped (said in the table).  Prints the tables, the ratios
flexlib solve / Exudyn's best solve per mesh and the growth of flexlib's solve from 8 to 32
elements; writes ``benchmarks/results/implicit_fe.json`` (``--name``: another name).

``--paper-case``: the earlier measurement, unified LuGre on case 3.2 over 0-0.5 s with the compiled
DOP853 and scipy's methods (``implicit.json``).

    nice python3 benchmarks/bench_implicit.py [--elements 4 8 16 32 64] [--rtols 1e-8 1e-6]
        [--radau | --methods Radau gen-alpha] [--theta0 0.1 0] [--atol 1e-8] [--pendulum-elements 4 8 16] [--budget 120]
        [--pairs 1] [--exudyn-steps 5e-6 1e-6] [--name implicit_fe]
    python3 benchmarks/bench_implicit.py --paper-case [--t-end 0.5] [--model lugre]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from unittest import mock

import _common
import scipy.integrate as si

from flexlib import SimulationError, simulate

METHODS = ("DOP853", "DOP853-scipy", "Radau-scipy", "BDF", "LSODA")
T_END = 0.16                 # the falling beam: flight, landing, the first episodes
T_END_PENDULUM = 0.65        # the double pendulum: swing and the first contact burst
THETA0 = 0.1                 # the tilted falling beam (Exudyn's stored levels are at 0.1 and 0)
FLAT = 0.0                   # the flat drop
ATOL = None                  # flexlib's absolute tolerance (--atol; None: the solver's default)
EXUDYN_STEPS = ((5e-6, True), (1e-6, False))   # (step [s], modified Newton) of Exudyn's runs
GROWTH = 10.0                # a solve's assumed growth per doubling of the mesh, for --budget
EXUDYN_DATA = _common.ROOT / "figures" / "data" / "exudyn_falling_beam.json"


def _command(case, n, method, rtol, t_end, json_path, theta0=THETA0):
    cmd = [sys.executable, "-m", "flexlib", "simulate", "--case", case, "--model", "continuous",
           "--basis", "fe", "--elements", str(n), "--t-end", str(t_end), "--integrator", method,
           "--rtol", str(rtol), "--quiet", "--json", json_path]
    if ATOL is not None:
        cmd[-3:-3] = ["--atol", f"{ATOL:g}"]
    return cmd[:4] + ["--theta0", str(theta0)] + cmd[4:] if case == "falling-beam" else cmd


def _timed(cmd):
    """(wall [s], the JSON summary) of one fresh process."""
    env = dict(os.environ, PYTHONPATH=str(_common.ROOT))
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, cwd=_common.ROOT)
    wall = time.perf_counter() - t
    with open(cmd[-1]) as fh:
        return wall, json.load(fh)


def _answers(s):
    """flexlib's answers of one run: the first body's v_cm_y and omega_mean at the end, the total
    normal impulse and the first episode's duration and impulse."""
    body = s["samples"]["bodies"][0]
    first = s["impacts"][0]["episodes"][0] if s["impacts"] else {}
    return dict(v_cm_y=body["v_cm"][-1][1], omega_mean=body["omega_mean"][-1],
                impulse=sum(i["normal_impulse"] for i in s["impacts"]),
                first_duration=first.get("duration"), first_impulse=first.get("normal_impulse"))


def one_run(case, n, method, rtol, t_end, tmp, theta0=THETA0, pairs=1):
    """The row of one flexlib setting (mesh, integrator, tolerance): its solve is the median,
    over ``pairs`` pairs of fresh processes run in alternation (the t_end command, then the
    0.001 s one), of the difference of their wall times; ``solve_range_s`` gives the smallest
    and the largest difference."""
    path = os.path.join(tmp, f"run_{case}_{n}_{method}_{rtol:g}.json")
    _timed(_command(case, n, method, rtol, 0.001, path, theta0))    # warm-up: numba's cache
    load = os.getloadavg()[0]
    diffs, walls = [], []
    for _ in range(max(pairs, 1)):
        wall, s = _timed(_command(case, n, method, rtol, t_end, path, theta0))
        wall0, _ = _timed(_command(case, n, method, rtol, 0.001, path, theta0))
        diffs.append(wall - wall0)
        walls.append(wall)
    st = s["stats"]
    return dict(code="flexlib", case=case, elements=n, method=method, rtol=rtol,
                resolved=st["method"], atol=st["atol"], wall_s=statistics.median(walls),
                solve_s=statistics.median(diffs), solve_range_s=[min(diffs), max(diffs)],
                pairs=len(diffs), run_s=st["wall_time_s"],
                n_steps=st["n_steps"], n_rhs=st["n_rhs"], n_jac=st["n_jac"],
                us_per_rhs=1e6 * st["wall_time_s"] / st["n_rhs"], load=load,
                numerical_dissipation=s["energy"]["numerical_dissipation"], **_answers(s))


def _exudyn_scripts():
    """scripts/exudyn_falling_beam.py, scripts/exudyn_double_pendulum.py and their shared
    scripts/_exudyn_ancf.py as modules, or None when Exudyn is not importable."""
    try:
        import exudyn  # noqa: F401
    except ImportError:
        return None
    sys.path.insert(0, str(_common.ROOT / "scripts"))
    import _exudyn_ancf
    import exudyn_double_pendulum
    import exudyn_falling_beam
    return _exudyn_ancf, exudyn_falling_beam, exudyn_double_pendulum


def exudyn_run(scripts, case, n, h, modified, theta0=THETA0, repeat=1):
    """An Exudyn run built by the stored scripts (their stages, steps and Newton tolerances),
    with Exudyn's modified Newton when ``modified``; its solve time is the scripts' own (the two
    SolveDynamic calls, not the build), the median of ``repeat`` runs (``solve_range_s``: the
    smallest and the largest)."""
    ancf, fb, dp = scripts
    load = os.getloadavg()[0]
    ancf.MODIFIED_NEWTON = modified
    walls, cpus = [], []
    try:
        for _ in range(max(repeat, 1)):
            r = fb.run(theta0, n, h, 2e-5) if case == "falling-beam" else dp.run(n, h, 2e-5)
            walls.append(r["wall_time"])
            cpus.append(r["cpu_time"])
    finally:
        ancf.MODIFIED_NEWTON = True
    row = dict(code="Exudyn", case=case, elements=n, h=h, modified_newton=modified,
               solve_s=statistics.median(walls), solve_range_s=[min(walls), max(walls)],
               runs=len(walls), cpu_s=statistics.median(cpus), load=load)
    if case == "falling-beam":
        first = r["points"][0]["episodes"][0]
        row.update(v_cm_y=r["v_cm"][1], omega_mean=r["omega_mean"], impulse=r["landing_impulse"],
                   first_duration=first["duration"], first_impulse=first["impulse"])
    else:
        first = r["burst"]["first"]
        row.update(v_cm_y=r["links"]["B1"]["v_cm"][1], omega_mean=r["links"]["B1"]["omega_mean"],
                   impulse=r["burst"]["impulse"], first_duration=first["duration"],
                   first_impulse=first["impulse"])
    return row


def exudyn_reference(n, theta0=THETA0):
    """Exudyn's stored 1 us answer of the falling beam at ``theta0`` with n elements, or None."""
    data = json.loads(EXUDYN_DATA.read_text())
    for lv in data["cases"][f"{theta0:g}"]["levels"]:
        if lv["elements"] == n and lv["h"] == 1e-6:
            first = lv["points"][0]["episodes"][0]
            return dict(v_cm_y=lv["v_cm"][1], omega_mean=lv["omega_mean"],
                        impulse=lv["landing_impulse"], first_duration=first["duration"],
                        first_impulse=first["impulse"])
    return None


def with_accuracy(row, ref):
    """``row`` with its relative differences from the reference answers (or the missing note)."""
    if "skipped" in row:
        return row
    if ref is None:
        row["vs_exudyn"] = f"no stored Exudyn 1 us level at {row['elements']} elements"
        return row
    # relative, but absolute where the reference is zero (the flat drop's omega_mean)
    row["vs_exudyn"] = {k: abs(row[k] / ref[k] - 1.0) if abs(ref[k]) > 1e-9
                        else abs(row[k] - ref[k]) for k in ref}
    return row


def _budgeted(rows, key, run, budget, n):
    """Run ``run()`` unless the same setting at n/2 elements (the last row of ``key``) predicts
    more than ``budget`` seconds (GROWTH per doubling); the skipped row says why."""
    last = rows.get(key)
    if last and "skipped" in last:
        row = dict(elements=n, skipped=f"{key} skipped at {last['elements']} elements")
    elif last and GROWTH * last["solve_s"] > budget:
        row = dict(elements=n, skipped=f"{key} at {last['elements']} elements took "
                   f"{last['solve_s']:.0f} s; x{GROWTH:g} per doubling: "
                   f"~{GROWTH * last['solve_s']:.0f} s > budget {budget:g} s")
        rows[key] = row
    else:
        row = run()
        rows[key] = row
    print(row, flush=True)
    return row


def falling_beam(a, scripts, tmp, theta0=THETA0):
    """flexlib's settings and Exudyn's two steps at each mesh, with the accuracy against
    Exudyn's stored 1 us answers, for the drop at ``theta0``."""
    out, last = [], {}
    for n in a.elements:
        ref = exudyn_reference(n, theta0)
        for method, rtol in settings(a):
            row = _budgeted(last, f"flexlib {method} rtol {rtol:g}",
                            lambda: one_run("falling-beam", n, method, rtol, T_END, tmp, theta0,
                                            a.pairs),
                            a.budget, n)
            out.append(with_accuracy(dict(row, code="flexlib", case="falling-beam",
                                          method=method, rtol=rtol, theta0=theta0), ref))
        for h, modified in EXUDYN_STEPS if scripts else ():
            row = _budgeted(last, f"Exudyn {h:g} s",
                            lambda: exudyn_run(scripts, "falling-beam", n, h, modified, theta0,
                                               a.pairs if modified else 1),
                            a.budget, n)
            out.append(with_accuracy(dict(row, code="Exudyn", case="falling-beam", h=h,
                                          modified_newton=modified, theta0=theta0), ref))
    return out


def double_pendulum(a, scripts, tmp):
    """flexlib (auto) and Exudyn (5 us, modified Newton) on the double pendulum at each mesh;
    with ``--radau`` also flexlib's DOP853 and Radau IIA at each of ``--rtols``."""
    out, last = [], {}
    for n in a.pendulum_elements:
        out.append(dict(_budgeted(last, "flexlib auto", lambda: one_run(
            "double-pendulum", n, "auto", 1e-8, T_END_PENDULUM, tmp), a.budget, n),
            code="flexlib", case="double-pendulum", method="auto", rtol=1e-8))
        for method, rtol in (settings(a) if a.methods else
                             [(m, r) for m in ("DOP853", "Radau") for r in a.rtols]
                             if a.radau else []):
            out.append(dict(_budgeted(last, f"flexlib {method} {rtol:g}", lambda: one_run(
                "double-pendulum", n, method, rtol, T_END_PENDULUM, tmp), a.budget, n),
                code="flexlib", case="double-pendulum", method=method, rtol=rtol))
        if scripts:
            out.append(dict(_budgeted(last, "Exudyn 5e-06 s", lambda: exudyn_run(
                scripts, "double-pendulum", n, 5e-6, True), a.budget, n),
                code="Exudyn", case="double-pendulum", h=5e-6, modified_newton=True))
    return out


def settings(a):
    """The flexlib (integrator, rtol) pairs: with ``--methods`` each of them at each tolerance;
    else DOP853 at the first tolerance, auto at each, and with ``--radau`` Radau IIA throughout
    at each."""
    if a.methods:
        return [(m, r) for m in a.methods for r in a.rtols]
    return ([("DOP853", a.rtols[0])] + [("auto", r) for r in a.rtols]
            + ([("Radau", r) for r in a.rtols] if a.radau else []))


def ratios(rows):
    """Per mesh: each flexlib setting's solve over Exudyn's best solve; and flexlib's growth of
    the solve from 8 to 32 elements per setting."""
    out = {}
    for n in sorted({r["elements"] for r in rows}):
        at = [r for r in rows if r["elements"] == n and "solve_s" in r]
        exu = [r["solve_s"] for r in at if r["code"] == "Exudyn"]
        if exu:
            out[n] = {f"{r['method']} rtol {r['rtol']:g}": r["solve_s"] / min(exu)
                      for r in at if r["code"] == "flexlib"}
    growth = {}
    for key in {(r["method"], r["rtol"]) for r in rows if r["code"] == "flexlib"}:
        s = {r["elements"]: r.get("solve_s") for r in rows
             if r["code"] == "flexlib" and (r["method"], r["rtol"]) == key}
        if s.get(8) and s.get(32):
            growth[f"{key[0]} rtol {key[1]:g}"] = s[32] / s[8]
    return dict(flexlib_over_exudyn_best=out, growth_8_to_32=growth)


def _label(r):
    if r["code"] == "Exudyn":
        return f"Exudyn {r['h'] * 1e6:g} us {'mod.' if r['modified_newton'] else 'full'} Newton"
    return f"flexlib {r['method']} rtol {r['rtol']:g}"


def print_table(title, rows):
    print(title)
    print(f"{'n_e':>4} {'setting':<30}{'solve [s]':>10}{'steps':>8}{'RHS':>9}{'Jac':>5}"
          f"{'us/RHS':>8}{'v_cm_y':>12}{'omega':>10}{'impulse':>10}{'1st dur':>10}{'1st imp':>9}"
          f"{'d v_cm_y':>10}{'d omega':>10}{'d imp':>9}"
          f"{'load':>6}")
    for r in rows:
        if "skipped" in r:
            print(f"{r['elements']:>4} {_label(r):<30} skipped: {r['skipped']}")
            continue
        d = r.get("vs_exudyn")
        dv, dw, di = ((d["v_cm_y"], d["omega_mean"], d["impulse"]) if isinstance(d, dict)
                      else (math.nan,) * 3)
        print(f"{r['elements']:>4} {_label(r):<30}{r['solve_s']:10.2f}{r.get('n_steps', 0):8d}"
              f"{r.get('n_rhs', 0):9d}{r.get('n_jac', 0):5d}{r.get('us_per_rhs', math.nan):8.1f}"
              f"{r['v_cm_y']:12.7f}{r['omega_mean']:10.5f}{r['impulse']:10.6f}"
              f"{1e3 * r['first_duration']:10.5f}{r['first_impulse']:9.5f}{dv:10.1e}{dw:10.1e}"
              f"{di:9.1e}{r['load']:6.2f}")


def side_by_side(a):
    """The falling beam and the double pendulum, flexlib and Exudyn, in one run."""
    scripts = _exudyn_scripts()
    if scripts is None:
        print("Exudyn is not importable: its columns are skipped", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        beams = {th: falling_beam(a, scripts, tmp, th) for th in a.theta0}
        pendulum = double_pendulum(a, scripts, tmp) if a.pendulum_elements else []
    by_angle = {f"{th:g}": ratios(rows) for th, rows in beams.items()}
    print(_common.machine_line())
    for th, rows in beams.items():
        print_table(f"falling beam, theta0 = {th:g}, continuous, fe, 0-{T_END} s", rows)
    print_table(f"double pendulum, continuous, fe, 0-{T_END_PENDULUM} s", pendulum)
    print(json.dumps(by_angle, indent=1))
    # the first angle's ratios at the top level, as before the flat drop was added
    _common.write_json(a.name, dict(
        t_end=T_END, t_end_pendulum=T_END_PENDULUM, theta0=a.theta0, atol=ATOL, budget_s=a.budget,
        exudyn="importable" if scripts else "not importable: skipped",
        machine=_common.machine(), falling_beam=[r for rows in beams.values() for r in rows],
        double_pendulum=pendulum, by_theta0=by_angle, **by_angle[f"{a.theta0[0]:g}"]))


def paper_case(a):
    counts = {"njev": 0, "nlu": 0}
    orig = si.solve_ivp

    def counted(*args, **kw):           # flexlib imports solve_ivp from scipy at call time
        sol = orig(*args, **kw)
        for k in counts:
            counts[k] += int(getattr(sol, k, 0) or 0)
        return sol

    simulate("3.2", a.model, 0.01)      # load the numba cache
    rows = {}
    with mock.patch.object(si, "solve_ivp", counted):
        for meth in METHODS:
            counts.update(njev=0, nlu=0)
            t = time.perf_counter()
            try:
                r, status = simulate("3.2", a.model, a.t_end, method=meth), "ok"
            except SimulationError as err:
                r, status = err.result, "stopped"
            wall = time.perf_counter() - t
            im = r.impacts[0] if r.impacts else {}
            rows[meth] = dict(wall_s=wall, status=status, n_rhs=r.stats["n_rhs"],
                              n_steps=r.stats["n_steps"], n_jac=counts["njev"], n_lu=counts["nlu"],
                              t_start=im.get("t_start"), peak_N=im.get("peak_normal_force"))
    ref = rows["DOP853"]
    print(_common.machine_line())
    print(f"{a.model}, case 3.2, t = 0..{a.t_end} s, one run each")
    print(f"{'method':<14}{'wall [s]':>9}{'RHS':>9}{'steps':>8}{'Jacobians':>10}{'LU':>7}"
          f"{'d t_start [s]':>15}{'d peak N':>10}")
    for meth, w in rows.items():
        dt = abs(w["t_start"] - ref["t_start"]) if w["t_start"] is not None else float("nan")
        dp = abs(w["peak_N"] / ref["peak_N"] - 1.0) if w["peak_N"] is not None else float("nan")
        print(f"{meth:<14}{w['wall_s']:9.2f}{w['n_rhs']:9d}{w['n_steps']:8d}{w['n_jac']:10d}"
              f"{w['n_lu']:7d}{dt:15.2e}{dp:10.2e}")
    _common.write_json("implicit", dict(model=a.model, t_end=a.t_end, machine=_common.machine(),
                                        runs=rows))


def main():
    global ATOL, EXUDYN_STEPS
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--paper-case", action="store_true")
    ap.add_argument("--t-end", type=float, default=0.5)
    ap.add_argument("--model", default="lugre")
    ap.add_argument("--elements", type=int, nargs="+", default=[4, 8, 16, 32, 64])
    ap.add_argument("--atol", type=float, default=None,
                    help="flexlib's absolute tolerance (default: the solver's, 1e-10)")
    ap.add_argument("--theta0", type=float, nargs="+", default=[THETA0],
                    help=f"the falling beam's initial angles [rad] ({THETA0:g}: tilted, "
                         f"{FLAT:g}: the flat drop)")
    ap.add_argument("--pendulum-elements", type=int, nargs="*", default=[4, 8, 16],
                    help="meshes of the double pendulum (none: skip it)")
    ap.add_argument("--rtols", type=float, nargs="+", default=[1e-8, 1e-6],
                    help="flexlib's tolerances: DOP853 at the first, auto at each")
    ap.add_argument("--radau", action="store_true",
                    help="also Radau IIA throughout (--integrator Radau) at each tolerance")
    ap.add_argument("--methods", nargs="+", default=None,
                    help="flexlib's integrators, each at each tolerance, instead of the default "
                         "settings (e.g. Radau gen-alpha)")
    ap.add_argument("--name", default="implicit_fe",
                    help="the results file, benchmarks/results/NAME.json (default implicit_fe)")
    ap.add_argument("--budget", type=float, default=120.0,
                    help="skip a setting whose predicted solve exceeds this [s]")
    ap.add_argument("--pairs", type=int, default=1,
                    help="fresh-process pairs per flexlib setting (and Exudyn 5 us runs) whose "
                         "median gives the solve (default 1)")
    ap.add_argument("--exudyn-steps", type=float, nargs="+",
                    default=[h for h, _ in EXUDYN_STEPS],
                    help="Exudyn's steps on the falling beam: 5e-06 (modified Newton) and/or "
                         "1e-06 (full Newton; its answers are stored, so it may be left out)")
    a = ap.parse_args()
    ATOL = a.atol
    EXUDYN_STEPS = tuple((h, m) for h, m in EXUDYN_STEPS if h in a.exudyn_steps)
    paper_case(a) if a.paper_case else side_by_side(a)


if __name__ == "__main__":
    main()
