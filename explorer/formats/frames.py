"""Length-prefixed, CRC-checked frames (LAB.md, "lab frames"; the ``.tsframes`` format).

A frame is a 4-byte big-endian payload length, a 4-byte big-endian CRC-32 (zlib's) of the
payload, then the payload (one FORMAT.md JSON record, no newline). A reader meeting a bad
length or CRC counts one torn record and resynchronises by advancing one byte at a time
until a frame checks again. This module is the one place the rule lives: the importer's
reader (:mod:`explorer.formats.tsframes`), ``generate --framed`` and the lab use it.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

HEADER = 8
#: A length above this is a bad length (a payload is one record, never empty).
MAX_PAYLOAD = 64 << 20
SUFFIX = ".tsframes"
_HEAD = struct.Struct(">II")


def encode(payload: bytes) -> bytes:
    """One frame holding ``payload``."""
    return _HEAD.pack(len(payload), zlib.crc32(payload)) + payload


def encode_all(payloads) -> bytes:
    return b"".join(encode(p) for p in payloads)


@dataclass(frozen=True)
class Frame:
    """What the reader found at ``offset``: a payload, or a torn stretch (``payload`` None,
    ``length`` the bytes skipped, ``reason`` why)."""

    offset: int
    length: int
    payload: bytes | None
    reason: str | None = None


def _checks(data, at: int, end: int) -> int:
    """The payload length of a frame that checks at ``at``, else -1."""
    if end - at < HEADER:
        return -1
    length, crc = _HEAD.unpack_from(data, at)
    if not 0 < length <= MAX_PAYLOAD or at + HEADER + length > end:
        return -1
    return length if zlib.crc32(data[at + HEADER:at + HEADER + length]) == crc else -1


def _why(data, at: int, end: int) -> str:
    if end - at < HEADER:
        return f"a torn frame header: {end - at} of {HEADER} bytes"
    length, _ = _HEAD.unpack_from(data, at)
    if not 0 < length <= MAX_PAYLOAD:
        return f"a bad frame length {length}"
    if at + HEADER + length > end:
        return f"a torn frame: {end - at - HEADER} of {length} payload bytes"
    return "a frame whose CRC-32 does not match its payload"


def frames(data, start: int = 0, end: int | None = None) -> Iterator[Frame]:
    """Every frame of ``data[start:end]`` in order, each torn stretch as one Frame."""
    end = len(data) if end is None else end
    at = start
    while at < end:
        length = _checks(data, at, end)
        if length >= 0:
            yield Frame(at, HEADER + length, bytes(data[at + HEADER:at + HEADER + length]))
            at += HEADER + length
            continue
        reason, torn = _why(data, at, end), at
        at += 1
        while at < end and _checks(data, at, end) < 0:
            at += 1
        yield Frame(torn, at - torn, None, reason)
