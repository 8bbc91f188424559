"""OpenAI Responses API conversations (``/v1/responses``, docs/FORMATS.md §B) recorded as VCR
cassettes or HAR files: the last request of a conversation (its ``instructions`` and ``input``
items) and its reply (the response's ``output`` items), earlier requests skipped as replayed
copies, as for Chat Completions. Streamed and gzip-compressed bodies are decoded by
explorer.formats.recorded_bodies.

One event per item: messages by role, ``*_call`` items CALL, ``*_call_output`` items RESULT,
``reasoning`` an OTHER of cost 0, anything else an OTHER holding the item.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from explorer.formats import cassette
from explorer.formats.record import Record
from explorer.formats.typed import obj, opt_text, scalar, whole
from explorer.formats.typed import text as typed_text

NAME = "openai-responses"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader

ROLES = {"system": "SYSTEM", "developer": "SYSTEM", "user": "USER", "assistant": "ASSISTANT"}
#: Text parts of a message's content, by type.
TEXT_PARTS = {"input_text", "output_text", "text", "summary_text"}


def matches(path: Path, head: bytes) -> bool:
    return cassette.is_cassette(head) and cassette.api(path, head) == "openai-responses"


def records(path: Path) -> Iterator[Record]:
    for item in cassette.read(path, _input, _reply, _conversation):
        if isinstance(item, Record):
            yield item
            continue
        names: dict = {}   # call id -> tool name, so a RESULT is named like its CALL
        for index, message in enumerate(item.messages):
            line = item.lines[index]
            try:
                events = item_events(message, item.session_id, index + 1,
                                     item.replies.get(index), item.groups.get(index), names)
            except ValueError as exc:   # WrongType among them: a value of the wrong type
                yield Record(line, error=str(exc),
                             text=json.dumps(message, ensure_ascii=False, default=str))
                continue
            yield Record(line, events=events)


def _input(body: dict) -> list | None:
    """A request's input items (a string input is one user message); None for a body that is
    not a Responses request (the Agents SDK's trace batches)."""
    if not isinstance(body, dict) or "messages" in body or "input" not in body:
        return None
    value = body["input"]
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    return value if isinstance(value, list) else None


def _instructions(body) -> str | None:
    value = body.get("instructions") if isinstance(body, dict) else None
    return value if isinstance(value, str) and value else None


def _reply(body: dict) -> tuple[list, dict] | None:
    output = body.get("output")
    if body.get("object") != "response" or not isinstance(output, list):
        return None
    return output, {k: v for k, v in body.items() if k != "output"}


def _conversation(session: str, ex, exchanges, inputs: dict, reply_of) -> cassette.Conversation:
    """The last request's items and its reply's; each earlier request whose input is a prefix
    (the latest one of each length) gives its response's metadata to the reply items it
    replays, and its instructions as a SYSTEM message where they changed."""
    own = inputs[ex.number]
    chain: dict[int, object] = {}
    for other in exchanges[:ex.number]:
        earlier = inputs[other.number]
        if earlier is not None and own[:len(earlier)] == earlier:
            chain[len(earlier)] = other
    chain[len(own)] = ex
    rows = [[item, ex.line, None, None] for item in own]   # item, line, reply meta, group
    inserts: list[tuple[int, str, int]] = []
    said = None
    for at, other in sorted(chain.items()):
        words = _instructions(other.request)
        if words and words != said:
            inserts.append((0 if said is None else at, words, other.line))
            said = words
        reply = reply_of(other.response) if other.response is not None else None
        if reply is None:
            continue
        output, meta = reply
        if other is ex:
            rows += [[item, ex.response_line, None, None] for item in output]
        replayed = [row[0] for row in rows[at:at + len(output)]]
        if at < len(rows):
            rows[at][2] = meta if replayed == output else meta | {"reply_as_recorded": output}
        for row in rows[at:at + len(output)]:
            row[3] = meta.get("id") if isinstance(meta.get("id"), str) else None
    for at, words, line in reversed(inserts):
        rows.insert(at, [{"role": "system", "content": words, "type": "instructions"}, line,
                         None, None])
    conv = cassette.Conversation(session, [r[0] for r in rows], [r[1] for r in rows])
    conv.replies = {i: r[2] for i, r in enumerate(rows) if r[2] is not None}
    conv.groups = {i: r[3] for i, r in enumerate(rows) if r[3] is not None}
    return conv


def item_events(item, session: str, seq: int, reply: dict | None, group: str | None,
                names: dict) -> list[dict]:
    """The canonical events of one input or output item (docs/FORMATS.md §B table)."""
    item = whole(obj(item, "item"))
    kind = opt_text(item.get("type"), "type") or ("message" if "role" in item else None)
    own_id = scalar(item.get("id"), "id")
    out: list[dict] = []

    def add(kind_: str, text, **fields) -> None:
        event = {"session_id": session, "seq": seq, "sub": len(out), "kind": kind_,
                 "message_id": group or (str(own_id) if own_id else f"msg-{seq}"),
                 "text": text}
        out.append(event | {k: v for k, v in fields.items() if v is not None})

    if kind in ("message", "instructions"):
        role = item.get("role")
        if role not in ROLES:
            raise ValueError(f"unknown message role {role!r}")
        add(ROLES[role], content_text(item.get("content")))
    elif kind is not None and kind.endswith("_call_output"):
        call_id = scalar(item.get("call_id"), "call_id") or None
        add("RESULT", content_text(item.get("output")), call_id=call_id,
            tool=names.get(call_id))
    elif kind is not None and kind.endswith("_call"):
        call_id = scalar(item.get("call_id"), "call_id") or None
        tool = scalar(item.get("name"), "name") or kind.removesuffix("_call")
        add("CALL", _call_text(item), call_id=call_id, tool=tool)
        if call_id:
            names[call_id] = tool
        if "output" in item or item.get("error"):   # mcp_call: its result in the item
            add("RESULT", content_text(item.get("output") or item.get("error")),
                call_id=call_id, tool=tool, is_error=bool(item.get("error")) or None)
    elif kind == "reasoning":
        add("OTHER", content_text(item.get("summary")), tokens=0)
    else:
        add("OTHER", json.dumps(item, ensure_ascii=False))
    if own_id is not None and kind != "instructions":
        for ev in out:
            ev["event_id"] = str(own_id) if len(out) == 1 else f"{own_id}#{ev['sub']}"
    out[0]["raw"] = {"message": item, "response": reply} if reply else item
    return out


def _call_text(item: dict) -> str:
    """What the model wrote for a call: ``arguments`` (a JSON string) or ``input``, else the
    item without its bookkeeping (a built-in call: its ``action``, ``query`` …)."""
    for key in ("arguments", "input"):
        value = item.get(key)
        if isinstance(value, str):
            return value
        if value is not None:
            return json.dumps(value, ensure_ascii=False)
    rest = {k: v for k, v in item.items() if k not in ("id", "type", "status", "call_id")}
    return json.dumps(rest, ensure_ascii=False)


def content_text(content) -> str:
    """Content as text: a string, the text of its text parts (others as ``[type]``), or JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            typed_text(p["text"], f"content[{i}].text")
            if isinstance(p, dict) and p.get("type") in TEXT_PARTS and "text" in p
            else p.get("refusal", "") if isinstance(p, dict) and p.get("type") == "refusal"
            else f"[{p.get('type', 'part')}]" if isinstance(p, dict) else str(p)
            for i, p in enumerate(content))
    return json.dumps(content, ensure_ascii=False)
