"""Canonical events as Parquet: columns named as in FORMAT.md, read by DuckDB."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import duckdb

from explorer.formats import Chunk, LogFileError, Progress
from explorer.model import CANONICAL_COLUMNS

NAME = "canonical-parquet"
#: Columns without which no row can be imported (FORMAT.md).
REQUIRED = ("session_id", "kind")
#: Scanned in place by every step of the import, not staged.
DIRECT = True


#: A binary format: the text sniffers never look at it (explorer.formats.detect).
BINARY = True


def matches(path: Path, head: bytes) -> bool:
    return head.startswith(b"PAR1")


def missing_columns(names) -> str:
    """The required columns absent from ``names``, said as ``a`` or ``a or b``; "" if none."""
    return " or ".join(n for n in REQUIRED if n not in set(names))


def quote(name: str) -> str:
    """A column name from a file, quoted as a SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A string (a file path) as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def chunks(db, path: Path, progress: Progress | None = None) -> Iterator[Chunk]:
    """The whole file as one chunk: DuckDB scans it in parallel."""
    try:
        described = db.con.execute(
            "DESCRIBE SELECT * FROM read_parquet($path)", {"path": str(path)}).fetchall()
    except duckdb.Error as exc:
        raise LogFileError(path, f"not a readable Parquet file ({exc})") from exc
    columns = {row[0]: row[1] for row in described}
    if missing := missing_columns(columns):
        raise LogFileError(path, f"the Parquet file has no {missing} column (it has: "
                                 f"{', '.join(columns)[:300]}); FORMAT.md names the columns")
    types = {name: columns[name] for name in CANONICAL_COLUMNS if name in columns}
    extra = any(name not in CANONICAL_COLUMNS for name in columns)
    record = ", ".join(f"{quote(n)} := {quote(n)}" for n in columns)
    selected = ", ".join(quote(n) for n in types)
    source = (
        f"(SELECT file_row_number AS row_no, file_row_number + 1 AS line, "
        f"NULL::VARCHAR AS err, {'true' if extra else 'false'} AS has_extra, "
        f"struct_pack({record}) AS src_rec{', ' + selected if selected else ''} "
        f"FROM read_parquet({literal(str(path))}, file_row_number = true))"
    )
    yield Chunk(source, types, "CAST(to_json(src_rec) AS VARCHAR)", extra=extra)
    if progress:
        progress(1, 1)
