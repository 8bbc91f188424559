"""Following a growing log (a file, or every log under a folder) as its writer appends to it.

:class:`Follower` looks at the files (their inode, size and modification time) and imports
those that changed since the last look, through :func:`explorer.ingest.imports.import_paths`:
a changed file is read again in one transaction that replaces its earlier version, so a file
that grew, was truncated or was replaced (a new inode) gives exactly what it holds now.

A torn last line waits: a file whose last byte is not a newline is being written, and is
not imported until the line is completed — or until it has stayed so for ``settle`` seconds
(a format whose files need not end with a newline, a JSON document written whole). A file
that changes while it is imported is simply due again at the next look.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from explorer import formats
from explorer.formats import LogFileError
from explorer.ingest.folders import walk
from explorer.ingest.imports import ImportReport, import_paths
from explorer.jobs import ProgressHook, StopHook

#: Seconds a file may end without a newline before it is imported as it is.
SETTLE = 2.0


class Follower:
    """What is due for import in a followed file or folder; :meth:`catch_up` imports it."""

    def __init__(self, path: str | os.PathLike, settle: float = SETTLE) -> None:
        self.path = Path(os.path.abspath(path))
        self.settle = settle
        self._seen: dict[Path, tuple[int, int, int]] = {}   # path -> (inode, size, mtime)
        self._torn_since: dict[Path, tuple[tuple[int, int, int], float]] = {}
        self._not_logs: dict[Path, tuple[int, int, int]] = {}

    def files(self) -> list[Path]:
        """The files followed: the file itself, or the files under the folder (sorted)."""
        if self.path.is_dir():
            return list(walk(self.path))
        return [self.path]

    def due(self, now: float | None = None) -> list[tuple[Path, tuple[int, int, int]]]:
        """The files changed since they were last imported, each with what it was seen as;
        a file ending in a torn line is left for a later look (``settle``)."""
        now = time.monotonic() if now is None else now
        out = []
        folder = self.path.is_dir()
        for path in self.files():
            try:
                st = path.stat()
            except OSError:
                continue   # gone between the listing and now: nothing to read
            seen = (st.st_ino, st.st_size, st.st_mtime_ns)
            if self._seen.get(path) == seen or self._not_logs.get(path) == seen:
                continue
            if folder and not _is_log(path):
                self._not_logs[path] = seen
                continue
            if _torn(path, st.st_size):
                since = self._torn_since.get(path)
                if since is None or since[0] != seen:
                    self._torn_since[path] = (seen, now)
                    continue
                if now - since[1] < self.settle:
                    continue
            self._torn_since.pop(path, None)
            out.append((path, seen))
        return out

    def catch_up(self, db, progress: ProgressHook | None = None,
                 should_stop: StopHook | None = None) -> ImportReport:
        """Import what is due (nothing when nothing is); the files imported (or failed) are
        not due again until they change."""
        due = self.due()
        if not due:
            return ImportReport()
        report = import_paths(db, [str(p) for p, _ in due], progress, should_stop)
        self._seen.update(due)
        return report


def _is_log(path: Path) -> bool:
    try:
        formats.detect(path)
    except (LogFileError, OSError):
        return False
    return True


def _torn(path: Path, size: int) -> bool:
    """Whether the file ends inside a line (its last byte is not a newline)."""
    if size == 0:
        return False
    try:
        with open(path, "rb") as fh:
            fh.seek(size - 1)
            return fh.read(1) not in (b"\n", b"")
    except OSError:
        return False
