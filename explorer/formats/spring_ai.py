"""Spring AI session JDBC dumps of ``AI_SESSION_EVENT`` (LOG-FORMATS.md §10,
SPRING-AI-SESSION.md): CSV with a header of the table's columns, a JSON array of rows or
JSON Lines of rows (see :mod:`explorer.formats.spring_ai_rows`).

One row is one record. ``seq`` is the table's identity column (the repository's order, not
the timestamp); ``message_id`` and ``event_id`` are the row's ``id``. ``USER`` -> USER,
``SYSTEM`` -> SYSTEM, ``ASSISTANT`` -> ASSISTANT (when it has text, or no tool calls) then one
CALL per element of ``message_data``; ``TOOL`` -> one RESULT per element. The element events
have ``event_id`` = ``id#index`` (index from 0) and ``sub`` = their position among the row's
events: the index, plus one when the row's text came first as an ASSISTANT event. A
``synthetic`` row was written by a compaction: its USER (the shadow prompt) stays USER with
``synthetic`` true, its ASSISTANT (the summary) is a SUMMARY. ``archived`` is kept, so the
``recorded`` view (STRATEGIES.md) is the rows still in the active view. ``user_id`` comes
from ``AI_SESSION`` dumps in the same folder (:mod:`explorer.formats.spring_ai_owners`).

Spring AI 2.1's redesigned, append-only store (typed ``MESSAGE`` / ``COMPACTION`` events)
is not read: its columns are not published, so such rows are rejected as unknown types.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from explorer.formats import spring_ai_owners
from explorer.formats import spring_ai_rows as dump
from explorer.formats.json_values import loads
from explorer.formats.record import Record
from explorer.formats.typed import objects, scalar

NAME = "spring-ai-session"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader
_TYPES = ("USER", "SYSTEM", "ASSISTANT", "TOOL")


def matches(path: Path, head: bytes) -> bool:
    return dump.sniff(head) == dump.EVENTS


def records(path: Path) -> Iterator[Record]:
    """One record per row of the dump, in file order (``seq`` carries the table's order)."""
    owners = spring_ai_owners.owners_for(path)
    for row in dump.rows(path):
        if row.table == dump.SESSIONS:
            yield Record(row.line, skipped="AI_SESSION row (session owner)")
        elif row.error is not None:
            yield Record(row.line, error=row.error, text=row.text)
        else:
            try:
                yield Record(row.line, events=row_events(row.values, owners))
            except ValueError as exc:
                yield Record(row.line, error=str(exc)[:300], text=row.text)




def row_events(row: dict, owners: dict[str, str] | None = None) -> list[dict]:
    """The canonical events of one ``AI_SESSION_EVENT`` row (columns by lower-case name);
    ValueError says why a row cannot be read."""
    row_id = _required(row, "id")
    session = _required(row, "session_id")
    kind = str(_required(row, "message_type")).strip().upper()
    if kind not in _TYPES:
        raise ValueError(f"unknown message_type {kind[:40]!r} (expected one of "
                         f"{', '.join(_TYPES)}; Spring AI 2.1's typed events are not read)")
    synthetic = _flag(row, "synthetic")
    common = {
        "session_id": str(session),
        "seq": _seq(row.get("seq")),
        "ts": scalar(row.get("timestamp"), "timestamp"),
        "message_id": str(row_id),
        "synthetic": synthetic,
        "archived": _flag(row, "archived"),
        "branch": dump.text_of(row.get("branch")) or None,
    }
    owner = (owners or {}).get(str(session))
    if owner is not None:
        common["user_id"] = owner
    text = dump.text_of(row.get("message_content"))
    elements = _elements(row.get("message_data"), kind)
    out: list[dict] = []
    if kind in ("USER", "SYSTEM"):
        out.append({"kind": kind, "text": text, "event_id": str(row_id)})
    elif kind == "ASSISTANT" and (text or not elements):
        out.append({"kind": "SUMMARY" if synthetic else "ASSISTANT", "text": text,
                    "event_id": str(row_id)})
    elif kind == "TOOL" and not elements:
        out.append({"kind": "RESULT", "text": text, "event_id": str(row_id)})
    for index, element in enumerate(elements):
        out.append(_element_event(kind, element, f"{row_id}#{index}"))
    for sub, event in enumerate(out):
        event.update(common, sub=sub, raw=row if sub == 0 else event.get("raw"))
    return out


def _element_event(kind: str, element: dict, event_id: str) -> dict:
    """A CALL for a Spring AI ``ToolCall``, a RESULT for a ``ToolResponse``."""
    call_id = element.get("id")
    event = {"kind": "CALL" if kind == "ASSISTANT" else "RESULT",
             "call_id": None if call_id is None else str(call_id),
             "tool": dump.text_of(element.get("name")), "event_id": event_id, "raw": element}
    if kind == "ASSISTANT":
        event["text"] = dump.text_of(element.get("arguments"))
    else:
        data = element.get("responseData", element.get("response_data"))
        event["text"] = dump.text_of(data)
    return event


def _elements(value, kind: str) -> list[dict]:
    """The elements of ``message_data`` (JSON text, or already a JSON value) for ASSISTANT
    and TOOL rows; other rows keep theirs in ``raw`` only."""
    if kind not in ("ASSISTANT", "TOOL") or value is None:
        return []
    if isinstance(value, str):
        if not value.strip():
            return []
        try:
            value = loads(value)
        except ValueError as exc:
            raise ValueError(f"message_data is not valid JSON: {exc}") from exc
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
        raise ValueError("message_data is not an array of objects "
                         f"({'tool calls' if kind == 'ASSISTANT' else 'tool responses'})")
    return objects(value, "message_data")   # an element with a repeated key is refused


def _required(row: dict, name: str):
    value = row.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise ValueError(f"missing {name}")
    return value


def _flag(row: dict, name: str) -> bool:
    try:
        return dump.boolean(row.get(name))
    except ValueError:
        raise ValueError(f"{name} is not a boolean (true/false, t/f, 1/0): "
                         f"{str(row.get(name))[:40]}") from None


def _seq(value):
    """``seq`` as given: an integer when it reads as one; anything else is left for the
    canonical path to reject with its own reason."""
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        return int(value)
    return value
