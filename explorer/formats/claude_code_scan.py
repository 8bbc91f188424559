"""Claude Code transcripts: a first pass over the file that gathers what no single line says.

Claude Code writes an API message one content block per line, all lines sharing
``message.id`` and repeating ``message.usage`` (the last line holds the final output count)
(LOG-FORMATS.md §2).
The pass also collects the links between ``Task`` calls and the sub-agents they started:
by ``agentId`` (2.x), and for the inline sidechains of 1.0.x (``isSidechain`` without an
``agentId``) the root of each sidechain (its first record: one session per root), matched to
the ``Task`` call whose ``input.prompt`` is the root's prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from explorer.formats import fast_json, inflate, limits
from explorer.formats.lines import BOM, Span, blocks, is_gzip, line_error
from explorer.formats.lines import lines as safe_lines

#: A line of an inline sidechain (the first pass reads it; every 2.x line says ``false``).
_SIDECHAIN = re.compile(rb'"isSidechain"\s*:\s*true')


@dataclass
class MessageInfo:
    """Where one API message's blocks are: per line, the blocks before it (for ``sub``);
    ``first`` = (line, block index) of its first block (every block gives an event: thinking
    too); the usage of its last line."""

    starts: dict[int, int] = field(default_factory=dict)
    blocks: int = 0
    first: tuple[int, int] | None = None
    usage: dict | None = None

    def offset(self, line: int) -> int:
        return self.starts.get(line, 0)


@dataclass
class Scan:
    """What the first pass found: messages by ``message.id``; sub-agent ids by Task call id
    (an inline sidechain's id is its root record's ``uuid``); per inline sidechain record
    (``uuid``) the root it descends from; per root the Task call that started it."""

    messages: dict[str, MessageInfo] = field(default_factory=dict)
    agents: dict[str, str] = field(default_factory=dict)
    roots: dict[str, str] = field(default_factory=dict)
    root_calls: dict[str, str] = field(default_factory=dict)
    #: Task prompt -> its call ids not matched to a root yet, in file order
    prompts: dict[str, list[str]] = field(default_factory=dict)
    #: inline sidechain root not matched to a Task call yet -> its prompt
    root_prompts: dict[str, str] = field(default_factory=dict)
    #: What the last pass over a span added (:func:`scan` with ``found``): the messages
    #: with lines in it, the Task calls whose sub-agent it named, the roots it matched.
    touched: set[str] = field(default_factory=set)
    new_agents: set[str] = field(default_factory=set)
    new_roots: set[str] = field(default_factory=set)


def _inline_sidechain(record: dict) -> bool:
    return bool(record.get("isSidechain")) and not record.get("agentId")


def lines(path: Path, span: Span | None = None, wanted=None) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, bytes) of the file's readable lines (of its ``span``), gzip or
    plain (the second pass reports the others: explorer.formats.lines); ``wanted``: only
    those it takes."""
    yield from ((line.number, line.data) for line in safe_lines(path, span, wanted)
                if not line.error)


def _worth_reading(data: bytes) -> bool:
    """Whether a line can tell the first pass anything (a progress line cannot)."""
    return (b'"assistant"' in data or b"agentId" in data
            or _SIDECHAIN.search(data) is not None)   # every 2.x line says isSidechain: false


#: What :func:`_worth_reading` looks for, searched in a block of lines at once (no white
#: space of the pattern can be a line end: a hit is within one line). One search per
#: needle: a regular expression of the three would try each byte of the block in turn.
_NEEDLES = (b'"assistant"', b"agentId")
_SIDECHAIN_LINE = re.compile(rb'"isSidechain"[ \t\r\f\v]*:[ \t\r\f\v]*true')


def _hits(data: bytes) -> list[int]:
    """Where in ``data`` any of :func:`_worth_reading`'s needles starts, in order."""
    found = [m.start() for m in _SIDECHAIN_LINE.finditer(data)]
    for needle in _NEEDLES:
        at = data.find(needle)
        while at >= 0:
            found.append(at)
            at = data.find(needle, at + 1)
    return sorted(found)


