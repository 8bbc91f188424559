"""File → Save Database As…: the store's data written to a new Turnscope database file.

The copy is made by :class:`~explorer.store.db.Store` (its schema and Turnscope's marker),
then filled table by table from the store through an ATTACH; the derived cache tables are
not copied (they are rebuilt when the copy is opened). A copy that fails or is stopped is
deleted: the file is whole or absent.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from explorer.jobs import Cancelled
from explorer.store.db import Store

#: The tables copied, in order (meta last, through its own statement).
DATA_TABLES = ("files", "events", "event_details", "rejected", "duplicates", "conflicts")


def save_as(store: Store, path: str | os.PathLike,
            progress: Callable[[int, int], None] = lambda done, total: None,
            should_stop: Callable[[], bool] = lambda: False) -> Path:
    """Write the store's data to a new database at ``path`` (an existing file there is
    replaced); the path written. Raises :class:`~explorer.jobs.Cancelled` when stopped."""
    target = Path(path)
    if store.path is not None and target.resolve() == Path(store.path).resolve():
        raise ValueError(f"{target}: that is the database open in the window")
    for stale in (target, target.with_name(target.name + ".wal")):
        stale.unlink(missing_ok=True)
    Store(target).close()   # the schema and Turnscope's marker
    db = store.cursor()
    attached = False
    try:
        db.run("attach_copy_target", path=str(target))
        attached = True
        total = len(DATA_TABLES) + 1
        for done, table in enumerate(DATA_TABLES):
            if should_stop():
                raise Cancelled()
            progress(done, total)
            db.run("copy_table_to_target", {"table": table})
        db.run("copy_meta_to_target")
        progress(total, total)
        db.run("detach_copy_target")
        attached = False
    except BaseException:
        if attached:
            db.run("detach_copy_target")
        for stale in (target, target.with_name(target.name + ".wal")):
            stale.unlink(missing_ok=True)
        raise
    finally:
        db.close()
    return target
