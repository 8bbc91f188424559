"""Canonical events as JSON Lines (plain or gzip): one JSON object per line.

Lines are given in blocks of about 32 MB, which ingest stages and DuckDB checks; the few it
finds not to be JSON (or nested suspiciously deep) are looked at again in Python
(``Lines.salvage``, explorer.formats.lines):
records glued onto one line are split, a cut last line is a ``torn_tail``, and every reason
names the line and byte offset.
"""

from __future__ import annotations

import json
import re
from functools import partial
from pathlib import Path
from typing import Iterator

import numpy as np
import pyarrow as pa

from explorer.formats import lines
from explorer.formats.reader import REQUIRED, Lines
from explorer.jobs import ProgressHook
from explorer.model import CANONICAL_COLUMNS

NAME = "canonical-jsonl"
BINARY = False
KIND = "scan"  # explorer.formats.reader.ScanReader
_NEWLINE = re.compile(b"\n")


def matches(path: Path, head: bytes) -> bool:
    """Whether one of the file's first records (up to :data:`FIRST` lines of the head) is a
    canonical record: an object with the required fields (FORMAT.md). Lines starting with
    ``{`` alone are not enough: another program's JSON Lines would have every line rejected
    for a missing field, where it should be "not a recognised log format". A line too long
    for the head, or damaged, counts when its text names the required fields."""
    text = head.removeprefix(lines.BOM).lstrip()
    if not text.startswith(b"{"):
        return False
    pieces = text.split(b"\n")
    cut = None
    if len(pieces) <= FIRST and not text.endswith(b"\n") and pieces[-1].strip():
        cut = pieces.pop()   # the head ends inside this record (a line of megabytes)
    if any(_canonical(line) for line in pieces[:FIRST] if line.strip()):
        return True
    # a record cut by the head's end (a huge id or text first): its opening names
    # session_id, the one required field a record's start holds, among canonical keys only
    return cut is not None and (_canonical(cut) or (
        _FIELD["session_id"].search(cut) is not None and _opens_canonically(cut)))


def _opens_canonically(line: bytes) -> bool:
    """Whether every key before the cut is a canonical column (FORMAT.md)."""
    keys = re.findall(rb'[{,]\s*"([a-z_]+)"\s*:', line)
    return bool(keys) and all(k.decode() in CANONICAL_COLUMNS for k in keys)


#: How many of the first lines are looked at for a canonical record.
FIRST = 20
_FIELD = {name: re.compile(rb'"' + name.encode() + rb'"\s*:') for name in REQUIRED}


def _canonical(line: bytes) -> bool:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):   # cut by the head's end, damaged or too deep:
        # judged by its text
        return all(field.search(line) for field in _FIELD.values())
    return isinstance(value, dict) and all(name in value for name in REQUIRED)


def scan(path: Path, progress: ProgressHook | None = None) -> Iterator[Lines]:
    """The file's lines in blocks, keeping line numbers; a gzip stream cut between two lines
    gives one rejected record saying so."""
    total = path.stat().st_size
    gz = lines.is_gzip(path)
    for block in lines.blocks(path):
        if block.long:  # one line past the limit: rejected, never read whole
            staged = _Staged()
            staged.add(block.first_line, None, block.long, -1)
            yield staged.as_lines()
            continue
        staged = _split(block, gz)
        if block.cut and not block.unterminated:
            line = block.first_line + block.data.count(b"\n")
            staged = staged.as_lists()
            staged.add(line, None, lines.truncated(block.cut, block.offset + len(block.data)), -1)
        if len(staged.lines):
            yield staged.as_lines(partial(_salvage, staged, block, gz))
        if progress:
            progress(block.pos, total)


def _salvage(staged: _Staged, block: lines.Block, gz: bool, suspect: dict[int, bool]) -> Lines:
    return _salvaged(staged.as_lists(), suspect, block, gz).as_lines()


class _Staged:
    """The non-blank lines of a block: line numbers, texts, errors, and each one's index
    among the block's lines (to find its byte offset when a reason needs it). A block split
    by :func:`_fast_split` holds Arrow and NumPy columns, made lists when salvaged."""

    def __init__(self) -> None:
        self.lines: list[int] = []
        self.texts: list[str | None] = []
        self.errs: list[str | None] = []
        self.index: list[int] = []

    def as_lists(self) -> _Staged:
        """The same lines in Python lists (a fast split's columns converted)."""
        if isinstance(self.lines, list):
            return self
        out = _Staged()
        out.lines, out.index = self.lines.tolist(), self.index.tolist()
        out.texts, out.errs = self.texts.to_pylist(), self.errs.to_pylist()
        return out

    def add(self, line: int, text: str | None, err: str | None, index: int) -> None:
        self.lines.append(line)
        self.texts.append(text)
        self.errs.append(err)
        self.index.append(index)

    def as_lines(self, salvage=None) -> Lines:
        return Lines(self.lines, self.texts, self.errs, salvage)


