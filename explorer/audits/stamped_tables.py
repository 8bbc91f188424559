"""Tables derived from the events and kept in the database (the audit table, the findings):
built in one transaction with the stamp they were computed for, or not at all.

A build is a list of steps, each a few statements; ``progress(done, total)`` counts the steps
(what the window shows: "Computing the audit table: 2 of 4 steps"). DuckDB's memory is
bounded while a table is built (:data:`BUILD_MEMORY`; past it DuckDB spills to its temp
directory), and one build runs at a time in this process (:data:`BUILDING`): the audit
table of a big database never costs the memory of several statements over every event.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from explorer.jobs import Cancelled, ProgressHook, StopHook, check
from explorer.store.db import Db, bounded_memory, run_watched
from explorer.store.transaction import transaction

#: The memory DuckDB may use while a derived table is built (the benchmark corpus, 16.8M
#: events, builds in batches of :data:`BATCH_EVENTS` within it). A batch's statement needs
#: about 750 MB: under a lower limit DuckDB spills its window sort to the temp directory,
#: which took the benchmark corpus's first open to about 30 CPU-s instead of 23.
BUILD_MEMORY = 2**30
#: About how many events one step of a build reads (explorer.audits.findings_cache).
BATCH_EVENTS = 1_500_000
#: One build at a time in this process: a second request waits, then finds the table fresh.
BUILDING = threading.RLock()
_POLL_SECONDS = 0.05

#: One statement of a step: its SQL and its parameters.
Statement = tuple[str, dict]


class _Running:
    """The steps of the build running now (what a caller waiting for it relays)."""

    done = 0
    steps = 0   # 0: none running


def acquire(should_stop: StopHook | None, what: str, progress: ProgressHook | None = None,
            after: int = 0) -> None:
    """Take :data:`BUILDING`, polling ``should_stop`` meanwhile (Cancelled once it is true)
    and relaying the running build's steps to ``progress`` (plus ``after`` of the caller's
    own, as :func:`build_steps` counts them)."""
    while not BUILDING.acquire(timeout=_POLL_SECONDS):
        if should_stop and should_stop():
            raise Cancelled(what)
        if progress and _Running.steps:
            progress(_Running.done, _Running.steps + after)


def build_table(db: Db, sql: str, params: dict, meta_key: str, stamp: Callable[[Db], str],
                what: str, progress: ProgressHook | None = None,
                should_stop: StopHook | None = None) -> None:
    """Run ``sql`` (which creates or replaces the table) and record ``stamp(db)`` under
    ``meta_key``, in one transaction on ``db`` (a connection of its own): :func:`build_steps`
    with one step."""
    build_steps(db, [[(sql, params)]], meta_key, stamp, what, progress, should_stop)


Steps = Sequence[Sequence[Statement]]


def build_steps(db: Db, steps: Steps | Callable[[Db], Steps], meta_key: str,
                stamp: Callable[[Db], str], what: str, progress: ProgressHook | None = None,
                should_stop: StopHook | None = None, *, done: int = 0, after: int = 0) -> None:
    """Run every statement of ``steps`` (or of ``steps(db)``, planned inside the transaction)
    in order, the last one creating or replacing the table, and record ``stamp(db)`` under
    ``meta_key``, in one transaction on ``db``, with DuckDB's memory bounded.
    ``progress(done + k, total)`` before step k, where ``total`` is ``done`` + the steps +
    ``after`` (steps the caller runs next). On any failure the transaction is rolled back,
    so the table and its stamp stay as they were; once ``should_stop()`` is true the running
    statement is interrupted and :class:`Cancelled` raised."""
    try:
        with bounded_memory(db, BUILD_MEMORY), transaction(db.con):
            # Read inside the transaction: the stamp and the plan belong to the snapshot the
            # table comes from.
            value = stamp(db)
            steps = steps(db) if callable(steps) else steps
            total = done + len(steps) + after
            _Running.steps = done + len(steps)
            for k, step in enumerate(steps):
                _Running.done = done + k
                if progress:
                    progress(done + k, total)
                for sql, params in step:   # a stop interrupts the statement running
                    run_watched(db, sql, params, None, should_stop)
            check(should_stop, what)
            db.run("set_meta", key=meta_key, value=value)
    except Exception as exc:
        _Running.steps = 0
        if should_stop and should_stop() and not isinstance(exc, Cancelled):
            raise Cancelled(what) from exc   # stopping surfaced as an interrupted statement
        raise
    _Running.steps = 0
    if progress:
        progress(total - after, total)
