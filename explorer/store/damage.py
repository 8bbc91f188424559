"""What to tell the user when DuckDB fails on the database itself, not on one input file.

A damaged database file (DuckDB: "Corrupt database file"), a full disk or a file size limit
("No space left on device", "File too large"), and a database DuckDB stopped using after a
failed write (``duckdb.FatalException``) each become one message naming the database and
what to do (issue 14). What was committed before stays: DuckDB writes a commit to its log
before it is kept, and a failed commit is rolled back.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

_FULL = ("No space left on device", "File too large", "Disk quota exceeded")


def database_problem(path: str | Path | None, exc: BaseException) -> str | None:
    """The message for ``exc`` when it is a damaged, full or stopped database, else None."""
    if not isinstance(exc, duckdb.Error):
        return None
    where = path if path is not None else "the in-memory database"
    text = str(exc)
    said = text.splitlines()[0][:300] if text else type(exc).__name__
    if "Corrupt database file" in text:
        return (f"{where}: the database file is damaged (DuckDB: {said}); import the logs "
                "again into a new database file (this one was left as it is)")
    if any(reason in text for reason in _FULL):
        return (f"{where}: cannot write the database: the disk is full or the file too large "
                f"(DuckDB: {said}); what was imported before is kept: free some space, then "
                "import the remaining files again")
    if isinstance(exc, duckdb.FatalException):
        return (f"{where}: DuckDB stopped using the database after a failed write (DuckDB: "
                f"{said}); what was imported before is kept: check the disk, then run again")
    return None
