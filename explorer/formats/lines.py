"""Safe reading of line-based logs (JSON Lines, plain or gzip) for every reader: lines with
their byte offsets, salvaged as far as they can be, and a clear reason for what cannot be.

What can go wrong with a log that was being written when its writer died, and what this
module gives for it (issue 6, "salvage, never silent loss"):

- the last line cut mid-record (no line end after it): a ``torn_tail`` error;
- a gzip stream that ends early: every line before the cut is read; the cut line is a
  ``torn_tail``, or, when the cut fell between lines, one more line says so;
- bytes that are not UTF-8: the line is an error at its byte offset, its bytes kept as
  ``\\xNN`` escapes; a BOM before the first line and CRLF line ends read as usual;
- a complete JSON record followed on the same line by another (a torn write glued on by a
  later append): :func:`split_values` gives each record, and the broken part with its offset;
- JSON nested deeper than :data:`MAX_DEPTH` levels: an error (Python's json would raise
  RecursionError on it, far below its end).

Offsets count bytes of the file, or of the decompressed text for a gzip file (``where``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from explorer.formats import fast_json, limits
from explorer.formats.inflate import STOPPED, Cut, expansion_error, gunzip
from explorer.formats.json_values import MAX_DEPTH, Value, depth_error, split_values
from explorer.formats.reader import Span

__all__ = ["BLOCK", "BOM", "LINE_BLOCK", "MAX_DEPTH", "TORN_TAIL", "Block", "Line", "Span", "Value", "blocks",
           "depth_error", "expansion_error", "is_gzip", "json_lines", "line_error", "lines", "placed_json_lines",
           "records_of",
           "split_values", "torn", "truncated", "where"]

#: Bytes read (and decompressed) at a time: the blocks a reader stages whole (canonical
#: JSON Lines: each one DuckDB statement, explorer.formats.canonical_jsonl).
BLOCK = 32 * 1024 * 1024
#: Bytes read at a time by :func:`lines`, which gives the lines one by one: blocks of 32 MB
#: were each a fresh mapping of memory, which glibc's malloc never reuses for that size
#: (its dynamic mmap threshold stops at 32 MB), and faulting their pages in again took a
#: tenth of a Codex import; blocks this small come from the heap, reused.
LINE_BLOCK = 4 << 20
TORN_TAIL = "torn_tail"
BOM = b"\xef\xbb\xbf"



@dataclass
class Block:
    """Whole lines of a file: ``data`` starts at byte ``offset`` (decompressed) on line
    ``first_line``; ``pos`` is how far the file itself was read; in the final block,
    ``unterminated`` says that the file's last line has no line end and ``cut`` why the file
    ended early (a truncated or corrupt gzip stream, a limit); ``long``: the block stands
    for the one line ``first_line``, longer than the limit, and says so."""

    data: bytes
    offset: int
    first_line: int
    pos: int
    unterminated: bool = False
    cut: str | None = None
    long: str | None = None


class Line(NamedTuple):
    """One non-blank line: number from 1, byte offset of its start, its bytes without the
    line end (and without a BOM on line 1), why it cannot be read (None when it can), and,
    for the file's last line when no line end follows it, why (its record may be torn)."""

    number: int
    offset: int
    data: bytes
    error: str | None
    tail: str | None

    def text(self) -> str:
        """The line as text; bytes that are not UTF-8 shown as ``\\xNN``."""
        return self.data.decode("utf-8", "backslashreplace")


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def where(offset: int, gz: bool) -> str:
    """A byte offset as said in reasons."""
    return f"byte {offset} of the {'decompressed text' if gz else 'file'}"


