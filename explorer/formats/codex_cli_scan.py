"""The first pass of the Codex CLI reader (:mod:`explorer.formats.codex_cli`): the lines as
records, the session id, which user-role items are human prompts, which event keeps each
reported usage (``token_count``), and the exit code of each unified-exec command.

Unified exec (``exec_command`` / ``write_stdin``): a command still running when its call
returns answers ``Process running with session ID N``; later ``write_stdin`` calls on session
``N`` poll it, and the poll during which it ends says ``Process exited with code C``. That code
is the ``exec_command``'s, not the poll's; so is the ``exit_code`` of the ``exec_command_end``
event that names the command's ``call_id``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from explorer.formats import fast_json, limits
from explorer.formats.lines import lines as text_lines
from explorer.formats.lines import placed_json_lines
from explorer.formats.typed import WrongType, items, opt_text

ENVELOPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
ITEMS = frozenset({"message", "reasoning", "function_call", "function_call_output",
                   "custom_tool_call", "custom_tool_call_output", "local_shell_call",
                   "web_search_call", "compaction", "ghost_snapshot"})
_OUTPUT = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<INSTRUCTIONS>")
_REDACTED = re.compile(r"\[REDACTED_[A-Z_]+ (len=\d+ sha=[0-9a-f]+)\]")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SKIP_USAGE = "token_count (kept in raw of its response's first event)"
SKIP_USAGE_REPEAT = "token_count repeating the previous totals"
SKIP_USAGE_NONE = "token_count without usage"
SKIP_USAGE_LOST = "token_count with no response to keep it on"




@dataclass
class Plan:
    """What a first pass over the file knows: the session id, the lines of the human
    prompts, the token_count record kept on each line, and why each token_count is skipped."""

    session_id: str
    prompts: set[int] = field(default_factory=set)
    usage: dict[int, dict] = field(default_factory=dict)
    usage_fate: dict[int, str] = field(default_factory=dict)
    #: call id -> tool name; exec_command call id -> its exit code (unified exec)
    tools: dict[str, str] = field(default_factory=dict)
    exit_codes: dict[str, int] = field(default_factory=dict)
    #: unified exec: process (session) id -> the exec_command call that started it;
    #: write_stdin call id -> the process it polls
    processes: dict[str, str] = field(default_factory=dict)
    polls: dict[str, str] = field(default_factory=dict)


EXEC, POLL = "exec_command", "write_stdin"
_RUNNING = re.compile(r"^Process running with session ID (\d+)\s*$", re.MULTILINE)
_RUNNING_TEXT = "Process running with session ID "   # what any match of _RUNNING holds
EXITED = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)\s*$", re.MULTILINE)


def header_exit(out) -> int | None:
    """The exit code in a plain-text tool output's header (before ``Output:``), if any."""
    if not isinstance(out, str) or "\nOutput:" not in out:
        return None
    found = EXITED.search(out.split("\nOutput:", 1)[0])
    return int(found.group(1)) if found else None


def _note_exec(p: dict, etype: str, plan: Plan) -> None:
    """What unified exec's records say about which command exited how."""
    call_id = p.get("call_id")
    if not isinstance(call_id, str):
        return
    if etype == "function_call" and isinstance(p.get("name"), str):
        plan.tools[call_id] = p["name"]
        if p["name"] == POLL and isinstance(p.get("arguments"), str):
            try:
                args = json.loads(p["arguments"])
            except ValueError:
                return
            if isinstance(args, dict) and isinstance(args.get("session_id"), (int, str)):
                plan.polls[call_id] = str(args["session_id"])
    elif etype == "function_call_output" and isinstance(p.get("output"), str):
        tool, out = plan.tools.get(call_id), p["output"]
        if tool == EXEC:   # the output of another tool is not searched (37 MB of bench_import's)
            header = out.split("\nOutput:", 1)[0]
            running = _RUNNING.search(header) if _RUNNING_TEXT in header else None
            if running:
                plan.processes[running.group(1)] = call_id
        elif tool == POLL and call_id in plan.polls:
            command = plan.processes.get(plan.polls[call_id])
            code = header_exit(out)
            if command is not None and code is not None:
                plan.exit_codes.setdefault(command, code)
    elif etype == "exec_command_end" and isinstance(p.get("exit_code"), int) \
            and not isinstance(p.get("exit_code"), bool):
        plan.exit_codes[call_id] = p["exit_code"]


class Usage:
    """Which event keeps each token_count. A response is the run of output items between
    input items; its usage is written after it (0.104) or just before it (0.40), so a report
    goes to the open response when that has none yet, else waits for the next one. A report
    repeating the previous totals, or with no response before the next input, is dropped."""

    def __init__(self, plan: Plan) -> None:
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


def scan(path: Path) -> Plan:
    """The first pass: session id, usage placement, and the user-role items to mirror."""
    if not fast_json.REFERENCE and limits.current().max_json_depth >= fast_json.ORJSON_DEPTH:
        try:
            return _scan(path, _noted_fast(path))
        except _NotFast:
            pass   # a line the fast path does not take: the file is read the reference way
    return _scan(path, ((line, rec) for line, rec, *_ in lines(path)))


def _scan(path: Path, noted: Iterable[tuple[int, dict | None]]) -> Plan:
    plan = Plan("")
    usage = Usage(plan)
    mirrors: Counter = Counter()
    users: list[tuple[int, list[str]]] = []
    for line, rec in noted:
        try:
            _note(line, rec, plan, usage, mirrors, users)
        except WrongType:
            continue   # a value of the wrong type: the second pass rejects the record
    usage.boundary()
    plan.session_id = plan.session_id or session_from_name(path)
    plan.prompts = prompts(users, mirrors)
    return plan


