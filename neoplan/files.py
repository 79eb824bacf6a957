"""Files written whole or not at all: a temporary file beside the target, renamed into place.

A full disk, a killed process or a bad path never leaves a truncated workbook or scenario behind: the target
keeps its old content (or stays absent) until the new one is complete. Take-away files are named after the scenario
(:func:`slug`).
"""

from __future__ import annotations

import os
import re
import tempfile
from contextlib import suppress
from pathlib import Path


def write_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and an atomic rename; returns the path.

    On any error the temporary file is removed and the error propagates (``OSError`` for the disk or the path).
    """
    path = Path(path)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temp)
        raise
    return path


def out_folder(text: str | Path) -> Path:
    """``text`` as an output folder, refused (``ValueError`` with a one-line reason) when empty or an existing file.

    An empty ``--out`` would otherwise mean the current folder.
    """
    if not str(text).strip():
        raise ValueError("must name a folder, got an empty path")
    path = Path(text)
    try:
        if path.exists() and not path.is_dir():
            raise ValueError("is a file, not a folder")
    except OSError as exc:  # a name too long for the file system, a loop of links, …
        raise ValueError(f"cannot be used ({exc.strerror or exc})") from None
    return path


def slug(name: str) -> str:
    """A file-name stem from a scenario name: ``Optimized (article's BoM)`` → ``optimized_article_s_bom``."""
    stem = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return stem[:60].rstrip("_") or "scenario"
