"""Gemini CLI chat recordings (LOG-FORMATS.md §9): one JSON document per session,
``{sessionId, projectHash, startTime, lastUpdated, messages[]}``, rewritten in place.

``user`` messages are USER; a ``gemini`` message is an ASSISTANT (when its content is not
empty) followed, for each of its ``toolCalls[]``, by the CALL and then the RESULT it carries
(one per ``result[].functionResponse``; ``status`` ``error`` or ``cancelled`` makes it an error).
The CALL and its RESULT both take the call's own ``timestamp`` (when the call finished: one
message can carry calls of several model steps), the CALL before the RESULT by ``sub``; the
message's ``timestamp`` stays on its text (and on a call without one). ``info``/``error``/
``warning`` messages are SYSTEM; a message of another type is an OTHER event with note
``unknown type: X`` (format drift). ``thoughts`` and the reported ``tokens`` stay in the ``raw`` of
the message's first event. A copy taken mid-rewrite that is not valid JSON is one rejected
record, not a crash.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from explorer.formats.record import Record, reason_word
from explorer.formats.swe_agent import event, json_prefix, load_document, text_of, unreadable
from explorer.formats.typed import WrongType, items, objects, rejected, scalar, whole

NAME = "gemini-cli"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader
_TYPES = {"user", "gemini", "info", "error", "warning"}
_FAILED = {"error", "cancelled"}


def matches(path: Path, head: bytes) -> bool:
    doc = json_prefix(head)
    if not isinstance(doc, dict) or not isinstance(doc.get("sessionId"), str):
        return False
    if "projectHash" not in doc and "startTime" not in doc:
        return False
    messages = doc.get("messages")
    if not isinstance(messages, list):
        # the head may end before "messages": the leading keys decide
        return "messages" not in doc and "projectHash" in doc
    first = messages[0] if messages else None
    return not isinstance(first, dict) or not first or (
        isinstance(first.get("type"), str) and first["type"] in _TYPES)


def records(path: Path) -> Iterator[Record]:
    doc = load_document(path)
    if isinstance(doc, Record):
        yield doc
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        yield unreadable(path.read_bytes(), "not a Gemini CLI chat recording (no messages)")
        return
    session = str(doc.get("sessionId") or path.stem)
    for index, msg in enumerate(doc["messages"]):
        seq = index + 1
        if not isinstance(msg, dict):
            yield Record(seq, error="message is not an object", text=json.dumps(msg))
            continue
        try:
            yield _record(seq, session, msg)
        except WrongType as exc:   # a value of the wrong type: this message only is rejected
            yield rejected(seq, exc, json.dumps(msg, ensure_ascii=False))


def _record(seq: int, session: str, msg: dict) -> Record:
    """The Record of one message of the recording."""
    evs = _message_events(whole(msg))
    if not evs:
        return Record(seq, skipped=f"{reason_word(msg.get('type'))} message without content")
    mid = scalar(msg.get("id"), "id")
    for sub, ev in enumerate(evs):
        ev.update(session_id=session, seq=seq, sub=sub)
        if ev["kind"] != "RESULT":  # results go back to the model as a message of their own
            ev["message_id"] = mid
        ev.setdefault("ts", scalar(msg.get("timestamp"), "timestamp"))
        if mid:
            ev["event_id"] = mid if len(evs) == 1 else f"{mid}#{sub}"
    evs[0]["raw"] = msg
    return Record(seq, events=evs)


def _message_events(msg: dict) -> list[dict]:
    kind = msg.get("type")
    text = text_of(msg.get("content"))
    if kind == "user":
        return [event(kind="USER", text=text)]
    if kind in ("info", "error", "warning"):
        return [event(kind="SYSTEM", text=text)]
    if kind != "gemini":
        return [event(kind="OTHER", text=text, note=f"unknown type: {reason_word(kind)}")]
    evs = [event(kind="ASSISTANT", text=text)] if text else []
    for n, call in enumerate(objects(msg.get("toolCalls") or None, "toolCalls")):
        call_id = scalar(call.get("id"), f"toolCalls[{n}].id") or None
        finished = scalar(call.get("timestamp"), f"toolCalls[{n}].timestamp")
        evs.append(event(kind="CALL", call_id=call_id, tool=call.get("name"),
                         text=json.dumps(call.get("args"), ensure_ascii=False), raw=call,
                         ts=finished))
        failed = call.get("status") in _FAILED if isinstance(call.get("status"), str) else False
        for part in items(call.get("result") or None, f"toolCalls[{n}].result"):
            response = part.get("functionResponse") if isinstance(part, dict) else None
            if not isinstance(response, dict):
                continue
            own_id = scalar(response.get("id"), f"toolCalls[{n}].result.functionResponse.id")
            evs.append(event(kind="RESULT", call_id=own_id or call_id,
                             tool=response.get("name") or call.get("name"),
                             text=_output(response.get("response")), is_error=failed,
                             ts=finished, raw=part))
    if not evs and not msg.get("toolCalls"):
        evs = [event(kind="ASSISTANT", text="")]  # thoughts only: keep them in its raw
    return evs


def _output(response) -> str:
    """``response.output`` or ``response.error``, else the whole response as JSON."""
    if isinstance(response, dict):
        for key in ("output", "error"):
            if isinstance(response.get(key), str):
                return response[key]
    return response if isinstance(response, str) else json.dumps(response, ensure_ascii=False)


