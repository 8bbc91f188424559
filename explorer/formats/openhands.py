"""OpenHands event streams (LOG-FORMATS.md §7): a JSON list of events (the trajectory
export; ``{"trajectory": [...]}`` is accepted too).

There is no session id inside: the session is the file name. ``message`` actions are USER or
ASSISTANT by ``source``; any other action is a CALL, preceded by an ASSISTANT for a non-empty
``args.thought``; an observation with a ``cause`` or ``tool_call_metadata`` is a RESULT, paired
by ``tool_call_metadata.tool_call_id`` (or, without one, by the id of the action its ``cause``
names). ``agent_state_changed`` is skipped. The ``model_response`` usage, copied onto every
call of one response and onto its observations, stays in ``raw``; it is never ``tokens``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from explorer.formats.record import Record, reason_word
from explorer.formats.swe_agent import event, json_prefix, load_document, unreadable

NAME = "openhands"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader
#: Records that carry agent state only.
_STATE = {"agent_state_changed", "change_agent_state"}


def _events_of(doc):
    if isinstance(doc, dict) and isinstance(doc.get("trajectory"), list):
        return doc["trajectory"]
    return doc


def matches(path: Path, head: bytes) -> bool:
    stream = _events_of(json_prefix(head))
    if not isinstance(stream, list) or not stream or not isinstance(stream[0], dict):
        return False
    first = stream[0]
    return "id" in first and "source" in first and ("action" in first or "observation" in first)


def records(path: Path) -> Iterator[Record]:
    doc = load_document(path)
    if isinstance(doc, Record):
        yield doc
        return
    stream = _events_of(doc)
    if not isinstance(stream, list):
        yield unreadable(path.read_bytes(), "not an OpenHands event stream (no list of events)")
        return
    session = path.name.removesuffix(".gz").removesuffix(".json")
    call_of: dict = {}  # action id -> its call id, for observations without metadata
    for index, item in enumerate(stream):
        seq = index + 1
        if not isinstance(item, dict):
            yield Record(seq, error="event is not an object", text=json.dumps(item))
            continue
        kind = item.get("action") or item.get("observation")
        if kind in _STATE:
            yield Record(seq, skipped="agent state")
            continue
        evs = _item_events(item, call_of)
        if not evs:
            yield Record(seq, skipped=f"{reason_word(kind) if kind else 'unknown'} event without content")
            continue
        eid = item.get("id")
        for sub, ev in enumerate(evs):
            ev.update(session_id=session, seq=seq, sub=sub, ts=item.get("timestamp"))
            if eid is not None:
                ev["event_id"] = str(eid) if len(evs) == 1 else f"{eid}#{sub}"
        evs[0]["raw"] = item
        yield Record(seq, events=evs)


def _item_events(item: dict, call_of: dict) -> list[dict]:
    meta = item.get("tool_call_metadata") or {}
    call_id = meta.get("tool_call_id") or None
    tool = meta.get("function_name")
    response = meta.get("model_response") or {}
    message_id = response.get("id") if isinstance(response, dict) else None
    args = item.get("args") or {}
    action = item.get("action")
    if action == "message":
        kind = "USER" if item.get("source") == "user" else "ASSISTANT"
        return [event(kind=kind, text=_text(args.get("content", item.get("message"))),
                      message_id=message_id)]
    if action == "system":
        return [event(kind="SYSTEM", text=_text(args.get("content", item.get("message"))))]
    if action == "condensation":
        summary = args.get("summary") or item.get("message")
        return [event(kind="SUMMARY", text=_text(summary), synthetic=True)]
    if action:
        call_of[item.get("id")] = call_id
        thought = _text(args.get("thought"))
        head = [event(kind="ASSISTANT", text=thought, message_id=message_id)] if thought else []
        return head + [event(kind="CALL", call_id=call_id, tool=tool or action,
                             text=_arguments(response, call_id, args), message_id=message_id)]
    if "observation" in item:
        if "cause" not in item and not meta:
            return [event(kind="OTHER", text=_text(item.get("content") or item.get("message")))]
        if call_id is None:
            call_id = call_of.get(item.get("cause"))
        return [event(kind="RESULT", call_id=call_id, tool=tool,
                      text=_text(item.get("content")), is_error=_is_error(item))]
    return []


def _arguments(response, call_id, args: dict) -> str:
    """What the model wrote for the call (its ``arguments`` in the response), else the
    action's ``args`` without the thought."""
    for choice in (response.get("choices") or []) if isinstance(response, dict) else []:
        for call in ((choice or {}).get("message") or {}).get("tool_calls") or []:
            if call_id and call.get("id") == call_id:
                return _text((call.get("function") or {}).get("arguments"))
    return json.dumps({k: v for k, v in args.items() if k != "thought"}, ensure_ascii=False)


def _is_error(item: dict) -> bool:
    if item.get("observation") == "error" or item.get("success") is False:
        return True
    meta = (item.get("extras") or {}).get("metadata")
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    return isinstance(code, int) and code != 0


def _text(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


