"""Writing a whole file so that a crash, a reader or a full disk never sees it half-written:
the one home for every gen/ script that writes a file."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


class FileWriteError(Exception):
    """A file could not be written; the message names the path and the reason."""


def write_text_atomically(path: Path, text: str) -> None:
    """write_bytes_atomically of text in UTF-8."""
    write_bytes_atomically(path, text.encode("utf-8"))


def write_bytes_atomically(path: Path, data: bytes) -> None:
    """Replaces path with data: a temporary file beside it is written, flushed, synced and
    renamed over path, so path holds its old contents or the new ones, never a mix. The new
    file gets mode 0644 less the umask (mkstemp alone would leave 0600). Raises FileWriteError
    naming the path; the temporary file is removed and an existing file is left untouched."""
    path = Path(path)
    folder = path.parent
    if path.is_dir():
        raise FileWriteError(f"{path}: is a directory, not a file")
    if not folder.is_dir():
        raise FileWriteError(f"{path}: its folder {folder} does not exist")
    if path.exists() and not path.is_file():
        raise FileWriteError(f"{path}: exists and is not a regular file")
    try:
        fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise FileWriteError(f"{path}: cannot create a temporary file in {folder}: {e.strerror}") from e
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o644 & ~umask)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except OSError as e:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise FileWriteError(f"{path}: cannot write: {e.strerror or e}") from e
