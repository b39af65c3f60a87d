"""Output files written whole or not at all: each beside its target, renamed when all are written.

A command (or a study) opens one :class:`Outputs` around its work::

    with Outputs() as out:                      # nothing appears until the block ends well
        out.check("--json", "run.json")         # before the run: a ValueError if it cannot be written
        res = simulate(...)
        out.write("run.json", lambda p: p.write_text(text), "--json")
        out.write("run.npz", res.save, "--save")

Every :meth:`Outputs.write` writes a temporary file in the target's folder (a hidden name ending in
the target's suffix, so writers that read the format from the suffix keep working); when the block
ends without an exception, :meth:`Outputs.commit` renames them all onto their targets
(``os.replace``, atomic on one file system).  A writer that fails, or an exception anywhere in the
block, removes every temporary file: no target is created or changed, and no partial file is left.
A failing writer raises :class:`OutputError` (one line: what, where and why).

:func:`write` and :func:`write_text` join the innermost open :class:`Outputs` of the calling context
(so a long job such as the figures command commits all its files at its end, without passing the
set through every function), or, with none open, write their one file the same way on their own.
"""
from __future__ import annotations

import contextvars
import os
import tempfile
from pathlib import Path

__all__ = ["Outputs", "OutputError", "write", "write_text", "npz_path"]

# the innermost open set of outputs of this context (a with-block), or None
_OPEN: contextvars.ContextVar = contextvars.ContextVar("flexlib_outputs", default=None)


class OutputError(Exception):
    """An output that could not be written (an unwritable path, a failing serialisation); no
    output of its set was written.  The command line reports it in one line and exits 1."""


def npz_path(path) -> Path:
    """``path`` as NumPy's ``savez`` names it: with ``.npz`` added unless it already ends so."""
    p = Path(path).expanduser()
    return p if str(p).endswith(".npz") else p.with_name(p.name + ".npz")


def _name(label, path) -> str:
    return f"{label} {str(path)!r}" if label else repr(str(path))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class Outputs:
    """A set of output files committed together (module docstring).  Use it as a context manager;
    entered inside another open set, it joins that one (its files are committed with the outer
    set's, at the end of the outer block), unless ``join=False`` (a cache, committed at the end of
    its own block)."""

    def __init__(self, *, join=True):
        self._files = []            # (label, target, temporary file)
        self._join = join           # False: commit at the end of its own block (a cache)
        self._outer = None
        self._token = None

    # ------------------------------------------------------------------ before the run
    @staticmethod
    def check(label, path) -> Path:
        """The target ``path`` (``~`` expanded), checked before the run: its folder exists, it is
        not a folder, and a file can be created in that folder; else a ValueError naming
        ``label`` (the option) and the path."""
        p = Path(path).expanduser()
        folder = p.resolve().parent
        if not folder.is_dir():
            parent = str(Path(path).parent)
            raise ValueError(f"{_name(label, path)}: {parent!r} is a file, not a directory"
                             if folder.exists() else
                             f"{_name(label, path)}: the directory {parent!r} does not exist")
        if p.is_dir():
            raise ValueError(f"{_name(label, path)}: is a directory, not a file name")
        try:
            fd, probe = tempfile.mkstemp(dir=folder, prefix=f".{p.name}.", suffix=".probe")
        except OSError as err:
            raise ValueError(f"{_name(label, path)}: cannot create a file in "
                             f"{str(folder)!r}: {err.strerror or err}") from None
        os.close(fd)
        os.unlink(probe)
        return p

    # ------------------------------------------------------------------ after the run
    def write(self, path, writer, label=None) -> Path:
        """Call ``writer(tmp)`` on a new temporary file beside ``path`` and keep it for
        :meth:`commit`.  Any exception of the writer (or of creating the file) removes the
        temporary file and raises :class:`OutputError` naming ``label``, ``path`` and the cause.
        Returns the target's path."""
        if self._outer is not None:     # joined: the file is the outer set's
            return self._outer.write(path, writer, label)
        target = Path(path).expanduser()
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(dir=target.resolve().parent, prefix=f".{target.name}.",
                                       suffix=f".tmp{target.suffix}")
            os.close(fd)
            writer(Path(tmp))
        except Exception as err:        # any failure of a serialisation, not only OSError
            if tmp is not None:
                _remove(tmp)
            text = str(err).splitlines()[0] if str(err) else type(err).__name__
            why = getattr(err, "strerror", None) or text
            raise OutputError(f"cannot write {_name(label, path)}: {why}") from err
        self._files.append((label, target, Path(tmp)))
        return target

    def commit(self):
        """Rename every temporary file onto its target (in the order written).  If a rename
        fails, the targets already renamed in this commit are removed and the rest discarded,
        and :class:`OutputError` says which one failed."""
        mode = 0o666 & ~_umask()        # mkstemp makes 0600 files; outputs get the usual mode
        done = []
        try:
            for label, target, tmp in self._files:
                os.chmod(tmp, mode)
                os.replace(tmp, target)
                done.append(target)
        except OSError as err:
            for t in done:
                _remove(t)
            self.discard()
            raise OutputError(f"cannot write {_name(label, target)}: {err.strerror or err}") from None
        self._files = []

    def discard(self):
        """Remove every temporary file not yet committed."""
        for _label, _target, tmp in self._files:
            _remove(tmp)
        self._files = []

    @property
    def pending(self) -> list:
        """The targets written and not yet committed."""
        if self._outer is not None:
            return self._outer.pending
        return [target for _label, target, _tmp in self._files]

    # ------------------------------------------------------------------ the with-block
    def __enter__(self):
        self._outer = _OPEN.get() if self._join else None
        self._token = _OPEN.set(self)
        return self

    def __exit__(self, kind, err, tb):
        _OPEN.reset(self._token)
        if kind is not None:
            self.discard()
            return False
        if self._outer is None:         # joined: the outer set commits its files
            self.commit()
        return False


def _remove(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def write(path, writer, label=None) -> Path:
    """Write one output with ``writer(tmp)`` (:meth:`Outputs.write`) in the innermost open
    :class:`Outputs` of this context, or, with none open, as a set of one file committed now."""
    current = _OPEN.get()
    if current is not None:
        return current.write(path, writer, label)
    with Outputs() as out:
        return out.write(path, writer, label)


def write_text(path, text: str, label=None) -> Path:
    """Write ``text`` to ``path`` through :func:`write`."""
    return write(path, lambda p: p.write_text(text), label)
