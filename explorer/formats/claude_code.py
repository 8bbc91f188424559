"""Claude Code session transcripts (``~/.claude/projects/…/<sessionId>.jsonl``, LOG-FORMATS.md §2).

One JSON object per line. ``user`` and ``assistant`` records give one event per content
block (``sub`` = the block's place in its API message, ``message_id`` = ``message.id``, or
the record's ``uuid`` for a user record); tool results are RESULT blocks of user records; a
``user`` record with ``isCompactSummary`` is the recorded compaction's SUMMARY (synthetic),
after the ``compact_boundary`` marker (OTHER, no cost). Progress, snapshot, queue, hook and
``summary`` title records are skipped, by reason. Sub-agent (sidechain) records go to the
session ``sessionId/agentId`` with ``branch`` = the agent id.

``raw`` is the line's record, except that ``message.usage`` (repeated on every line of a
message, growing) is only on the message's first event, with its final value, and that the
reader adds, under ``raw["turnscope"]``: ``thinking`` (the message's thinking written on
other lines), ``subagent_session`` (on a Task CALL/RESULT: the session of the sub-agent it
started) and, on a sub-agent file's first event, ``parent_session`` and ``parent_call_id``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterator

from explorer.formats.claude_code_blocks import (
    ADDED,
    SKIPPED_SYSTEM,
    content_text,
    message_events,
    system_event,
)
from explorer.formats.claude_code_scan import parent_call, scan
from explorer.formats.lines import placed_json_lines
from explorer.formats.record import Record, reason_word
from explorer.formats.typed import WrongType, opt_text, rejected, scalar

NAME = "claude-code"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader

#: Record types that are never conversation, and why they are skipped.
_NOISE = {
    "file-history-snapshot": "file-history snapshot",
    "queue-operation": "queue operation",
    "summary": "summary title (names another session)",
}
#: A line too long to end in the sniffed head still starts like a transcript record.
_PARTIAL = re.compile(rb'^\{"(parentUuid|type|isSidechain|leafUuid)"\s*:')


def matches(path: Path, head: bytes) -> bool:
    """A transcript: its first record has a Claude Code shape, and some record in the head is a
    conversation record (or a ``summary`` title) of that shape."""
    text = head.removeprefix(b"\xef\xbb\xbf")
    parts = [p for p in text.split(b"\n") if p.strip()]
    if not parts:
        return False
    complete = parts if len(head) < 64 * 1024 or text.endswith(b"\n") else parts[:-1]
    records, broken = [], 0
    for part in complete[:50]:
        try:
            records.append(json.loads(part))
        except ValueError:
            broken += 1   # a damaged line is the reader's to report, if the rest is a transcript
    if not complete:   # one line longer than the head
        return bool(_PARTIAL.match(parts[0])) and b'"sessionId"' in parts[0] and b'"uuid"' in parts[0]
    if broken * 2 >= len(complete) or not all(_shaped(r) for r in records):
        return False
    return any(_conversation(r) or r.get("type") == "summary" for r in records)


def _conversation(record: dict) -> bool:
    return (record.get("type") in ("user", "assistant") and isinstance(record.get("message"), dict)
            and "sessionId" in record and "uuid" in record)


def _shaped(record) -> bool:
    """Whether a record is one of the types Claude Code writes, with its usual keys."""
    if not isinstance(record, dict):
        return False
    kind = record.get("type")
    if kind in ("user", "assistant"):
        return _conversation(record)
    if kind in ("system", "progress", "queue-operation"):
        return "sessionId" in record
    if kind == "summary":
        return "summary" in record and "leafUuid" in record
    if kind == "file-history-snapshot":
        return "snapshot" in record
    return False


def records(path: Path) -> Iterator[Record]:
    """The file's records as canonical events (two passes: see claude_code_scan)."""
    found = scan(path)
    link: dict | None = None   # parent link, for a sub-agent file's first event
    # A record glued onto another's line (a torn write) shares its line, the seq: its
    # blocks are numbered after the first record's (sub from 1000 on).
    for line, value, glued in placed_json_lines(path):
        if value.error:
            yield Record(line.number, error=value.error, text=value.text)
            continue
        record = value.value
        if not isinstance(record, dict):
            yield Record(line.number, error="not a JSON object", text=value.text)
            continue
        if link is None:
            link = _parent_link(path, record)
        try:
            result = _record(path, line.number, record, found, link)
        except WrongType as exc:   # a value of the wrong type: this record only is rejected
            result = rejected(line.number, exc)
        if glued:
            result.events = [{**e, "sub": e.get("sub", 0) + 1000 * glued} for e in result.events]
        if result.events and link:
            link = {}
        if result.error:
            result.text = value.text
        yield result






