"""The records of an agent-format reader (explorer.formats.reader.RecordReader) staged in
blocks through the canonical JSON Lines path, so that typing, rejection, duplicates and
conflicts work as for any log.

Staging also fills the temp table ``record_rows`` (row_no, rec, skipped): which record each
staged row came from, and one row per skipped record with its reason, so that the import can
account for every record (:func:`explorer.ingest.imports.import_file`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial

import pyarrow as pa

from explorer.formats import agentscope, fast_json
from explorer.formats.reader import Lines
from explorer.formats.record import Record
from explorer.formats.typed import clean
from explorer.ingest.prefetch import ahead
from explorer.ingest.scan import (
    Chunk,
    int64_array,
    lines_chunk,
    register_batched,
    register_lines,
    utf8_array,
)
from explorer.jobs import ProgressHook
from explorer.model import CANONICAL_COLUMNS
from explorer.store.db import Db

__all__ = ["BLOCK", "NO_EVENTS", "Record", "stage"]

#: Events staged per chunk, at most; and the JSON bytes past which a chunk is staged
#: sooner (a Codex event's raw carries its response's reasoning: 20,000 of them held
#: several hundred MB in each of the blocks made ahead).
BLOCK = 20_000
BLOCK_BYTES = 32 << 20
#: The canonical columns: an event with a key outside them has_extra (jsonl_source.sql).
KNOWN = frozenset(CANONICAL_COLUMNS)
#: Why a record that is neither rejected nor skipped gave no event (a reader's oversight).
NO_EVENTS = "no events"


def stage(db: Db, records: Iterable[Record], progress: ProgressHook | None = None) -> Iterator[Chunk]:
    """Stage the events (and the rejected records) in blocks; skipped records stage nothing
    but a ``record_rows`` row with their reason. Staged rows are numbered across the whole
    file, in record order; records are numbered from 0 in the order the reader gives them,
    a restated record (:class:`Record`) from -1 down (explorer.ingest.appending).

    The reader runs and its events are written as JSON in a thread of their own
    (explorer.ingest.prefetch), a block ahead of the one DuckDB stages here."""
    db.run("create_record_rows")
    for block in ahead(partial(_blocks, records), progress):
        if block.lines is not None:
            register_lines(db, block.first_row, block.lines, block.extras)
        _keep_record_rows(db, block.map_rows, block.map_recs, block.map_skips)
        if block.lines is not None:
            yield lines_chunk(block.valid)


@dataclass
class _Block:
    """One block of staged rows (None when it has none), and its records' rows."""

    first_row: int
    lines: Lines | None
    extras: list[bool | None]
    valid: bool
    map_rows: list[int | None]
    map_recs: list[int]
    map_skips: list[str | None]


def _blocks(records: Iterable[Record], progress: ProgressHook | None = None) -> Iterator[_Block]:
    """The staged blocks of the records, each event written as JSON (no database here)."""
    staged = Lines([], [], [])
    extras: list[bool | None] = []   # per staged row: keys outside the format (None: unknown)
    map_rows: list[int | None] = []
    map_recs: list[int] = []
    map_skips: list[str | None] = []
    first_row = 0
    done = 0
    since = fast_json.constants   # a NaN parsed after this: events written the json way
    # Whether every event of the block was written by orjson: standard JSON, which DuckDB
    # then need not check (json_valid) before it reads it (explorer.ingest.scan.lines_chunk).
    valid = True

    held = 0   # bytes of JSON text in the block

    def add(rec: int, line: int, text: str | bytes | None, err: str | None,
            extra: bool | None = None) -> None:
        nonlocal held
        map_rows.append(first_row + len(staged.line))
        extras.append(extra)
        map_recs.append(rec)
        map_skips.append(None)
        staged.line.append(line)
        # A lone surrogate (a JSON escape, or an undecodable byte) is no UTF-8: pyarrow
        # could not stage it; it is kept visible as its escape (explorer.formats.typed).
        # orjson's bytes hold none (explorer.formats.fast_json).
        if type(text) is not bytes and text is not None:
            text = clean(text, json_text=err is None).encode("utf-8")
        staged.text.append(text)
        staged.err.append(clean(err))
        held += 0 if text is None else len(text)

    def flush() -> _Block:
        """The block gathered so far, its lists handed over (new ones begun)."""
        nonlocal first_row, valid, staged, extras, map_rows, map_recs, map_skips, held
        lines = (Lines(staged.line, utf8_array(staged.text), staged.err)
                 if staged.line else None)
        block = _Block(first_row, lines, extras, valid, map_rows, map_recs, map_skips)
        first_row += len(staged.line)
        valid, held = True, 0
        staged, extras, map_rows, map_recs, map_skips = Lines([], [], []), [], [], [], []
        return block

    restated = 0
    for rec, record in enumerate(records):
        if record.restated:
            restated += 1
            rec = -restated
        done += 1
        if record.error is not None:
            add(rec, record.line, record.text, record.error)
        for event in record.events:
            # AgentScope markers are recognised in any format (LOG-FORMATS.md §1).
            event = agentscope.mark(event)
            text = fast_json.dumps(event, since)
            if text is not None:   # a dict's keys: unique, and strings (orjson wrote them)
                add(rec, record.line, text, None, not KNOWN.issuperset(event))
            else:
                valid = False
                add(rec, record.line, json.dumps(event, ensure_ascii=False, default=str), None)
        if record.error is None and not record.events:
            map_rows.append(None)
            map_recs.append(rec)
            map_skips.append(clean((record.skipped or NO_EVENTS)[:120]))
        if len(staged.line) >= BLOCK or len(map_recs) >= 4 * BLOCK or held >= BLOCK_BYTES:
            yield flush()
            if progress:
                progress(done, done + 1)
    yield flush()
    if progress:
        progress(done, done)


def _keep_record_rows(db: Db, rows: list, recs: list, skips: list) -> None:
    """Append which record each staged row came from (and the skipped records)."""
    if not recs:
        return
    register_batched(db, "stage_records", pa.table({
        "row_no": int64_array(rows),
        "rec": int64_array(recs),
        "skipped": utf8_array([None if s is None else s.encode("utf-8") for s in skips]),
    }))
    db.run("insert_record_rows")
    db.con.unregister("stage_records")
