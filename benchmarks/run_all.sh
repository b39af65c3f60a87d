#!/usr/bin/env bash
# Issue 6: run every benchmark in sequence (never in parallel: 2 cores) and keep the printed
# tables next to the JSON files in benchmarks/results/.  About 30-60 min on the 2-core machine.
#   bash benchmarks/run_all.sh            # all
#   bash benchmarks/run_all.sh models cli # a subset: rhs models scaling cli implicit profile experiments
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY="${PYTHON:-python3}"
mkdir -p benchmarks/results
steps=("$@")
# experiments.py patches the pre-issue-6 code: run it only on request (see its docstring)
[ ${#steps[@]} -eq 0 ] && steps=(rhs models scaling cli implicit profile)
for s in "${steps[@]}"; do
    case "$s" in
        rhs)         cmd=(benchmarks/bench_rhs.py) ;;
        models)      cmd=(benchmarks/bench_models.py) ;;
        scaling)     cmd=(benchmarks/bench_scaling.py) ;;
        cli)         cmd=(benchmarks/bench_cli.py) ;;
        implicit)    cmd=(benchmarks/bench_implicit.py) ;;
        profile)     cmd=(benchmarks/profile_runs.py) ;;
        experiments) cmd=(benchmarks/experiments.py) ;;
        *) echo "unknown step $s" >&2; exit 2 ;;
    esac
    echo "=== $s: $PY ${cmd[*]}"
    "$PY" "${cmd[@]}" 2>&1 | tee "benchmarks/results/$s.txt"
done
