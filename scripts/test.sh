#!/usr/bin/env bash
# The test suite: tests/ with pytest, and every notebooks/*.ipynb under nbval, in one pytest run.
#
#   bash scripts/test.sh [more pytest arguments]
#
# Runs on every core (pytest-xdist, `-n auto`), each test file and notebook whole in one worker
# (`--dist loadfile`: a notebook's cells share one kernel, a module's fixtures one process); pass
# `-n 0` to run in one process.
# Installs flexlib[test,browser] into .venv first (see scripts/_venv.sh). nbval runs in lax mode:
# only cells tagged `nbval-check-output` (in the cell's metadata) have their outputs compared. Tests marked `slow` are
# skipped unless --runslow is passed (or FLEXLIB_RUNSLOW=1). The `browser` test skips without
# Debian chromium, unless FLEXLIB_REQUIRE_BROWSER=1 (.ci/run sets it).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
flexlib_venv "test,browser"

paths=(tests)
# An empty notebooks/ is not in a git clone; pytest would reject a missing path.
if compgen -G "notebooks/*.ipynb" > /dev/null; then
    paths+=(notebooks)
fi
exec "$VENV_PY" -m pytest "${paths[@]}" -n auto --dist loadfile \
    --nbval-lax --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg "$@"
