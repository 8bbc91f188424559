"""What a canonical reader describes (explorer.formats.reader), staged as chunks for DuckDB.

A chunk is a SQL relation of raw records (row_no, line, err, has_extra, src_rec and the
canonical columns present) that ``queries/typed_rows.sql`` turns into typed canonical rows.
The Arrow table a chunk reads stays registered until the next chunk replaces it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pyarrow as pa

import queries
from explorer.formats import LogFileError, limits
from explorer.formats.reader import FileScan, Lines, Rows, Scan, TableScan, missing_columns
from explorer.model import CANONICAL_COLUMNS
from explorer.store.db import Db

#: Canonical columns stored in ``event_details`` rather than ``events``.
DETAIL_COLUMNS = ("text", "is_error", "synthetic", "branch", "archived", "raw",
                  "parent_session", "parent_call", "note")


@dataclass
class Chunk:
    """Raw records staged for typed_rows.sql.

    ``source`` is a parenthesised relation with row_no, line, err, has_extra, src_rec and
    the canonical columns present in the input; ``types`` maps each present canonical
    column to its DuckDB type; ``srctext`` renders src_rec as text; ``extra`` is False
    when no record can have fields outside the format (known from a schema); ``direct``
    when the relation scans the file itself (every step of the import reads it again).
    """

    source: str
    types: dict[str, str]
    srctext: str
    params: dict = field(default_factory=dict)
    extra: bool = True
    direct: bool = False

    def may_have_details(self) -> bool:
        """Whether any record can fill a column of ``event_details`` (raw included)."""
        return self.extra or any(name in self.types for name in DETAIL_COLUMNS)


def scanned(db: Db, scans: Iterator[Scan]) -> Iterator[Chunk]:
    """The chunks of a file as its reader describes it; Lines are numbered across the file."""
    row_no = 0
    for scan in scans:
        if isinstance(scan, (FileScan, TableScan)):
            yield file_chunk(db, scan)
        elif isinstance(scan, Rows):
            yield rows_chunk(db, scan)
        else:
            scan, valid = _checked_lines(db, row_no, scan)
            yield lines_chunk(valid)
            row_no += len(scan.line)


#: Rows per Arrow batch of a registered table. DuckDB's scan of a registered Arrow table takes
#: one batch per task, and a block registered as one batch of 20,000 lines is read by one
#: thread in one piece: in 2,048-row batches (DuckDB's vector size) the parse that follows
#: (insert_parsed) took 0.07 s instead of 0.26 s for 20,000 canonical lines.
STAGE_BATCH_ROWS = 2048


def register_batched(db: Db, name: str, table: pa.Table) -> None:
    """Register ``table`` under ``name`` in batches of STAGE_BATCH_ROWS rows."""
    db.con.register(name, pa.Table.from_batches(
        table.to_batches(max_chunksize=STAGE_BATCH_ROWS), table.schema))


def register_lines(db: Db, first_row: int, lines: Lines,
                   extra: list[bool | None] | None = None) -> None:
    """Register a block of lines (numbered from ``first_row``, unless the block numbers its
    rows itself) as the table stage_lines; its columns are lists, or already arrays (NumPy,
    Arrow: taken as they are). ``extra``, per line, when known without reading its JSON:
    whether the record has keys outside the format, its keys being unique (a Python dict
    written by orjson); None where DuckDB looks at its keys (jsonl_source.sql)."""
    numbers = (np.arange(first_row, first_row + len(lines.line), dtype=np.int64)
               if lines.row_no is None else lines.row_no)
    register_batched(db, "stage_lines", pa.table({
        "row_no": _array(numbers, pa.int64()),
        "line": _array(lines.line, pa.int64()),
        "src": _array(lines.text, pa.string()),
        "err": _array(lines.err, pa.string()),
        "extra": (pa.nulls(len(lines.line), pa.bool_()) if extra is None
                  else bool_array(extra)),
    }))


def bool_array(values: list[bool | None]) -> pa.Array:
    """A boolean array of a list (None: null), made from its buffers (see int64_array)."""
    valid = np.fromiter((v is not None for v in values), bool, len(values))
    data = np.fromiter((bool(v) for v in values), bool, len(values))
    nulls = int(len(values) - valid.sum())
    return pa.Array.from_buffers(pa.bool_(), len(values), [
        pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None,
        pa.py_buffer(np.packbits(data, bitorder="little"))], nulls)


def _array(values, kind: pa.DataType) -> pa.Array:
    if isinstance(values, pa.Array):
        return values
    if kind == pa.int64():
        return int64_array(values)
    if kind == pa.string():
        if not any(v is not None for v in values):
            return pa.nulls(len(values), pa.string())
        try:
            return utf8_array([v if v is None or type(v) is bytes else v.encode("utf-8")
                               for v in values])
        except UnicodeEncodeError:   # a lone surrogate: pyarrow says so
            pass
    return pa.array(values, kind)


def int64_array(values) -> pa.Array:
    """An int64 array of a NumPy array or a list of ints (None: null), made from its buffers:
    ``pa.array`` imports pandas on its first call (a third of a CPU second an import)."""
    if not isinstance(values, np.ndarray):
        valid = np.fromiter((v is not None for v in values), bool, len(values))
        if not valid.all():
            data = np.fromiter((0 if v is None else v for v in values), np.int64, len(values))
            return pa.Array.from_buffers(pa.int64(), len(values), [
                pa.py_buffer(np.packbits(valid, bitorder="little")), pa.py_buffer(data)],
                int(len(values) - valid.sum()))
        values = np.fromiter(values, np.int64, len(values))
    data = np.ascontiguousarray(values, np.int64)
    return pa.Array.from_buffers(pa.int64(), len(data), [None, pa.py_buffer(data)])


def utf8_array(values: list[bytes | None]) -> pa.Array:
    """A string array of UTF-8 bytes (None: null), its buffers joined at once: seven times
    faster than ``pa.array`` item by item; the bytes are checked to be UTF-8 all the same."""
    lengths = np.fromiter((0 if v is None else len(v) for v in values), np.int64, len(values))
    offsets = np.zeros(len(values) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = pa.py_buffer(b"".join(v for v in values if v is not None))
    nulls = sum(v is None for v in values)
    valid = (pa.py_buffer(np.packbits(np.fromiter((v is not None for v in values), bool,
                                                  len(values)), bitorder="little"))
             if nulls else None)
    wide = offsets[-1] >= 2**31
    out = (pa.LargeStringArray if wide else pa.StringArray).from_buffers(
        len(values), pa.py_buffer(offsets if wide else offsets.astype(np.int32)), data, valid,
        nulls)
    out.validate(full=True)
    return out


def lines_chunk(valid: bool = False) -> Chunk:
    """The chunk of the lines registered last (register_lines), parsed by DuckDB; ``valid``:
    every line without an error is known to be valid JSON (suspect_lines.sql found none
    that is not), so it is not checked again."""
    types = {name: "VARCHAR" for name in CANONICAL_COLUMNS}
    return Chunk(f"({queries.load('jsonl_source')})", types, "src_rec",
                 {"known": list(CANONICAL_COLUMNS), "valid": valid})


def _checked_lines(db: Db, first_row: int, lines: Lines) -> tuple[Lines, bool]:
    """Register the block; when DuckDB finds lines suspect, register the salvaged block.
    Also whether every line registered without an error is valid JSON (no suspect found)."""
    register_lines(db, first_row, lines)
    if lines.salvage is None:
        return lines, False
    depth = limits.current().max_json_depth
    suspect = {row - first_row: valid for row, valid in db.run("suspect_lines", depth=depth)}
    if not suspect:
        return lines, True
    lines = lines.salvage(suspect)
    register_lines(db, first_row, lines)
    return lines, False


def rows_chunk(db: Db, rows: Rows) -> Chunk:
    """Register a block of rows split into fields (CSV) as the table stage_csv."""
    register_batched(db, "stage_csv", pa.table({
        "row_no": pa.array(rows.row_no, pa.int64()),
        "line": pa.array(rows.line, pa.int64()),
        "err": pa.array(rows.err, pa.string()),
        "src_rec": pa.array(rows.src_rec, pa.string()),
        **{name: pa.array(values, pa.string()) for name, values in rows.columns.items()},
    }))
    selected = "".join(f", {quote(n)}" for n in rows.columns)
    source = (f"(SELECT row_no, line, err, {'true' if rows.extra else 'false'} AS has_extra, "
              f"src_rec{selected} FROM stage_csv)")
    return Chunk(source, {n: "VARCHAR" for n in rows.columns}, "src_rec")


#: The widest file scanned in place: every column goes into each row's record (``raw``), and
#: DuckDB runs out of memory long before 20,000 of them; no log has more than a few dozen.
MAX_COLUMNS = 1_000


def file_chunk(db: Db, scan: FileScan | TableScan) -> Chunk:
    """The whole file as one chunk DuckDB scans in place (in parallel), with the file's
    own column types; a file without the required columns is refused. (A TableScan: the
    rows of it registered as a table, with their numbers in the file.)"""
    path, label = scan.path, scan.label
    if isinstance(scan, FileScan):
        relation = f"{scan.function}({literal(str(path))}, file_row_number = true)"
        describe = f"DESCRIBE SELECT * FROM {scan.function}({literal(str(path))})"
    else:
        relation = quote(scan.table)
        describe = f"DESCRIBE SELECT * EXCLUDE (file_row_number) FROM {relation}"
    try:
        described = db.con.execute(describe).fetchall()
    except duckdb.Error as exc:
        raise LogFileError(path, f"not a readable {label} file ({exc})") from exc
    columns = {row[0]: row[1] for row in described}
    if len(columns) > MAX_COLUMNS:
        raise LogFileError(path, f"the {label} file has {len(columns):,} columns; at most "
                                 f"{MAX_COLUMNS:,} are read (each row's record holds them all)")
    if missing := missing_columns(columns):
        raise LogFileError(path, f"the {label} file has no {missing} column (it has: "
                                 f"{', '.join(columns)[:300]}); FORMAT.md names the columns")
    types = {name: columns[name] for name in CANONICAL_COLUMNS if name in columns}
    extra = any(name not in CANONICAL_COLUMNS for name in columns)
    record = ", ".join(f"{quote(n)} := {quote(n)}" for n in columns)
    selected = ", ".join(quote(n) for n in types)
    source = (
        f"(SELECT file_row_number AS row_no, file_row_number + 1 AS line, "
        f"NULL::VARCHAR AS err, {'true' if extra else 'false'} AS has_extra, "
        f"struct_pack({record}) AS src_rec{', ' + selected if selected else ''} "
        f"FROM {relation})"
    )
    return Chunk(source, types, "CAST(to_json(src_rec) AS VARCHAR)", extra=extra, direct=True)


def quote(name: str) -> str:
    """A column name from a file, quoted as a SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A string (a file path) as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
