"""The columns FORMAT.md added for issue 15 (parent_session, parent_call, note) through the
canonical readers (JSON Lines, CSV, Parquet) into the store, and a database of the schema
before them (Turnscope schema 3, without the columns) opened and rebuilt from its sources."""

from __future__ import annotations

import csv
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from explorer.audits import counts as audits
from explorer.ingest.imports import import_paths, open_database
from explorer.store.db import SCHEMA_VERSION, Store

ROWS = [
    {"session_id": "p", "seq": 1, "kind": "USER", "text": "go"},
    {"session_id": "p", "seq": 2, "kind": "CALL", "call_id": "t1", "tool": "Task", "text": "{}"},
    {"session_id": "p", "seq": 3, "kind": "USER", "text": "ls output", "note": "command output"},
    {"session_id": "c", "seq": 4, "kind": "USER", "text": "sub task", "parent_session": "p",
     "parent_call": "t1"},
    {"session_id": "c", "seq": 5, "kind": "OTHER", "text": "hm", "note": "thinking", "tokens": 0,
     "parent_session": "p", "parent_call": "t1"},
]
COLUMNS = ("session_id", "seq", "kind", "call_id", "tool", "text", "tokens", "note",
           "parent_session", "parent_call")


def _write(tmp_path, form: str):
    path = tmp_path / f"log.{form}"
    if form == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    elif form == "csv":
        with path.open("w", newline="") as fh:
            writer = csv.DictWriter(fh, COLUMNS)
            writer.writeheader()
            writer.writerows(ROWS)
    else:
        pq.write_table(pa.table({c: [r.get(c) for r in ROWS] for c in COLUMNS}), path)
    return path


@pytest.mark.parametrize("form", ["jsonl", "csv", "parquet"])
def test_canonical_readers_keep_the_columns(store, tmp_path, form):
    report = import_paths(store, [_write(tmp_path, form)])
    assert not report.errors and report.rejected == 0
    got = store.con.execute(
        "SELECT e.seq, d.note, d.parent_session, d.parent_call, d.raw FROM events e "
        "JOIN event_details d USING (eid) ORDER BY e.seq").fetchall()
    assert [g[:4] for g in got] == [(r["seq"], r.get("note"), r.get("parent_session"),
                                     r.get("parent_call")) for r in ROWS]
    assert all(g[4] is None for g in got)   # known columns, not extra ones kept in raw
    counts = audits.session_counts(store)
    # the noted USER opens no turn (FORMAT.md, Turns)
    assert dict(counts.select("session_id", "turns").rows()) == {"p": 1, "c": 1}


def test_a_database_of_the_schema_before_the_columns_opens_and_is_rebuilt(tmp_path):
    """Schema 3 had event_details without the three columns; such a database (made here
    by dropping them and writing version 3) opens, is rebuilt from its source file, and
    then holds them."""
    assert SCHEMA_VERSION == 4
    db, log = tmp_path / "old.duckdb", _write(tmp_path, "jsonl")
    s = Store(db)
    import_paths(s, [log])
    for column in ("note", "parent_session", "parent_call"):
        s.con.execute(f"ALTER TABLE event_details DROP COLUMN {column}")
    s.run("set_meta", key="schema_version", value="3")
    s.close()
    reopened, report = open_database(db)
    assert report is not None and [f.path for f in report.files] == [str(log)]
    assert reopened.con.execute("SELECT count(*) FROM event_details WHERE parent_session = 'p'"
                                ).fetchone() == (2,)
    reopened.close()
