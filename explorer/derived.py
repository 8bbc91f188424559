"""Tables derived from the events and kept in the database (the audit table, the findings):
built in one transaction with the stamp they were computed for, or not at all."""

from __future__ import annotations

from typing import Callable

from explorer.ingest import Cancelled
from explorer.store import Db, rollback, run_watched


def build_table(db: Db, sql: str, params: dict, meta_key: str, stamp: Callable[[Db], str],
                what: str, progress: Callable[[int, int], None] | None = None,
                should_stop: Callable[[], bool] | None = None) -> None:
    """Run ``sql`` (which creates or replaces the table) and record ``stamp(db)`` under
    ``meta_key``, in one transaction on ``db`` (a connection of its own). On any failure the
    transaction is rolled back, so the table and its stamp stay as they were; once
    ``should_stop()`` is true the statement is interrupted and :class:`Cancelled` raised."""
    db.con.execute("BEGIN TRANSACTION")
    try:
        # Read inside the transaction: the stamp belongs to the snapshot the table comes from.
        value = stamp(db)
        run_watched(db, sql, params, progress, should_stop)
        if should_stop and should_stop():
            raise Cancelled(what)
        db.run("set_meta", key=meta_key, value=value)
        db.con.execute("COMMIT")
    except BaseException as exc:
        rollback(db)
        if should_stop and should_stop():
            raise Cancelled(what) from exc
        raise
