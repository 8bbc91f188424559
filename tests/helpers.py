"""Small helpers shared by the core tests (no Qt)."""

from __future__ import annotations

import json
from pathlib import Path

from explorer import audits
from explorer.ingest import import_paths
from explorer.store import Db


def jsonl(path: Path, rows: list[dict]) -> Path:
    """Write rows as JSON Lines."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def load(db: Db, *paths: Path):
    """Import files and fail loudly on a file-level error."""
    report = import_paths(db, list(paths))
    assert not report.errors, report.errors
    return report


def events_as_dicts(db: Db) -> list[dict]:
    """Every stored event with the fields tests/reference.py reads."""
    rows = db.con.execute(
        "SELECT eid, file_id, session_id, seq, sub, ts, CAST(kind AS VARCHAR), call_id, "
        "user_id, turn, event_id FROM events ORDER BY eid").fetchall()
    keys = ("eid", "file", "session_id", "seq", "sub", "ts", "kind", "call_id", "user_id",
            "turn", "event_id")
    return [dict(zip(keys, r)) for r in rows]


def finding_counts(db: Db, order: str) -> dict[str, int]:
    """How many findings each rule printed."""
    counts = dict.fromkeys(audits.FINDING_RULES, 0)
    for f in audits.findings(db, order):
        counts[f["rule"]] += 1
    return counts
