"""Record the parity gate: the paper's case 3.2 run by the single-beam simulator, stored as test data.

For each of the four constraint models (frictionless, hybrid Coulomb, hybrid LuGre, unified LuGre)
this writes ``tests/data/parity_gate/case32_<model>.json`` with theta and the modal coordinates
q = [theta, B_1..B_N] at 601 times over 0-0.6 s and the start of every contact episode (every
velocity jump) over 0-1 s.  tests/test_parity_gate.py holds the system engine's run of the same
case to these numbers (1e-9 rad, 1e-9 s); the files are the record of what the paper's figures
were made with before both cases ran on one engine, and they stay when the single-beam simulator
is gone (this script then goes with it).

    python scripts/record_parity_gate.py
"""
import json
import pathlib
import platform
import subprocess

import numpy as np

import flexlib as fl

MODELS = ("frictionless", "hybrid_coulomb", "hybrid_lugre", "lugre")
OUT = pathlib.Path(__file__).resolve().parents[1] / "tests" / "data" / "parity_gate"
T_SAMPLES = np.linspace(0.0, 0.6, 601)
T_IMPACTS = 1.0


def record(model: str) -> dict:
    res = fl.simulate("3.2", model, T_IMPACTS)
    h = res.history(T_SAMPLES)
    q = np.column_stack([h["theta"], h["B"]])
    jumps = [j["t"] for j in res.jumps]
    return {
        "case": "3.2", "model": model,
        "t": T_SAMPLES.tolist(),
        "q_names": ["theta", "B1", "B2", "B3"],
        "q": q.tolist(),
        "episode_starts": jumps,
        "impact_starts": [im["t_start"] for im in res.impacts],
        "jump_impulses": [j["impulse"] for j in res.jumps],
    }


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            cwd=OUT).stdout.strip()
    for model in MODELS:
        data = record(model)
        data["recorded_with"] = {"simulator": "single-beam (flexlib.solver)", "commit": commit,
                                 "machine": platform.processor() or platform.machine()}
        path = OUT / f"case32_{model}.json"
        path.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n")
        print(f"{path.name}: {len(data['episode_starts'])} episodes, "
              f"{len(data['impact_starts'])} impacts over 0-{T_IMPACTS:g} s")


if __name__ == "__main__":
    main()
