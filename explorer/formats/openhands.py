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
from collections.abc import Iterator
from pathlib import Path

from explorer.formats.record import Record, reason_word
from explorer.formats.swe_agent import event, json_prefix, load_document, unreadable
from explorer.formats.typed import WrongType, items, obj, opt_obj, rejected, scalar, whole

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
    # V1 events (explorer.formats.openhands_v1) hold objects there, and name their class
    kind = first.get("action", first.get("observation"))
    return "id" in first and "source" in first and isinstance(kind, str)


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
        try:
            yield _record(seq, session, item, call_of)
        except WrongType as exc:   # a value of the wrong type: this event only is rejected
            yield rejected(seq, exc, json.dumps(item, ensure_ascii=False))


def _record(seq: int, session: str, item: dict, call_of: dict) -> Record:
    """The Record of one event of the stream."""
    kind = whole(item).get("action") or item.get("observation")
    if isinstance(kind, str) and kind in _STATE:
        return Record(seq, skipped="agent state")
    evs = _item_events(item, call_of)
    if not evs:
        what = reason_word(kind) if kind else "unknown"
        return Record(seq, skipped=f"{what} event without content")
    eid = scalar(item.get("id"), "id")
    for sub, ev in enumerate(evs):
        ev.update(session_id=session, seq=seq, sub=sub,
                  ts=scalar(item.get("timestamp"), "timestamp"))
        if eid is not None:
            ev["event_id"] = str(eid) if len(evs) == 1 else f"{eid}#{sub}"
    evs[0]["raw"] = item
    return Record(seq, events=evs)


def _item_events(item: dict, call_of: dict) -> list[dict]:
    meta = opt_obj(item.get("tool_call_metadata") or None, "tool_call_metadata")
    call_id = scalar(meta.get("tool_call_id"), "tool_call_metadata.tool_call_id") or None
    tool = scalar(meta.get("function_name"), "tool_call_metadata.function_name")
    response = opt_obj(meta.get("model_response") or None, "tool_call_metadata.model_response")
    message_id = scalar(response.get("id"), "tool_call_metadata.model_response.id")
    args = opt_obj(item.get("args") or None, "args")
    action = scalar(item.get("action"), "action")
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
        call_of[scalar(item.get("id"), "id")] = call_id
        thought = _text(args.get("thought"))
        head = [event(kind="ASSISTANT", text=thought, message_id=message_id)] if thought else []
        return head + [event(kind="CALL", call_id=call_id, tool=tool or action,
                             text=_arguments(response, call_id, args), message_id=message_id)]
    if "observation" in item:
        if "cause" not in item and not meta:
            return [event(kind="OTHER", text=_text(item.get("content") or item.get("message")))]
        if call_id is None:
            call_id = call_of.get(scalar(item.get("cause"), "cause"))
        return [event(kind="RESULT", call_id=call_id, tool=tool,
                      text=_text(item.get("content")), is_error=_is_error(item))]
    return []


def _arguments(response: dict, call_id, args: dict) -> str:
    """What the model wrote for the call (its ``arguments`` in the response), else the
    action's ``args`` without the thought."""
    path = "tool_call_metadata.model_response.choices"
    for i, choice in enumerate(items(response.get("choices"), path)):
        message = opt_obj(opt_obj(choice, f"{path}[{i}]").get("message"), f"{path}[{i}].message")
        calls = f"{path}[{i}].message.tool_calls"
        for j, call in enumerate(items(message.get("tool_calls"), calls)):
            if call_id and obj(call, f"{calls}[{j}]").get("id") == call_id:
                function = opt_obj(call.get("function"), f"{calls}[{j}].function")
                return _text(function.get("arguments"))
    return json.dumps({k: v for k, v in args.items() if k != "thought"}, ensure_ascii=False)


def _is_error(item: dict) -> bool:
    if item.get("observation") == "error" or item.get("success") is False:
        return True
    meta = opt_obj(item.get("extras") or None, "extras").get("metadata")
    code = meta.get("exit_code") if isinstance(meta, dict) else None
    return isinstance(code, int) and code != 0


def _text(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


