"""How fast the notebooks' panels answer a control change (warm process, real runs and plots).

For each control of notebook 10's double-pendulum panel (and of a single-beam panel like notebook
03's), starting from the default settings, the control is moved one step and timed:

* **answer** [s]: from setting the control's value to the end of the panel's update (what the
  user waits for before the panel reacts: a plot, a refusal, or the progress bar of a background
  run);
* **result** [s]: until the new plot is on show (the background run, if one went, has ended);
* what the panel did: ``run`` (a run here), ``background`` (a run in a thread, with progress and
  Cancel), ``cached``/``no rerun`` (a control the model does not use: disabled, nothing runs);

then the control goes back to its default (a cached setting: timed too).  Every plot is rendered
to PNG at 72 dpi, as the notebook does.  The process is warmed by the panel's first run.

Usage: python3 benchmarks/bench_panels.py [--repeat 1]
Writes benchmarks/results/panels.json.
"""
from __future__ import annotations

import argparse
import io
import time

from _common import machine, machine_line, write_json

import matplotlib

matplotlib.use("Agg")


def rendered(plot):
    """``plot`` with the figure rendered to PNG (the inline backend's cost)."""
    def f(r):
        fig = plot(r)
        if fig is not None:
            fig.savefig(io.BytesIO(), format="png", dpi=72)
        return fig
    return f


def pendulum_panel():
    from flexlib.cases import double_pendulum, simulate
    from flexlib.viz import multibody_plots as mbp, multibody_widgets as mbw

    def pendulum_run(case, model, t_end, mu_d=0.0, **params):       # as notebook 10
        return simulate(case, model, t_end, mu_d=mu_d, mu_s=mu_d, **params)

    K = double_pendulum.hertz_stiffness()
    p = mbw.system_panel("double-pendulum", ["contact_at", "contact_stiffness", "n_modes", "mu_d", "model",
                                             "basis", "elements"],
                         dict(contact_at=0.8, contact_stiffness=K, n_modes=3, mu_d=0.0, model="continuous",
                              basis="modal", elements=4),
                         t_end=0.7, plot=rendered(mbp.fig_first_impact), readout=mbw.impact_readout,
                         simulate_fn=pendulum_run)
    moves = [("contact_at", 0.85), ("contact_stiffness", K * 10 ** 0.25), ("n_modes", 4), ("mu_d", 0.05),
             ("elements", 5), ("model", "frictionless"), ("model", "hybrid_coulomb"),
             ("model", "continuous_coulomb"), ("basis", "fe")]
    return p, moves


def beam_panel():
    from flexlib.viz import nbtools, widgets
    p = widgets.panel(fields=["mu_d", "mu_s", "e", "n_modes", "contact_stiffness"],
                      models=["hybrid_coulomb"], case="3.2", t_end=0.75,
                      plot=rendered(lambda r: nbtools.run_and_first_impact(r, ("theta", "N", "F_t"))))
    moves = [("mu_d", 0.41), ("mu_s", 0.51), ("e", 0.05), ("n_modes", 4), ("contact_stiffness", 1e9)]
    return p, moves


def what(p, before):
    if getattr(p, "progress", None) is not None and p.progress.layout.display not in (None, "none"):
        return "background"
    runs = getattr(p, "n_runs", None)
    if runs is None:
        runs = len(p.cache)
    return "run" if runs > before else "no rerun (cached or unused)"


def measure(p, name, value):
    s = p.sliders[name]
    default = s.value
    rows = []
    for label, v in ((f"{default!s:.6} → {value!s:.6}", value), ("back to the default", default)):
        before = getattr(p, "n_runs", None)
        before = len(p.cache) if before is None else before
        t0 = time.perf_counter()
        s.value = v
        answer = time.perf_counter() - t0
        did = what(p, before)
        if hasattr(p, "wait"):
            p.wait()
        result = time.perf_counter() - t0
        rows.append(dict(control=name, change=label, answer=answer, result=result, did=did,
                         disabled=bool(s.disabled), error=p.error))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.parse_args()
    out = {"machine": machine(), "panels": {}}
    for name, build in (("notebook 10: double pendulum (SystemPanel)", pendulum_panel),
                        ("single beam, case 3.2, hybrid Coulomb (Panel)", beam_panel)):
        t0 = time.perf_counter()
        p, moves = build()
        first = time.perf_counter() - t0
        rows = [r for c, v in moves for r in measure(p, c, v)]
        out["panels"][name] = dict(first_run=first, rows=rows)
        print(f"\n{name}: first run (cold settings, warm process) {first:.2f} s")
        print("| control | change | answer [s] | plot on show [s] | what the panel did |")
        print("|---|---|---:|---:|---|")
        for r in rows:
            did = r["did"] + (" (control disabled)" if r["disabled"] else "") + \
                (f"; error: {r['error']}" if r["error"] else "")
            print(f"| {r['control']} | {r['change']} | {r['answer']:.3f} | {r['result']:.3f} | {did} |")
    print("\n" + machine_line(out["machine"]))
    write_json("panels", out)


if __name__ == "__main__":
    main()
