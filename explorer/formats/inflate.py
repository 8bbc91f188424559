"""The one gzip inflater of the readers, bounded by the import limits (explorer.formats.limits):
a file read as a stream (JSON Lines, a dump), a whole document (a ``.traj.gz``) or one recorded
HTTP body. Past a limit, or on a damaged or cut stream, it raises :class:`Cut` saying why,
after giving everything decompressed before; it never holds more than the limits allow.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterator
from typing import BinaryIO

from explorer.formats import LogFileError, limits

#: How a reason for reading stopped at a limit starts (not a damaged stream).
STOPPED = "reading stopped at a limit: "
MAGIC = b"\x1f\x8b"


class Cut(Exception):
    """A gzip stream that ends early, is damaged or expands past a limit (the message says)."""


def expansion_error(out: int, read: int) -> str | None:
    """Why reading stops when ``read`` compressed bytes gave ``out`` bytes (past the
    decompressed-size or ratio limit), or None. Shared by every reader that decompresses."""
    now = limits.current()
    if out > now.max_decompressed_bytes:
        return f"{STOPPED}the text expands past" + limits.past("max_decompressed_bytes", "")
    if out > now.ratio_floor_bytes and out > now.max_ratio * max(read, 1):
        return (f"{STOPPED}{out} bytes from {read} compressed bytes, past"
                + limits.past("max_ratio", "") + " (a decompression bomb?)")
    return None


def gunzip(raw: BinaryIO, size: int) -> Iterator[bytes]:
    """Decompressed data of a gzip stream (several members included) in pieces of about
    ``size`` bytes; everything before damage or a limit is given before :class:`Cut`."""
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out: list[bytes] = []
    held = total = 0
    while True:
        data = inflate.unconsumed_tail or raw.read(1024 * 1024)
        if not data:
            if out:
                yield b"".join(out)
            if not inflate.eof:
                raise Cut(f"the gzip stream ends early, at byte {raw.tell()} of the file")
            return
        try:
            piece = inflate.decompress(data, size)
        except zlib.error as exc:
            if out:
                yield b"".join(out)
            raise Cut(f"the gzip stream is damaged near byte {raw.tell()} of the file "
                      f"({exc})") from exc
        out.append(piece)
        held += len(piece)
        total += len(piece)
        over = expansion_error(total, raw.tell() - len(inflate.unconsumed_tail))
        if over:
            excess = max(0, total - limits.current().max_decompressed_bytes)
            out[-1] = piece[:len(piece) - excess]  # nothing past the size limit is read
            yield b"".join(out)
            raise Cut(over)
        if inflate.eof:
            rest = inflate.unused_data + raw.read(2)
            if rest[:2] == MAGIC:  # the next member of a multi-member file
                raw.seek(-len(rest), 1)
                inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
            elif rest.strip(b"\x00"):
                yield b"".join(out)
                raise Cut(f"data that is not gzip follows the gzip stream, at byte "
                          f"{raw.tell() - len(rest)} of the file")
        if held >= size:
            yield b"".join(out)
            out, held = [], 0


def gunzip_bytes(data: bytes, what: str) -> bytes:
    """A whole gzip document or body, inflated; :class:`Cut` when it is damaged or cut, or
    longer than ``max_line_bytes`` (``what`` names it in the reason: "body", "document"), or
    past the decompressed-size or ratio limit."""
    cap = limits.current().max_line_bytes
    pieces, held = [], 0
    try:
        for piece in gunzip(io.BytesIO(data), 1024 * 1024):
            pieces.append(piece)
            held += len(piece)
            if held > cap:
                raise Cut(limits.past("max_line_bytes", f"{what} longer than"))
    except Cut as exc:
        raise Cut(str(exc).replace(" of the file", f" of the gzip {what}")) from None
    return b"".join(pieces)


class GzipReader(io.RawIOBase):
    """A gzip file as a readable binary stream, within the limits: past one, ``readinto``
    raises :class:`~explorer.formats.LogFileError` saying why. ``seek(0)`` starts it again (readers sniff the head first)."""

    def __init__(self, path) -> None:
        self.path = path
        self._raw = open(path, "rb")
        self._start()

    def _start(self) -> None:
        self._raw.seek(0)
        self._pieces = gunzip(self._raw, 1024 * 1024)
        self._buf = b""
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if (offset, whence) != (0, io.SEEK_SET):
            raise io.UnsupportedOperation("a gzip stream seeks only to its start")
        self._start()
        return 0

    def tell(self) -> int:
        return self._pos

    def readinto(self, buffer) -> int:
        while not self._buf:
            try:
                piece = next(self._pieces, None)
            except Cut as exc:
                raise LogFileError(self.path, str(exc)) from None
            if piece is None:
                return 0
            self._buf = piece
        n = min(len(buffer), len(self._buf))
        buffer[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        self._pos += n
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()
