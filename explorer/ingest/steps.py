"""One file's import as steps that report progress and can be stopped at any point: the
hash, the staging of its records, and each statement that then runs over the whole file.

Each step owns a share of the file's progress (0 to 1000); a statement runs watched
(explorer.store.db.run_watched), so a long one moves the bar with DuckDB's own progress and is
interrupted when the user stops, which rolls the file's transaction back.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb

import queries
from explorer.jobs import Cancelled, ProgressHook, StopHook
from explorer.store.db import Db, run_watched

#: Where each step ends, in thousandths of the file's progress (the duplicates' four
#: statements take 5 each after DEDUPLICATED; the commit takes the rest after REJECTED).
HASHED, STAGED, INSERTED, DETAILED, DEDUPLICATED, REJECTED = 50, 550, 750, 880, 940, 970


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

    def file_hash(self, files: list[Path] | None = None) -> str:
        """SHA-256 of the file's bytes (a file already imported with it is not read again),
        as the first step. ``files``: the files of a folder read whole, each hashed with
        its name and length before its bytes (a file renamed, moved or added changes it)."""
        report = self.hook(HASHED)
        whole = files is None
        files = [self.path] if whole else files
        size = max(sum(p.stat().st_size for p in files), 1)
        digest = hashlib.sha256()
        done = 0
        for path in files:
            if not whole:
                digest.update(f"{path.name}\0{path.stat().st_size}\0".encode())
            with open(path, "rb") as fh:
                while block := fh.read(8 * 1024 * 1024):
                    digest.update(block)
                    done += len(block)
                    report(done, size)
                    self.check()
        return digest.hexdigest()
