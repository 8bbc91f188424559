"""Claude Code transcripts: the canonical events of one conversation record (LOG-FORMATS.md §2).

A ``user`` or ``assistant`` record gives one event per content block (``sub`` = the block's
place in its API message), a ``system`` record at most one OTHER event. Which event of an
API message comes first and its final usage are found beforehand by
:mod:`explorer.formats.claude_code_scan` and passed in as a :class:`MessageInfo`.

What the harness writes in the user's role is not a person's turn (FORMAT.md ``note``):
command records, ``<local-command-…>`` output and caveats, ``isMeta`` records and injected
reminders are USER events with a note; a thinking block is an OTHER event with note
``thinking`` and ``tokens`` 0 (providers drop earlier thinking from the context).
"""

from __future__ import annotations

import json

from explorer.formats.record import reason_word
from explorer.formats.typed import opt_text, scalar, text

#: Assistant blocks that are OTHER events with note ``thinking`` and no cost (LOG-FORMATS.md §2).
THINKING = ("thinking", "redacted_thinking")
#: How a user text written by the harness starts, and the note it gets (LOG-FORMATS.md §2).
HARNESS_PREFIXES = (
    ("<command-name>", "command"), ("<command-message>", "command"),
    ("<command-args>", "command"),
    ("<local-command-stdout>", "command output"), ("<local-command-stderr>", "command output"),
    ("<local-command-caveat>", "caveat"), ("<system-reminder>", "reminder"),
)
#: ``system`` subtypes that carry no conversation (skipped, LOG-FORMATS.md §2).
SKIPPED_SYSTEM = ("stop_hook_summary", "turn_duration")
#: Key of the ``raw`` object under which the reader adds what the record alone does not say.
ADDED = "turnscope"


def result_text(content, path: str = "content") -> str | None:
    """A ``tool_result``'s content: a string, or the text parts of a list joined by newlines."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [text(p.get("text", ""), f"{path}[{i}].text") for i, p in enumerate(content)
                 if isinstance(p, dict) and p.get("type") == "text"]
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False)


def content_text(content) -> str | None:
    """A message's content as text: the string itself, or its text blocks joined."""
    return result_text(content, "message.content")


def harness_note(text_value, meta: bool) -> str | None:
    """The note of a user text the harness wrote (None for a person's): by its opening tag;
    an ``isMeta`` record's text without one is a caveat or an injected reminder."""
    if isinstance(text_value, str):
        start = text_value.lstrip()
        for prefix, note in HARNESS_PREFIXES:
            if start.startswith(prefix):
                return note
        if meta and start.startswith("Caveat:"):
            return "caveat"
    return "reminder" if meta else None


def block_event(role: str, block: dict, path: str = "block") -> dict:
    """Kind, call id, tool and text of one content block (at ``path``) of a ``role`` message."""
    btype = opt_text(block.get("type"), f"{path}.type")
    if btype in THINKING and role == "assistant":
        thought = block.get("thinking") if btype == "thinking" else None
        event = {"kind": "OTHER", "note": "thinking", "tokens": 0}
        if thought is not None:
            event["text"] = text(thought, f"{path}.thinking")
        return event
    if btype == "text":
        return {"kind": "USER" if role == "user" else "ASSISTANT", "text": block.get("text", "")}
    if btype in ("tool_use", "server_tool_use"):
        return {"kind": "CALL", "call_id": scalar(block.get("id"), f"{path}.id"),
                "tool": scalar(block.get("name"), f"{path}.name"),
                "text": json.dumps(block.get("input"), ensure_ascii=False)}
    if btype == "tool_result" or (btype or "").endswith("_tool_result"):
        call_id = scalar(block.get("tool_use_id"), f"{path}.tool_use_id")
        event = {"kind": "RESULT", "call_id": call_id,
                 "text": result_text(block.get("content"), f"{path}.content")}
        if "is_error" in block:
            event["is_error"] = bool(block["is_error"])
        return event
    if role == "user" and btype in ("image", "document"):
        return {"kind": "USER"}   # the data is in raw; its cost is not estimated from base64
    return {"kind": "OTHER", "text": json.dumps(block, ensure_ascii=False)}


def without_usage(record: dict) -> dict:
    """A copy of ``record`` without ``message.usage`` (usage is kept once per message)."""
    message = {k: v for k, v in record["message"].items() if k != "usage"}
    return {**record, "message": message}


def message_events(record: dict, base: dict, info, added: dict) -> list[dict]:
    """The events of a ``user``/``assistant`` record, one per content block.

    ``base`` holds the fields every event of the record shares; ``info`` (a MessageInfo or
    None) says where the record's blocks sit in their API message; ``added`` is merged under
    ``raw["turnscope"]`` of the record's first event.
    """
    message = record["message"]
    role = record["type"]
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    offset = info.offset(base["seq"]) if info else 0
    events = []
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            block = {"type": "text", "text": str(block)}
        event = {**base, **block_event(role, block, f"message.content[{index}]"),
                 "sub": offset + index}
        if event["kind"] == "USER":
            note = harness_note(event.get("text"), bool(record.get("isMeta")))
            if note:
                event["note"] = note
        if len(content) > 1 and base.get("event_id"):
            event["event_id"] = f"{base['event_id']}#{index}"
        if role == "assistant" and record.get("isApiErrorMessage"):
            event["is_error"] = True
        first = info is None or info.first == (base["seq"], index)
        event["raw"] = _raw(record, info, first, added)
        events.append(event)
    return events


def _raw(record: dict, info, first: bool, added: dict) -> dict:
    """The record as raw: usage only on the message's first event (its final value there),
    plus the reader's links under ``turnscope``."""
    if info is None:
        return {**record, ADDED: added} if added and first else record
    if not first:
        return without_usage(record)
    raw = record
    if info.usage is not None:
        raw = {**record, "message": {**record["message"], "usage": info.usage}}
    return {**raw, ADDED: dict(added)} if added else raw


def system_event(record: dict, base: dict) -> dict:
    """The OTHER event of a ``system`` record (compact boundary, api_error, local_command...).

    The compact boundary is a marker with no cost (note ``compact boundary``): its text stays
    in raw only; another subtype's note is the subtype in words (``api error``).
    """
    subtype = record.get("subtype")
    event = {**base, "kind": "OTHER", "sub": 0, "raw": record}
    if isinstance(subtype, str) and subtype:
        event["note"] = reason_word(subtype).replace("_", " ")
    if subtype != "compact_boundary":
        text = record.get("content")
        if text is not None:
            event["text"] = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    if record.get("subtype") == "api_error" or record.get("level") == "error":
        event["is_error"] = True
    return event
