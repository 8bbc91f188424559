"""Reader of OpenAI Codex CLI rollouts (LOG-FORMATS.md §3): ``{timestamp, type, payload}``
lines (and the un-enveloped items of very old versions) mapped to canonical events.

Only the ``response_item`` side becomes events; the ``event_msg`` mirrors of it, progress,
``turn_context`` configuration and ``ghost_snapshot`` items are skipped, by reason. ``raw``
is the line's record; on the first event of a response the reader adds, under
``raw["turnscope"]``, ``reasoning`` (the response's reasoning records) and ``reported_usage``
(the ``token_count`` record that reported its usage; never put in ``tokens``).

A ``compacted`` line is one synthetic SUMMARY standing for its ``replacement_history`` (the
copies are not events), so the recorded view of STRATEGIES.md starts there. User-role items
the harness injects (environment context, instructions, the IDE context item of newer
versions) are synthetic SYSTEM events: a user-role item is a prompt when an
``event_msg``/``user_message`` mirrors it (or, in a file with no mirrors, when it does not
open with one of the harness's tags).
"""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from explorer.formats import events
from explorer.formats.events import Record

NAME = "codex-cli"
#: The key of ``raw`` under which the reader adds what other lines say about an event.
ADDED = "turnscope"

ENVELOPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
ITEMS = frozenset({"message", "reasoning", "function_call", "function_call_output",
                   "custom_tool_call", "custom_tool_call_output", "local_shell_call",
                   "web_search_call", "compaction", "ghost_snapshot"})
#: Model-output items: each opens (or continues) the response whose usage is reported.
_OUTPUT = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
_CALLS = {"function_call": "arguments", "custom_tool_call": "input"}
_RESULTS = frozenset({"function_call_output", "custom_tool_call_output"})
#: event_msg types that are events (SYSTEM markers); the rest are skipped.
_MARKERS = {"turn_aborted", "context_compacted", "error"}
_MIRRORS = {"user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content",
            "agent_reasoning_section_break"}
#: Openings of user-role items that the harness injects (used when no item is mirrored).
INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<INSTRUCTIONS>")
_REDACTED = re.compile(r"\[REDACTED_[A-Z_]+ (len=\d+ sha=[0-9a-f]+)\]")
_EXIT = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)\s*$", re.M)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_ENVELOPE_HEAD = re.compile(rb'\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"('
                            + b"|".join(e.encode() for e in sorted(ENVELOPES)) + rb')"')

SKIP_MIRROR = "event_msg mirror of a response_item"
SKIP_PROGRESS = "event_msg progress"
SKIP_CONFIG = "turn_context (configuration)"
SKIP_SNAPSHOT = "ghost_snapshot (snapshot)"
SKIP_STATE = "state record"
SKIP_UNKNOWN = "not a known rollout record"
SKIP_REASONING = "reasoning (kept in raw of the next event)"
SKIP_USAGE = "token_count (kept in raw of its response's first event)"
SKIP_USAGE_REPEAT = "token_count repeating the previous totals"
SKIP_USAGE_NONE = "token_count without usage"
SKIP_USAGE_LOST = "token_count with no response to keep it on"


def matches(path: Path, head: bytes) -> bool:
    """A first line that is a rollout envelope, or an old rollout's session header."""
    lines = [ln for ln in head.removeprefix(b"\xef\xbb\xbf").split(b"\n") if ln.strip()]
    if not lines:
        return False
    try:
        first = json.loads(lines[0])
    except ValueError:    # a first line longer than the head: judge by its opening
        return bool(_ENVELOPE_HEAD.match(lines[0].strip()))
    if not isinstance(first, dict):
        return False
    if _envelope(first):
        return first["type"] != "session_meta" or "id" in first["payload"]
    if {"id", "timestamp"} <= first.keys() and "type" not in first and "kind" not in first:
        try:
            second = json.loads(lines[1]) if len(lines) > 1 else None
        except ValueError:
            return False
        return isinstance(second, dict) and (second.get("type") in ITEMS
                                             or second.get("record_type") == "state")
    return False


def records(path: Path) -> Iterator[Record]:
    """One Record per non-blank line (seq = its line number)."""
    plan = _scan(path)
    reasoning: list[dict] = []
    for line, rec, text in _lines(path):
        if rec is None:
            yield Record(line, error="not a JSON object", text=text)
            continue
        kind, payload = _split(rec)
        if kind == "response_item" and payload.get("type") == "reasoning":
            reasoning.append(rec)
            yield Record(line, skipped=SKIP_REASONING)
            continue
        event = _event(kind, payload, line, plan)
        if isinstance(event, str):
            yield Record(line, skipped=event)
            continue
        added: dict = {}
        if reasoning and kind in ("response_item", "compacted"):
            added["reasoning"], reasoning = reasoning, []
        if line in plan.usage:
            added["reported_usage"] = plan.usage[line]
        raw = {**rec, ADDED: added} if added else rec
        event.update(session_id=plan.session_id, seq=line, ts=rec.get("timestamp"), raw=raw)
        yield Record(line, events=[{k: v for k, v in event.items() if v is not None}])


