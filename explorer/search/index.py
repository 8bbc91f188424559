"""The corpus search's index, kept in step with the events: built for the files it does not
cover yet (on the first search after an import), forgotten for the files gone or changed.

Three tables of our own in the database (never the user's files): ``search_terms`` (the
vocabulary), ``search_postings`` (word, event) and ``search_files`` (the files covered, as
they were: digest, import positions, events). A file is indexed in batches of
:data:`BATCH` import positions, each batch a transaction of its own: a stopped build keeps
the batches done and goes on from there next time; DuckDB's memory is bounded meanwhile
(:data:`MEMORY`). One build runs at a time in this process (:data:`BUILDING`). An index
made to another :data:`FORMAT` (what its terms are) is dropped and made anew.
"""

from __future__ import annotations

import threading

from explorer.jobs import ProgressHook, StopHook, check
from explorer.search.words import FOLD, TERM
from explorer.store.db import Db, bounded_memory
from explorer.store.transaction import transaction

#: Import positions indexed in one batch (a transaction).
BATCH = 50_000
#: The memory DuckDB may use while the index is built (past it, it spills to disk).
MEMORY = 1024 * 2**20
#: One build at a time: a second search waits, then finds the index in step.
BUILDING = threading.Lock()
#: The meta key of the events' version the index was last brought in step at.
VERSION_KEY = "search_index_version"
#: What the index's terms are (explorer.search.words.TERM): "2", words and symbol runs.
FORMAT = "2"
#: The meta key of the format the index was made to.
FORMAT_KEY = "search_index_format"
_CREATE = ("search_index_create_terms", "search_index_create_postings",
           "search_index_create_files")
_DROP = ("search_index_drop_postings", "search_index_drop_terms", "search_index_drop_files",
         "search_index_forget_version")


def _stale(db: Db) -> tuple[list[tuple], list[tuple]]:
    """The files the index covers that are gone or changed, and the files to index (each
    with where to start)."""
    now = {row[0]: row[1:] for row in db.run("search_index_files_now")}
    kept = {row[0]: row[1:] for row in db.run("search_index_files_kept")}
    gone = [(fid, *row) for fid, row in kept.items() if now.get(fid) != row[:4]]
    todo = []
    for fid, (sha, low, high, events) in now.items():
        row = kept.get(fid)
        start = row[4] + 1 if row is not None and row[:4] == (sha, low, high, events) else low
        if start <= high:
            todo.append((fid, sha, low, high, events, start))
    return gone, todo


def pending(db: Db) -> int:
    """How many import positions the index does not cover yet, plus the files it must
    forget (0: it is in step)."""
    if not db.one("search_index_in_step", format=FORMAT)["same_format"]:
        now = db.run("search_index_files_now")
        return sum(high - low + 1 for _fid, _sha, low, high, _events in now)
    for name in _CREATE:
        db.run(name)
    gone, todo = _stale(db)
    return sum(high - start + 1 for _fid, _sha, _low, high, _events, start in todo) + len(gone)


def ensure(db: Db, progress: ProgressHook | None = None,
           should_stop: StopHook | None = None) -> int:
    """Bring the index in step with the events; return the import positions indexed.
    ``progress(done, total)`` counts import positions; a stop keeps the batches done and
    raises :class:`~explorer.jobs.Cancelled`."""
    with BUILDING:
        step = db.one("search_index_in_step", format=FORMAT)
        if step["in_step"]:
            return 0
        if not step["same_format"]:
            with transaction(db.con):
                for name in _DROP:
                    db.run(name)
                db.run("set_meta", key=FORMAT_KEY, value=FORMAT)
        for name in _CREATE:
            db.run(name)
        gone, todo = _stale(db)
        if not gone and not todo:
            db.run("set_meta", key=VERSION_KEY, value=step["version"])
            return 0
        total = sum(high - start + 1 for *_rest, high, _events, start in todo)
        done = 0
        with bounded_memory(db, MEMORY):
            if gone:
                with transaction(db.con):
                    for fid, _sha, low, high, _events, _done in gone:
                        db.run("search_index_forget_postings", low=low, high=high)
                        db.run("search_index_forget_file", file_id=fid)
            for fid, sha, low, high, events, start in todo:
                for first in range(start, high + 1, BATCH):
                    check(should_stop, "the search index")
                    if progress:
                        progress(done, total)
                    last = min(first + BATCH - 1, high)
                    _index_batch(db, (fid, sha, low, high, events), first, last)
                    done += last - first + 1
        db.run("set_meta", key=VERSION_KEY, value=step["version"])
        if progress:
            progress(done, total)
        return done


def _index_batch(db: Db, file: tuple, first: int, last: int) -> None:
    """Index the import positions ``first..last`` of ``file`` in one transaction."""
    fid, sha, low, high, events = file
    with transaction(db.con):
        db.run("search_index_batch", {"fold": FOLD}, low=first, high=last, term=TERM)
        db.run("search_index_add_terms")
        db.run("search_index_add_postings")
        db.run("search_index_drop_batch")
        db.run("search_index_forget_file", file_id=fid)
        db.run("search_index_mark_file", file_id=fid, sha256=sha, low=low, high=high,
               events=events, done=last)
