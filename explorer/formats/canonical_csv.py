"""Canonical events as CSV with a header row (RFC 4180 quoting, quoted newlines allowed).

A header without the required columns is one clear error for the whole file. A row is
rejected, with its line, when it has another number of fields than the header, is not
UTF-8 (with the byte offset), or is the last one and ends mid-record (``torn_tail``). A
record that is not valid CSV (a quoted field that never closes would swallow the rest of
the file) is rejected as its first line, and the lines after it are read again as rows.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from itertools import chain
from pathlib import Path
from typing import Iterator

from explorer.formats import LogFileError, lines
from explorer.formats.reader import Rows, missing_columns
from explorer.jobs import ProgressHook
from explorer.model import CANONICAL_COLUMNS

NAME = "canonical-csv"
BINARY = False
KIND = "scan"  # explorer.formats.reader.ScanReader
_BATCH = 200_000
_NOT_UTF8 = re.compile("[\udc80-\udcff]")

csv.field_size_limit(sys.maxsize)


def matches(path: Path, head: bytes) -> bool:
    first = head.removeprefix(lines.BOM).split(b"\n", 1)[0].decode("utf-8", "replace")
    names = {c.strip().strip('"') for c in first.split(",")}
    return {"session_id", "kind"} <= names or (
        path.suffix.lower() == ".csv" and "," in first and not first.lstrip().startswith("{"))


class _Lines:
    """The file's lines as text (bytes that are not UTF-8 kept as surrogates), counting
    line numbers and byte offsets, and keeping the lines of the record being read."""

    def __init__(self, raw: Iterator[bytes], number: int = 0, offset: int = 0) -> None:
        self.raw = raw
        self.number, self.offset = number, offset
        self.start = offset
        self.buf: list[str] = []

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        data = next(self.raw, None)
        if data is None:
            raise StopIteration
        if self.number == 0 and data.startswith(lines.BOM):
            data = data[len(lines.BOM):]
            self.offset = self.start = len(lines.BOM)
        self.number += 1
        self.offset += len(data)
        text = data.decode("utf-8", "surrogateescape")
        self.buf.append(text)
        return text

    def mark(self) -> None:
        """A record starts here."""
        self.buf = []
        self.start = self.offset


def scan(path: Path, progress: ProgressHook | None = None) -> Iterator[Rows]:
    """The rows in batches; each row keeps the line it starts on."""
    total = path.stat().st_size
    with open(path, "rb") as raw:
        source = _Lines(iter(raw))
        header = next(csv.reader(source), None)
        if not header:
            raise LogFileError(path, "the CSV file has no header row")
        header = [h.strip() for h in header]
        if missing := missing_columns(header):
            raise LogFileError(path, f"the CSV header has no {missing} column (it has: "
                                     f"{', '.join(header)[:300]}); FORMAT.md names the columns")
        names = [h for h in header if h in CANONICAL_COLUMNS]
        extra = len(names) < len(header)
        batch: list[tuple] = []
        for row_no, record in enumerate(_records(source, len(header))):
            batch.append((row_no, *record))
            if len(batch) >= _BATCH:
                yield _rows(batch, header, names, extra)
                batch = []
                if progress:
                    progress(raw.tell(), total)
        if batch:
            yield _rows(batch, header, names, extra)
    if progress:
        progress(total, total)


def _records(source: _Lines, width: int) -> Iterator[tuple]:
    """(line, text, error, fields) of each non-blank row after the header. A record that
    is not valid CSV (a quote never closed, text after a closing quote) is rejected as its
    first line, and the lines after that line are read again."""
    reader = csv.reader(source, strict=True)
    while True:
        source.mark()
        line = source.number + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            first, later = source.buf[0], source.buf[1:]
            yield line, _escaped(first.rstrip("\r\n")), _broken(exc, first, later, source.start), []
            source = _Lines(chain((t.encode("utf-8", "surrogateescape") for t in later), source.raw),
                            line, source.start + len(first.encode("utf-8", "surrogateescape")))
            reader = csv.reader(source, strict=True)
            continue
        if any(row):
            yield (line, *_checked(row, source, width))


def _broken(exc: csv.Error, first: str, later: list[str], start: int) -> str:
    """Why a record is not valid CSV, from the line it starts on (at byte ``start``)."""
    if not later and not first.endswith("\n"):
        return f"{lines.TORN_TAIL}: the last line ends mid-record ({exc})"
    again = "; the lines after it are read again as rows" if later else ""
    return f"not valid CSV from this line ({exc}), which starts at {lines.where(start, False)}{again}"


def _checked(row: list[str], source: _Lines, width: int) -> tuple:
    """(text, error, fields) of a parsed row."""
    text = _line_text(row)
    raw = "".join(source.buf)
    if bad := _NOT_UTF8.search(raw):
        at = len(raw[:bad.start()].encode("utf-8", "surrogateescape"))
        return (_escaped(raw.rstrip("\r\n")), f"invalid UTF-8 at byte {at} of the record "
                f"({lines.where(source.start + at, False)})", row)
    if len(row) != width:
        if not raw.endswith("\n"):  # only the file's last line can end without one
            return text, (f"{lines.TORN_TAIL}: the last line ends mid-record ({len(row)} of "
                          f"{width} fields, no line end after it)"), row
        return text, f"expected {width} fields as in the header, found {len(row)}", row
    return text, None, row


def _escaped(text: str) -> str:
    """Text read with surrogateescape, its undecodable bytes shown as ``\\xNN``."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _line_text(row: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(row)
    return out.getvalue()


def _rows(batch: list[tuple], header: list[str], names: list[str], extra: bool) -> Rows:
    """A batch of (row_no, line, text, error, fields) as Rows of the canonical columns."""
    index = {h: i for i, h in enumerate(header)}
    columns = {name: [(b[4][index[name]] or None) if b[3] is None and index[name] < len(b[4])
                      else None for b in batch] for name in names}
    return Rows([b[0] for b in batch], [b[1] for b in batch], [b[3] for b in batch],
                [_raw(b, header, extra) for b in batch], columns, extra)


def _raw(b: tuple, header: list[str], extra: bool) -> str:
    """The record as text: the CSV line, or a JSON object of the row when it has extra columns."""
    if extra and b[3] is None:
        return json.dumps(dict(zip(header, b[4])), ensure_ascii=False)
    return b[2]
