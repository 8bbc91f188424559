"""AgentScope harness markers (LOG-FORMATS.md §1, SPRING-AI-SESSION.md), recognised in the
canonical events of any reader: :func:`mark` is applied to every event a reader gives.

- A message named ``__compaction_summary__`` (its ``name`` in the record, or an id with the
  prefix ``__compaction_summary__:`` as ``message_id``, ``event_id`` or the record's ``id``)
  is the harness's compaction summary: its text events become SUMMARY, ``synthetic`` true.
  CALL and RESULT events keep their kind (their pairing must not change).
- An evicted tool result (metadata ``agentscope.tool_result_evicted`` true, or text starting
  ``Tool output was too large (``) keeps its kind, call id and tool; ``synthetic`` is set,
  as its text is the harness's placeholder.
- A pruned tool result (``...(N chars pruned)...`` between head and tail) keeps its kind and
  ``synthetic`` flag; its text is still the tool's own head and tail.

Every marked event carries the extra key ``agentscope`` naming the marker
(:data:`SUMMARY`, :data:`EVICTED`, :data:`PRUNED`). It is not a canonical column, so the
canonical path keeps the whole event (with its ``raw``) as the stored ``raw``, where
``json_extract_string(raw, '$.agentscope')`` finds it.
"""

from __future__ import annotations

import json
import re

MARKER_KEY = "agentscope"
SUMMARY = "compaction_summary"
EVICTED = "tool_result_evicted"
PRUNED = "tool_result_pruned"

_NAME = "__compaction_summary__"
_EVICTED_TEXT = "Tool output was too large ("
_EVICTED_FLAG = "agentscope.tool_result_evicted"
_PRUNED = re.compile(r"\.\.\.\((\d[\d,]*) chars pruned\)\.\.\.")
_TEXT_KINDS = {"USER", "ASSISTANT", "SYSTEM", "OTHER", "SUMMARY"}
#: Where a reader's ``raw`` may hold the message itself (the record, or its envelope).
_ENVELOPES = ("message", "msg", "payload", "data")


def mark(event: dict) -> dict:
    """The event with the AgentScope markers applied: the same dict when none applies, else
    a marked copy (the input is not changed). Applying it twice gives the same event."""
    kind = str(event.get("kind") or "").upper()
    if kind in _TEXT_KINDS and _is_summary(event):
        return {**event, "kind": "SUMMARY", "synthetic": True, MARKER_KEY: SUMMARY}
    if kind not in ("RESULT", "TOOL_RESULT", "TOOL"):
        return event
    text = event.get("text")
    text = text if isinstance(text, str) else ""
    if text.startswith(_EVICTED_TEXT) or _evicted_flag(event.get("raw")):
        return {**event, "synthetic": True, MARKER_KEY: EVICTED}
    if "chars pruned)..." in text and _PRUNED.search(text):
        return {**event, MARKER_KEY: PRUNED}
    return event


def _is_summary(event: dict) -> bool:
    for key in ("message_id", "event_id"):
        if _summary_id(event.get(key)):
            return True
    return any(message.get("name") == _NAME or _summary_id(message.get("id"))
               for message in _messages(event.get("raw"), _NAME))


def _summary_id(value) -> bool:
    return isinstance(value, str) and value.startswith(_NAME)


def _messages(raw, needle: str) -> list[dict]:
    """The record and the message objects it wraps, at the levels a reader's ``raw`` has
    them; not deeper, so a record that quotes other messages is not taken for them. A
    ``raw`` given as JSON text is parsed only when it holds ``needle``."""
    raw = _json(raw, needle)
    if not isinstance(raw, dict):
        return []
    found = [raw]
    for key in _ENVELOPES:
        inner = raw.get(key)
        if isinstance(inner, dict):
            found.append(inner)
    return found


def _evicted_flag(raw) -> bool:
    for message in _messages(raw, "tool_result_evicted"):
        metadata = _json(message.get("metadata"), "tool_result_evicted")
        if not isinstance(metadata, dict):
            continue
        if _true(metadata.get(_EVICTED_FLAG)):
            return True
        nested = metadata.get("agentscope")
        if isinstance(nested, dict) and _true(nested.get("tool_result_evicted")):
            return True
    return False


def _json(value, needle: str):
    """A JSON value given as text (a reader's ``raw`` or a metadata column), parsed when it
    holds ``needle`` (else it cannot matter, and parsing every event would be slow)."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "[") and needle in value:
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _true(value) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")