def _note(line: int, rec: dict | None, plan: Plan, usage: Usage, mirrors: Counter,
          users: list[tuple[int, list[str]]]) -> None:
    """What the first pass learns from one record."""
    kind, p = split(rec) if rec is not None else ("", {})
    etype = kind
    if kind in ("response_item", "event_msg"):
        etype = opt_text(p.get("type"), "payload.type")
    if etype in ("function_call", "function_call_output", "exec_command_end"):
        _note_exec(p, etype, plan)
    if kind == "session_meta" and not plan.session_id and isinstance(p.get("id"), str):
        plan.session_id = p["id"]
    elif kind == "event_msg" and etype == "user_message":
        mirrors[key(p.get("message"))] += 1
    elif kind == "event_msg" and etype == "token_count":
        usage.report(line, rec)
    elif etype in _OUTPUT or (etype == "message" and p.get("role") == "assistant"):
        usage.output(line)
    elif kind in ("response_item", "compacted") and etype not in ("reasoning",
                                                                   "ghost_snapshot"):
        usage.boundary()
        if etype == "message" and p.get("role") == "user":
            users.append((line, texts(p.get("content"))))


#: event_msg types the first pass learns from (:func:`_note`); the others it passes over.
_NOTED_MSGS = frozenset({"user_message", "token_count", "exec_command_end", "function_call",
                         "function_call_output", "message"}) | _OUTPUT


def _inert(rec: dict) -> bool:
    """Whether :func:`_note` learns nothing from the record (a reasoning item, a snapshot,
    the configuration, an event_msg mirror or progress): what it does with None."""
    kind, p = rec.get("type"), rec.get("payload")
    if type(p) is not dict or type(kind) is not str or kind not in ENVELOPES:
        return False
    etype = p.get("type")
    return (kind == "turn_context"
            or (kind == "response_item" and etype in ("reasoning", "ghost_snapshot"))
            or (kind == "event_msg" and type(etype) is str and etype not in _NOTED_MSGS))


class _NotFast(Exception):
    """A line :func:`_noted_fast` does not take."""


def _noted_fast(path: Path) -> Iterator[tuple[int, dict]]:
    """The records the first pass learns from, as :func:`lines` gives them, without its
    work on every line: a line holding one inert record (:func:`_inert`) is passed over
    (whatever :func:`lines` would make of it, the first pass learns nothing from it); any
    other is taken as orjson reads it when orjson writes it back byte for byte (what
    explorer.formats.lines takes first). Any other line (not compact JSON, unreadable,
    glued records) raises :class:`_NotFast`. The caller checks the depth limit."""
    loads, dumps = orjson.loads, orjson.dumps
    for line in text_lines(path, checked=False):
        if line.error is not None:
            raise _NotFast
        try:
            rec = loads(line.data)
        except (orjson.JSONDecodeError, TypeError):
            raise _NotFast from None
        if type(rec) is not dict:
            raise _NotFast
        if _inert(rec):
            continue
        try:
            same = dumps(rec) == line.data
        except TypeError:
            raise _NotFast from None
        if not same:
            raise _NotFast
        yield line.number, rec


def prompts(users: list[tuple[int, list[str]]], mirrors: Counter) -> set[int]:
    """Lines of the user-role items that are human prompts: each mirror stands for one item
    whose text (or one of its text parts) it repeats; with no mirrors, the items that do not
    open with a harness tag."""
    mirrored = mirrors.total() > 0
    prompts = set()
    for line, texts in users:
        keys = [key("".join(texts))] + [key(t) for t in texts]
        hit = next((k for k in keys if mirrors[k] > 0), None)
        if hit is not None:
            mirrors[hit] -= 1
            prompts.add(line)
        elif not mirrored and not "".join(texts).lstrip().startswith(INJECTED):
            prompts.add(line)
    return prompts


def lines(path: Path) -> Iterator[tuple[int, dict | None, str, str | None, int]]:
    """(line number, record, its text, why it cannot be read, glued) per JSON record of
    the file (explorer.formats.lines: invalid UTF-8, a torn tail, records glued onto one
    line); the record is None when it is not a JSON object. ``glued`` counts the records
    before it on its line (0 for the first)."""
    for line, value, glued in placed_json_lines(path):
        rec = value.value if value.error is None else None
        yield line.number, rec if isinstance(rec, dict) else None, value.text, value.error, glued


def split(rec: dict) -> tuple[str, dict]:
    """The record's envelope type and payload; an old un-enveloped line is its own payload."""
    if envelope(rec):
        return rec["type"], rec["payload"]
    if rec.get("record_type") == "state":
        return "state", rec
    if opt_text(rec.get("type"), "type") in ITEMS:
        return "response_item", rec
    if {"id", "timestamp"} <= rec.keys() and "type" not in rec:
        return "session_meta", rec
    return "unknown", rec


def envelope(rec: dict) -> bool:
    kind = rec.get("type")
    return isinstance(kind, str) and kind in ENVELOPES and isinstance(rec.get("payload"), dict)


def texts(content, path: str = "payload.content") -> list[str]:
    """The text parts of a message's content (a string or a list of typed parts)."""
    if isinstance(content, str):
        return [content]
    return [part["text"] for part in items(content or None, path)
            if isinstance(part, dict) and isinstance(part.get("text"), str)]


def key(text) -> str:
    """A prompt's text as its mirror writes it (sanitized files keep only length and hash)."""
    return _REDACTED.sub(r"\1", text) if isinstance(text, str) else ""


def session_from_name(path: Path) -> str:
    found = _UUID.findall(path.name)
    return found[-1] if found else path.stem