chunks = events.chunks_for(records)


@dataclass
class _Plan:
    """What a first pass over the file knows: the session id, the lines of the human
    prompts, the token_count record kept on each line, and why each token_count is skipped."""

    session_id: str
    prompts: set[int] = field(default_factory=set)
    usage: dict[int, dict] = field(default_factory=dict)
    usage_fate: dict[int, str] = field(default_factory=dict)


class _Usage:
    """Which event keeps each token_count. A response is the run of output items between
    input items; its usage is written after it (0.104) or just before it (0.40), so a report
    goes to the open response when that has none yet, else waits for the next one. A report
    repeating the previous totals, or with no response before the next input, is dropped."""

    def __init__(self, plan: _Plan) -> None:
        self.plan, self.first, self.pending, self.last_total = plan, None, None, None

    def output(self, line: int) -> None:
        if self.first is None:
            self.first = line
            if self.pending is not None:
                self._keep(line, *self.pending)

    def boundary(self) -> None:
        self.first = None
        if self.pending is not None:
            self.plan.usage_fate[self.pending[0]], self.pending = SKIP_USAGE_LOST, None

    def report(self, line: int, rec: dict) -> None:
        info = rec["payload"].get("info")
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        if not info:
            self.plan.usage_fate[line] = SKIP_USAGE_NONE
        elif total is not None and total == self.last_total:
            self.plan.usage_fate[line] = SKIP_USAGE_REPEAT
        elif self.first is not None and self.first not in self.plan.usage:
            self._keep(self.first, line, rec)
            self.first, self.last_total = None, total
        else:
            self.boundary()
            self.pending, self.last_total = (line, rec), total

    def _keep(self, target: int, line: int, rec: dict) -> None:
        self.plan.usage[target], self.plan.usage_fate[line], self.pending = rec, SKIP_USAGE, None


def _scan(path: Path) -> _Plan:
    """The first pass: session id, usage placement, and the user-role items to mirror."""
    plan = _Plan("")
    usage = _Usage(plan)
    mirrors: Counter = Counter()
    users: list[tuple[int, list[str]]] = []
    for line, rec, _ in _lines(path):
        kind, p = _split(rec) if rec is not None else ("", {})
        etype = p.get("type") if kind in ("response_item", "event_msg") else kind
        if kind == "session_meta" and not plan.session_id and isinstance(p.get("id"), str):
            plan.session_id = p["id"]
        elif kind == "event_msg" and etype == "user_message":
            mirrors[_key(p.get("message"))] += 1
        elif kind == "event_msg" and etype == "token_count":
            usage.report(line, rec)
        elif etype in _OUTPUT or (etype == "message" and p.get("role") == "assistant"):
            usage.output(line)
        elif kind in ("response_item", "compacted") and etype not in ("reasoning",
                                                                       "ghost_snapshot"):
            usage.boundary()
            if etype == "message" and p.get("role") == "user":
                users.append((line, _texts(p.get("content"))))
    usage.boundary()
    plan.session_id = plan.session_id or _session_from_name(path)
    plan.prompts = _prompts(users, mirrors)
    return plan


def _prompts(users: list[tuple[int, list[str]]], mirrors: Counter) -> set[int]:
    """Lines of the user-role items that are human prompts: each mirror stands for one item
    whose text (or one of its text parts) it repeats; with no mirrors, the items that do not
    open with a harness tag."""
    mirrored = mirrors.total() > 0
    prompts = set()
    for line, texts in users:
        keys = [_key("".join(texts))] + [_key(t) for t in texts]
        hit = next((k for k in keys if mirrors[k] > 0), None)
        if hit is not None:
            mirrors[hit] -= 1
            prompts.add(line)
        elif not mirrored and not "".join(texts).lstrip().startswith(INJECTED):
            prompts.add(line)
    return prompts


def _event(kind: str, p: dict, line: int, plan: _Plan) -> dict | str:
    """The canonical fields of one record's event, or why the record gives none."""
    if kind == "session_meta":
        instructions = p.get("base_instructions", p.get("instructions"))
        if isinstance(instructions, dict):
            instructions = instructions.get("text")
        return {"kind": "SYSTEM", "synthetic": True, "text": _str(instructions)}
    if kind == "compacted":
        return {"kind": "SUMMARY", "synthetic": True, "text": _replacement_text(p)}
    if kind == "event_msg":
        return _event_msg(p, line, plan)
    if kind == "response_item":
        return _item(p, line, plan)
    return {"turn_context": SKIP_CONFIG, "state": SKIP_STATE}.get(kind, SKIP_UNKNOWN)


def _event_msg(p: dict, line: int, plan: _Plan) -> dict | str:
    """A SYSTEM marker for an abort, a compaction notice or an error; else why it is skipped."""
    etype = p.get("type")
    if etype == "token_count":
        return plan.usage_fate.get(line, SKIP_USAGE_LOST)
    if etype in _MIRRORS:
        return SKIP_MIRROR
    if etype not in _MARKERS:
        return SKIP_PROGRESS
    detail = p.get("reason") if etype == "turn_aborted" else p.get("message")
    text = etype.replace("_", " ") + (f": {detail}" if isinstance(detail, str) and detail else "")
    return {"kind": "SYSTEM", "synthetic": True, "text": text}


