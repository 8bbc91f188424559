"""The detail of one event: every field as plain text (log content is never read as HTML)."""

from __future__ import annotations

import datetime as dt

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit, QWidget

_FIELDS = ("session_id", "seq", "sub", "kind", "tool", "call_id", "event_id", "message_id",
           "user_id", "turn", "branch", "is_error", "synthetic", "archived")


def describe(event: dict, session_id: str) -> str:
    """The text the detail panel shows for one row of a session frame."""
    lines = []
    for name in _FIELDS:
        value = session_id if name == "session_id" else event.get(name)
        if value is not None:
            lines.append(f"{name}: {value}")
    if event.get("ts") is not None:
        when = dt.datetime.fromtimestamp(event["ts"] / 1000, tz=dt.timezone.utc)
        lines.append(f"ts: {event['ts']} ({when.isoformat(timespec='milliseconds')})")
    how = "estimated from the content" if event.get("estimated") else "reported by the writer"
    lines.append(f"cost: {event['cost']:,} tokens ({how})")
    lines.append(f"turn (derived): {event['turn_no']}")
    if event.get("text") is not None:
        lines += ["", "text:", event["text"]]
    elif event.get("chars") is not None:
        lines.append(f"content: {event['chars']:,} characters{' (CJK)' if event.get('cjk') else ''}")
    if event.get("raw") is not None:
        lines += ["", "raw record:", event["raw"]]
    return "\n".join(lines)


class EventDetail(QPlainTextEdit):
    """A read-only plain-text view of one event."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setPlaceholderText("Select an event to see all of it.")

    def show_event(self, event: dict | None, session_id: str = "") -> None:
        self.setPlainText(describe(event, session_id) if event else "")
