"""The README's JupyterLab command serves every image the notebooks show.

``jupyter lab notebooks/`` would make ``notebooks/`` the server's root, and then notebook 06's
``../figures/*.png`` lie outside it (HTTP 403).  This test takes the JupyterLab command from the
README, runs it from the repository root (plus a free port on 127.0.0.1, no token, no browser,
settings in a temporary folder), and fetches every image a notebook's Markdown links to, resolved
relative to the notebook, from ``/files/<path>``: each must answer 200 with an image content type.
Skipped when jupyter-server or JupyterLab is not installed.
"""
import importlib.util
import json
import posixpath
import re
import shlex
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from jupyter_helpers import jupyter_server

REPO = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"

pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("jupyter_server") is None
                       or importlib.util.find_spec("jupyterlab") is None,
                       reason="jupyter-server / JupyterLab not installed (the notebooks extra)"),
    pytest.mark.timeout(180),
]

MD_IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_IMAGE = re.compile(r"<img\b[^>]*?\bsrc\s*=\s*[\"']([^\"']+)[\"']", re.IGNORECASE)


def readme_lab_command():
    """The arguments after ``jupyter lab`` in the README's ```bash block that opens JupyterLab."""
    text = (REPO / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    lines = [ln.split("#")[0].strip() for b in blocks for ln in b.splitlines()]
    cmds = [ln for ln in lines if re.match(r"^(\.venv/bin/)?jupyter lab\b", ln)]
    assert len(cmds) == 1, f"expected one `jupyter lab` command in the README, found {cmds}"
    return shlex.split(cmds[0])[2:]


def notebook_images():
    """{(notebook, url path relative to the repository)} of every image in Markdown cells."""
    found = set()
    for nb_path in sorted((REPO / "notebooks").glob("*.ipynb")):
        nb = json.loads(nb_path.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            src = "".join(cell["source"])
            for ref in MD_IMAGE.findall(src) + HTML_IMAGE.findall(src):
                if re.match(r"^(https?:|data:|attachment:)", ref):
                    continue
                rel = posixpath.normpath(posixpath.join("notebooks", ref.split("#")[0].split("?")[0]))
                found.add((nb_path.name, rel))
    return sorted(found)


def test_the_notebooks_link_images():
    """Guards the test below against passing vacuously (notebook 06 shows the paper's figures)."""
    images = notebook_images()
    assert any(nb.startswith("06") for nb, _ in images)
    assert all(not rel.startswith("..") for _nb, rel in images), images


def test_readme_lab_command_serves_every_notebook_image(tmp_path):
    args = readme_lab_command()
    images = notebook_images()
    assert images
    with jupyter_server(["lab", *args], cwd=REPO, home=tmp_path / "jupyter",
                        log_path=ARTIFACTS / "images_lab.log") as base:
        bad = []
        # the root is the repository: notebooks/ and figures/ are both below it
        for folder in ("notebooks", "figures"):
            status, _ctype, body = _get(f"{base}/api/contents/{folder}?content=0")
            if status != 200 or json.loads(body)["type"] != "directory":
                bad.append(f"the server root has no folder {folder}/ (HTTP {status}): "
                           f"`jupyter lab {shlex.join(args)}` does not serve the repository")
        for nb, rel in images:
            # as the browser asks for it: from the notebook's page (a request without a referer
            # is refused when the token is off)
            status, ctype, body = _get(f"{base}/files/{urllib.request.pathname2url(rel)}",
                                       referer=f"{base}/lab/tree/notebooks/{nb}")
            if status != 200 or not ctype.startswith("image/") or not body:
                bad.append(f"{nb}: {rel} -> HTTP {status}, {ctype!r}, {len(body)} bytes")
        assert not bad, "the README's JupyterLab does not serve:\n" + "\n".join(bad)


def _get(url, referer=None):
    """(status, content type, body) of a GET; HTTP errors are returned, not raised."""
    req = urllib.request.Request(url, headers={"Referer": referer} if referer else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type", ""), b""
