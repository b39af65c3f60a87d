"""A private Jupyter server for the tests that need one (test_browser.py, test_notebook_images.py).

:func:`jupyter_server` starts ``python -m jupyter <app> ...`` on a free port of 127.0.0.1, with the
token and password off, its own process group (``start_new_session``) and every Jupyter/IPython
settings folder in a temporary directory, waits for ``/api/status``, yields the base URL and stops
the server (and any kernel it started) when the ``with`` block ends, even on failure.
"""
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _proc_table():
    """{pid: (ppid, start time)} of every live process, read from /proc."""
    table = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()    # after "pid (comm) "
        table[int(d.name)] = (int(fields[1]), fields[19])
    return table


def _descendants(pid):
    """(pid, start time) of every descendant of ``pid`` (the kernel runs in its own session)."""
    table, found, todo = _proc_table(), [], [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, start) in table.items():
            if ppid == parent:
                found.append((child, start))
                todo.append(child)
    return found


def _kill_if_same(pid, start, sig):
    """Signal ``pid`` only if it is still the process that started at ``start`` (no pid reuse)."""
    entry = _proc_table().get(pid)
    if entry is not None and entry[1] == start:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def http_json(method, url, timeout=5):
    req = urllib.request.Request(url, method=method)
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        body = resp.read()
    return json.loads(body) if body else None


def isolated_env(home: Path) -> dict:
    """The environment of a private server: every settings folder under ``home``."""
    env = dict(os.environ)
    env.update({
        "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_DATA_DIR": str(home / "data"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"), "IPYTHONDIR": str(home / "ipython"),
        "MPLCONFIGDIR": str(home / "mpl"),
        "PATH": str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", ""),
    })
    return env


@contextlib.contextmanager
def jupyter_server(app_args, *, cwd, home: Path, log_path: Path, timeout=60):
    """Run ``python -m jupyter *app_args`` (e.g. ``["lab", "--ServerApp.root_dir=..."]``) privately.

    Adds ``--no-browser``, the port, ``--ServerApp.ip=127.0.0.1``, no token, no password, no
    terminals and ``--allow-root``; yields the base URL.  Stopped on exit: kernels are shut down
    through the API, the server's process group gets SIGTERM (then SIGKILL), and any descendant
    left over (a kernel runs in a session of its own) is killed by pid."""
    env = isolated_env(home)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", *app_args, "--no-browser", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
         "--ServerApp.terminals_enabled=False", "--allow-root"],
        cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if server.poll() is not None:
                pytest.fail(f"jupyter {app_args[0]} exited with {server.returncode}:\n"
                            f"{log_path.read_text()[-3000:]}")
            try:
                http_json("GET", f"{base}/api/status", timeout=2)
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    pytest.fail(f"jupyter {app_args[0]} did not answer /api/status in {timeout} s:\n"
                                f"{log_path.read_text()[-3000:]}")
                time.sleep(0.25)
        yield base
    finally:
        children = _descendants(server.pid)
        try:
            for k in http_json("GET", f"{base}/api/kernels") or []:
                http_json("DELETE", f"{base}/api/kernels/{k['id']}", timeout=10)
        except Exception:           # the server may be dead already; the kills below still run
            pass
        try:
            os.killpg(server.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=10)
        for pid, start in children:
            _kill_if_same(pid, start, signal.SIGKILL)
        log.close()
