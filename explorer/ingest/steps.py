"""One file's import as steps that report progress and can be stopped at any point: the
hash, the staging of its records, and each statement that then runs over the whole file.

Each step owns a share of the file's progress (0 to 1000); a statement runs watched
(explorer.store.db.run_watched), so a long one moves the bar with DuckDB's own progress and is
interrupted when the user stops, which rolls the file's transaction back.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

import duckdb

import queries
from explorer.jobs import Cancelled, ProgressHook, StopHook
from explorer.store.db import Db, run_watched

#: Where each step ends, in thousandths of the file's progress (the copies are found
#: before the rows are inserted; the two statements that record them take 5 each after
#: DETAILED; the commit takes the rest after REJECTED).
HASHED, STAGED, DEDUPLICATED, INSERTED, DETAILED, REJECTED = 50, 550, 610, 800, 930, 970


class Steps:
    """The progress and stop flag of one file's import, shared by its steps."""

    def __init__(self, path: Path, progress: ProgressHook | None,
                 should_stop: StopHook | None) -> None:
        self.path = path
        self.progress = progress
        self.should_stop = should_stop
        self.at = 0

    def check(self) -> None:
        """Raise :class:`Cancelled` once the user asked to stop."""
        if self.should_stop and self.should_stop():
            raise Cancelled(str(self.path))

    def hook(self, end: int) -> ProgressHook:
        """A progress(done, total) for the step from here to ``end`` (of 1000)."""
        start = self.at
        self.at = end

        def report(done: int, total: int) -> None:
            if self.progress:
                self.progress(start + (end - start) * min(done, total) // max(total, 1), 1000)
        return report

    def run(self, db: Db, end: int, name: str, fragments: dict | None = None, **params) -> None:
        """Run the statement ``name`` watched, as the step up to ``end``."""
        sql = queries.render(name, **(fragments or {}))
        try:
            run_watched(db, sql, params, self.hook(end), self.should_stop)
        except duckdb.InterruptException:
            self.check()
            raise
        self.check()

    def hash_meanwhile(self, files: list[Path] | None = None) -> Hashing:
        """:meth:`file_hash` in a thread of its own, while the file is read (its share of
        the progress is passed at once); ``result()`` waits for it."""
        self.hook(HASHED)(1, 1)
        return Hashing(self.path if files is None else files)

    def file_hash(self, files: list[Path] | None = None) -> str:
        """SHA-256 of the file's bytes (a file already imported with it is not read again),
        as the first step. ``files``: the files of a folder read whole, each hashed with
        its name and length before its bytes (a file renamed, moved or added changes it)."""
        report = self.hook(HASHED)
        return file_hash(self.path if files is None else files, report, self.check)


def file_hash(files: Path | list[Path], report: ProgressHook | None = None,
              check: Callable[[], None] | None = None) -> str:
    """SHA-256 of a file's bytes, or of a folder's ``files`` each with its name and length
    before its bytes; ``check`` raises to stop."""
    whole = isinstance(files, Path)
    files = [files] if whole else files
    size = max(sum(p.stat().st_size for p in files), 1)
    digest = hashlib.sha256()
    done = 0
    for path in files:
        if not whole:
            digest.update(f"{path.name}\0{path.stat().st_size}\0".encode())
        with open(path, "rb") as fh:
            while block := fh.read(8 * 1024 * 1024):
                digest.update(block)   # (hashlib lets go of the interpreter meanwhile)
                done += len(block)
                if report:
                    report(done, size)
                if check:
                    check()
    return digest.hexdigest()


class Hashing:
    """A file's hash worked out in a thread (see :meth:`Steps.hash_meanwhile`)."""

    def __init__(self, files: Path | list[Path]) -> None:
        self._stop = threading.Event()
        self._future: Future[str] = Future()
        threading.Thread(target=self._run, args=(files,), name="import-hash",
                         daemon=True).start()

    def _run(self, files: Path | list[Path]) -> None:
        try:
            self._future.set_result(file_hash(files, check=self._check))
        except BaseException as exc:  # noqa: BLE001 (raised again by result())
            self._future.set_exception(exc)

    def _check(self) -> None:
        if self._stop.is_set():
            raise Cancelled("the hash is not needed")

    def result(self) -> str:
        """The hash, once worked out (what the thread raised is raised here)."""
        return self._future.result()

    def cancel(self) -> None:
        """Stop the thread if it is still hashing (the import stopped or failed)."""
        self._stop.set()
