"""Scaling with the number of bending modes N = 1..8 (case 3.2, 0..t_end, compiled path).

For each N and model: wall time, RHS evaluations, accepted steps, events (medians of --repeat
runs), the compiled integrator's own time (``integrate_phase``, via ``_common.Sections``) per step,
the whole run's wall time per step, and the cost of one RHS evaluation inside numba
(the system kernel's ``phase_eval_into`` at a mid-contact and a free-flight state, as in
bench_rhs.py).

The growth exponent p of ``cost ~ N^p`` is fitted by least squares on log-log axes, over
N = 1..8 and over N = 4..8 (where fixed per-step costs matter less).  The target is a per-step
cost growing no faster than ~N^3.

Usage: python3 benchmarks/bench_scaling.py [--models frictionless,lugre] [--n-max 8] [--repeat 3]
Writes benchmarks/results/scaling.json and benchmarks/results/scaling.png.
"""
from __future__ import annotations

import argparse
import statistics

import numpy as np

from _common import RESULTS, Sections, machine, machine_line, run_model, warm_up, write_json
from bench_rhs import record_states, rhs_costs


def fit_exponent(N, y):
    """Least-squares slope of log y against log N."""
    N, y = np.asarray(N, float), np.asarray(y, float)
    ok = np.isfinite(y) & (y > 0)
    if ok.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(N[ok]), np.log(y[ok]), 1)[0])


def measure(model, N, t_end, repeat):
    runs = []
    for _ in range(repeat):
        with Sections() as s:
            r = run_model(model, t_end, n_modes=N)
        r["sections"] = s.report(r["cpu_s"])
        runs.append(r)
    med = lambda f: statistics.median(f(r) for r in runs)  # noqa: E731
    steps = med(lambda r: r["n_steps"])
    return dict(N=N, wall_s=med(lambda r: r["wall_s"]), cpu_s=med(lambda r: r["cpu_s"]),
                cpu_us_per_step=med(lambda r: 1e6 * r["cpu_s"] / r["n_steps"]), n_rhs=med(lambda r: r["n_rhs"]),
                n_steps=steps, n_events=med(lambda r: r["n_events"]),
                t_reached=runs[-1]["t_reached"], status=runs[-1]["status"],
                integrate_s=med(lambda r: r["sections"]["integrate_s"]),
                build_result_s=med(lambda r: r["sections"]["build_result_s"]),
                integrate_us_per_step=med(lambda r: 1e6 * r["sections"]["integrate_s"] / r["n_steps"]),
                wall_us_per_step=med(lambda r: 1e6 * r["wall_s"] / r["n_steps"]),
                rhs_per_step=med(lambda r: r["n_rhs"] / r["n_steps"]),
                wall_all_s=[r["wall_s"] for r in runs])


