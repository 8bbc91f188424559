"""Canonical events in frames (``.tsframes``): each frame's payload one FORMAT.md JSON
record (the frame rule: :mod:`explorer.formats.frames`).

A frame whose length or CRC fails, with every byte up to the next frame that checks, is
one rejected record naming its frame number and byte offset; the good payloads go to
DuckDB as JSON text, as JSON Lines do.
"""

from __future__ import annotations

import mmap
from collections.abc import Iterator
from pathlib import Path

from explorer.formats import frames
from explorer.formats.reader import Lines
from explorer.jobs import ProgressHook

NAME = "tsframes"
BINARY = True
KIND = "scan"  # explorer.formats.reader.ScanReader
_BLOCK = 1 << 16


def matches(path: Path, head: bytes) -> bool:
    return path.name.lower().endswith(frames.SUFFIX)


def scan(path: Path, progress: ProgressHook | None = None) -> Iterator[Lines]:
    """The frames in blocks; the record number of a frame is its place in the file (from 1,
    a torn stretch counted as one)."""
    total = path.stat().st_size
    if not total:
        return
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        block = Lines([], [], [])
        for number, frame in enumerate(frames.frames(data), 1):
            block.line.append(number)
            if frame.payload is None:
                block.text.append(None)
                block.err.append(f"frame {number} at byte {frame.offset}: {frame.reason} "
                                 f"({frame.length} bytes skipped to the next frame that checks)")
            else:
                try:
                    block.text.append(frame.payload.decode("utf-8"))
                    block.err.append(None)
                except UnicodeDecodeError as exc:
                    block.text.append(frame.payload.decode("utf-8", "backslashreplace"))
                    block.err.append(f"frame {number} at byte {frame.offset}: not UTF-8 "
                                     f"(byte {exc.start} of its payload)")
            if len(block.line) >= _BLOCK:
                yield block
                block = Lines([], [], [])
                if progress:
                    progress(frame.offset + frame.length, total)
        if block.line:
            yield block
        if progress:
            progress(total, total)
