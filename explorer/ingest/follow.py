"""Following a growing log (a file, or every log under a folder) as its writer appends to it.

:class:`Follower` looks at the files (their inode, size and modification time) and imports
those that changed since the last look. A file that grew, in a format whose reader
``FOLLOWS`` (Claude Code, canonical JSON Lines: explorer.formats.reader), has only its new
complete lines read (:func:`explorer.ingest.appending.append_lines`: the same rows as a
whole import would give); any other change — a file truncated or replaced (a new inode, its
first bytes or the last ones read changed), another format, a gzip file — has the file
read again whole (:func:`explorer.ingest.imports.import_paths`) in one transaction that
replaces its earlier version, so it gives exactly what the file holds now.

A torn last line waits: a file whose last byte is not a newline is being written; its
complete lines are imported, the torn one not until it is completed — or until it has
stayed so for ``settle`` seconds (a format whose files need not end with a newline, a JSON
document written whole), when the file is read whole. A file that changes while it is
imported is simply due again at the next look.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

from explorer import formats
from explorer.formats import LogFileError
from explorer.formats.lines import Span, is_gzip
from explorer.formats.reader import Reader, Resume
from explorer.ingest.appending import WholeFile, append_lines
from explorer.ingest.folders import walk
from explorer.ingest.imports import ImportReport, import_paths
from explorer.jobs import ProgressHook, StopHook

#: Seconds a file may end without a newline before it is imported as it is.
SETTLE = 2.0
#: Bytes at a read file's start, and before where its reading stopped, looked at again to
#: tell a file that grew from one rewritten.
CHECKED = 4096


@dataclass
class _Place:
    """How far a file was read: its first ``offset`` bytes (ending with a line end), the
    next line's number, the SHA-256 of those bytes so far, what the store calls the file,
    its reader and the reader's state (explorer.formats.reader.Resume)."""

    inode: int
    offset: int
    line: int
    head: bytes
    tail: bytes
    hasher: hashlib._Hash
    file_id: int
    reader: Reader
    state: object = None

    def grown(self, path: Path, inode: int, end: int) -> bool:
        """Whether the file is the one read, with complete lines added up to ``end``."""
        if inode != self.inode or end <= self.offset:
            return False
        try:
            with open(path, "rb") as fh:
                head = fh.read(len(self.head))
                fh.seek(self.offset - len(self.tail))
                tail = fh.read(len(self.tail))
        except OSError:
            return False
        return head == self.head and tail == self.tail


