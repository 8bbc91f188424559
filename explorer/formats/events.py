"""The bridge for readers of agent-tool formats (LOG-FORMATS.md): a reader maps each record
of its file to canonical events in Python, and they are staged through the canonical
JSON Lines path, so typing, rejection, duplicates and conflicts work as for any log.

A reader module of this kind has ``NAME``, ``matches(path, head) -> bool`` (by content) and
``records(path) -> Iterator[Record]``, and sets ``chunks = events.chunks_for(records)``.

Staging also fills the temp table ``record_rows`` (row_no, rec, skipped): which record each
staged row came from, and one row per skipped record with its reason, so that the import can
account for every record (:func:`explorer.ingest.imports.import_file`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

import pyarrow as pa

from explorer.formats import Chunk, Progress, agentscope

#: Events staged per chunk.
BLOCK = 20_000
#: Why a record that is neither rejected nor skipped gave no event (a reader's oversight).
NO_EVENTS = "no events"
_WORD = re.compile(r"[A-Za-z0-9_.-]{1,40}")


@dataclass
class Record:
    """One record of the input (a line, an array element, a cassette interaction).

    ``line``: its 1-based line (or element) number, shown with every error about it;
    ``events``: the canonical events it gives (FORMAT.md field names; ``raw`` may be any
    JSON value); ``error``: why it was rejected (then ``text`` is kept for the user);
    ``skipped``: why it gave no event although valid (UI state, a replayed copy, ...): a
    short text of the reader's own, the same for every record skipped for that reason.
    """

    line: int
    events: list[dict] = field(default_factory=list)
    error: str | None = None
    text: str | None = None
    skipped: str | None = None


def reason_word(value) -> str:
    """A value from the log fit to name a skip reason (a record type, a subtype): itself when
    it is a short identifier, else ``other``, so that reasons stay few and never carry markup."""
    return value if isinstance(value, str) and _WORD.fullmatch(value) else "other"


def chunks_for(records: Callable[[Path], Iterable[Record]]):
    """The ``chunks`` function of a reader whose ``records(path)`` yields Records."""
    def chunks(db, path: Path, progress: Progress | None = None) -> Iterator[Chunk]:
        return stage(db, records(path), progress)
    return chunks


def stage(db, records: Iterable[Record], progress: Progress | None = None) -> Iterator[Chunk]:
    """Stage the events (and the rejected records) in blocks; skipped records stage nothing
    but a ``record_rows`` row with their reason. Staged rows are numbered across the whole
    file, in record order; records are numbered from 0 in the order the reader gives them."""
    from explorer.formats import canonical_jsonl

    db.run("create_record_rows")
    rows: list[int] = []
    lines: list[int] = []
    texts: list[str | None] = []
    errs: list[str | None] = []
    map_rows: list[int | None] = []
    map_recs: list[int] = []
    map_skips: list[str | None] = []
    row_no = 0
    done = 0

    def add(rec: int, line: int, text: str | None, err: str | None) -> None:
        nonlocal row_no
        rows.append(row_no)
        lines.append(line)
        texts.append(text)
        errs.append(err)
        map_rows.append(row_no)
        map_recs.append(rec)
        map_skips.append(None)
        row_no += 1

    def flush() -> None:
        _keep_record_rows(db, map_rows, map_recs, map_skips)
        for column in (rows, lines, texts, errs, map_rows, map_recs, map_skips):
            column.clear()

    for rec, record in enumerate(records):
        done += 1
        if record.error is not None:
            add(rec, record.line, record.text, record.error)
        for event in record.events:
            # AgentScope markers are recognised in any format (LOG-FORMATS.md §1).
            add(rec, record.line, json.dumps(agentscope.mark(event), ensure_ascii=False, default=str), None)
        if record.error is None and not record.events:
            map_rows.append(None)
            map_recs.append(rec)
            map_skips.append((record.skipped or NO_EVENTS)[:120])
        if len(rows) >= BLOCK or len(map_recs) >= 4 * BLOCK:
            chunk = canonical_jsonl.stage_chunk(db, rows, lines, texts, errs) if rows else None
            flush()
            if chunk is not None:
                yield chunk
            if progress:
                progress(done, done + 1)
    chunk = canonical_jsonl.stage_chunk(db, rows, lines, texts, errs) if rows else None
    flush()
    if chunk is not None:
        yield chunk
    if progress:
        progress(done, done)


def _keep_record_rows(db, rows: list, recs: list, skips: list) -> None:
    """Append which record each staged row came from (and the skipped records)."""
    if not recs:
        return
    db.con.register("stage_records", pa.table({
        "row_no": pa.array(rows, pa.int64()),
        "rec": pa.array(recs, pa.int64()),
        "skipped": pa.array(skips, pa.string()),
    }))
    db.run("insert_record_rows")
    db.con.unregister("stage_records")
