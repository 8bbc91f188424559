"""Durable imports: which file an import was in the middle of when its process stopped.

Each file is imported in one transaction (:func:`explorer.ingest.imports.import_file`), so a process
killed in the middle of a file leaves the database as it was before that file: nothing of it,
every earlier file intact. What the rollback cannot tell is *which* file was lost. So
:func:`importing` records the file (committed, in the table ``imports_in_progress``) before its
transaction begins and forgets it once the import has ended — committed, failed, cancelled or
skipped as unchanged. A record still there when the database is opened again, with no complete
``files`` row written for its path since it was made, names a file whose import did not finish:
:attr:`explorer.store.db.Store.unfinished`, worded by :func:`unfinished_message`.

The files row of the import is what says it committed (it is written in the file's own
transaction), so a process stopped between the COMMIT and the forgetting still reads as
finished.

An import that *failed* (its reader crashed, the file could not be read) rolled back too, and
its process goes on to the next file: :func:`record_failure` keeps the file and the reason (in
the table ``import_failures``, made by :func:`importing` in any database that lacks it) until
the file imports, so a later ``audit --db`` names it (:func:`failed_imports`).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Protocol

import duckdb

from explorer.text_escape import visible


class Db(Protocol):
    """What these functions need of :class:`explorer.store.db.Db` (which calls them when it
    opens a database, so it is not imported here)."""

    def run(self, name: str, **params): ...


def import_key(path: str | os.PathLike) -> str:
    """The path as the ``files`` table stores it (absolute, not resolved)."""
    return str(Path(os.path.abspath(path)))


@contextmanager
def importing(db: Db, path: str | os.PathLike) -> Iterator[None]:
    """Around the import of one file, outside its transaction: on entry record (committed)
    that ``path`` is being imported; on exit forget it. ``db`` must have no transaction
    open on entry (the record has to be committed before the file's transaction starts)."""
    key = import_key(path)
    db.run("create_import_failures")   # a database made before failures were kept
    db.run("import_started", path=key, pid=os.getpid())
    try:
        yield
    except BaseException:
        # The import rolled back; a connection that cannot forget the record now leaves it
        # to be reported on the next open, which is true: the file is not in the database.
        try:
            db.run("import_ended", path=key)
        except duckdb.Error:
            pass
        raise
    db.run("import_ended", path=key)
    db.run("forget_import_failure", path=key)


def record_failure(db: Db, path: str | os.PathLike, reason: str) -> None:
    """Remember (committed) that the import of ``path`` failed and why; called after
    :func:`importing` ended, with no transaction open. A database that cannot take the
    record (its disk full) does not stop the batch: the failure is still told now."""
    try:
        db.run("create_import_failures")
        db.run("import_failed", path=import_key(path), reason=reason)
    except duckdb.InterruptException:
        raise
    except duckdb.Error:
        pass


def failed_imports(db: Db) -> list[tuple[str, str]]:
    """(path, reason) of the files whose last import failed and that have not imported
    since, oldest first."""
    db.run("create_import_failures")
    return [(row[0], row[1]) for row in db.run("failed_imports")]


def mark_started(db: Db, paths: list[str]) -> None:
    """Record files as being imported (in the caller's transaction): used when a database is
    rebuilt, so that a rebuild stopped half way names the files it did not get to."""
    for path in paths:
        db.run("import_started", path=import_key(path), pid=os.getpid())


def unfinished_imports(db: Db) -> list[str]:
    """The files whose import began and never committed, oldest first."""
    return [row[0] for row in db.run("unfinished_imports")]


def forget_finished(db: Db) -> None:
    """Drop the records of imports that did commit (stopped just after their COMMIT)."""
    db.run("forget_finished_imports")


def forget_unfinished(db: Db, path: str | os.PathLike) -> None:
    """Stop reporting ``path`` as unfinished (the user gave up on it)."""
    db.run("import_ended", path=import_key(path))


def unfinished_message(path: str) -> str:
    """What to tell the user about a file whose import did not finish."""
    return f"{visible(path)} did not finish importing (the process stopped); import it again"


def failed_message(reason: str) -> str:
    """What to tell the user about a file whose earlier import failed (after its path)."""
    return f"an earlier import failed ({reason}); fix the file and import it again"
