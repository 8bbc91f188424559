"""Canonical events as CSV with a header row (RFC 4180 quoting, quoted newlines allowed)."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Iterator

import pyarrow as pa

from explorer.formats import Chunk, LogFileError, Progress
from explorer.formats.canonical_parquet import quote
from explorer.model import CANONICAL_COLUMNS

NAME = "canonical-csv"
_BATCH = 200_000
_BOM = b"\xef\xbb\xbf"

csv.field_size_limit(sys.maxsize)


def matches(path: Path, head: bytes) -> bool:
    first = head.removeprefix(_BOM).split(b"\n", 1)[0].decode("utf-8", "replace")
    names = {c.strip().strip('"') for c in first.split(",")}
    return {"session_id", "kind"} <= names or (
        path.suffix.lower() == ".csv" and "," in first and not first.lstrip().startswith("{"))


def chunks(db, path: Path, progress: Progress | None = None) -> Iterator[Chunk]:
    """Stage the rows in batches; each row keeps the line it starts on."""
    total = path.stat().st_size
    with open(path, "rb") as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8-sig", errors="surrogateescape", newline="")
        reader = csv.reader(text)
        header = next(reader, None)
        if not header:
            raise LogFileError(path, "the CSV file has no header row")
        header = [h.strip() for h in header]
        names = [h for h in header if h in CANONICAL_COLUMNS]
        extra = len(names) < len(header)
        batch: list[tuple] = []
        row_no = 0
        start = reader.line_num + 1
        for row in reader:
            if any(field for field in row):
                batch.append(_record(row, header, row_no, start))
                row_no += 1
            start = reader.line_num + 1
            if len(batch) >= _BATCH:
                yield _chunk(db, batch, header, names, extra)
                batch = []
                if progress:
                    progress(raw.tell(), total)
        if batch:
            yield _chunk(db, batch, header, names, extra)
    if progress:
        progress(total, total)


def _record(row: list[str], header: list[str], row_no: int, line: int) -> tuple:
    text = _line_text(row)
    err = None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        err = f"invalid UTF-8 near character {exc.start} of the record"
    if err is None and len(row) != len(header):
        err = f"expected {len(header)} fields as in the header, found {len(row)}"
    return row_no, line, text, err, row


def _line_text(row: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(row)
    return out.getvalue()


def _chunk(db, batch: list[tuple], header: list[str], names: list[str], extra: bool) -> Chunk:
    cols = {
        "row_no": pa.array([b[0] for b in batch], pa.int64()),
        "line": pa.array([b[1] for b in batch], pa.int64()),
        "err": pa.array([b[3] for b in batch], pa.string()),
        "src_rec": pa.array([_raw(b, header, extra) for b in batch], pa.string()),
    }
    index = {h: i for i, h in enumerate(header)}
    for name in names:
        i = index[name]
        cols[name] = pa.array(
            [(b[4][i] or None) if b[3] is None and i < len(b[4]) else None for b in batch],
            pa.string())
    db.con.register("stage_csv", pa.table(cols))
    selected = "".join(f", {quote(n)}" for n in names)
    source = (f"(SELECT row_no, line, err, {'true' if extra else 'false'} AS has_extra, "
              f"src_rec{selected} FROM stage_csv)")
    return Chunk(source, {n: "VARCHAR" for n in names}, "src_rec")


def _raw(b: tuple, header: list[str], extra: bool) -> str:
    """The record as text: the CSV line, or a JSON object of the row when it has extra columns."""
    if extra and b[3] is None:
        return json.dumps(dict(zip(header, b[4])), ensure_ascii=False)
    return b[2]
