"""The bridge for readers of agent-tool formats (LOG-FORMATS.md): a reader maps each record
of its file to canonical events in Python, and they are staged through the canonical
JSON Lines path, so typing, rejection, duplicates and conflicts work as for any log.

A reader module of this kind has ``NAME``, ``matches(path, head) -> bool`` (by content) and
``records(path) -> Iterator[Record]``, and sets ``chunks = events.chunks_for(records)``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from explorer.formats import Chunk, Progress, agentscope

#: Events staged per chunk.
BLOCK = 20_000


@dataclass
class Record:
    """One record of the input (a line, an array element, a cassette interaction).

    ``line``: its 1-based line (or element) number, shown with every error about it;
    ``events``: the canonical events it gives (FORMAT.md field names; ``raw`` may be any
    JSON value); ``error``: why it was rejected (then ``text`` is kept for the user);
    ``skipped``: why it gave no event although valid (UI state, a replayed copy, ...).
    """

    line: int
    events: list[dict] = field(default_factory=list)
    error: str | None = None
    text: str | None = None
    skipped: str | None = None


def chunks_for(records: Callable[[Path], Iterable[Record]]):
    """The ``chunks`` function of a reader whose ``records(path)`` yields Records."""
    def chunks(db, path: Path, progress: Progress | None = None) -> Iterator[Chunk]:
        return stage(db, records(path), progress)
    return chunks


def stage(db, records: Iterable[Record], progress: Progress | None = None) -> Iterator[Chunk]:
    """Stage the events (and the rejected records) in blocks; skipped records stage nothing.
    Staged rows are numbered across the whole file, in record order."""
    from explorer.formats import canonical_jsonl

    rows: list[int] = []
    lines: list[int] = []
    texts: list[str | None] = []
    errs: list[str | None] = []
    row_no = 0
    done = 0

    def add(line: int, text: str | None, err: str | None) -> None:
        nonlocal row_no
        rows.append(row_no)
        lines.append(line)
        texts.append(text)
        errs.append(err)
        row_no += 1

    for record in records:
        done += 1
        if record.error is not None:
            add(record.line, record.text, record.error)
        for event in record.events:
            # AgentScope markers are recognised in any format (LOG-FORMATS.md §1).
            add(record.line, json.dumps(agentscope.mark(event), ensure_ascii=False, default=str), None)
        if len(rows) >= BLOCK:
            yield canonical_jsonl.stage_chunk(db, rows, lines, texts, errs)
            rows, lines, texts, errs = [], [], [], []
            if progress:
                progress(done, done + 1)
    if rows:
        yield canonical_jsonl.stage_chunk(db, rows, lines, texts, errs)
    if progress:
        progress(done, done)