def _record(path: Path, line: int, record: dict, found, link: dict) -> Record:
    """The Record of one parsed line."""
    kind = opt_text(record.get("type"), "type")
    if kind in _NOISE:
        return Record(line, skipped=_NOISE[kind])
    if kind == "progress":
        data = record.get("data")
        what = data.get("type") if isinstance(data, dict) else None
        return Record(line, skipped=f"progress ({reason_word(what) if what else 'unknown'})")
    if kind not in ("user", "assistant", "system"):
        return Record(line, skipped=f"record type {reason_word(kind)!r} (not conversation)")
    base = _base(line, record, path.stem)
    if kind == "system":
        if record.get("subtype") in SKIPPED_SYSTEM:
            return Record(line, skipped=f"system ({record['subtype']})")
        event = system_event(record, base)
        if link:
            event["raw"] = {**record, ADDED: link}
        return Record(line, [event])
    message = record.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content"), (str, list)):
        return Record(line, error=f"{kind} record without message content")
    message_id = scalar(message.get("id"), "message.id")
    info = found.messages.get(message_id) if kind == "assistant" else None
    events = message_events(record, base, info, link)
    if not events:
        reason = "thinking only (kept in raw of the message's first event)" if message.get("content") else "empty message"
        return Record(line, skipped=reason)
    if record.get("isCompactSummary"):   # one SUMMARY, whatever the number of text blocks
        events = [{**events[0], "kind": "SUMMARY", "synthetic": True, "sub": 0,
                   "text": content_text(message["content"])}]
    for event in events:
        _link_task(event, record, found)
    return Record(line, events)


def _base(line: int, record: dict, fallback: str) -> dict:
    """Fields shared by the events of one record: session (``fallback`` when the record
    has no ``sessionId``), seq, ts, ids, branch."""
    session = str(record.get("sessionId") or fallback)
    base: dict = {"session_id": session, "seq": line}
    if record.get("isSidechain"):
        agent = str(record.get("agentId") or "sidechain")
        base["session_id"] = f"{session}/{agent}"
        base["branch"] = agent
    if record.get("timestamp"):
        base["ts"] = scalar(record["timestamp"], "timestamp")
    if record.get("uuid"):
        base["event_id"] = record["uuid"]
    message = record.get("message")
    if isinstance(message, dict):
        base["message_id"] = message.get("id") or record.get("uuid")
    return base


def _link_task(event: dict, record: dict, found) -> None:
    """On a Task call or result: the session of the sub-agent it started."""
    agent = found.agents.get(event.get("call_id") or "")
    if agent and event["kind"] in ("CALL", "RESULT"):
        session = event["session_id"].split("/")[0]
        raw = event["raw"]
        event["raw"] = {**raw, ADDED: {**raw.get(ADDED, {}), "subagent_session": f"{session}/{agent}"}}


def _parent_link(path: Path, record: dict) -> dict:
    """For a sub-agent file (its first record is a sidechain with an agent id): the parent
    session and, when the parent file is where Claude Code puts it, the Task call id."""
    agent = record.get("agentId")
    if not (record.get("isSidechain") and agent and record.get("sessionId")):
        return {}
    link = {"parent_session": str(record["sessionId"])}
    call_id = parent_call(path, str(record["sessionId"]), str(agent))
    if call_id:
        link["parent_call_id"] = call_id
    return link
