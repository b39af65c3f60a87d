# Sourced by scripts/test.sh and scripts/figures.sh; not meant to be run on its own.
#
#   flexlib_venv EXTRAS    # e.g. "test,browser", or "" for the core package only
#
# Makes (if needed) the virtual environment $FLEXLIB_VENV (default: .venv at the repository root),
# installs flexlib into it in editable mode with EXTRAS, every version pinned by constraints.txt,
# and sets VENV_PY to its python. pip is skipped when pyproject.toml and constraints.txt have not
# changed since the last install of the same EXTRAS, so a second run starts at once.
# Set PYTHON to choose the interpreter that creates the venv (default python3; constraints.txt
# was generated on Python 3.11).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FLEXLIB_VENV="${FLEXLIB_VENV:-$ROOT/.venv}"

flexlib_venv() {
    local extras="$1" spec="." stamp want
    [ -n "$extras" ] && spec=".[$extras]"

    if [ ! -x "$FLEXLIB_VENV/bin/python" ] || ! "$FLEXLIB_VENV/bin/python" -c "" 2>/dev/null; then
        local python="${PYTHON:-python3}"
        if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "flexlib needs Python >= 3.11 (tried '$python'; set PYTHON=/path/to/python3.11)" >&2
            return 1
        fi
        echo "Creating virtual environment $FLEXLIB_VENV with $("$python" --version)"
        rm -rf "$FLEXLIB_VENV"
        "$python" -m venv "$FLEXLIB_VENV"
    fi
    VENV_PY="$FLEXLIB_VENV/bin/python"

    stamp="$FLEXLIB_VENV/.flexlib-installed-${extras:-core}"
    stamp="${stamp//,/-}"
    want="$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1) $ROOT"
    if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
        echo "Installing flexlib$([ -n "$extras" ] && echo "[$extras]") into $FLEXLIB_VENV (pinned by constraints.txt)"
        "$VENV_PY" -m pip install --quiet --progress-bar off -c constraints.txt -e "$spec"
        echo "$want" > "$stamp"
    fi
    # The Jupyter kernel "flexlib" that every notebook names: this venv's ipykernel with the
    # numerical settings below in its environment, so JupyterLab started from .venv gives the
    # numbers of the figures whatever a notebook imports first (written when it changes).
    "$VENV_PY" "$ROOT/flexlib/_numerics.py" --kernel
}

# The same numbers to the last bit on every x86-64 CPU: NumPy's AVX-512 paths and OpenBLAS's
# per-CPU kernels round differently from their AVX2 ones, so both commands pin the AVX2 paths
# (flexlib/_numerics.py says why and which variables; it prints nothing where none are needed).
eval "$("${PYTHON:-python3}" "$ROOT/flexlib/_numerics.py")"
export FLEXLIB_NUMERICS_FROM=scripts/_venv.sh     # tests/test_numerics.py checks the pins took