def _item(p: dict, line: int, plan: _Plan) -> dict | str:
    """The event of a ``response_item`` (reasoning is handled by the caller)."""
    itype = p.get("type")
    if itype == "ghost_snapshot":
        return SKIP_SNAPSHOT
    event: dict = {"event_id": _str(p.get("id"))}
    if itype == "message":
        role, text = p.get("role"), "\n".join(_texts(p.get("content")))
        if role == "assistant":
            event.update(kind="ASSISTANT", text=text)
        elif role == "user":   # a prompt, or context the harness injected
            prompt = line in plan.prompts
            event.update(kind="USER" if prompt else "SYSTEM", text=text, synthetic=not prompt or None)
        else:
            event.update(kind="SYSTEM" if role in ("developer", "system") else "OTHER", text=text)
    elif itype in _CALLS:
        event.update(kind="CALL", call_id=_str(p.get("call_id")), tool=_str(p.get("name")),
                     text=_str(p.get(_CALLS[itype])))
    elif itype in ("local_shell_call", "web_search_call"):   # a web search has no id
        call_id = _str(p.get("call_id")) if itype == "local_shell_call" else None
        event.update(kind="CALL", call_id=call_id, tool=itype.removesuffix("_call"),
                     text=_json(p.get("action")))
    elif itype in _RESULTS:
        text, is_error = _output(p.get("output"))
        event.update(kind="RESULT", call_id=_str(p.get("call_id")), text=text, is_error=is_error)
    elif itype == "compaction":   # encrypted: no readable text
        event.update(kind="SUMMARY", synthetic=True)
    else:
        event.update(kind="OTHER", text=_json(p))
    return event


def _replacement_text(p: dict) -> str | None:
    """The summary message, then the messages of the replacement history, one per paragraph
    (``role: text``); encrypted items have no readable text."""
    parts = [p["message"]] if _str(p.get("message")) else []
    for item in p.get("replacement_history") or []:
        if isinstance(item, dict) and item.get("type") == "message":
            parts.append(f"{item.get('role')}: " + "\n".join(_texts(item.get("content"))))
    return "\n\n".join(parts) or None


def _output(out) -> tuple[str | None, bool | None]:
    """A tool output's text and error flag: an exit code says it (0.40 JSON metadata, or a
    ``Process exited with code N`` header); ``success`` where given; else unknown."""
    if isinstance(out, dict):
        success = out.get("success")
        return ("\n".join(_texts(out.get("content"))) or None,
                (not success) if isinstance(success, bool) else None)
    if isinstance(out, list):
        return "\n".join(_texts(out)), None
    if not isinstance(out, str):
        return _json(out), None
    code = None
    if out.startswith("{"):
        try:
            meta = json.loads(out).get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
        except (ValueError, AttributeError):
            pass
    else:
        header = out.split("\nOutput:", 1)[0] if "\nOutput:" in out else ""
        found = _EXIT.search(header)
        code = int(found.group(1)) if found else None
    return out, (code != 0) if isinstance(code, int) and not isinstance(code, bool) else None


def _lines(path: Path) -> Iterator[tuple[int, dict | None, str]]:
    """(line number, record, line text) per non-blank line; the record is None when the
    line is not a JSON object."""
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(path, "rt", encoding="utf-8-sig", errors="replace") as fh:
        for number, text in enumerate(fh, 1):
            if text.strip():
                try:
                    rec = json.loads(text)
                except ValueError:
                    rec = None
                yield number, rec if isinstance(rec, dict) else None, text.rstrip("\n")


def _split(rec: dict) -> tuple[str, dict]:
    """The record's envelope type and payload; an old un-enveloped line is its own payload."""
    if _envelope(rec):
        return rec["type"], rec["payload"]
    if rec.get("record_type") == "state":
        return "state", rec
    if rec.get("type") in ITEMS:
        return "response_item", rec
    if {"id", "timestamp"} <= rec.keys() and "type" not in rec:
        return "session_meta", rec
    return "unknown", rec


def _envelope(rec: dict) -> bool:
    return rec.get("type") in ENVELOPES and isinstance(rec.get("payload"), dict)


def _texts(content) -> list[str]:
    """The text parts of a message's content (a string or a list of typed parts)."""
    if isinstance(content, str):
        return [content]
    return [part["text"] for part in content or []
            if isinstance(part, dict) and isinstance(part.get("text"), str)]


def _key(text) -> str:
    """A prompt's text as its mirror writes it (sanitized files keep only length and hash)."""
    return _REDACTED.sub(r"\1", text) if isinstance(text, str) else ""


def _session_from_name(path: Path) -> str:
    found = _UUID.findall(path.name)
    return found[-1] if found else path.stem


def _str(value) -> str | None:
    return value if isinstance(value, str) and value != "" else None


def _json(value) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)
