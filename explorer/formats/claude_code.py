"""Claude Code session transcripts (``~/.claude/projects/…/<sessionId>.jsonl``, LOG-FORMATS.md §2).

One JSON object per line. ``user`` and ``assistant`` records give one event per content
block (``sub`` = the block's place in its API message, ``message_id`` = ``message.id``, or
the record's ``uuid`` for a user record); tool results are RESULT blocks of user records; a
thinking block is an OTHER event (note ``thinking``, no cost); text the harness wrote in the
user's role is a USER event with a note (explorer.formats.claude_code_blocks); a ``user``
record with ``isCompactSummary`` is the recorded compaction's SUMMARY (synthetic), after the
``compact_boundary`` marker (OTHER, note ``compact boundary``, no cost). Progress, snapshot,
queue, hook and ``summary`` title records are skipped, by reason; a record of a type Claude
Code is not known to write is an OTHER event with note ``unknown type: X`` holding it.

Sub-agents are sessions with a parent (FORMAT.md ``parent_session``, ``parent_call``): a
sidechain with an ``agentId`` (2.x files) is the session ``sessionId/agentId``; an inline
sidechain of 1.0.x (``isSidechain`` without ``agentId``) is one session per sidechain root,
``sessionId/<root uuid>``; ``branch`` is the agent id (the root uuid). Every event of such a
session carries its parent session and, when found, the parent's ``Task`` call id: for an
inline sidechain from this file (the Task whose prompt is the root's), for a sub-agent file
from the parent's transcript found by content (explorer.formats.claude_code_scan).

``raw`` is the line's record, except that ``message.usage`` (repeated on every line of a
message, growing) is only on the message's first event, with its final value, and that the
reader adds ``raw["turnscope"]["subagent_session"]`` on a Task CALL/RESULT: the session of
the sub-agent it started (the ``missing_child`` audit reads it).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path

from explorer.formats.claude_code_blocks import (
    ADDED,
    SKIPPED_SYSTEM,
    content_text,
    message_events,
    system_event,
)
from explorer.formats.claude_code_scan import Scan, parent_call, scan
from explorer.formats.lines import BOM, Line, Span, Value, line_error, placed_json_lines, records_of
from explorer.formats.reader import Resume
from explorer.formats.record import Record, reason_word
from explorer.formats.typed import WrongType, opt_text, rejected, scalar

NAME = "claude-code"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader
FOLLOWS = True     # records(path, resume): a followed file's new lines

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
    if isinstance(kind, str) and kind not in ("summary", "file-history-snapshot"):
        return "sessionId" in record   # a type of a newer version (format drift)
    if kind == "summary":
        return "summary" in record and "leafUuid" in record
    if kind == "file-history-snapshot":
        return "snapshot" in record
    return False


def records(path: Path, resume: Resume | None = None) -> Iterator[Record]:
    """The file's records as canonical events (two passes: see claude_code_scan); with a
    ``resume``, only those of its new lines, after the earlier records they restate."""
    span = resume.span if resume is not None else None
    links: dict[str, dict] = {}   # child session -> its parent_session / parent_call
    if resume is None:
        found = scan(path)
    else:   # the first pass carried on over the new lines (its state: the Scan so far)
        found = resume.state
        if not isinstance(found, Scan):
            found = scan(path, Span(0, 1, span.offset))
        found = scan(path, span, found)
        yield from _restated(path, span, found, links)
        resume.state = found
    # A record glued onto another's line (a torn write) shares its line, the seq: its
    # blocks are numbered after the first record's (sub from 1000 on).
    for line, value, glued in placed_json_lines(path, span):
        yield _mapped(path, line, value, glued, found, links)


def _mapped(path: Path, line: Line, value: Value, glued: int, found, links: dict) -> Record:
    """The Record of one record of a line (``glued``: its place there)."""
    if value.error:
        return Record(line.number, error=value.error, text=value.text)
    record = value.value
    if not isinstance(record, dict):
        return Record(line.number, error="not a JSON object", text=value.text)
    try:
        result = _record(path, line.number, record, found, links)
    except WrongType as exc:   # a value of the wrong type: this record only is rejected
        result = rejected(line.number, exc)
    if glued:
        result.events = [{**e, "sub": e.get("sub", 0) + 1000 * glued} for e in result.events]
    if result.error:
        result.text = value.text
    return result


def _restated(path: Path, span: Span, found: Scan, links: dict) -> Iterator[Record]:
    """The records before ``span`` whose events the span's lines change beside the events
    table: the first line of a message the span goes on (its final usage), the lines naming
    a Task call whose sub-agent became known, the records of an inline sidechain matched
    to its Task call (``found``: the first pass's, with what the span added)."""
    wanted = {info.first[0] for info in map(found.messages.get, found.touched)
              if info.first and info.first[0] < span.first_line}
    needles = {call.encode() for call in found.new_agents}
    for root in found.new_roots:
        needles.update(uuid.encode() for uuid, r in found.roots.items() if r == root)
    if not wanted and not needles:
        return
    with open(path, "rb") as fh:
        data = fh.read(span.offset)
    offset = 0
    for number, piece in enumerate(data.split(b"\n")[:-1], start=1):
        body = piece.removeprefix(BOM) if number == 1 else piece
        start = offset + len(piece) - len(body)
        offset += len(piece) + 1
        if not body.strip() or (number not in wanted and not any(n in body for n in needles)):
            continue
        body = body.removesuffix(b"\r")
        line = Line(number, start, body, line_error(body, start, False), None)
        values = ([Value(0, line.text(), None, line.error)] if line.error
                  else records_of(body.decode("utf-8"), start, None, False))
        for glued, value in enumerate(values):
            record = _mapped(path, line, value, glued, found, links)
            record.restated = True
            yield record


def _record(path: Path, line: int, record: dict, found, links: dict) -> Record:
    """The Record of one parsed line."""
    kind = opt_text(record.get("type"), "type")
    if kind in _NOISE:
        return Record(line, skipped=_NOISE[kind])
    if kind == "progress":
        data = record.get("data")
        what = data.get("type") if isinstance(data, dict) else None
        return Record(line, skipped=f"progress ({reason_word(what) if what else 'unknown'})")
    stem = _stem(path)
    base = _base(line, record, stem, found)
    if base["session_id"] != str(record.get("sessionId") or stem):
        base.update(_parent_link(path, record, base, found, links))
    if kind not in ("user", "assistant", "system"):   # format drift: kept, and said so
        return Record(line, [{**base, "kind": "OTHER", "sub": 0, "raw": record,
                              "note": f"unknown type: {reason_word(kind)}"}])
    if kind == "system":
        if record.get("subtype") in SKIPPED_SYSTEM:
            return Record(line, skipped=f"system ({record['subtype']})")
        return Record(line, [system_event(record, base)])
    message = record.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content"), (str, list)):
        return Record(line, error=f"{kind} record without message content")
    message_id = scalar(message.get("id"), "message.id")
    info = found.messages.get(message_id) if kind == "assistant" else None
    events = message_events(record, base, info, {})
    if not events:
        return Record(line, skipped="empty message")
    if record.get("isCompactSummary"):   # one SUMMARY, whatever the number of text blocks
        first = {k: v for k, v in events[0].items() if k != "note"}
        events = [{**first, "kind": "SUMMARY", "synthetic": True, "sub": 0,
                   "text": content_text(message["content"])}]
    for event in events:
        _link_task(event, record, found)
    return Record(line, events)


@functools.lru_cache(maxsize=16)
def _stem(path: Path) -> str:
    """The file's name without its suffix (a session id when records have none), once per
    file: Path.stem per record cost 3 % of the import."""
    return path.stem


def _base(line: int, record: dict, fallback: str, found) -> dict:
    """Fields shared by the events of one record: session (``fallback`` when the record
    has no ``sessionId``), seq, ts, ids, branch."""
    session = str(record.get("sessionId") or fallback)
    base: dict = {"session_id": session, "seq": line}
    if record.get("isSidechain"):
        agent = record.get("agentId") or found.roots.get(record.get("uuid")) or "sidechain"
        base["session_id"] = f"{session}/{agent}"
        base["branch"] = str(agent)
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
        session = str(record.get("sessionId") or event["session_id"].split("/")[0])
        raw = event["raw"]
        event["raw"] = {**raw, ADDED: {**raw.get(ADDED, {}), "subagent_session": f"{session}/{agent}"}}


def _parent_link(path: Path, record: dict, base: dict, found, links: dict) -> dict:
    """The parent of a sub-agent's session (``base``'s), found once per session: the
    record's ``sessionId`` and the Task call that started it (an inline sidechain's from
    this file's scan, a sub-agent file's from its parent's transcript)."""
    child = base["session_id"]
    if child not in links:
        parent = str(record.get("sessionId") or path.stem)
        link = {"parent_session": parent}
        agent = record.get("agentId")
        if agent:
            call_id = parent_call(path, parent, str(agent))
        else:
            call_id = found.root_calls.get(base.get("branch") or "")
        if call_id:
            link["parent_call"] = call_id
        links[child] = link
    return links[child]
