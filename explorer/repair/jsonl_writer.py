"""A repaired copy of a session as canonical JSON Lines (FORMAT.md): its events as imported,
those the plan drops left out, the texted ones as USER text, and each placeholder RESULT
right after the events of its CALL's ``seq`` (``sub`` after theirs, ``synthetic`` true)."""

from __future__ import annotations

import json
from typing import TextIO

from explorer.export import source
from explorer.repair.plan import PLACEHOLDER, Plan


def write(fh: TextIO, plan: Plan, db) -> None:
    """Write the session's repaired events to ``fh``."""
    fh.writelines(json.dumps({k: v for k, v in e.items() if v is not None},
                             ensure_ascii=False, default=str) + "\n"
                  for e in repaired_events(plan, db))


def repaired_events(plan: Plan, db) -> list[dict]:
    """The session's events as imported (export columns) with the plan applied."""
    events = source.sessions(db, plan.session_id)[0].events
    dropped = {(c.seq, c.sub) for c in plan.changes if c.action == "drop"}
    texted = {(c.seq, c.sub) for c in plan.changes if c.action == "text"}
    added: dict[int, list] = {}
    for c in plan.changes:
        if c.action == "add":
            added.setdefault(c.seq, []).append(c)
    last_sub: dict[int, int] = {}
    for e in events:
        last_sub[e["seq"]] = max(last_sub.get(e["seq"], e["sub"]), e["sub"])
    out = []
    for i, e in enumerate(events):
        key = (e["seq"], e["sub"])
        if key not in dropped:
            out.append(_texted(e) if key in texted else e)
        end_of_seq = i + 1 == len(events) or events[i + 1]["seq"] != e["seq"]
        if end_of_seq and e["seq"] in added:
            for k, c in enumerate(added[e["seq"]], start=1):
                out.append({"session_id": plan.session_id, "seq": e["seq"],
                            "sub": last_sub[e["seq"]] + k, "ts": e.get("ts"), "kind": "RESULT",
                            "call_id": c.call_id, "text": PLACEHOLDER, "is_error": True,
                            "synthetic": True,
                            "event_id": f"turnscope-repair:{c.call_id}:{c.seq}.{c.sub}"})
    return out


def _texted(e: dict) -> dict:
    e = {k: v for k, v in e.items() if k not in ("call_id", "tool", "is_error")}
    e["text"] = (f"[Turnscope repair: result of a tool call that is not in this session]\n"
                 f"{e.get('text') or ''}")
    e["kind"] = "USER"
    return e