class Follower:
    """What is due for import in a followed file or folder; :meth:`catch_up` imports it."""

    def __init__(self, path: str | os.PathLike, settle: float = SETTLE) -> None:
        self.path = Path(os.path.abspath(path))
        self.settle = settle
        self._seen: dict[Path, tuple[int, int, int]] = {}   # path -> (inode, size, mtime)
        self._torn_since: dict[Path, tuple[tuple[int, int, int], float]] = {}
        self._not_logs: dict[Path, tuple[int, int, int]] = {}
        self._places: dict[Path, _Place | None] = {}   # how far each file was read

    def files(self) -> list[Path]:
        """The files followed: the file itself, or the files under the folder (sorted)."""
        if self.path.is_dir():
            return list(walk(self.path))
        return [self.path]

    def due(self, now: float | None = None) -> list[tuple[Path, tuple[int, int, int]]]:
        """The files changed since they were last imported, each with what it was seen as;
        a file ending in a torn line is left for a later look (``settle``), unless lines
        were completed after where its reading stopped."""
        return [(path, seen) for path, seen, _ in self._due(now)]

    def _due(self, now: float | None = None) -> list[tuple[Path, tuple[int, int, int], bool]]:
        """:meth:`due`, each file with whether it is read as it is (a torn line settled)."""
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
                    if self._completed(path, st) is not None:
                        out.append((path, seen, False))   # its complete lines now
                    continue
                if now - since[1] < self.settle:
                    continue
                self._torn_since.pop(path, None)
                out.append((path, seen, True))
                continue
            self._torn_since.pop(path, None)
            out.append((path, seen, False))
        return out

    def _completed(self, path: Path, st: os.stat_result) -> int | None:
        """Where the complete lines of a file read up to a line end and grown since end,
        when they go past it (None otherwise)."""
        place = self._places.get(path)
        if place is None or st.st_ino != place.inode or st.st_size <= place.offset:
            return None
        end = _complete_end(path, st.st_size, place.offset)
        return end if end > place.offset else None

    def catch_up(self, db, progress: ProgressHook | None = None,
                 should_stop: StopHook | None = None) -> ImportReport:
        """Import what is due (nothing when nothing is); the files imported (or failed) are
        not due again until they change. A file that grew has only its new complete lines
        read when its reader can (:func:`explorer.ingest.appending.append_lines`)."""
        report, whole = ImportReport(), []
        for path, seen, settled in self._due():
            appended = None if settled else self._append(db, path, seen, report,
                                                         progress, should_stop)
            if appended is None:
                whole.append((path, seen))
            elif appended:
                self._seen[path] = seen
        if whole:
            done = import_paths(db, [str(p) for p, _ in whole], progress, should_stop)
            report.files += done.files
            report.errors += done.errors
            report.not_logs += done.not_logs
            for path, seen in whole:
                self._seen[path] = seen
                self._places[path] = _place_after(db, path, seen[0])
        return report

    def _append(self, db, path: Path, seen: tuple[int, int, int], report: ImportReport,
                progress, should_stop) -> bool | None:
        """Import the new complete lines of a file that grew: whether the file was read to
        its end (False: a torn line is left), None when it is to be read whole."""
        place = self._places.get(path)
        if place is None:
            return None
        end = _complete_end(path, seen[1], place.offset)
        if not place.grown(path, seen[0], end):
            return None
        try:
            with open(path, "rb") as fh:
                fh.seek(place.offset)
                new = fh.read(end - place.offset)
            if len(new) != end - place.offset:
                return None
            hasher = place.hasher.copy()
            hasher.update(new)
            resume = Resume(Span(place.offset, place.line, end), place.state)
            report.files.append(append_lines(
                db, path, place.reader, resume, place.file_id,
                (place.hasher.hexdigest(), hasher.hexdigest()), progress, should_stop))
        except (WholeFile, OSError):
            self._places.pop(path, None)
            return None
        except LogFileError as exc:
            self._places.pop(path, None)
            report.errors.append(exc)
            return True
        except BaseException:   # a stop: the reader's state may be part-way; read whole next
            self._places.pop(path, None)
            raise
        place.tail = (place.tail + new)[-CHECKED:]
        place.offset, place.line, place.hasher = end, place.line + new.count(b"\n"), hasher
        place.state = resume.state
        return end == seen[1]


def _place_after(db, path: Path, inode: int) -> _Place | None:
    """Where a file just imported whole was read to, when its reader can go on from there:
    the bytes the store's digest is of, ending with a line end (None otherwise)."""
    try:
        reader = formats.detect(path)
        if not getattr(reader, "FOLLOWS", False) or is_gzip(path):
            return None
        rows = db.frame("file_by_path", path=str(path)).to_dicts()
        if not rows or rows[0]["status"] != "complete":
            return None
        size = rows[0]["size"]
        with open(path, "rb") as fh:
            data = fh.read(size)
    except (LogFileError, OSError):
        return None
    if len(data) != size or not data.endswith(b"\n"):
        return None
    hasher = hashlib.sha256(data)
    if hasher.hexdigest() != rows[0]["sha256"]:
        return None   # the file changed while it was imported: read whole next time
    return _Place(inode, size, data.count(b"\n") + 1, data[:CHECKED], data[-CHECKED:],
                  hasher, rows[0]["file_id"], reader)


def _complete_end(path: Path, size: int, start: int) -> int:
    """Where the file's complete lines end (after its last line end, looked for back from
    ``size`` to ``start``); ``start`` when there is none after it."""
    try:
        with open(path, "rb") as fh:
            pos = size
            while pos > start:
                block = max(start, pos - 64 * 1024)
                fh.seek(block)
                data = fh.read(pos - block)
                nl = data.rfind(b"\n")
                if nl >= 0:
                    return block + nl + 1
                pos = block
    except OSError:
        pass
    return start


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
