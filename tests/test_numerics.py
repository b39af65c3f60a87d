"""The numeric environment: the pins that make NumPy and OpenBLAS round alike on x86-64 CPUs.

flexlib/_numerics.py says why.  These tests check the mechanism: the pins are what the README's
commands export, they take effect in a fresh process, and on a CPU with AVX-512 they change how
NumPy rounds (the reason they exist).  That the pinned runs reproduce the fingerprints recorded on
another CPU is tests/test_reference_runs.py's check."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from flexlib import _numerics

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "flexlib" / "_numerics.py"


def _in_fresh_process(env, code):
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    return out.stdout.strip()


def test_pins_are_only_the_two_variables_and_need_avx2():
    p = _numerics.pins()
    assert set(p) <= {"OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES"}
    flags = _numerics._cpu_flags()
    if p:
        assert {"avx2", "fma"} <= flags and p["OPENBLAS_CORETYPE"] == "Haswell"
        assert ("NPY_DISABLE_CPU_FEATURES" in p) == ("avx512f" in flags)


def test_the_script_prints_shell_exports_that_keep_a_value_the_user_set():
    out = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                         check=True).stdout
    lines = out.splitlines()
    assert len(lines) == len(_numerics.pins())
    for line, (key, value) in zip(lines, _numerics.pins().items()):
        assert line == f'export {key}="${{{key}:-{value}}}"'
    if lines:    # evaluated by bash: the pins in effect in the next process
        env = {k: v for k, v in os.environ.items() if k not in _numerics.pins()}
        shown = subprocess.run(["bash", "-c", f'eval "$({sys.executable} {SCRIPT})"; '
                                f'{sys.executable} -c "from flexlib import _numerics; '
                                f'print(_numerics.pinned())"'],
                               env=env, capture_output=True, text=True, check=True).stdout
        assert shown.strip() == "True"


def test_the_test_command_runs_pinned():
    """scripts/test.sh sources scripts/_venv.sh, which evaluates the script above (and marks
    the environment, so that a plain ``pytest`` outside the script is not held to it)."""
    if os.environ.get("FLEXLIB_NUMERICS_FROM") != "scripts/_venv.sh":
        pytest.skip("not run through bash scripts/test.sh, which sets the pins")
    assert _numerics.pinned(), _numerics.pins()


@pytest.mark.skipif("NPY_DISABLE_CPU_FEATURES" not in _numerics.pins(),
                    reason="this CPU has no AVX-512: NumPy rounds the same either way")
def test_on_an_avx512_cpu_the_pins_change_how_numpy_rounds():
    env = {k: v for k, v in os.environ.items() if k not in _numerics.pins()}
    code = "from flexlib._numerics import numerics_id; print(numerics_id())"
    unpinned = _in_fresh_process(env, code)
    pinned = _in_fresh_process({**env, **_numerics.pins()}, code)
    assert unpinned != pinned


def test_numerics_id_is_stable_within_an_environment():
    code = "from flexlib._numerics import numerics_id; print(numerics_id())"
    assert _in_fresh_process(dict(os.environ), code) == _numerics.numerics_id()
