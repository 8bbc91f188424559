"""A repaired copy of a recorded API conversation (a cassette, a HAR file, a message list)
written as the API's own message list, the shape its reader takes and its SDK sends:
Anthropic ``{system, messages}``, OpenAI Chat ``{messages}``, OpenAI Responses
``{instructions, input}`` (a recording holds HTTP exchanges, which a repaired conversation
has none of; the request body of its next call is what can be replayed).

The events are those of the session with the plan applied
(:func:`explorer.repair.jsonl_writer.repaired_events`), grouped as PROVIDERS.md says a view
becomes that provider's request; OTHER events (thinking, markers) are left out.
"""

from __future__ import annotations

import json
from typing import TextIO

from explorer.repair.jsonl_writer import repaired_events
from explorer.repair.plan import Plan

_ROLE = {"USER": "user", "SUMMARY": "user", "RESULT": "user", "ASSISTANT": "assistant",
         "CALL": "assistant"}


def _events(plan: Plan, db) -> tuple[list[str], list[dict]]:
    events = repaired_events(plan, db)
    system = [e.get("text") or "" for e in events if e["kind"] == "SYSTEM"]
    return system, [e for e in events if e["kind"] in _ROLE]


def _input(e: dict):
    try:
        return json.loads(e.get("text") or "{}")
    except ValueError:
        return e.get("text")


def anthropic(plan: Plan, db) -> dict:
    """``{system, messages}``: runs of one role are one message of blocks."""
    system, events = _events(plan, db)
    messages: list[dict] = []
    for e in events:
        if e["kind"] == "CALL":
            block = {"type": "tool_use", "id": e["call_id"], "name": e.get("tool") or "tool",
                     "input": _input(e)}
        elif e["kind"] == "RESULT":
            block = {"type": "tool_result", "tool_use_id": e["call_id"],
                     "content": e.get("text") or ""}
            if e.get("is_error"):
                block["is_error"] = True
        else:
            block = {"type": "text", "text": e.get("text") or ""}
        role = _ROLE[e["kind"]]
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].append(block)
        else:
            messages.append({"role": role, "content": [block]})
    body: dict = {"messages": messages}
    if system:
        body = {"system": "\n\n".join(system), **body}
    return body


def openai_chat(plan: Plan, db) -> dict:
    """``{messages}``: a system message, user and assistant messages (calls as
    ``tool_calls``), one ``tool`` message per result."""
    system, events = _events(plan, db)
    messages: list[dict] = [{"role": "system", "content": "\n\n".join(system)}] if system else []
    for e in events:
        last = messages[-1] if messages else None
        if e["kind"] == "RESULT":
            messages.append({"role": "tool", "tool_call_id": e["call_id"],
                             "content": e.get("text") or ""})
        elif e["kind"] == "CALL":
            call = {"id": e["call_id"], "type": "function",
                    "function": {"name": e.get("tool") or "tool",
                                 "arguments": e.get("text") or "{}"}}
            if last and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        else:
            role = _ROLE[e["kind"]]
            if last and last["role"] == role and "tool_calls" not in last \
                    and isinstance(last.get("content"), str):
                last["content"] += "\n\n" + (e.get("text") or "")
            else:
                messages.append({"role": role, "content": e.get("text") or ""})
    return {"messages": messages}


def openai_responses(plan: Plan, db) -> dict:
    """``{instructions, input}``: one input item per event."""
    system, events = _events(plan, db)
    items = []
    for e in events:
        if e["kind"] == "CALL":
            items.append({"type": "function_call", "call_id": e["call_id"],
                          "name": e.get("tool") or "tool", "arguments": e.get("text") or "{}"})
        elif e["kind"] == "RESULT":
            items.append({"type": "function_call_output", "call_id": e["call_id"],
                          "output": e.get("text") or ""})
        else:
            role = _ROLE[e["kind"]]
            part = "output_text" if role == "assistant" else "input_text"
            items.append({"type": "message", "role": role,
                          "content": [{"type": part, "text": e.get("text") or ""}]})
    body: dict = {"input": items}
    if system:
        body = {"instructions": "\n\n".join(system), **body}
    return body


class _Writer:
    """A writer (``write(fh, plan, db)``) of one API's message list."""

    def __init__(self, build) -> None:
        self.build = build

    def write(self, fh: TextIO, plan: Plan, db) -> None:
        json.dump(self.build(plan, db), fh, ensure_ascii=False, indent=1)
        fh.write("\n")


class _HarWriter(_Writer):
    """The Responses API has no reader of bare bodies: its input list is the request of a
    one-entry HAR recording (the reply an empty ``output``), which its reader takes."""

    def write(self, fh: TextIO, plan: Plan, db) -> None:
        body = {"model": "unknown", **self.build(plan, db)}
        entry = {"startedDateTime": "1970-01-01T00:00:00.000Z", "time": 0,
                 "request": {"method": "POST", "url": "https://api.openai.com/v1/responses",
                             "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                             "cookies": [], "headersSize": -1, "bodySize": -1,
                             "postData": {"mimeType": "application/json",
                                          "text": json.dumps(body, ensure_ascii=False)}},
                 "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                              "headers": [], "cookies": [], "redirectURL": "",
                              "headersSize": -1, "bodySize": -1,
                              "content": {"mimeType": "application/json", "size": 0,
                                          "text": json.dumps({"object": "response",
                                                              "output": []})}},
                 "cache": {}, "timings": {"send": 0, "wait": 0, "receive": 0}}
        json.dump({"log": {"version": "1.2", "creator": {"name": "turnscope repair",
                                                         "version": "1"},
                           "entries": [entry]}}, fh, ensure_ascii=False, indent=1)
        fh.write("\n")


ANTHROPIC = _Writer(anthropic)
OPENAI_CHAT = _Writer(openai_chat)
OPENAI_RESPONSES = _HarWriter(openai_responses)
