"""Where the time of a run goes (compiled path, case 3.2 on the system engine, 0..t_end, default 2 s).

For each model (default: all four):

1. **sections** (no profiler, median of --repeat runs; wrappers around module and class
   attributes, see ``_common.Sections``): compiled integrator, the engine's Python set-up of a
   phase around it (``SystemSimulator._phase``), history building (``build_result``), event
   actions (velocity jumps, onsets, separations, slip stops: ``SystemSimulator._handle``), of
   which contact-mode selections, and the rest of the event loop (restarting each phase);
2. **build_result statements**: the top-level statements of ``flexlib.history.build_result`` (and of
   its sampling loop) timed one by one, by running an instrumented copy made from its source with
   ``ast`` (history.py itself is not changed);
3. **steps and time per mode**: phases, accepted steps, RHS evaluations and integrator time in
   FREE / CONTACT / STICK / SLIP phases;
4. **cProfile**: the top entries by own time and by cumulative time (profiler overhead inflates
   the Python-heavy parts; the numbers of 1 are the reference).

Usage: python3 benchmarks/profile_runs.py [--models hybrid_coulomb,lugre] [--repeat 3] [--t-end 2]
Writes benchmarks/results/profile.json and benchmarks/results/profile_<model>.txt (cProfile).
"""
from __future__ import annotations

import argparse
import ast
import cProfile
import inspect
import io
import pstats
import statistics
import textwrap
import time
from collections import defaultdict

from _common import (RESULTS, Sections, machine, machine_line, run_model, sim_module, warm_up,
                     write_json)
from flexlib import history
from flexlib.layout import MODE_NAMES
from flexlib.multibody import kernel as K
from flexlib.multibody.simulate import SystemSimulator

simulate = sim_module()


# ------------------------------------------------------------------ 2. statement timer
class _Ticks:
    def __init__(self):
        self.acc = defaultdict(float)
        self.cnt = defaultdict(int)
        self.last = None
        self.label = None

    def __call__(self, label):
        now = time.perf_counter()
        if self.label is not None:
            self.acc[self.label] += now - self.last
            self.cnt[self.label] += 1
        self.label, self.last = label, time.perf_counter()

    def stop(self):
        self(None)


def instrumented(func, ticks_name="_TICKS_"):
    """A copy of ``func`` with a timer call before every top-level statement and before every
    statement of top-level ``for`` loops.  Labels: 'L<line>: <first source line>'."""
    src = textwrap.dedent(inspect.getsource(func))
    lines = src.splitlines()
    first = func.__code__.co_firstlineno
    tree = ast.parse(src)
    fdef = tree.body[0]

    def tick(node, prefix=""):
        text = lines[node.lineno - 1].strip()
        label = f"{prefix}L{first + node.lineno - 1}: {text[:70]}"
        call = ast.Expr(ast.Call(ast.Name(ticks_name, ast.Load()), [ast.Constant(label)], []))
        return ast.copy_location(call, node)

    def wrap(body, prefix=""):
        out = []
        for st in body:
            if isinstance(st, (ast.Return,)):
                out.append(tick(st, prefix))       # time the return expression, then stop
                stop = ast.Expr(ast.Call(ast.Attribute(ast.Name(ticks_name, ast.Load()), "stop",
                                                       ast.Load()), [], []))
                out.append(ast.copy_location(stop, st))
                out.append(st)
                continue
            out.append(tick(st, prefix))
            if isinstance(st, ast.For) and not prefix:
                st.body = wrap(st.body, prefix="  loop ")
                st.body.append(ast.copy_location(
                    ast.Expr(ast.Call(ast.Name(ticks_name, ast.Load()), [ast.Constant(None)], [])), st))
            out.append(st)
        return out

    fdef.body = wrap(fdef.body)
    fdef.decorator_list = []
    ast.fix_missing_locations(tree)
    glb = dict(func.__globals__)
    ticks = _Ticks()
    glb[ticks_name] = ticks
    exec(compile(tree, inspect.getsourcefile(func), "exec"), glb)
    return glb[fdef.name], ticks


def build_result_statements(model, t_end):
    f, ticks = instrumented(history.build_result)
    orig = simulate.build_result
    simulate.build_result = f
    try:
        r = run_model(model, t_end)
    finally:
        simulate.build_result = orig
    total = sum(ticks.acc.values())
    rows = sorted(((k, v, ticks.cnt[k]) for k, v in ticks.acc.items() if k), key=lambda x: -x[1])
    return dict(total_s=total, n_samples=r["n_samples"],
                statements=[dict(stmt=k, s=v, calls=c) for k, v, c in rows])