def plot(out, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.6))
    Ns = np.array(out["N"], float)
    ref = Ns / Ns[0]
    for m, rows in out["models"].items():
        y = [r["wall_s"] for r in rows]
        ax[0].plot(Ns, y, "o-", label=f"{m}: wall time of the run")
        ax[1].plot(Ns, [r["integrate_us_per_step"] for r in rows], "o-",
                   label=f"{m}: integrator CPU time per step (p = {out['fits'][m]['integrate_us_per_step']:.2f})")
        ax[1].plot(Ns, [r["cpu_us_per_step"] for r in rows], "o--", alpha=0.6,
                   label=f"{m}: whole run CPU time per step (p = {out['fits'][m]['cpu_us_per_step']:.2f})")
        ax[2].plot(Ns, [r["n_steps"] for r in rows], "o-", label=f"{m}: accepted steps")
        ax[2].plot(Ns, [r["n_rhs"] for r in rows], "s--", label=f"{m}: RHS evaluations")
    rc = out["rhs_cost_us"]
    for lab in rc:
        ax[1].plot(Ns, rc[lab], "^:", label=f"one RHS in numba, {lab} (p = {out['fits']['rhs'][lab]:.2f})")
    base = out["models"][next(iter(out["models"]))][0]["integrate_us_per_step"]
    ax[1].plot(Ns, base * ref**3, "k--", lw=0.8, label="~N^3 reference")
    ax[0].axhline(0.5, color="r", lw=0.8, ls="--", label="target 0.5 s per model")
    ax[0].set_ylabel(f"wall time of simulate(case 3.2, 0-{out['t_end']:g} s) [s]")
    ax[1].set_ylabel("cost [microseconds]")
    ax[2].set_ylabel("count [-]")
    ax[0].set_title("(a) run time vs number of modes")
    ax[1].set_title("(b) per-step and per-RHS cost")
    ax[2].set_title("(c) work")
    for a in ax:
        a.set_xscale("log")
        a.set_yscale("log")
        a.set_xlabel("number of modes N [-]")
        a.set_xticks(Ns)
        a.set_xticklabels([str(int(n)) for n in Ns])
        a.grid(True, which="both", alpha=0.3)
        a.legend(fontsize=7)
    fig.suptitle(f"flexlib scaling with N, case 3.2, t = 0..{out['t_end']:g} s, compiled DOP853 "
                 f"({out['machine']['nproc']} cores, {out['machine']['cpu']})", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="frictionless,lugre")
    ap.add_argument("--n-max", type=int, default=8)
    ap.add_argument("--t-end", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--loops", type=int, default=50_000)
    a = ap.parse_args()
    mach = machine()
    print(machine_line(mach))
    print(f"warm-up {warm_up():.2f} s")
    Ns = list(range(1, a.n_max + 1))
    models = [m.strip() for m in a.models.split(",") if m.strip()]
    out = dict(machine=mach, t_end=a.t_end, repeat=a.repeat, N=Ns, models={m: [] for m in models},
               rhs_cost_us={}, mass_forces_us=[], mass_forces_quad_us=[])
    labels = ("FREE (frictionless)", "CONTACT frictionless", "CONTACT lugre")
    for lab in labels:
        out["rhs_cost_us"][lab] = []
    for N in Ns:
        st = record_states(N)
        st = {k: v for k, v in st.items() if k in labels}
        c = rhs_costs(N, loops=max(5000, a.loops // N), repeat=5, python_loops=1000, states=st)
        for lab in labels:
            out["rhs_cost_us"][lab].append(c[lab]["phase_eval_numba_us"] if lab in c else float("nan"))
        out["mass_forces_us"].append(c["CONTACT frictionless"]["mass_forces_numba_us"])
        out["mass_forces_quad_us"].append(c["CONTACT frictionless"].get("mass_forces_quad_numba_us",
                                                                         float("nan")))
        for m in models:
            row = measure(m, N, a.t_end, a.repeat)
            out["models"][m].append(row)
            print(f"N = {N}  {m:13} wall {row['wall_s']:8.3f} s  RHS {row['n_rhs']:9.0f}  steps "
                  f"{row['n_steps']:7.0f}  events {row['n_events']:5.0f}  integrator "
                  f"{row['integrate_us_per_step']:7.1f} us/step  RHS(contact) "
                  f"{c['CONTACT frictionless']['phase_eval_numba_us']:.2f} us", flush=True)
    fits = {}
    for m in models:
        rows = out["models"][m]
        fits[m] = {k: fit_exponent(Ns, [r[k] for r in rows])
                   for k in ("wall_s", "cpu_s", "n_steps", "n_rhs", "integrate_us_per_step", "wall_us_per_step",
                           "cpu_us_per_step")}
        fits[m]["integrate_us_per_step_N4_8"] = fit_exponent(Ns[3:], [r["integrate_us_per_step"] for r in rows][3:])
        fits[m]["wall_us_per_step_N4_8"] = fit_exponent(Ns[3:], [r["wall_us_per_step"] for r in rows][3:])
        fits[m]["cpu_us_per_step_N4_8"] = fit_exponent(Ns[3:], [r["cpu_us_per_step"] for r in rows][3:])
    fits["rhs"] = {lab: fit_exponent(Ns, v) for lab, v in out["rhs_cost_us"].items()}
    fits["rhs_N4_8"] = {lab: fit_exponent(Ns[3:], v[3:]) for lab, v in out["rhs_cost_us"].items()}
    fits["mass_forces"] = fit_exponent(Ns, out["mass_forces_us"])
    fits["mass_forces_N4_8"] = fit_exponent(Ns[3:], out["mass_forces_us"][3:])
    fits["mass_forces_quad"] = fit_exponent(Ns, out["mass_forces_quad_us"])
    fits["mass_forces_quad_N4_8"] = fit_exponent(Ns[3:], out["mass_forces_quad_us"][3:])
    out["fits"] = fits

    print(f"\nscaling with N, case 3.2, t = 0..{a.t_end:g} s, medians of {a.repeat} runs")
    for m in models:
        print(f"\n{m}")
        print(f"{'N':>2} {'wall [s]':>9} {'CPU [s]':>8} {'RHS evals':>10} {'steps':>7} {'events':>7} {'RHS/step':>8} "
              f"{'integr. [us/step]':>17} {'CPU [us/step]':>13} {'1 RHS contact [us]':>18} "
              f"{'1 RHS free [us]':>15}")
        for i, r in enumerate(out["models"][m]):
            print(f"{r['N']:2d} {r['wall_s']:9.3f} {r['cpu_s']:8.3f} {r['n_rhs']:10.0f} {r['n_steps']:7.0f} {r['n_events']:7.0f} "
                  f"{r['rhs_per_step']:8.1f} {r['integrate_us_per_step']:17.1f} {r['cpu_us_per_step']:13.1f} "
                  f"{out['rhs_cost_us']['CONTACT frictionless'][i]:18.2f} "
                  f"{out['rhs_cost_us']['FREE (frictionless)'][i]:15.2f}")
        f = fits[m]
        print(f"fitted exponents p (cost ~ N^p), N = 1..{a.n_max}: integrator per step "
              f"{f['integrate_us_per_step']:.2f}, whole run (CPU) per step {f['cpu_us_per_step']:.2f}, "
              f"steps {f['n_steps']:.2f}, wall {f['wall_s']:.2f}; N = 4..{a.n_max}: integrator per step "
              f"{f['integrate_us_per_step_N4_8']:.2f}, whole run (CPU) per step {f['cpu_us_per_step_N4_8']:.2f}")
    print("one RHS (numba): " + ", ".join(f"{lab} p = {fits['rhs'][lab]:.2f} (N 4..8: {fits['rhs_N4_8'][lab]:.2f})"
                                          for lab in labels)
          + f"; mass_forces p = {fits['mass_forces']:.2f} (N 4..8: {fits['mass_forces_N4_8']:.2f})"
          + f"; quadrature M,Q p = {fits['mass_forces_quad']:.2f} (N 4..8: {fits['mass_forces_quad_N4_8']:.2f})")
    # the quadrature route was timed on the removed single-beam kernel only (NaN now)
    print("M, Q per call [us], the system's mass_forces_into / quadrature route (single-beam only): "
          + ", ".join(f"N={n}: {a_:.2f} / {b_:.2f}" for n, a_, b_ in
                      zip(Ns, out["mass_forces_us"], out["mass_forces_quad_us"])))
    plot(out, RESULTS / "scaling.png")
    print(f"\nwritten {write_json('scaling', out)} and {RESULTS / 'scaling.png'}")


if __name__ == "__main__":
    main()