def worth_records(path: Path, span: Span | None = None) -> Iterator[tuple[int, object]]:
    """(line number, JSON value) of the lines of the file (of its ``span``) that
    :func:`_worth_reading` takes and that are readable JSON: ``fast_json.loads`` of each
    line of ``lines(path, span, _worth_reading)``, the others passed over.

    Found faster: each block of lines is searched for what :func:`_worth_reading` looks for
    instead of asking it line by line, and only the lines with a hit are split out; a line
    orjson reads and writes back is UTF-8 and nests no deeper than the depth limit, so it is
    not checked again (explorer.formats.lines.json_lines takes it the same way)."""
    if fast_json.REFERENCE or limits.current().max_json_depth < fast_json.ORJSON_DEPTH:
        for line, data in lines(path, span, _worth_reading):
            try:
                yield line, fast_json.loads(data)
            except ValueError:
                continue
        return
    gz = is_gzip(path)
    for block in blocks(path, span=span):
        if block.long:
            continue
        data = block.data.removeprefix(BOM) if block.offset == 0 else block.data
        offset = block.offset + len(block.data) - len(data)
        number, counted, end = block.first_line, 0, -1
        for hit in _hits(data):
            if hit < end:
                continue   # on the line taken already
            start = data.rfind(b"\n", 0, hit) + 1
            end = data.find(b"\n", hit)
            if end < 0:   # the block's last line, with no line end after it
                end = len(data)
            number += data.count(b"\n", counted, start)
            counted = start
            body = data[start:end].removesuffix(b"\r")
            value = fast_json.compact_object(body)
            if value is None:
                if line_error(body, offset + start, gz) is not None:
                    continue
                try:
                    value = json.loads(body, parse_constant=fast_json.note_constant)
                except ValueError:
                    continue
            yield number, value


def scan(path: Path, span: Span | None = None, found: Scan | None = None) -> Scan:
    """The first pass over the file, or its ``span``; with ``found`` (what a pass over the
    lines before the span found), that pass carried on over the span's lines, ``found``
    updated in place (a followed file: explorer.formats.claude_code). Unreadable lines are
    left to the second pass, which reports them."""
    found = Scan() if found is None else found
    found.touched, found.new_agents, found.new_roots = set(), set(), set()
    agents = set(found.agents)
    prompts, root_prompts = found.prompts, found.root_prompts
    for line, record in worth_records(path, span):
        if not isinstance(record, dict):
            continue
        _note_agent(found.agents, record)
        message = record.get("message")
        if _inline_sidechain(record) and isinstance(record.get("uuid"), str):
            _note_root(found, root_prompts, record)
        if record.get("type") != "assistant" or not isinstance(message, dict):
            continue
        content = message.get("content")
        if not isinstance(content, list):
            continue   # a wrong-typed content is the second pass's to reject
        _note_tasks(prompts, content, record)
        if not isinstance(message.get("id"), str):
            continue   # a wrong-typed id is the second pass's to reject
        info = found.messages.setdefault(message["id"], MessageInfo())
        found.touched.add(message["id"])
        info.starts[line] = info.blocks
        if content and info.first is None:
            info.first = (line, 0)
        info.blocks += len(content)
        if message.get("usage") is not None:
            info.usage = message["usage"]
    _match_roots(found, prompts, root_prompts)
    found.new_agents = set(found.agents) - agents
    return found


def _note_root(found: Scan, root_prompts: dict[str, str], record: dict) -> None:
    """An inline sidechain record: the root it descends from (itself when its parent is no
    sidechain record seen before); a root's prompt (its user text) for the Task match."""
    parent = record.get("parentUuid")
    root = found.roots.get(parent) if isinstance(parent, str) else None
    found.roots[record["uuid"]] = root or record["uuid"]
    if root is None and record.get("type") == "user":
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            content = "\n".join(b.get("text", "") for b in content
                                 if isinstance(b, dict) and b.get("type") == "text")
        if isinstance(content, str):
            root_prompts[record["uuid"]] = content


