"""Issue 15: no content silently dropped, for the readers whose own test module does not hold
the check (anthropic_messages and openai_chat cassettes: test_recorded_bodies.py; OpenAI
Responses: test_format_openai_responses.py; OpenHands V1: test_format_openhands_v1.py).

Every text, thinking, tool input, tool output and reported usage figure of each real corpus
file, read from the raw file by this module's own code (one extractor per format, written
from the format's documentation, not from the reader), appears somewhere in the imported
events: in an event's text, or among the strings and numbers of an event's raw.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS


def leaves(value) -> list[str]:
    """Every string and number inside a JSON value, as text."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in leaves(v)]
    if isinstance(value, list):
        return [s for v in value for s in leaves(v)]
    if isinstance(value, bool) or value is None:
        return []
    return [str(value)]


def figures(usage) -> list[str]:
    """The token counts of a usage object (its integer values, nested ones too)."""
    if isinstance(usage, dict):
        return [f for v in usage.values() for f in figures(v)]
    return [str(usage)] if isinstance(usage, int) and not isinstance(usage, bool) else []


def _json_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _blocks_text(content) -> list[str]:
    """The texts of a content that is a string or a list of typed blocks."""
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content or [] if isinstance(b, dict)
            and isinstance(b.get("text"), str)]


def claude_code(path: Path) -> tuple[list[str], list[str]]:
    """Messages' text, thinking, tool_use input, tool_result content; message usage."""
    texts, usage = [], []
    for record in _json_lines(path):
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        texts += [content] if isinstance(content, str) else []
        for block in content if isinstance(content, list) else []:
            kind = block.get("type")
            if kind == "text":
                texts.append(block["text"])
            elif kind == "thinking":
                texts.append(block["thinking"])
            elif kind == "tool_use":
                texts += leaves(block.get("input"))
            elif kind == "tool_result":
                texts += _blocks_text(block.get("content"))
        usage += figures(message.get("usage"))
    return texts, usage


def codex_cli(path: Path) -> tuple[list[str], list[str]]:
    """Response items: messages, reasoning summaries, calls' arguments and input, outputs;
    the token counts of token_count events."""
    texts, usage = [], []
    for record in _json_lines(path):
        payload = record.get("payload") or {}
        if record.get("type") == "event_msg" and payload.get("type") == "token_count":
            usage += figures((payload.get("info") or {}).get("total_token_usage"))
        if record.get("type") != "response_item":
            continue
        kind = payload.get("type")
        if kind == "message":
            texts += _blocks_text(payload.get("content"))
        elif kind == "reasoning":
            texts += _blocks_text(payload.get("summary"))
        elif kind in ("function_call", "custom_tool_call"):
            texts.append(payload.get("arguments", payload.get("input")))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            texts.append(payload["output"])
    return texts, usage


def gemini_cli(path: Path) -> tuple[list[str], list[str]]:
    """Messages' content and thoughts, tool calls' args and results; message tokens."""
    texts, usage = [], []
    for message in json.loads(path.read_text(encoding="utf-8"))["messages"]:
        texts += _blocks_text(message.get("content"))
        texts += [t["description"] for t in message.get("thoughts") or []]
        for call in message.get("toolCalls") or []:
            texts += leaves(call.get("args"))
            texts += leaves([r.get("functionResponse", {}).get("response")
                             for r in call.get("result") or []])
        usage += figures(message.get("tokens"))
    return texts, usage


