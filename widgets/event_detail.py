"""The detail of one event or synthetic item: every field as plain text (log content is never
read as HTML), the cost and how it was obtained, and its state in the previewed view."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from explorer.session.readable import pretty
from explorer.session.reported_usage import reported_usage, usage_text
from explorer.session.view_overlay import VIEW_ERROR_TEXT, SyntheticItem
from explorer.text_escape import visible, visible_text

_FIELDS = ("session_id", "seq", "sub", "kind", "note", "tool", "call_id", "event_id",
           "message_id", "user_id", "turn", "branch", "is_error", "synthetic", "archived",
           "parent_session", "parent_call")
#: What the text of each kind is, as its heading in the detail.
_TEXT_HEADING = {"CALL": "arguments:", "RESULT": "output:",
                 "SUMMARY": "compaction summary (the writer's summary of what came before):"}


@dataclass(frozen=True)
class ViewState:
    """Where an event stands in the previewed view (``strategy`` at ``budget`` tokens)."""

    strategy: str
    budget: int
    in_view: bool
    errors: tuple[str, ...] = ()
    view_cost: int | None = None   # its cost in the view when a transform changed it
    note: str | None = None        # "evicted" / "pruned"
    provider: str = ""             # the texts of the provider's violations here (visible)


def describe(event: dict, session_id: str, view: ViewState | None = None,
             estimate: str = "the characters") -> str:
    """The text the detail panel shows for one row of a session frame; ``estimate`` says how
    the costs that are not the writer's own were made (CostSettings.describe)."""
    lines = []
    if event.get("kind") == "SUMMARY":
        lines += ["COMPACTION SUMMARY: the text that replaced the conversation before it", ""]
    elif event.get("note"):
        lines += [f"{visible(str(event['note'])).upper()}", ""]
    if event.get("kind") == "RESULT" and event.get("is_error"):
        lines += ["✗ the tool reported an error", ""]
    for name in _FIELDS:
        value = session_id if name == "session_id" else event.get(name)
        if value is not None:
            lines.append(f"{name}: {visible(str(value))}")
    if event.get("ts") is not None:
        when = dt.datetime.fromtimestamp(event["ts"] / 1000, tz=dt.timezone.utc)
        lines.append(f"ts: {event['ts']} ({when.isoformat(timespec='milliseconds')})")
    how = {"tokens": "the writer's own count", "tokenizer": f"counted by {estimate}"}.get(
        event.get("cost_source"), f"estimated from {estimate}")
    lines.append(f"cost: {event['cost']:,} tokens ({how})")
    usage = reported_usage(event.get("raw"))
    if usage is not None:
        lines.append(f"reported usage of the response: {usage_text(usage)} (the writer's "
                     "count for the whole response; not this event's cost)")
    lines.append(f"turn (derived): {event['turn_no']}")
    if view is not None:
        lines += ["", *_view_lines(view)]
    if event.get("text") is not None:   # JSON indented, line breaks, no ANSI codes
        heading = _TEXT_HEADING.get(event.get("kind"), "text:")
        lines += ["", heading, visible_text(pretty(event["text"]))]
    elif event.get("chars") is not None:
        lines.append(f"content: {event['chars']:,} characters{' (CJK)' if event.get('cjk') else ''}")
    if event.get("raw") is not None:
        # indented, its ANSI codes kept (shown escaped): the record as written
        lines += ["", "raw record:", visible_text(pretty(event["raw"], ansi=True))]
    return "\n".join(lines)


def _view_lines(view: ViewState) -> list[str]:
    where = f"view ({view.strategy} at {view.budget:,} tokens)"
    lines = [f"{where}: {'in the view' if view.in_view else 'not in the view (greyed)'}"]
    if view.note is not None and view.view_cost is not None:
        lines.append(f"cost in the view: {view.view_cost:,} tokens (result {view.note})")
    lines += [f"view error {e}: {VIEW_ERROR_TEXT.get(e, e)}" for e in view.errors]
    if view.provider:
        lines += view.provider.split("\n")
    if not view.errors:
        lines.append("view errors: none")
    return lines


def describe_synthetic(item: SyntheticItem, strategy: str, budget: int,
                       after: dict | None = None) -> str:
    """The text for a synthetic item of the view (``after``: the frame row it follows)."""
    lines = [f"synthetic item of the view ({strategy} at {budget:,} tokens): not an event of "
             "the log", f"kind: {item.kind}", f"cost: {item.cost:,} tokens (set by the strategy)",
             f"label: {item.label}"]
    if after is None:
        lines.append("position: before every event of the view")
    else:
        seq = f"{after['seq']}.{after['sub']}" if after.get("sub") else str(after["seq"])
        lines.append(f"position: right after {after['kind']} seq {seq}")
    return "\n".join(lines)


class EventDetail(QPlainTextEdit):
    """A read-only plain-text view of one event or synthetic item."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        # Read by keyboard too (arrows, Shift+arrows to select, Ctrl+C); Tab leaves it.
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setTabChangesFocus(True)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setPlaceholderText("Select an event to see all of it.")

    def show_event(self, event: dict | None, session_id: str = "",
                   view: ViewState | None = None, estimate: str = "the characters") -> None:
        self.setPlainText(describe(event, session_id, view, estimate) if event else "")

    def show_synthetic(self, item: SyntheticItem, strategy: str, budget: int,
                       after: dict | None = None) -> None:
        self.setPlainText(describe_synthetic(item, strategy, budget, after))