def _note_tasks(prompts: dict[str, list[str]], content: list, record: dict) -> None:
    """The main chain's Task calls, by prompt (a sidechain's own calls start none here)."""
    if record.get("isSidechain"):
        return
    for block in content:
        if (isinstance(block, dict) and block.get("type") == "tool_use"
                and block.get("name") == "Task" and isinstance(block.get("id"), str)
                and isinstance(block.get("input"), dict)
                and isinstance(block["input"].get("prompt"), str)):
            prompts.setdefault(block["input"]["prompt"], []).append(block["id"])


def _match_roots(found: Scan, prompts: dict[str, list[str]], root_prompts: dict[str, str]) -> None:
    """Each inline sidechain root to the first Task call not yet matched with its prompt
    (parallel Task calls with one prompt are matched in file order); a root left unmatched
    waits in ``root_prompts`` for a later line's call (a followed file)."""
    for root, prompt in list(root_prompts.items()):
        calls = prompts.get(prompt)
        if calls:
            call = calls.pop(0)
            found.root_calls[root] = call
            found.new_roots.add(root)
            found.agents.setdefault(call, root)
            del root_prompts[root]


def _note_agent(agents: dict[str, str], record: dict) -> None:
    """Task call id -> agent id, from ``agent_progress`` records and Task results."""
    data = record.get("data")
    if record.get("type") == "progress" and isinstance(data, dict) and data.get("agentId"):
        if isinstance(record.get("parentToolUseID"), str):
            agents.setdefault(record["parentToolUseID"], str(data["agentId"]))
        return
    result = record.get("toolUseResult")
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(result, dict) and result.get("agentId") and isinstance(content, list):
        for block in content:
            if (isinstance(block, dict) and block.get("type") == "tool_result"
                    and isinstance(block.get("tool_use_id"), str)):
                agents.setdefault(block["tool_use_id"], str(result["agentId"]))


#: At most this many files beside a sub-agent file are looked into for its parent.
MAX_PARENT_CANDIDATES = 500
_HEAD = 64 * 1024


def parent_call(path: Path, session: str, agent: str) -> str | None:
    """The parent's Task call id that started sub-agent ``agent`` of ``session``, from the
    parent's transcript: a file beside the sub-agent file (2.0.x ``agent-*.jsonl``) or in the
    project folder above ``<session>/subagents/`` (2.1.x) whose records carry ``sessionId``
    ``session`` and name ``agent`` (``agent_progress`` or the Task result's ``agentId``).
    Found by content, whatever the files are named (the usual name is tried first)."""
    folders = [path.parent]
    if path.parent.name == "subagents":
        folders.insert(0, path.parent.parent.parent)
    for parent in _candidates(folders, path, session):
        agents: dict[str, str] = {}
        needle = agent.encode()
        for _, data in lines(parent):
            if needle in data:
                try:
                    record = fast_json.loads(data)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("sessionId") == session:
                    _note_agent(agents, record)
        for call_id, found in agents.items():
            if found == agent:
                return call_id
    return None


def _candidates(folders: list[Path], child: Path, session: str) -> Iterator[Path]:
    """The transcripts in ``folders`` (not ``child``) whose head names ``session``, the one
    named after it first."""
    needle = session.encode()
    seen = 0
    for folder in folders:
        try:
            files = sorted(p for p in folder.iterdir()
                           if p.name.endswith((".jsonl", ".jsonl.gz")) and p != child)
        except OSError:
            continue
        files.sort(key=lambda p: not p.name.startswith(session))
        for candidate in files:
            seen += 1
            if seen > MAX_PARENT_CANDIDATES:
                return
            try:
                head = _head(candidate)
            except OSError:
                continue
            if needle in head:
                yield candidate


def _head(path: Path) -> bytes:
    """The first bytes of a file (inflated when gzip, by the one bounded inflater; a cut or
    damaged stream gives what came before)."""
    with open(path, "rb") as fh:
        if not path.name.endswith(".gz"):
            return fh.read(_HEAD)
        out = b""
        try:
            for piece in inflate.gunzip(fh, _HEAD):
                out += piece
                if len(out) >= _HEAD:
                    break
        except inflate.Cut:
            pass
        return out[:_HEAD]