def swe_agent(path: Path) -> tuple[list[str], list[str]]:
    """The history's messages (the conversation), and the thought, action and observation
    of each trajectory step whose action no history entry took (the trajectory repeats the
    history's steps, LOG-FORMATS.md §6, sometimes with an earlier draft of the thought;
    the final submit step is in the trajectory only)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    texts, actions = [], set()
    for message in doc.get("history") or []:
        texts += _blocks_text(message.get("content"))
        actions.add((message.get("action") or "").strip())
    for step in doc.get("trajectory") or []:
        if step["action"].strip() not in actions:
            texts += [step[k] for k in ("thought", "action", "observation") if step.get(k)]
    return texts, []


def openhands(path: Path) -> tuple[list[str], list[str]]:
    """V0 events: messages, thoughts, observations' content, the model's call arguments;
    the usage of the model responses."""
    texts, usage = [], []
    for item in json.loads(path.read_text(encoding="utf-8")):
        args = item.get("args") or {}
        texts += [v for v in (args.get("content"), args.get("thought"), item.get("content"))
                  if isinstance(v, str)]
        response = (item.get("tool_call_metadata") or {}).get("model_response") or {}
        for choice in response.get("choices") or []:
            for call in (choice.get("message") or {}).get("tool_calls") or []:
                texts.append(call["function"]["arguments"])
        usage += figures(response.get("usage"))
    return texts, usage


def inspect_ai(path: Path) -> tuple[list[str], list[str]]:
    """Samples' messages (text, reasoning, tool calls' arguments, tool output); model usage."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    texts, usage = [], []
    for sample in doc["samples"]:
        for message in sample["messages"]:
            content = message.get("content")
            texts += _blocks_text(content)
            texts += [b["reasoning"] for b in content if isinstance(content, list)
                      and b.get("type") == "reasoning" and b.get("reasoning")]
            for call in message.get("tool_calls") or []:
                texts += leaves(call.get("arguments"))
        usage += figures(sample.get("model_usage"))
    return texts, usage


def openai_chat_trajectories(path: Path) -> tuple[list[str], list[str]]:
    """tau-bench trajectories: each message's content and its tool calls' arguments."""
    texts = []
    for task in json.loads(path.read_text(encoding="utf-8")):
        for message in task["traj"]:
            texts += _blocks_text(message.get("content"))
            texts += [c["function"]["arguments"] for c in message.get("tool_calls") or []]
    return texts, []


def langfuse(path: Path) -> tuple[list[str], list[str]]:
    """Each generation's output text (messages' text inside its JSON-encoded output) and
    its usage figures."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    texts, usage = [], []
    for obs in doc["observations"]:
        if obs.get("type") != "GENERATION":
            continue
        usage += figures(obs.get("usageDetails"))
        output = obs.get("output")
        while isinstance(output, str):
            try:
                output = json.loads(output)
            except ValueError:
                texts.append(output)
                break
        texts += _texts_in(output)
    return texts, usage


def _texts_in(value) -> list[str]:
    """The ``text``, ``content`` and ``arguments`` strings inside a JSON value."""
    if isinstance(value, dict):
        return [v for k, v in value.items() if k in ("text", "content", "arguments")
                and isinstance(v, str)] + [t for v in value.values() for t in _texts_in(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts_in(v)]
    return []


def _files(folder: str, pattern: str = "*") -> list[Path]:
    return sorted((CORPUS / folder).glob(pattern))


CASES = [(p, claude_code) for p in _files("claude-code")] + \
    [(p, codex_cli) for p in _files("codex-cli")] + \
    [(p, gemini_cli) for p in _files("gemini-cli")] + \
    [(p, swe_agent) for p in _files("swe-agent")] + \
    [(p, openhands) for p in _files("openhands")] + \
    [(p, inspect_ai) for p in _files("inspect-ai")] + \
    [(p, openai_chat_trajectories) for p in _files("openai-chat-completions", "*.json")] + \
    [(p, langfuse) for p in _files("langfuse")]


@pytest.mark.parametrize(("path", "extract"), CASES, ids=lambda c: getattr(c, "name", "")[:40])
def test_no_content_is_silently_dropped(store, path, extract):
    report = import_paths(store, [str(path)])
    assert not report.errors
    file = report.files[0]
    assert file.records == file.imported + file.skipped + file.rejected + file.duplicates
    rows = store.con.execute(
        "SELECT d.text, CAST(d.raw AS VARCHAR) FROM event_details d").fetchall()
    found = {t for t, _ in rows if t} | {s for _, raw in rows if raw
                                         for s in leaves(json.loads(raw))}
    joined = "\n".join(found)
    texts, usage = extract(path)
    assert texts, "the extractor found no content: it does not read this file"
    missing = [p for p in dict.fromkeys(t for t in texts if t and t.strip())
               if p not in found and p not in joined]
    assert missing == []
    assert set(usage) - found == set()
