"""Test-suite options shared by every test module.

* ``slow``: long studies. Skipped unless ``--runslow`` is given or ``FLEXLIB_RUNSLOW=1``;
  ``.ci/run`` runs them after the main suite with ``pytest tests --runslow -m slow``.
* ``browser``: the real-browser JupyterLab test. Skipped when Playwright or Debian's
  ``/usr/bin/chromium`` is missing, unless ``FLEXLIB_REQUIRE_BROWSER=1`` (set by ``.ci/run``),
  in which case a missing browser is a failure, so CI cannot pass by skipping it.
"""
import importlib.util
import os
import shutil

import pytest

SLOW_REASON = "slow study: run with --runslow (.ci/run does)"
CHROMIUM = "/usr/bin/chromium"


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False,
                     help="also run tests marked slow (same as FLEXLIB_RUNSLOW=1)")


def _env_flag(name):
    return os.environ.get(name, "").strip() not in ("", "0")


def _runslow(config):
    return config.getoption("--runslow") or _env_flag("FLEXLIB_RUNSLOW")


def browser_missing():
    """Why the browser test cannot run here, or None if it can."""
    if importlib.util.find_spec("playwright") is None:
        return "Playwright is not installed (pip install -e '.[browser]'; never `playwright install`)"
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        return f"Debian chromium not found at {CHROMIUM} (apt-get install -y chromium)"
    return None


def pytest_collection_modifyitems(config, items):
    if _runslow(config):
        return
    skip_slow = pytest.mark.skip(reason=SLOW_REASON)
    for item in items:
        if item.get_closest_marker("slow") is not None:
            item.add_marker(skip_slow)


def pytest_runtest_setup(item):
    if item.get_closest_marker("browser") is None:
        return
    reason = browser_missing()
    if reason is None:
        return
    if _env_flag("FLEXLIB_REQUIRE_BROWSER"):
        pytest.fail(f"FLEXLIB_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(reason)
