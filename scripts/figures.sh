#!/usr/bin/env bash
# Regenerate every figure in figures/ (the paper's Figs 2-14 and the extra ones).
#
#   bash scripts/figures.sh [more arguments for `python -m flexlib figures`]
#
# Installs flexlib[notebooks,studies,dask] into .venv first (see scripts/_venv.sh): the studies
# extra brings xarray for the stiffness study of the continuous models, and with the dask extra
# every notebook runs top to bottom afterwards (notebook 09 ends on a Dask cluster) under
# `.venv/bin/jupyter lab --notebook-dir=. notebooks/01-modeling.ipynb`.
# Reproducible: a second run writes the same bytes (git status stays clean; .ci/run checks this
# against the committed figures/). Wall times go to figures/timings.json, which git ignores.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
flexlib_venv "notebooks,studies,dask"
exec "$VENV_PY" -m flexlib figures "$@"
