"""Anthropic Messages API conversations (LOG-FORMATS.md §5): recorded API cassettes (the last
request of a conversation and its reply; earlier requests are replayed copies), and JSON
message lists, request bodies or arrays of conversations in the same shapes as
``openai_chat`` (Cline's ``api_conversation_history.json`` is one).

Content blocks become events in block order; ``thinking`` / ``redacted_thinking`` make no
event and stay in the ``raw`` of the message's first event; a server-side ``compaction``
block is a SUMMARY, the recorded compaction that STRATEGIES.md's ``recorded`` view starts at.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from explorer.formats import cassette, openai_chat, read_head
from explorer.formats.record import Record
from explorer.formats.typed import obj, opt_text, scalar, whole
from explorer.formats.typed import text as typed_text

NAME = "anthropic-messages"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader

THINKING = {"thinking", "redacted_thinking"}
CALL_BLOCKS = {"tool_use", "server_tool_use", "mcp_tool_use"}
USER_BLOCKS = {"text", "image", "document", "search_result"}


def matches(path: Path, head: bytes) -> bool:
    if cassette.is_cassette(head):
        return cassette.api(path, head) == "anthropic"
    return (openai_chat.json_shape(head) is not None
            and bool(openai_chat.ANTHROPIC_BLOCKS.search(head))
            and not openai_chat.OPENAI_FIELDS.search(head))


def records(path: Path) -> Iterator[Record]:
    if cassette.is_cassette(read_head(path)):
        yield from openai_chat.cassette_records(path, _request_messages, _reply, message_events)
    else:
        yield from openai_chat.json_records(path, message_events, _request_messages)




def _request_messages(body: dict) -> list | None:
    """The request's messages, its ``system`` prompt first as a message of role system."""
    msgs = body.get("messages")
    if not isinstance(msgs, list) or "contents" in body:
        return None
    system = body.get("system")
    return ([{"role": "system", "content": system}] if system else []) + msgs


def _reply(body: dict) -> tuple[dict, dict] | None:
    content = body.get("content")
    if body.get("type") == "error" or not isinstance(content, list):
        return None
    meta = {k: v for k, v in body.items() if k != "content"}
    return {"role": body.get("role") or "assistant", "content": content}, meta


def message_events(msg, session: str, seq: int, names: dict, reply: dict | None) -> list[dict]:
    """The canonical events of one message (LOG-FORMATS.md §5 table), one per block."""
    msg = whole(obj(msg, "message"))
    role = msg.get("role")
    if role not in ("system", "user", "assistant"):
        raise ValueError(f"unknown message role {role!r}")
    content = msg.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        raise ValueError("message content is neither text nor a list of blocks")
    out: list[dict] = []

    def add(kind: str, text, **fields) -> None:
        event = {"session_id": session, "seq": seq, "sub": len(out), "kind": kind,
                 "message_id": (reply or {}).get("id") or f"msg-{seq}", "text": text}
        out.append(event | {k: v for k, v in fields.items() if v is not None})

    for index, block in enumerate(blocks):
        at = f"content[{index}]"
        kind = opt_text(block.get("type"), f"{at}.type") if isinstance(block, dict) else None
        if kind in THINKING:
            continue
        if role == "system" and kind == "text":
            add("SYSTEM", block.get("text", ""))
        elif kind in CALL_BLOCKS:
            call_id = scalar(block.get("id"), f"{at}.id") or None
            add("CALL", json.dumps(block.get("input"), ensure_ascii=False), call_id=call_id,
                tool=scalar(block.get("name"), f"{at}.name"))
            if call_id:
                names[call_id] = block.get("name")
        elif kind == "tool_result" or (isinstance(kind, str) and kind.endswith("_tool_result")):
            call_id = scalar(block.get("tool_use_id"), f"{at}.tool_use_id") or None
            add("RESULT", result_text(block.get("content"), f"{at}.content"), call_id=call_id,
                tool=names.get(call_id), is_error=_is_error(block))
        elif kind == "compaction":
            add("SUMMARY", block.get("content") or "", synthetic=True)
        elif kind == "text":
            add("USER" if role == "user" else "ASSISTANT", block.get("text", ""))
        elif role == "user" and kind in USER_BLOCKS:
            add("USER", f"[{kind}]")
        else:
            add("OTHER", json.dumps(block, ensure_ascii=False))
    if out:
        out[0]["raw"] = {"message": msg, "response": reply} if reply else msg
    return out


def result_text(content, path: str = "content") -> str:
    """A tool result's content: a string, or its blocks (text as text, others as JSON)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(typed_text(b.get("text", ""), f"{path}[{i}].text")
                         if isinstance(b, dict) and b.get("type") == "text"
                         else json.dumps(b, ensure_ascii=False) for i, b in enumerate(content))
    return json.dumps(content, ensure_ascii=False)


def _is_error(block: dict) -> bool | None:
    """``is_error`` when given; a server tool's result whose content is an ``*_error``."""
    if isinstance(block.get("is_error"), bool):
        return block["is_error"]
    content = block.get("content")
    if isinstance(content, dict) and str(content.get("type", "")).endswith("_error"):
        return True
    return None
