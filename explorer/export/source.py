"""What an export writes: the imported sessions, each with its events in ``seq`` order and
the findings of AUDITS.md that point at them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from explorer.audits import counts as audits
from explorer.store.db import Db


@dataclass
class Session:
    """One session to export: its id, its events (canonical columns, FORMAT.md names) and
    its findings (``{rule, events: [{seq, sub, kind, call_id}]}``)."""

    session_id: str
    events: list[dict]
    findings: list[dict] = field(default_factory=list)


def sessions(db: Db, session_id: str | None = None) -> list[Session]:
    """The sessions of the database (or the one named), in import order."""
    by_id: dict[str, Session] = {}
    for row in db.frame("export_events", session_id=session_id).iter_rows(named=True):
        if isinstance(row["raw"], str):
            try:
                row["raw"] = json.loads(row["raw"])
            except ValueError:
                pass
        row = {k: v for k, v in row.items() if v is not None}
        sid = row["session_id"]
        by_id.setdefault(sid, Session(sid, [])).events.append(row)
    for finding in audits.findings(db):
        if finding["session_id"] in by_id:
            by_id[finding["session_id"]].findings.append(
                {"rule": finding["rule"], "events": finding["events"]})
    return list(by_id.values())


def findings_at(session: Session) -> dict[tuple[int, int], list[dict]]:
    """The session's findings by the (seq, sub) of the first event each points at."""
    out: dict[tuple[int, int], list[dict]] = {}
    for f in session.findings:
        if f["events"]:
            first = f["events"][0]
            out.setdefault((first.get("seq"), first.get("sub")), []).append(f)
    return out
