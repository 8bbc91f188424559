"""OpenAI Chat Completions message lists (LOG-FORMATS.md §4): a JSON array of messages, a
request body (``{"messages": […]}``), an array of conversations (tau-bench trajectories:
``{task_id, trial, traj}``) or a recorded API cassette, where only the last request of a
conversation and its reply are imported (earlier requests are replayed copies).

The JSON shapes and the conversation driver here are shared with ``anthropic_messages``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable, Iterator

from explorer.formats import cassette, read_head
from explorer.formats.json_values import loads
from explorer.formats.record import Record
from explorer.formats.typed import obj, objects, opt_obj, scalar, whole
from explorer.formats.typed import text as typed_text

NAME = "openai-chat-completions"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader

ROLES = {"system", "developer", "user", "assistant", "tool", "function"}
#: Keys of an array element that hold one conversation's messages.
CONVERSATION_KEYS = ("traj", "messages")
#: Content block types that only the Anthropic Messages API has, and OpenAI-only fields.
ANTHROPIC_BLOCKS = re.compile(rb'"type"\s*:\s*"(?:tool_use|tool_result|thinking|'
                              rb'redacted_thinking|server_tool_use|compaction)"')
OPENAI_FIELDS = re.compile(rb'"tool_calls"|"tool_call_id"|'
                           rb'"role"\s*:\s*"(?:tool|developer|function)"')
COMPACTION_NAME = "__compaction_summary__"  # AgentScope's summary message (LOG-FORMATS.md §1)

MessageEvents = Callable[[object, str, int, dict, "dict | None"], list]


def matches(path: Path, head: bytes) -> bool:
    if cassette.is_cassette(head):
        return cassette.api(path, head) == "openai"
    if json_shape(head) is None:
        return False
    return not ANTHROPIC_BLOCKS.search(head) or bool(OPENAI_FIELDS.search(head))


def records(path: Path) -> Iterator[Record]:
    if cassette.is_cassette(read_head(path)):
        yield from cassette_records(path, _request_messages, _reply, message_events)
    else:
        yield from json_records(path, message_events)




# -- JSON shapes ---------------------------------------------------------------------------

def json_shape(head: bytes) -> str | None:
    """"messages", "conversations" or "body" when the (possibly cut) JSON text is a message
    list, an array of conversations or a request body; None for any other JSON."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff \t\r\n")
    if text.startswith("["):
        first = _next_object(text, 1)
        keys = object_keys(text, first) if first is not None else {}
        if _is_message(text, keys):
            return "messages"
        if any(k in keys and _messages_at(text, keys[k]) for k in CONVERSATION_KEYS):
            return "conversations"
    elif text.startswith("{"):
        keys = object_keys(text, 0)
        if "messages" in keys and _messages_at(text, keys["messages"]):
            return "body"
    return None


def object_keys(text: str, i: int) -> dict[str, int]:
    """The keys of the JSON object starting at ``text[i]`` and where each value starts; the
    keys read so far when the text is cut."""
    keys: dict[str, int] = {}
    depth, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                break
            if depth == 1:
                k = j + 1
                while k < n and text[k] in " \t\r\n":
                    k += 1
                if k < n and text[k] == ":":
                    try:
                        keys[json.loads(text[i:j + 1])] = k + 1
                    except ValueError:
                        break
            i = j + 1
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth <= 0:
                break
        i += 1
    return keys


def _next_object(text: str, i: int) -> int | None:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i if i < len(text) and text[i] == "{" else None


def _messages_at(text: str, i: int) -> bool:
    """Whether the value at ``text[i]`` is an array whose first element is a message."""
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    if i >= len(text) or text[i] != "[":
        return False
    first = _next_object(text, i + 1)
    return first is not None and _is_message(text, object_keys(text, first))


def _is_message(text: str, keys: dict[str, int]) -> bool:
    if "role" not in keys or not keys.keys() & {"content", "tool_calls"}:
        return False
    match = re.match(r'\s*"([a-z_]+)"', text[keys["role"]:keys["role"] + 40])
    return match is not None and match.group(1) in ROLES


def json_records(path: Path, message_events: MessageEvents,
                 body_messages=lambda body: body.get("messages")) -> Iterator[Record]:
    """Records of a JSON message list, request body (its messages by ``body_messages``) or
    array of conversations."""
    try:
        data = loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        yield Record(getattr(exc, "lineno", 1), error=f"not readable as JSON: {exc}",
                     text=path.read_bytes()[:2000].decode("utf-8", "replace"))
        return
    if isinstance(data, dict):
        yield from conversation_records(path.stem, body_messages(data) or [], None,
                                        message_events)
        return
    if not isinstance(data, list):
        yield Record(1, error="the JSON is not a list of messages or conversations")
        return
    if data and isinstance(data[0], dict) and "role" in data[0]:
        yield from conversation_records(path.stem, data, None, message_events)
        return
    for index, item in enumerate(data, start=1):
        msgs = next((item[k] for k in CONVERSATION_KEYS if isinstance(item, dict)
                     and isinstance(item.get(k), list)), None)
        if msgs is None:
            yield Record(index, error="array element without a list of messages",
                         text=json.dumps(item, ensure_ascii=False)[:2000])
            continue
        yield from conversation_records(session_key(item, path.stem, index), msgs,
                                        [index] * len(msgs), message_events)


