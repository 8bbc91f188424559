"""Events as JSON for the clipboard (Ctrl+C in the turn tree): each event in the canonical
columns of FORMAT.md, with the raw record it was read from.

One JSON object a line (JSON Lines), ``{"event": {...}, "raw": ...}``: ``event`` holds the
FORMAT.md columns the event has (``session_id`` first; none that is null), ``raw`` the
writer's record parsed back to JSON (its text when it is not JSON; null when it has none).
"""

from __future__ import annotations

import json

#: FORMAT.md's columns, in its order.
CANONICAL = ("session_id", "seq", "sub", "ts", "kind", "call_id", "tool", "tokens", "text",
             "chars", "cjk", "user_id", "turn", "message_id", "event_id", "is_error",
             "synthetic", "branch", "archived", "parent_session", "parent_call", "note")


def event_record(event: dict, session_id: str) -> dict:
    """The clipboard object of one event (a session frame row with its text and raw)."""
    canonical = {"session_id": session_id}
    for name in CANONICAL[1:]:
        value = event.get(name)
        if value is not None:
            canonical[name] = value
    if "text" in canonical:   # chars/cjk are what the text is counted as, not columns of it
        canonical.pop("chars", None)
        canonical.pop("cjk", None)
    raw = event.get("raw")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            pass
    return {"event": canonical, "raw": raw}


def events_json(events: list[dict], session_id: str) -> str:
    """The clipboard text of ``events``: one :func:`event_record` a line."""
    return "\n".join(json.dumps(event_record(e, session_id), ensure_ascii=False)
                     for e in events) + ("\n" if events else "")
