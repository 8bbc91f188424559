"""Canonical events as JSON Lines (plain or gzip): one JSON object per line."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import Iterator

import pyarrow as pa

import queries
from explorer.formats import Chunk, Progress
from explorer.model import CANONICAL_COLUMNS

NAME = "canonical-jsonl"
_BLOCK = 32 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"


def matches(path: Path, head: bytes) -> bool:
    text = head.removeprefix(_BOM).lstrip()
    return text.startswith(b"{")


def chunks(db, path: Path, progress: Progress | None = None) -> Iterator[Chunk]:
    """Stage the file's lines in blocks of about 32 MB, keeping line numbers."""
    total = path.stat().st_size
    row_no = 0
    line_no = 0
    for block, pos, tail_error in _blocks(path):
        rows, lines, texts, errs = _split(block, row_no, line_no, first=line_no == 0)
        line_no += block.count(b"\n") + (0 if block.endswith(b"\n") or not block else 1)
        if tail_error:
            rows.append(len(rows) + row_no)
            lines.append(line_no + 1)
            texts.append(None)
            errs.append(tail_error)
        row_no += len(rows)
        if rows:
            yield stage_chunk(db, rows, lines, texts, errs)
        if progress:
            progress(pos, total)


def stage_chunk(db, rows, lines, texts, errs) -> Chunk:
    """Register staged lines (record numbers, line numbers, texts, errors) as one chunk."""
    table = pa.table({
        "row_no": pa.array(rows, pa.int64()),
        "line": pa.array(lines, pa.int64()),
        "src": pa.array(texts, pa.string()),
        "err": pa.array(errs, pa.string()),
    })
    db.con.register("stage_lines", table)
    types = {name: "VARCHAR" for name in CANONICAL_COLUMNS}
    return Chunk(f"({queries.load('jsonl_source')})", types, "src_rec",
                 {"known": list(CANONICAL_COLUMNS)})


def _blocks(path: Path) -> Iterator[tuple[bytes, int, str | None]]:
    """Blocks of whole lines, the byte position reached, and a read error at the end."""
    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        fh = gzip.GzipFile(fileobj=raw) if gz else raw
        rest = b""
        while True:
            try:
                data = fh.read(_BLOCK)
            except (EOFError, OSError, zlib.error) as exc:
                yield rest, raw.tell(), f"truncated or corrupt gzip stream ({exc}); lines before it were read"
                return
            if not data:
                break
            data = rest + data
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                rest = data
                continue
            rest = data[cut:]
            yield data[:cut], raw.tell(), None
        if rest:
            yield rest, raw.tell(), None


def _split(block: bytes, row_no: int, line_no: int, first: bool):
    """Non-blank lines of a block: record numbers, line numbers, texts, decode errors."""
    if first:
        block = block.removeprefix(_BOM)
    try:
        decoded = block.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        decoded = None
    raw_lines = block.split(b"\n") if decoded is None else decoded
    rows, lines, texts, errs = [], [], [], []
    for i, item in enumerate(raw_lines, start=line_no + 1):
        if not item.strip():
            continue
        if decoded is None:
            text, err = _decode(item)
        else:
            text, err = item, None
        rows.append(row_no + len(rows))
        lines.append(i)
        texts.append(text.removesuffix("\r"))
        errs.append(err)
    return rows, lines, texts, errs


def _decode(item: bytes) -> tuple[str, str | None]:
    try:
        return item.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return (item.decode("utf-8", "backslashreplace"),
                f"invalid UTF-8 at byte {exc.start} of the line")
