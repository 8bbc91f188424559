"""Rows of a Spring AI session table dump (SPRING-AI-SESSION.md): CSV with a header of the
table's column names, a JSON array of row objects (also wrapped in an object keyed by table,
as database tools export it), or JSON Lines of rows; plain or gzip.

Which table a dump holds is told by its column names, in any case: ``AI_SESSION_EVENT`` has
``id``, ``session_id``, ``message_type`` and ``message_content``; ``AI_SESSION`` has ``id``,
``user_id`` and ``created_at`` and none of the event columns. Canonical files (``kind``) are
neither.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from explorer.formats import LogFileError
from explorer.formats.inflate import GzipReader
from explorer.formats.json_values import Repeated, loads, repeated_error
from explorer.formats.lines import json_lines

EVENTS = "AI_SESSION_EVENT"
SESSIONS = "AI_SESSION"
_EVENT_COLUMNS = {"id", "session_id", "message_type", "message_content"}
_SESSION_COLUMNS = {"id", "user_id", "created_at"}
_BOM = b"\xef\xbb\xbf"
_DELIMITERS = (",", "\t", ";", "|")
_WRAPPED = re.compile(rb'\A\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\[')
_TRUE = {"true", "t", "1"}
_FALSE = {"false", "f", "0"}

csv.field_size_limit(sys.maxsize)


@dataclass
class Row:
    """One row of a dump: its line (CSV/JSON Lines) or element number (JSON array), its
    columns by lower-case name (``None`` when it could not be read), its text, and why it
    could not be read."""

    line: int
    table: str | None
    values: dict | None
    text: str
    error: str | None = None


def table_of(columns) -> str | None:
    """Which table a set of column names belongs to (any case, quotes stripped), or None."""
    names = {_name(c) for c in columns}
    if "kind" in names:
        return None  # a canonical file
    if _EVENT_COLUMNS <= names:
        return EVENTS
    if _SESSION_COLUMNS <= names and not names & {"message_type", "session_id"}:
        return SESSIONS
    return None


def sniff(head: bytes) -> str | None:
    """The table a dump's first 64 KB show, by their column names; None for anything else."""
    text = head.removeprefix(_BOM).lstrip()
    if text.startswith(b"["):
        return _first_object_table(text[1:])
    if _WRAPPED.match(text):
        table = _first_object_table(text[_WRAPPED.match(text).end():])
        if table == SESSIONS and re.search(rb'"message_type"\s*:', text, re.I):
            return EVENTS  # an export of both tables, sessions first
        return table
    if text.startswith(b"{"):
        return _first_object_table(text)
    return _header_table(text.split(b"\n", 1)[0].decode("utf-8", "replace"))


def holds_tables(head: bytes) -> bool:
    """Whether a dump is a JSON object keyed by table (it may hold both tables)."""
    return bool(_WRAPPED.match(head.removeprefix(_BOM).lstrip()))


def _first_object_table(text: bytes) -> str | None:
    body = text.decode("utf-8", "replace").lstrip()
    if not body.startswith("{"):
        return None
    try:
        first, _ = json.JSONDecoder().raw_decode(body)
    except (ValueError, RecursionError):
        # A first row longer than the head: look for its keys up to where the head ends.
        return table_of(re.findall(r'"((?:[^"\\]|\\.)*)"\s*:', body))
    return table_of(first) if isinstance(first, dict) else None


def _header_table(first_line: str) -> str | None:
    line = first_line.rstrip("\r")
    for delimiter in _DELIMITERS:
        if delimiter in line:
            if table := table_of(_first_row(line, delimiter)):
                return table
    return None


def _first_row(line: str, delimiter: str) -> list[str]:
    """The fields of a header line ([] when it is not one: a stray CR, an open quote)."""
    try:
        return next(csv.reader([line], delimiter=delimiter), [])
    except csv.Error:
        return []


def _name(column) -> str:
    return str(column).strip().strip('"`[]').lower()


def rows(path: Path) -> Iterator[Row]:
    """The rows of a dump, in file order, each with the table it belongs to."""
    with _open(path) as fh:
        head = fh.read(64 * 1024)
        fh.seek(0)
        text = head.lstrip("\ufeff").lstrip()
        if text.startswith("[") or (text.startswith("{") and _WRAPPED.match(text.encode())):
            yield from _json_rows(path, fh)
        elif text.startswith("{"):
            yield from _jsonl_rows(path)
        else:
            yield from _csv_rows(path, fh, text.split("\n", 1)[0])


def _open(path: Path) -> io.TextIOBase:
    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
    binary = io.BufferedReader(GzipReader(path)) if gz else open(path, "rb")
    return io.TextIOWrapper(binary, encoding="utf-8-sig", errors="replace", newline="")


def _json_rows(path: Path, fh) -> Iterator[Row]:
    try:
        doc = loads(fh.read())
    except (ValueError, OSError, EOFError, RecursionError) as exc:
        raise LogFileError(path, f"a Spring AI session dump that is not valid JSON ({exc})") from exc
    tables = [doc] if isinstance(doc, list) else [v for v in doc.values() if isinstance(v, list)]
    number = 0
    for items in tables:
        table = next((table_of(item) for item in items if isinstance(item, dict)), None)
        for item in items:
            number += 1
            yield _json_row(number, item, table)


def _jsonl_rows(path: Path) -> Iterator[Row]:
    """Rows of a JSON Lines dump (explorer.formats.lines: invalid UTF-8, torn tails and
    glued records are rejected rows with their byte offsets, not altered)."""
    table = None
    for line, value in json_lines(path):
        if value.error:
            yield Row(line.number, table, None, value.text, value.error)
            continue
        item = value.value
        if table is None and isinstance(item, dict):
            table = table_of(item)
        yield _json_row(line.number, item, table)


def _json_row(number: int, item, table: str | None) -> Row:
    text = json.dumps(item, ensure_ascii=False)
    if not isinstance(item, dict):
        return Row(number, table, None, text, "not a JSON object of a table row")
    if isinstance(item, Repeated):
        return Row(number, table, None, text, repeated_error(item.key))
    return Row(number, table, {_name(k): v for k, v in item.items()}, text)


def _csv_rows(path: Path, fh, first_line: str) -> Iterator[Row]:
    delimiter = next((d for d in _DELIMITERS if d in first_line
                      and table_of(_first_row(first_line, d))), ",")
    reader = csv.reader(fh, delimiter=delimiter)
    header = [_name(h) for h in next(reader, [])]
    table = table_of(header)
    if table is None:
        raise LogFileError(path, "the CSV header names no Spring AI session table")
    start = reader.line_num + 1
    for fields in reader:
        if any(f.strip() for f in fields):
            out = io.StringIO()
            csv.writer(out, delimiter=delimiter, lineterminator="").writerow(fields)
            if len(fields) != len(header):
                yield Row(start, table, None, out.getvalue(),
                          f"expected {len(header)} fields as in the header, found {len(fields)}")
            else:
                yield Row(start, table, {h: _csv_value(v) for h, v in zip(header, fields)},
                          out.getvalue())
        start = reader.line_num + 1


def _csv_value(value: str) -> str | None:
    """A CSV field: empty and ``\\N`` (MySQL) are NULL."""
    return None if value == "" or value == "\\N" else value


def boolean(value, default: bool = False) -> bool:
    """A dump's boolean: true/false, t/f, 1/0 (any case), or JSON true/false; NULL is the
    column default. Raises ValueError for anything else."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(value)


def text_of(value) -> str | None:
    """A text column or JSON string field; JSON values that are not strings as JSON text."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
