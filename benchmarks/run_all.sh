#!/usr/bin/env bash
# Run every benchmark in sequence (never in parallel: timings need the cores to themselves) and
# keep each script's printed tables next to its JSON file in benchmarks/results/.
# About 30-35 min on a 2-core machine with numba's cache warm (bench_implicit.py alone ~20 min); the first run after installing
# also compiles the kernel and the integrator (30-40 s, once).
#   bash benchmarks/run_all.sh              # all
#   bash benchmarks/run_all.sh models cli   # a subset of: rhs models continuous scaling cli implicit eval newton profile sweep
#   bash benchmarks/run_all.sh accuracy     # the bases' accuracy against cost: about an hour, not in "all"
#   bash benchmarks/run_all.sh resolution   # the multibody settings up to converged meshes: ~6 min, not in "all"
#   PYTHON=.venv/bin/python bash benchmarks/run_all.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY="${PYTHON:-python3}"
mkdir -p benchmarks/results
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(rhs models continuous scaling cli implicit eval newton profile sweep multibody)
for s in "${steps[@]}"; do
    case "$s" in
        rhs)         cmd=(benchmarks/bench_rhs.py) ;;
        models)      cmd=(benchmarks/bench_models.py) ;;
        continuous)  cmd=(benchmarks/bench_continuous.py) ;;
        scaling)     cmd=(benchmarks/bench_scaling.py) ;;
        cli)         cmd=(benchmarks/bench_cli.py) ;;
        implicit)    cmd=(benchmarks/bench_implicit.py) ;;
        eval)        cmd=(benchmarks/bench_eval.py --structured-elements 4,8,16,32,64
                              --json benchmarks/results/eval.json) ;;
        newton)      cmd=(benchmarks/bench_newton.py) ;;
        profile)     cmd=(benchmarks/profile_runs.py) ;;
        sweep)       cmd=(benchmarks/bench_sweep.py) ;;
        multibody)   cmd=(benchmarks/bench_multibody.py) ;;
        accuracy)    cmd=(benchmarks/bench_accuracy.py) ;;
        resolution)  cmd=(benchmarks/bench_resolution.py) ;;
        *) echo "unknown step $s (one of: rhs models continuous scaling cli implicit eval newton profile sweep multibody accuracy resolution)" >&2; exit 2 ;;
    esac
    echo "=== $s: $PY ${cmd[*]}"
    "$PY" "${cmd[@]}" 2>&1 | tee "benchmarks/results/$s.txt"
done