def _split(block: lines.Block, gz: bool) -> _Staged:
    """Non-blank lines of a block; a line that is not UTF-8 is kept escaped, with its error."""
    data = block.data.removeprefix(lines.BOM) if block.offset == 0 else block.data
    if (fast := _fast_split(block, data)) is not None:
        return fast
    try:
        items = data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        items = None
    staged = _Staged()
    if items is not None:
        for i, item in enumerate(items):
            if item and not item.isspace():
                staged.add(block.first_line + i, item.removesuffix("\r"), None, i)
        return staged
    offset = block.offset + len(block.data) - len(data)
    for i, item in enumerate(data.split(b"\n")):
        if item.strip():
            body = item.removesuffix(b"\r")
            err = lines.line_error(body, offset, gz)
            text = body.decode("utf-8", "backslashreplace") if err else body.decode("utf-8")
            staged.add(block.first_line + i, text, err, i)
        offset += len(item) + 1
    return staged


def _fast_split(block: lines.Block, data: bytes) -> _Staged | None:
    """What :func:`_split` gives for a block of UTF-8 text, its lines found with NumPy and
    staged as one Arrow array of the line bytes (no Python string per line); None when a
    byte is not UTF-8 (the slow path names the line)."""
    buf = np.frombuffer(data, dtype=np.uint8)
    nl = np.flatnonzero(buf == 10)
    starts = np.concatenate(([0], nl + 1))
    ends = np.concatenate((nl, [len(buf)]))
    keep = ends > starts
    kept = np.ones(len(buf), dtype=bool)   # the bytes of the lines staged
    kept[nl] = False
    # a line not opening with a brace may be blank (white space only, as _split says)
    for i in np.flatnonzero(keep)[buf[starts[keep]] != ord("{")]:
        try:
            blank = data[starts[i]:ends[i]].decode("utf-8").isspace()
        except UnicodeDecodeError:
            return None
        if blank:
            keep[i] = False
            kept[starts[i]:ends[i]] = False
    index = np.flatnonzero(keep)
    starts, ends = starts[index], ends[index]
    cr = buf[ends - 1] == 13   # a CRLF line end: the CR is not the record's
    kept[ends[cr] - 1] = False
    ends = ends - cr
    offsets = np.zeros(len(index) + 1, dtype=np.int32)
    np.cumsum(ends - starts, out=offsets[1:])
    values = buf[kept] if len(index) else buf[:0]
    texts = pa.StringArray.from_buffers(len(index), pa.py_buffer(offsets), pa.py_buffer(values))
    try:
        texts.validate(full=True)
    except pa.ArrowInvalid:
        return None
    staged = _Staged()
    staged.lines = index + block.first_line
    staged.texts = texts
    staged.errs = pa.nulls(len(index), pa.string())
    staged.index = index
    return staged


def _salvaged(staged: _Staged, suspect: dict[int, bool], block: lines.Block, gz: bool) -> _Staged:
    """The staged lines after a second look at those DuckDB finds suspect (index -> whether
    valid JSON): nested too deep, several records on one line, a torn last line."""
    starts = _line_starts(block)
    last = len(staged.lines) - 1
    out = _Staged()
    previous = 0
    for k in suspect:
        for j in range(previous, k):
            out.add(staged.lines[j], staged.texts[j], staged.errs[j], staged.index[j])
        previous = k + 1
        text = staged.texts[k]
        offset = starts[staged.index[k]]
        error = lines.depth_error(text)
        if error or suspect[k]:
            out.add(staged.lines[k], text, error, staged.index[k])
            continue
        tail = (block.cut or "no line end after it") if block.unterminated and k == last else None
        for value in lines.records_of(text, offset, tail, gz):
            out.add(staged.lines[k], value.text, value.error, staged.index[k])
    for j in range(previous, len(staged.lines)):
        out.add(staged.lines[j], staged.texts[j], staged.errs[j], staged.index[j])
    return out


def _line_starts(block: lines.Block) -> list[int]:
    """The byte offset of each line of the block (a BOM on line 1 skipped)."""
    bom = len(lines.BOM) if block.offset == 0 and block.data.startswith(lines.BOM) else 0
    return [block.offset + bom] + [block.offset + m.end() for m in _NEWLINE.finditer(block.data)]
