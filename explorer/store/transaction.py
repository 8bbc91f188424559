"""The one way Turnscope writes in a transaction: everything inside commits together, or
nothing does."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import duckdb


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """BEGIN on entry; COMMIT when the block ends normally; ROLLBACK on any exception (a
    cancel, a kill signal's KeyboardInterrupt, an error of DuckDB's), which is raised again.
    A failed COMMIT has ended the transaction already: the ROLLBACK after it is a no-op."""
    con.execute("BEGIN TRANSACTION").fetchall()
    try:
        yield
        con.execute("COMMIT").fetchall()
    except BaseException:
        rollback(con)
        raise


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """End the open transaction, if any."""
    try:
        con.execute("ROLLBACK").fetchall()
    except duckdb.Error:
        pass
