"""The numeric environment: the pins that make NumPy and OpenBLAS round alike on x86-64 CPUs.

flexlib/_numerics.py says why.  These tests check the mechanism: the pins are what the README's
commands export, they take effect in a fresh process, and on a CPU with AVX-512 they change how
NumPy rounds (the reason they exist); and the ways in without the scripts' environment
(``import flexlib``, ``python -m flexlib``, the Jupyter kernel "flexlib") run pinned too.  That the pinned runs reproduce the fingerprints recorded on
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
    unpinned = _in_fresh_process(env, "import numpy\n" + code)     # before flexlib sets the pins
    pinned = _in_fresh_process({**env, **_numerics.pins()}, code)
    assert unpinned != pinned


def test_numerics_id_is_stable_within_an_environment():
    code = "from flexlib._numerics import numerics_id; print(numerics_id())"
    assert _in_fresh_process(dict(os.environ), code) == _numerics.numerics_id()


# ---------------------------------------------------------------------- outside the scripts
# The README's other ways in (python -m flexlib, JupyterLab, a script that imports flexlib) must
# give the numbers of the scripts without their environment.  Each check starts a process with
# the pins removed from its environment.

def _scrubbed():
    return {k: v for k, v in os.environ.items()
            if k not in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "FLEXLIB_NUMERICS_FROM")}


_ID = "from flexlib._numerics import numerics_id; print(numerics_id())"


def _pinned_id():
    """numerics_id of a process started with the pins in its environment (the scripts' way)."""
    return _in_fresh_process({**_scrubbed(), **_numerics.pins()}, _ID)


def _pinned_fingerprints():
    import json
    path = ROOT / "tests" / "data" / "reference_runs" / f"numerics-{_pinned_id()}.json"
    if not path.exists():
        pytest.skip(f"no fingerprints recorded under the pinned numerics of this CPU ({path.name})")
    return json.loads(path.read_text())


def test_import_flexlib_sets_the_pins_before_numpy_loads():
    out = _in_fresh_process(_scrubbed(), "import os, flexlib\n" + _ID + "\n"
                            "print(all(os.environ.get(k) == v for k, v in "
                            "flexlib._numerics.pins().items()))").splitlines()
    assert out == [_pinned_id(), "True"]


@pytest.mark.skipif("NPY_DISABLE_CPU_FEATURES" not in _numerics.pins(),
                    reason="this CPU has no AVX-512: NumPy rounds the same either way")
def test_numpy_loaded_first_without_the_pins_gives_a_warning():
    out = subprocess.run([sys.executable, "-W", "always", "-c", "import numpy, flexlib"],
                         env=_scrubbed(), capture_output=True, text=True, timeout=120)
    assert "RuntimeWarning" in out.stderr and "before NumPy" in out.stderr


@pytest.mark.parametrize("numpy_first", [False, True], ids=["plain", "numpy-loaded-first"])
def test_the_cli_without_the_scripts_environment_gives_the_recorded_numbers(tmp_path, numpy_first):
    """``python -m flexlib simulate`` started outside scripts/*.sh gives the velocity jumps of
    the fingerprint recorded under the pins (tests/data/reference_runs; on an AVX-512 CPU the
    unpinned frictionless run makes 59 jumps and 8 impacts, the pinned one 67 and 9).  With
    ``numpy_first`` a sitecustomize loads NumPy before flexlib, so the CLI has to start itself
    again with the pins."""
    import json
    ref = _pinned_fingerprints()["frictionless"]
    env = _scrubbed()
    if numpy_first:
        (tmp_path / "sitecustomize.py").write_text("import numpy\n")
        env["PYTHONPATH"] = str(tmp_path) + os.pathsep + env.get("PYTHONPATH", "")
    out = tmp_path / "run.json"
    run = subprocess.run([sys.executable, "-m", "flexlib", "simulate", "--case", "3.2", "--model",
                          "frictionless", "--t-end", str(ref["t_end"]), "--json", str(out),
                          "--quiet"], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "note" not in run.stderr and "Warning" not in run.stderr, run.stderr
    summary = json.loads(out.read_text())
    assert summary["stats"]["n_jumps"] == len(ref["jump_t"])
    starts = [im["t_start"] for im in summary["impacts"]]
    for t in starts:                       # every impact starts with one of the recorded jumps
        assert min(abs(t - tj) for tj in ref["jump_t"]) <= 1e-12 * t


def test_the_flexlib_kernel_runs_pinned(tmp_path):
    """The Jupyter kernel "flexlib" (what the notebooks name and JupyterLab starts) loads NumPy
    with the pins even when the notebook imports NumPy before flexlib and JupyterLab was started
    without them."""
    jupyter_client = pytest.importorskip("jupyter_client")
    pytest.importorskip("ipykernel")
    from jupyter_client.kernelspec import KernelSpecManager
    path = _numerics.write_kernelspec(prefix=str(tmp_path))
    ksm = KernelSpecManager(kernel_dirs=[str(tmp_path / "share" / "jupyter" / "kernels")])
    km = jupyter_client.KernelManager(kernel_name=_numerics.KERNEL_NAME, kernel_spec_manager=ksm)
    assert km.kernel_spec.resource_dir == str(Path(path).parent)
    km.start_kernel(env=_scrubbed())
    kc = km.client()
    try:
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        text = []
        kc.execute_interactive("import numpy\n" + _ID, timeout=60,
                               output_hook=lambda m: text.append(m["content"].get("text", "")))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    assert "".join(text).strip() == _pinned_id()


def test_the_scripts_install_the_kernel_into_the_venv():
    if os.environ.get("FLEXLIB_NUMERICS_FROM") != "scripts/_venv.sh":
        pytest.skip("not run through bash scripts/test.sh, which installs the kernel")
    import json
    spec = Path(sys.prefix) / "share" / "jupyter" / "kernels" / _numerics.KERNEL_NAME / "kernel.json"
    assert json.loads(spec.read_text()) == json.loads(json.dumps(_numerics.kernelspec()))


# ---------------------------------------------------------------------- NumPy loaded first
# A sitecustomize (or usercustomize) runs before any script and may import NumPy, or change the
# variables.  `python -m flexlib` starts itself again at most once, keeps a value the user set,
# and its note says what is actually the case.

_SITE = {
    # imports NumPy only: the new process gets the pins before NumPy loads and runs pinned
    "imports-numpy": "import numpy\n",
    # removes the variables again in the new process too: it must not start a third one
    "removes-the-variables": ("os.environ.pop('OPENBLAS_CORETYPE', None)\n"
                              "os.environ.pop('NPY_DISABLE_CPU_FEATURES', None)\nimport numpy\n"),
    # a value of its own: kept, so no new process (it would be unpinned again)
    "sets-another-coretype": "os.environ['OPENBLAS_CORETYPE'] = 'SkylakeX'\nimport numpy\n",
}


@pytest.mark.skipif(not _numerics.pins(), reason="this CPU needs no pins: nothing to start again")
@pytest.mark.parametrize("site", list(_SITE))
def test_the_cli_starts_itself_again_at_most_once(tmp_path, site):
    count = tmp_path / "starts"
    (tmp_path / "sitecustomize.py").write_text(
        f"import os\nwith open({str(count)!r}, 'a') as fh:\n    fh.write('x')\n" + _SITE[site])
    env = {**_scrubbed(), "PYTHONPATH": str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop(_numerics.REEXEC_GUARD, None)
    run = subprocess.run([sys.executable, "-m", "flexlib", "simulate", "--case", "3.2", "--model",
                          "frictionless", "--t-end", "0.01", "--quiet"],
                         env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    starts = len(count.read_text())
    if site == "imports-numpy":
        assert starts == 2 and "note" not in run.stderr, run.stderr
    elif site == "removes-the-variables":
        assert starts == 2, run.stderr
        assert "is not set" in run.stderr or "are not set" in run.stderr, run.stderr
        assert "started itself again" in run.stderr and "loaded before flexlib" in run.stderr
    else:
        assert starts == 1, run.stderr
        assert "OPENBLAS_CORETYPE='SkylakeX'" in run.stderr and "kept" in run.stderr, run.stderr
        assert "unset OPENBLAS_CORETYPE" in run.stderr
    assert _numerics.REEXEC_GUARD not in run.stderr


def _describe(monkeypatch, env, *, loaded_unpinned=False, active=None, reexecuted=False):
    for key in ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(_numerics, "pins", lambda: {"OPENBLAS_CORETYPE": "Haswell",
                                                    "NPY_DISABLE_CPU_FEATURES": _numerics.NUMPY_AVX512})
    monkeypatch.setattr(_numerics, "numpy_avx512_active", lambda: active)
    monkeypatch.setattr(_numerics, "LOADED_UNPINNED", loaded_unpinned)
    monkeypatch.setattr(_numerics, "REEXECUTED", reexecuted)
    return _numerics.describe_unpinned()


def test_the_note_says_what_is_actually_the_case(monkeypatch):
    """Not "the environment sets NPY_DISABLE_CPU_FEATURES=''" for an unset variable or when
    NumPy was loaded before flexlib: the note names what is unset, what has a value of its own,
    or that NumPy came first, and what to do."""
    pins = {"OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": _numerics.NUMPY_AVX512}
    assert _describe(monkeypatch, pins, active=[]) is None
    unset = _describe(monkeypatch, {"OPENBLAS_CORETYPE": "Haswell"}, loaded_unpinned=True,
                      active=["X86_V4"])
    assert "NPY_DISABLE_CPU_FEATURES is not set" in unset and "loaded before flexlib" in unset
    assert "sets NPY_DISABLE_CPU_FEATURES" not in unset and "=''" not in unset
    assert "set the variables before Python starts" in unset
    other = _describe(monkeypatch, {**pins, "OPENBLAS_CORETYPE": "SkylakeX"}, active=[])
    assert "OPENBLAS_CORETYPE='SkylakeX'" in other and "'Haswell'" in other
    assert "unset OPENBLAS_CORETYPE" in other and "not set" not in other and "loaded" not in other
    late = _describe(monkeypatch, pins, active=["X86_V4", "AVX512_ICL"])   # env right, NumPy not
    assert "NumPy still uses its AVX-512 code (X86_V4 AVX512_ICL)" in late
    assert "loaded before flexlib" in late and "not set" not in late
    again = _describe(monkeypatch, {}, loaded_unpinned=True, reexecuted=True)
    assert "OPENBLAS_CORETYPE and NPY_DISABLE_CPU_FEATURES are not set" in again
    assert "started itself again" in again


@pytest.mark.skipif("NPY_DISABLE_CPU_FEATURES" not in _numerics.pins(),
                    reason="this CPU has no AVX-512: NumPy rounds the same either way")
def test_pinned_asks_numpy_not_only_the_environment():
    """The names in NPY_DISABLE_CPU_FEATURES are NumPy's (renamed in NumPy 2.4): pinned() checks
    that the loaded NumPy reports its AVX-512 targets off, so a NumPy that does not know the
    names, or one loaded before the variables were set, is not taken for pinned."""
    code = ("import os, json{first}\nos.environ.update({pins!r})\nfrom flexlib import _numerics\n"
            "print(json.dumps([_numerics.pinned(), _numerics.numpy_avx512_active()]))")
    import json
    late = json.loads(_in_fresh_process(_scrubbed(), code.format(first=", numpy",
                                                                 pins=_numerics.pins())))
    assert late[0] is False and late[1], late      # environment right, NumPy loaded before it
    early = json.loads(_in_fresh_process(_scrubbed(), code.format(first="", pins=_numerics.pins())))
    assert early == [True, []]                     # set before NumPy loaded (with flexlib)
    loaded = _in_fresh_process({**_scrubbed(), **_numerics.pins()},
                               "import numpy\nfrom flexlib import _numerics\n"
                               "print(_numerics.numpy_avx512_active(), _numerics.pinned())")
    assert loaded == "[] True"
