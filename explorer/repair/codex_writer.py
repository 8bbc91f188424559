"""A repaired copy of a Codex CLI rollout, in the rollout's own JSONL (one record a line, one
event a record), so that ``codex resume`` reads it back.

Lines the plan does not touch are copied byte for byte; a dropped event's line is left out; a
result turned into text becomes a user ``message`` item saying what it was; a placeholder is
a ``function_call_output`` (``custom_tool_call_output`` for a custom tool call) right after
its call's line, in the same envelope (``{timestamp, type: response_item, payload}``, or the
bare item of the oldest versions).
"""

from __future__ import annotations

import json
from typing import TextIO

from explorer.repair.plan import PLACEHOLDER, Plan


def write(fh: TextIO, plan: Plan, db=None) -> None:
    """Write the repaired copy of the plan's rollout to ``fh`` (``db`` is not read)."""
    lines, trailing = plan.source_lines()
    dropped = {c.line for c in plan.changes if c.action == "drop"}
    texted = {c.line for c in plan.changes if c.action == "text"}
    added: dict[int, list[str]] = {}
    for c in plan.changes:
        if c.action == "add":
            added.setdefault(c.line, []).append(c.call_id)
    out = []
    for number, line in enumerate(lines, start=1):
        if number in dropped:
            continue
        if number in texted:
            out.append(_dump(_as_text(json.loads(line))))
        else:
            out.append(line)
        for call_id in added.get(number, ()):
            out.append(_dump(_placeholder(json.loads(line), call_id)))
    fh.write("\n".join(out) + ("\n" if trailing else ""))


def _item(record: dict) -> tuple[dict, dict | None]:
    """The record's item and its envelope (None for a bare item)."""
    payload = record.get("payload")
    return (payload, record) if isinstance(payload, dict) else (record, None)


def _wrapped(envelope: dict | None, item: dict) -> dict:
    return item if envelope is None else {**envelope, "type": "response_item", "payload": item}


def _as_text(record: dict) -> dict:
    item, envelope = _item(record)
    output = item.get("output")
    if not isinstance(output, str):
        output = json.dumps(output, ensure_ascii=False)
    text = (f"[Turnscope repair: output of tool call {item.get('call_id')}, which is not in "
            f"this session]\n{output}")
    return _wrapped(envelope, {"type": "message", "role": "user",
                               "content": [{"type": "input_text", "text": text}]})


def _placeholder(call: dict, call_id: str) -> dict:
    item, envelope = _item(call)
    kind = "custom_tool_call_output" if item.get("type") == "custom_tool_call" \
        else "function_call_output"
    return _wrapped(envelope, {"type": kind, "call_id": call_id, "output": PLACEHOLDER})


def _dump(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