def blocks(path: Path, size: int = BLOCK, span: Span | None = None) -> Iterator[Block]:
    """The file (gzip or plain) in blocks of whole lines (only its ``span`` when one is given:
    a plain file's bytes, numbered from there); a damaged gzip stream, or one that
    expands past the limits (:mod:`explorer.formats.limits`), ends the blocks with ``cut``
    set, after everything decompressed before. A line longer than ``max_line_bytes`` is a
    block of its own with no data and ``long`` set; it is never held in memory whole."""
    most = limits.current().max_line_bytes
    size = max(1, min(size, most // 2))  # a line within one read is never past the limit
    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        offset, line = 0, 1
        if span is not None:
            if gz:
                raise ValueError("a span of a gzip file cannot be read on its own")
            raw.seek(span.offset)
            offset, line = span.offset, span.first_line
        reads = (gunzip(raw, size) if gz else
                 _reads(raw, size, None if span is None else span.end - span.offset))
        parts: list[bytes] = []
        held = 0
        skipped = -1  # bytes of a line past the limit read so far (-1: none)
        cut = None
        while True:
            try:
                data = next(reads, b"")
            except Cut as exc:
                cut = str(exc)
                break
            if not data:
                break
            if skipped >= 0:
                nl = data.find(b"\n")
                if nl < 0:
                    skipped += len(data)
                    continue
                yield _long(offset, line, raw.tell())
                offset, line, skipped = offset + skipped + nl + 1, line + 1, -1
                data = data[nl + 1:]
            end = data.rfind(b"\n") + 1
            if end == 0:
                parts.append(bytes(data))  # a line longer than a block: keep reading
                held += len(data)
                if held > most:
                    parts, held, skipped = [], 0, held
                continue
            if parts and held + data.find(b"\n") > most:
                nl = data.find(b"\n")
                yield _long(offset, line, raw.tell())
                offset, line = offset + held + nl + 1, line + 1
                parts, held, data, end = [], 0, data[nl + 1:], end - nl - 1
            # one copy: the read buffer is used again (a memoryview slices it without one)
            view = memoryview(data)
            whole = b"".join([*parts, view[:end]]) if parts else bytes(view[:end])
            parts = [bytes(view[end:])] if end < len(data) else []
            view.release()
            held = len(data) - end
            if whole:
                yield Block(whole, offset, line, raw.tell())
            offset += len(whole)
            line += whole.count(b"\n")
        if skipped >= 0:
            yield _long(offset, line, raw.tell())
            offset, line = offset + skipped, line + 1
        rest = b"".join(parts)
        if rest and cut and cut.startswith(STOPPED):  # its text is not kept: up to a limit's size
            yield Block(b"", offset, line, raw.tell(),
                        long=f"{cut}; this line and the rest of the file are not read")
            rest, cut, offset, line = b"", None, offset + len(rest), line + 1
        yield Block(rest, offset, line, raw.tell(), unterminated=bool(rest), cut=cut)


def _reads(raw, size: int, left: int | None) -> Iterator[bytearray | bytes]:
    """The file's bytes from where ``raw`` stands (``left`` of them, or all), ``size`` at a
    time, each read into the same buffer: the caller copies what it keeps before the next.
    A fresh block of 32 MB per read was a fresh mapping of memory, its pages faulted in
    again each time (glibc's malloc maps blocks that large anew): reading the 245 MB input
    of bench_import in blocks took 0.43 s that way, 0.21 s this way."""
    buf = bytearray(size)
    view = memoryview(buf)
    while left is None or left > 0:
        want = size if left is None else min(size, left)
        n = raw.readinto(view[:want])
        if not n:
            return
        if left is not None:
            left -= n
        yield buf if n == size else bytes(view[:n])


def _long(offset: int, line: int, pos: int) -> Block:
    return Block(b"", offset, line, pos,
                 long=limits.past("max_line_bytes", "line longer than"))




def lines(path: Path, span: Span | None = None,
          wanted: Callable[[bytes], bool] | None = None, checked: bool = True) -> Iterator[Line]:
    """The non-blank lines of a file (gzip or plain), or of its ``span``, with their numbers
    and offsets (``wanted``: only the lines whose bytes it takes, the others not even
    checked).

    A line that is not UTF-8 or nests too deep comes with its error (unless not ``checked``:
    the caller checks it, :func:`json_lines`); a gzip stream cut between lines gives one
    more, empty line whose error says so."""
    gz = is_gzip(path)
    number = 0
    for block in blocks(path, LINE_BLOCK, span=span):
        if block.long:
            yield Line(block.first_line, block.offset, b"", block.long, None)
            continue
        data = block.data.removeprefix(BOM) if block.offset == 0 else block.data
        offset = block.offset + len(block.data) - len(data)
        pieces = data.split(b"\n")
        if not block.unterminated:
            pieces.pop()  # the empty piece after the final line end
        for i, piece in enumerate(pieces):
            number = block.first_line + i
            tail = None
            if block.unterminated and i == len(pieces) - 1:
                tail = block.cut or "no line end after it"
            if piece and not piece.isspace():   # (what piece.strip() says, without a copy)
                body = piece.removesuffix(b"\r")
                if wanted is None or wanted(body):
                    yield Line(number, offset, body,
                               line_error(body, offset, gz) if checked else None, tail)
            offset += len(piece) + 1
        if block.cut and not block.unterminated:
            yield Line(block.first_line + len(pieces), offset, b"", truncated(block.cut, offset),
                       block.cut)


def truncated(cut: str, offset: int) -> str:
    """The reason for a gzip stream that ends early between two lines."""
    if cut.startswith(STOPPED):
        return f"{cut}, after {offset} bytes of text that end with a whole line"
    return (f"truncated gzip: {cut}, after {offset} bytes of text that end with a whole line; "
            "every line before was read")


def line_error(data: bytes, offset: int, gz: bool) -> str | None:
    """Why a line's bytes cannot be read as text (not UTF-8), or None."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return (f"invalid UTF-8 at byte {exc.start} of the line "
                f"({where(offset + exc.start, gz)})")
    return depth_error(text)


def torn(start: int, end: int, why: str, gz: bool) -> str:
    """The reason for a last line that ends mid-record: the record from byte ``start`` was
    cut at byte ``end`` (of the file or the decompressed text)."""
    return (f"{TORN_TAIL}: the last line ends mid-record: the record from {where(start, gz)} "
            f"is cut at {where(end, gz)} ({why})")


def records_of(text: str, offset: int, tail: str | None, gz: bool) -> list[Value]:
    """The records of one readable line starting at byte ``offset``, each broken part with
    a reason naming its byte offset; a broken last part of a line with a ``tail`` (the
    file's last, unterminated line) is a ``torn_tail``."""
    values = split_values(text)
    out = []
    for value in values:
        if value.error is not None:
            start = offset + value.start
            if tail and value is values[-1]:
                error = torn(start, offset + len(text.encode("utf-8", "surrogateescape")), tail, gz)
            elif len(values) > 1:
                error = (f"a record cut mid-write, glued to another on the same line: from byte "
                         f"{value.start} of the line ({where(start, gz)}), {value.error}")
            else:
                error = value.error
            value = value._replace(error=error)
        out.append(value)
    return out


def json_lines(path: Path, span: Span | None = None) -> Iterator[tuple[Line, Value]]:
    """Every JSON record of a JSON Lines file with the line it is on, for readers of
    agent formats: a line gives one record, or several when records were glued onto it;
    a line that cannot be read gives one Value with ``error`` set (and ``text`` the line,
    escaped). Errors name the byte offset; a cut last line is a ``torn_tail``."""
    gz = is_gzip(path)
    depth = limits.current().max_json_depth
    for line in lines(path, span, checked=False):
        data = line.data
        # A line orjson parses and writes back is UTF-8 and nests at most ORJSON_DEPTH
        # levels: of its checks (line_error) none is left unless the limit is lower.
        value = fast_json.compact_object(data) if line.error is None else None
        if value is None or (depth < fast_json.ORJSON_DEPTH
                             and data.count(b"{") + data.count(b"[") > depth):
            if line.error is None and (error := line_error(data, line.offset, gz)):
                line = line._replace(error=error)
            if line.error:
                yield line, Value(0, line.text(), None, line.error)
                continue
        text = data.decode("utf-8")
        if value is not None:
            yield line, Value(0, text, value, None)   # what records_of finds, faster
            continue
        for value in records_of(text, line.offset, line.tail, gz):
            yield line, value


def placed_json_lines(path: Path, span: Span | None = None) -> Iterator[tuple[Line, Value, int]]:
    """:func:`json_lines` with each record's place on its line: 0, or how many records
    come before it there when records were glued onto one line (a torn write)."""
    previous, place = 0, 0
    for line, value in json_lines(path, span):
        place = place + 1 if line.number == previous else 0
        previous = line.number
        yield line, value, place
