"""A repaired copy of a Claude Code transcript, in Claude Code's own JSONL, so that
``claude --resume`` reads it back.

Lines the plan does not touch are copied byte for byte. A record whose every block goes is
left out; one that loses some blocks (or has a result turned into text) is written again
without them. A placeholder result is a new ``user`` record right after the record of the
call it answers. The ``parentUuid`` chain is mended: a record whose parent was left out gets
that parent's own (kept) parent, and the children of a record followed by a placeholder hang
from the placeholder, so the chain from the last record reaches every kept record it reached
before and names no dropped one (``logicalParentUuid`` and ``leafUuid`` likewise).
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict
from typing import TextIO

from explorer.repair.plan import PLACEHOLDER, Plan

_LINKS = ("parentUuid", "logicalParentUuid", "leafUuid")
_KEPT_KEYS = ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch", "agentId")


def write(fh: TextIO, plan: Plan, db=None) -> None:
    """Write the repaired copy of the plan's file to ``fh`` (``db`` is not read)."""
    lines, trailing = plan.source_lines()
    blocks = _changed_blocks(plan)
    added = defaultdict(list)
    for c in plan.changes:
        if c.action == "add":
            added[c.seq].append(c.call_id)
    out: list[str] = []
    replaced: dict[str, str | None] = {}   # a dropped uuid -> its parent; a followed uuid -> placeholder
    for number, line in enumerate(lines, start=1):
        if number not in blocks and number not in added:
            out.append(line)
            continue
        record = json.loads(line)
        kept = _apply(record, blocks.get(number, {}))
        if kept is None:
            if record.get("uuid"):
                replaced[record["uuid"]] = record.get("parentUuid")
            continue
        out.append(_dump(kept) if number in blocks else line)
        if number in added:
            holder = _placeholder(record, added[number])
            out.append(_dump(holder))
            replaced[record["uuid"]] = holder["uuid"]
    fh.write("\n".join(_relinked(out, replaced)) + ("\n" if trailing else ""))


def _changed_blocks(plan: Plan) -> dict[int, dict[int, str]]:
    """Per source line, the block indices changed and how (drop or text)."""
    first_sub: dict[int, int] = dict(plan.first_subs)
    out: dict[int, dict[int, str]] = defaultdict(dict)
    for c in plan.changes:
        if c.action in ("drop", "text") and c.line is not None:
            out[c.line][c.sub - first_sub.get(c.seq, 0)] = c.action
    return out


def _apply(record: dict, changed: dict[int, str]) -> dict | None:
    """The record without its dropped blocks and with its texted ones (None: nothing left)."""
    if not changed:
        return record
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return None   # one block (a string content, a system record): the record goes
    kept = []
    for index, block in enumerate(content):
        action = changed.get(index)
        if action == "drop":
            continue
        if action == "text" and isinstance(block, dict):
            block = {"type": "text", "text": _as_text(block)}
        kept.append(block)
    if not kept:
        return None
    fixed = {**record, "message": {**message, "content": kept}}
    fixed.pop("toolUseResult", None)   # it described the result that was changed
    return fixed


def _as_text(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, list):
        content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return (f"[Turnscope repair: result of tool call {block.get('tool_use_id')}, which is not "
            f"in this session]\n{content if isinstance(content, str) else json.dumps(content)}")


def _placeholder(after: dict, call_ids: list[str]) -> dict:
    """A user record answering ``call_ids`` of the record ``after``, as interrupted."""
    made = str(uuid.uuid5(uuid.NAMESPACE_URL, f"turnscope-repair:{after.get('uuid')}"))
    record = {"parentUuid": after.get("uuid")}
    record.update({k: after[k] for k in _KEPT_KEYS if k in after})
    record.update({
        "type": "user",
        "message": {"role": "user", "content": [
            {"tool_use_id": cid, "type": "tool_result", "content": PLACEHOLDER,
             "is_error": True} for cid in call_ids]},
        "uuid": made,
        "timestamp": after.get("timestamp"),
        "toolUseResult": f"Error: {PLACEHOLDER}",
    })
    return record


def _relinked(lines: list[str], replaced: dict[str, str | None]) -> list[str]:
    """The lines with every link to a left-out or followed record mended."""
    if not replaced:
        return lines
    out = []
    for line in lines:
        if not any(key in line for key in replaced):
            out.append(line)
            continue
        record = json.loads(line)
        changed = False
        for link in _LINKS:
            target = record.get(link)
            if target in replaced and target != record.get("uuid"):
                new = _resolve(target, replaced, record.get("uuid"))
                if new != target:
                    record[link] = new
                    changed = True
        out.append(_dump(record) if changed else line)
    return out


def _resolve(target, replaced: dict[str, str | None], own: str | None):
    seen = set()
    while target in replaced and target not in seen:
        seen.add(target)
        nxt = replaced[target]
        if nxt == own:   # the placeholder itself keeps its parent
            return target
        target = nxt
    return target


def _dump(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
