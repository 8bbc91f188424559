"""Tables derived from the events and kept in the database (the audit table, the findings):
built in one transaction with the stamp they were computed for, or not at all."""

from __future__ import annotations

from typing import Callable

from explorer.jobs import Cancelled, ProgressHook, StopHook, check
from explorer.store.db import Db, run_watched
from explorer.store.transaction import transaction


def build_table(db: Db, sql: str, params: dict, meta_key: str, stamp: Callable[[Db], str],
                what: str, progress: ProgressHook | None = None,
                should_stop: StopHook | None = None) -> None:
    """Run ``sql`` (which creates or replaces the table) and record ``stamp(db)`` under
    ``meta_key``, in one transaction on ``db`` (a connection of its own). On any failure the
    transaction is rolled back, so the table and its stamp stay as they were; once
    ``should_stop()`` is true the statement is interrupted and :class:`Cancelled` raised."""
    try:
        with transaction(db.con):
            # Read inside the transaction: the stamp belongs to the snapshot the table comes from.
            value = stamp(db)
            run_watched(db, sql, params, progress, should_stop)
            check(should_stop, what)
            db.run("set_meta", key=meta_key, value=value)
    except Exception as exc:
        if should_stop and should_stop() and not isinstance(exc, Cancelled):
            raise Cancelled(what) from exc   # stopping surfaced as an interrupted statement
        raise
