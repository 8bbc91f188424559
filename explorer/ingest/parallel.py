"""A big plain file of a reader that can read it in parts, read by worker processes: the
file cut at line starts into parts (:class:`explorer.formats.lines.Span`), each part's
records read and their events written as JSON in a forked worker, the parts given back
in file order, so that staging numbers rows and records exactly as when this process
reads the file (tests/test_fast_import.py compares the two).

A reader can when it has ``prepare(path)`` (what every part is read with: its first pass
over the whole file, run here before the workers fork and inherited by them) and
``records(path, prepared, span)``. At most ``WORKERS + 1`` parts are read ahead of the
one staged, so memory stays bounded whatever the file's size; a stop (or an error)
terminates the workers.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Iterator
from pathlib import Path

from explorer.formats import fast_json
from explorer.formats.lines import Span, is_gzip
from explorer.formats.record import Record
from explorer.ingest.staging import event_json

#: Worker processes (the two cores of the target machine; the main process stages);
#: ``TURNSCOPE_IMPORT_WORKERS=0`` (or 1) reads every file in this process.
WORKERS = int(os.environ.get("TURNSCOPE_IMPORT_WORKERS") or min(2, os.cpu_count() or 1))
#: Files smaller than this are read in this process (forking costs more than it gains).
MIN_BYTES = 48 * 2**20
#: Bytes per part, about (a part ends at a line start).
PART = 8 * 2**20

_job: tuple | None = None   # (reader, path, prepared, since), inherited by the workers


def can(reader, path: Path) -> bool:
    """Whether ``path`` is read in parts by worker processes."""
    return (hasattr(reader, "prepare") and WORKERS > 1 and not fast_json.REFERENCE
            and "fork" in multiprocessing.get_all_start_methods()
            and path.is_file() and path.stat().st_size >= MIN_BYTES and not is_gzip(path))


def spans(path: Path, part: int | None = None) -> list[Span]:
    """The file cut into parts of about ``part`` bytes (:data:`PART`) at line starts (a
    line longer than a part is one part)."""
    part = part or PART
    size = path.stat().st_size
    out: list[Span] = []
    start, first = 0, 1
    with open(path, "rb") as fh:
        while start < size:
            fh.seek(start)
            data = fh.read(part)
            cut = data.rfind(b"\n") + 1
            lines = data.count(b"\n", 0, cut)
            extra = len(data)
            while cut == 0 and start + extra < size:   # a line longer than a part
                more = fh.read(part)
                nl = more.find(b"\n")
                cut, lines = (extra + nl + 1, 1) if nl >= 0 else (0, 0)
                extra += len(more)
            cut = cut or size - start   # the last line, without a line end
            out.append(Span(start, start + cut, first))
            start, first = start + cut, first + lines
    return out


def _read(span: Span) -> list[tuple]:
    """In a worker: the records of one part, their events as staged JSON bytes."""
    reader, path, prepared, since = _job
    return [(r.line, [event_json(e, since) for e in r.events], r.error, r.text, r.skipped)
            for r in reader.records(path, prepared, span)]


def records(reader, path: Path) -> Iterator[Record]:
    """The file's records in file order, read by the workers (their events as bytes)."""
    global _job
    since = fast_json.constants
    parts = deque(spans(path))
    _job = (reader, path, reader.prepare(path), since)
    pool = multiprocessing.get_context("fork").Pool(WORKERS)
    _job = None   # the workers have it; this process needs it no more
    try:
        ahead: deque = deque()
        while parts or ahead:
            while parts and len(ahead) <= WORKERS:
                ahead.append(pool.apply_async(_read, (parts.popleft(),)))
            for line, events, error, text, skipped in ahead.popleft().get():
                yield Record(line, events, error, text, skipped)
    finally:
        pool.terminate()
        pool.join()