def session_key(item: dict, stem: str, index: int) -> str:
    """tau-bench ``task_id/trial`` (the task recurs across trials), else the element's own
    id, else ``<file>/<element number>``."""
    if "task_id" in item:
        return "/".join(str(item[k]) for k in ("task_id", "trial") if k in item)
    own = item.get("id") or item.get("conversation_id")
    return str(own) if own is not None else f"{stem}/{index}"


# -- Conversations -------------------------------------------------------------------------

def conversation_records(session: str, messages: list, lines: list[int] | None,
                         message_events: MessageEvents,
                         replies: dict[int, dict] | None = None) -> Iterator[Record]:
    """One Record per message: seq = its position from 1, its events (or why none)."""
    names: dict[str, str] = {}  # call id -> tool name, so a RESULT is named like its CALL
    replies = replies or {}
    for index, msg in enumerate(messages):
        line = lines[index] if lines else index + 1
        try:
            evs = message_events(msg, session, index + 1, names, replies.get(index))
        except ValueError as exc:   # WrongType among them: a value of the wrong type
            yield Record(line, error=str(exc),
                         text=json.dumps(msg, ensure_ascii=False, default=str))
            continue
        yield Record(line, events=evs) if evs else Record(line, skipped="message with no content")


def cassette_records(path: Path, messages_of, reply_of,
                     message_events: MessageEvents) -> Iterator[Record]:
    for item in cassette.read(path, messages_of, reply_of):
        if isinstance(item, Record):
            yield item
        else:
            yield from conversation_records(item.session_id, item.messages, item.lines,
                                            message_events, item.replies)


def _request_messages(body: dict) -> list | None:
    msgs = body.get("messages")
    return msgs if isinstance(msgs, list) and "contents" not in body else None


def _reply(body: dict) -> tuple[dict, dict] | None:
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    meta = {k: v for k, v in body.items() if k != "choices"}
    meta["finish_reason"] = choices[0].get("finish_reason")
    msg = choices[0].get("message")
    return (msg, meta) if isinstance(msg, dict) else None


# -- One message ---------------------------------------------------------------------------

def message_events(msg, session: str, seq: int, names: dict, reply: dict | None) -> list[dict]:
    """The canonical events of one Chat Completions message (LOG-FORMATS.md §4 table)."""
    msg = whole(obj(msg, "message"))
    role = msg.get("role")
    out: list[dict] = []

    def add(kind: str, text, **fields) -> None:
        event = {"session_id": session, "seq": seq, "sub": len(out), "kind": kind,
                 "message_id": (reply or {}).get("id") or f"msg-{seq}", "text": text}
        out.append(event | {k: v for k, v in fields.items() if v is not None})

    text = content_text(msg.get("content"))
    if msg.get("name") == COMPACTION_NAME:
        add("SUMMARY", text, synthetic=True)
    elif role in ("system", "developer"):
        add("SYSTEM", text)
    elif role == "user":
        add("USER", text)
    elif role == "assistant":
        if text or msg.get("refusal"):
            add("ASSISTANT", text or msg["refusal"])
        calls = list(objects(msg.get("tool_calls") or None, "tool_calls"))
        if isinstance(msg.get("function_call"), dict):  # legacy: one call, no id
            calls.append({"function": msg["function_call"]})
        for n, call in enumerate(calls):
            fn = opt_obj(call.get("function") or call.get("custom") or None,
                         f"tool_calls[{n}].function")
            call_id = scalar(call.get("id"), f"tool_calls[{n}].id") or None
            add("CALL", _arguments(fn.get("arguments", fn.get("input"))), call_id=call_id,
                tool=scalar(fn.get("name"), f"tool_calls[{n}].function.name"))
            if call_id:
                names[call_id] = fn.get("name")
    elif role in ("tool", "function"):
        call_id = scalar(msg.get("tool_call_id"), "tool_call_id") or None
        add("RESULT", text, call_id=call_id, tool=msg.get("name") or names.get(call_id))
    else:
        raise ValueError(f"unknown message role {role!r}")
    if out:
        out[0]["raw"] = {"message": msg, "response": reply} if reply else msg
    return out


def content_text(content) -> str:
    """``content`` as text: a string, or the text parts of a list (others as ``[type]``)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(typed_text(p["text"], f"content[{i}].text")
                         if isinstance(p, dict) and "text" in p
                         else f"[{p.get('type', 'part')}]" if isinstance(p, dict) else str(p)
                         for i, p in enumerate(content))
    return json.dumps(content, ensure_ascii=False)


def _arguments(value) -> str | None:
    """Arguments as sent: a JSON string stays as it is; an object is written as JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
