#!/usr/bin/env bash
# Regenerate every figure in figures/ (the paper's Figs 2-14 and the extra ones).
#
#   bash scripts/figures.sh [more arguments for `python -m flexlib figures`]
#
# Installs flexlib[notebooks] into .venv first (see scripts/_venv.sh), so that afterwards
# `.venv/bin/jupyter lab --notebook-dir=. notebooks/01-modeling.ipynb` works too.
# Reproducible: a second run writes the same bytes (git status stays clean; .ci/run checks this
# against the committed figures/). Wall times go to figures/timings.json, which git ignores.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
flexlib_venv "notebooks"
exec "$VENV_PY" -m flexlib figures "$@"