# ------------------------------------------------------------------ 3. per mode
def per_mode(model, t_end):
    acc = defaultdict(lambda: dict(phases=0, steps=0, rhs=0, time_s=0.0, t_sim=0.0))
    orig = SystemSimulator._phase

    def spy(self, t, y, disc):
        w0 = time.perf_counter()
        sol = orig(self, t, y, disc)
        w = time.perf_counter() - w0
        e = acc[MODE_NAMES[int(disc[K.D_MODE])]]          # case 3.2: one contact point
        e["phases"] += 1
        e["steps"] += sol.n_steps
        e["rhs"] += sol.nfev + getattr(sol, "n_event_evals", 0)
        e["time_s"] += w
        e["t_sim"] += float(sol.t[-1] - sol.t[0])
        return sol
    SystemSimulator._phase = spy
    try:
        run_model(model, t_end)
    finally:
        SystemSimulator._phase = orig
    for e in acc.values():
        e["us_per_step"] = 1e6 * e["time_s"] / max(e["steps"], 1)
        e["rhs_per_step"] = e["rhs"] / max(e["steps"], 1)
    return dict(acc)


# ------------------------------------------------------------------ 4. cProfile
def cprofile(model, t_end, top):
    pr = cProfile.Profile()
    pr.enable()
    run_model(model, t_end)
    pr.disable()
    out = {}
    for key in ("tottime", "cumulative"):
        s = io.StringIO()
        st = pstats.Stats(pr, stream=s)
        st.sort_stats(key).print_stats(top)
        out[key] = s.getvalue()
    st = pstats.Stats(pr)
    rows = []
    for (fn, line, name), (cc, nc, tt, ct, _callers) in st.stats.items():
        rows.append(dict(func=f"{fn.split('/')[-1]}:{line}({name})", ncalls=nc, tottime=tt, cumtime=ct))
    rows.sort(key=lambda r: -r["tottime"])
    return out, rows[:top]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="frictionless,hybrid_coulomb,hybrid_lugre,lugre")
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    mach = machine()
    print(machine_line(mach))
    print(f"warm-up {warm_up():.2f} s")
    out = dict(machine=mach, t_end=a.t_end, repeat=a.repeat, models={})
    for m in [x.strip() for x in a.models.split(",") if x.strip()]:
        secs = []
        for _ in range(a.repeat):
            with Sections() as s:
                r = run_model(m, a.t_end)
            secs.append(s.report(r["cpu_s"]))
        sec = {k: statistics.median(x[k] for x in secs) for k in secs[0]}
        br = build_result_statements(m, a.t_end)
        pm = per_mode(m, a.t_end)
        text, rows = cprofile(m, a.t_end, a.top)
        (RESULTS / f"profile_{m}.txt").write_text(
            f"cProfile of simulate('3.2', {m!r}, {a.t_end:g}) (compiled path)\n\n"
            + text["tottime"] + "\n" + text["cumulative"])
        out["models"][m] = dict(sections=sec, build_result=br, per_mode=pm, cprofile_top=rows,
                                status=r["status"], t_reached=r["t_reached"])
        tot = sec["total_s"]
        print(f"\n=== {m}: t reached {r['t_reached']:.4f} s ({r['status']}), {r['n_events']} events, "
              f"{r['n_steps']} steps, {r['n_samples']} history samples")
        print(f"sections (median of {a.repeat}, no profiler):  total {tot:.3f} s")
        for k, lab in (("integrate_s", "compiled integrator (integrate_phase)"),
                       ("phase_wrapper_s", "phase set-up (SystemSimulator._phase)"),
                       ("build_result_s", "history building (build_result)"),
                       ("actions_s", "event actions (SystemSimulator._handle)"),
                       ("select_s", "  of which contact-mode selections"),
                       ("loop_rest_s", "rest of the event loop (phase restarts)")):
            print(f"  {lab:44} {sec[k]:7.3f} s  {100 * sec[k] / tot:5.1f} %")
        print(f"  phases {sec['n_phases']:.0f}, event actions {sec['n_actions']:.0f}, selections "
              f"{sec['n_selections']:.0f}; per phase: loop rest {sec['rest_per_phase_us']:.0f} us, "
              f"wrapper {sec['wrapper_per_phase_us']:.0f} us")
        print("steps and integrator time per mode:")
        for mode, e in pm.items():
            print(f"  {mode:8} phases {e['phases']:6d}  sim {e['t_sim']:7.4f} s  steps {e['steps']:7d}  "
                  f"RHS {e['rhs']:8d}  ({e['rhs_per_step']:.1f}/step)  {e['time_s']:.3f} s  "
                  f"{e['us_per_step']:.1f} us/step")
        print(f"build_result statements (instrumented copy, total {br['total_s']:.3f} s, "
              f"{br['n_samples']} samples), top 10:")
        for row in br["statements"][:10]:
            print(f"  {row['s']:7.3f} s  x{row['calls']:<6d} {row['stmt']}")
        print("cProfile, top 15 by own time:")
        for row in rows[:15]:
            print(f"  {row['tottime']:7.3f} s own  {row['cumtime']:7.3f} s cum  {row['ncalls']:8d}  {row['func']}")
    print(f"\nwritten {write_json('profile', out)}")


if __name__ == "__main__":
    main()
