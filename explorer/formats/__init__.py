"""Readers of input files: which format a file is in (:func:`detect`).

What a reader module holds is written once, in :mod:`explorer.formats.reader`; the readers
tried, in order, are :data:`explorer.formats.registry.READERS`.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.text_escape import visible

if TYPE_CHECKING:
    from explorer.formats.reader import Reader

_HEAD = 64 * 1024
_BINARY_MAGIC = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"%PDF": "a PDF document",
    b"PK\x03\x04": "a ZIP archive",
    b"SQLite format 3": "an SQLite database",
    b"\x7fELF": "an executable",
    b"PAR1": "a Parquet file",   # read only by readers of binary files (canonical Parquet)
}


class LogFileError(Exception):
    """A whole file that cannot be read as a session log; says which file and why."""

    def __init__(self, path: str | Path, reason: str) -> None:
        # one line, whatever the name holds (explorer.text_escape): a newline in a file
        # name cannot start a message line of its own
        super().__init__(visible(f"{path}: {reason}"))
        self.path = str(path)
        self.reason = reason


def read_head(path: Path) -> bytes:
    """The first bytes of a file, decompressed when it is gzip (as much as can be: a cut or
    damaged stream gives what came before the damage; the reader reports the damage)."""
    with open(path, "rb") as fh:
        head = fh.read(_HEAD)
    if head[:2] != b"\x1f\x8b":
        return head
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = b""
    with open(path, "rb") as fh:
        try:
            while len(out) < _HEAD and not inflate.eof and (data := fh.read(_HEAD)):
                out += inflate.decompress(data, _HEAD - len(out))
        except zlib.error as exc:
            if not out:
                raise LogFileError(path, f"not a readable gzip file ({exc})") from exc
        complete = inflate.eof
    if not out and not complete:
        raise LogFileError(path, "a truncated gzip file: it ends before any of its text")
    if not out:
        raise LogFileError(path, "the file is empty (a gzip file holding no text)")
    return out


def detect(path: Path) -> Reader:
    """The reader module for ``path``, or :class:`LogFileError` saying why there is none."""
    from explorer.formats.registry import READERS  # the readers import this package

    if not path.exists():
        raise LogFileError(path, "no such file")
    if path.is_dir():
        raise LogFileError(path, "is a folder, not a log file")
    if path.stat().st_size == 0:
        raise LogFileError(path, "the file is empty")
    head = read_head(path)
    magic = next((what for m, what in _BINARY_MAGIC.items() if head.startswith(m)), None)
    if magic is None and is_utf16(head):
        raise LogFileError(path, "UTF-16 text: convert it to UTF-8 (for example "
                                 "iconv -f UTF-16 -t UTF-8)")
    for reader in READERS:
        if (magic is None or reader.BINARY) and _matches(reader, path, head):
            return reader  # a binary container only for a reader of one (Inspect's .eval zip)
    if magic is not None:
        raise LogFileError(path, f"not a session log: the file is {magic}")
    if not head.strip():
        raise LogFileError(path, "the file holds only blank lines")
    if b"\x00" in head:
        raise LogFileError(path, "not a session log: the file holds binary data")
    tried = ", ".join(reader.NAME for reader in READERS)
    raise LogFileError(path, f"not a recognised log format (tried: {tried}; see FORMAT.md "
                             "and LOG-FORMATS.md)")


def is_utf16(head: bytes) -> bool:
    """Whether a file's first bytes are UTF-16 text: its byte-order mark, or (none written)
    the NUL of every other byte that Latin text in UTF-16 has, on one side of each pair."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return not head.startswith(b"\xff\xfe\x00\x00")  # that is UTF-32's mark
    pairs = len(head) // 2
    if pairs < 2:
        return False
    even, odd = head[0:pairs * 2:2].count(0), head[1:pairs * 2:2].count(0)
    return max(even, odd) >= 0.9 * pairs and min(even, odd) == 0


def _matches(reader: Reader, path: Path, head: bytes) -> bool:
    """Whether ``reader`` takes the file; a head nested too deep for Python's json to
    sniff (RecursionError) is not taken by that reader."""
    try:
        return reader.matches(path, head)
    except RecursionError:
        return False
