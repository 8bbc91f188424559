"""Claude Code transcripts: a first pass over the file that gathers what no single line says.

Claude Code writes an API message one content block per line, all lines sharing
``message.id`` and repeating ``message.usage`` (the last line holds the final output count),
and thinking blocks can sit on a line after the message's first text (LOG-FORMATS.md §2).
The pass also collects the links between ``Task`` calls and the sub-agents they started.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from explorer.formats.claude_code_blocks import THINKING
from explorer.formats.lines import lines as safe_lines


@dataclass
class MessageInfo:
    """Where one API message's blocks are: per line, the blocks before it (for ``sub``);
    ``first`` = (line, block index) of its first block that gives an event; the usage of its
    last line; its thinking blocks, in order."""

    starts: dict[int, int] = field(default_factory=dict)
    blocks: int = 0
    first: tuple[int, int] | None = None
    usage: dict | None = None
    thinking: list[dict] = field(default_factory=list)
    thinking_lines: set[int] = field(default_factory=set)

    def offset(self, line: int) -> int:
        return self.starts.get(line, 0)

    def thinking_elsewhere(self, content) -> bool:
        """Whether some thinking of the message is not in ``content`` (another line's)."""
        here = sum(1 for b in content or () if isinstance(b, dict) and b.get("type") in THINKING)
        return len(self.thinking) > here


@dataclass
class Scan:
    """What the first pass found: messages by ``message.id``; sub-agent ids by Task call id."""

    messages: dict[str, MessageInfo] = field(default_factory=dict)
    agents: dict[str, str] = field(default_factory=dict)


def lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(line number from 1, bytes) of the file's readable lines, gzip or plain (the second
    pass reports the others: explorer.formats.lines)."""
    yield from ((line.number, line.data) for line in safe_lines(path) if not line.error)


def scan(path: Path) -> Scan:
    """The first pass: unreadable lines are left to the second one, which reports them."""
    found = Scan()
    for line, data in lines(path):
        if b'"assistant"' not in data and b"agentId" not in data:
            continue
        try:
            record = json.loads(data)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        _note_agent(found.agents, record)
        message = record.get("message")
        if record.get("type") != "assistant" or not isinstance(message, dict):
            continue
        content = message.get("content")
        if not isinstance(content, list) or not isinstance(message.get("id"), str):
            continue   # a wrong-typed id or content is the second pass's to reject
        info = found.messages.setdefault(message["id"], MessageInfo())
        info.starts[line] = info.blocks
        for index, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") in THINKING:
                info.thinking.append(block)
                info.thinking_lines.add(line)
            elif info.first is None:
                info.first = (line, index)
        info.blocks += len(content)
        if message.get("usage") is not None:
            info.usage = message["usage"]
    return found


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


def parent_call(path: Path, session: str, agent: str) -> str | None:
    """The parent's Task call id that started sub-agent ``agent``, when the parent file is
    where Claude Code puts it: ``<project>/<session>.jsonl`` beside ``<session>/subagents/``
    (2.1.x) or beside the agent file (2.0.x)."""
    candidates = [path.parent / f"{session}.jsonl"]
    if path.parent.name == "subagents":
        candidates.insert(0, path.parent.parent.parent / f"{session}.jsonl")
    needle = agent.encode()
    for parent in candidates:
        if not parent.is_file():
            continue
        agents: dict[str, str] = {}
        for _, data in lines(parent):
            if needle in data:
                try:
                    record = json.loads(data)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    _note_agent(agents, record)
        for call_id, found in agents.items():
            if found == agent:
                return call_id
    return None
