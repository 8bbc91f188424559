"""Issue 15, import speed: the Codex reader's first pass (explorer.formats.codex_cli_scan.scan)
passes over the lines it learns nothing from without checking them, and reads the others by
orjson alone (falling back to the reference reading of the whole file on any other line).
Its plan must be the reference pass's, field for field, on real rollouts and on rollouts
holding what the fast path must pass over or hand back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.formats import codex_cli_scan, fast_json
from tests.conftest import CORPUS

REAL = sorted((CORPUS / "codex-cli").glob("*.jsonl"))


def plans(path: Path, monkeypatch) -> tuple[codex_cli_scan.Plan, codex_cli_scan.Plan]:
    monkeypatch.setattr(fast_json, "REFERENCE", False)
    fast = codex_cli_scan.scan(path)
    monkeypatch.setattr(fast_json, "REFERENCE", True)
    reference = codex_cli_scan.scan(path)
    monkeypatch.setattr(fast_json, "REFERENCE", False)
    return fast, reference


def fast_taken(path: Path) -> bool:
    try:
        for _ in codex_cli_scan._noted_fast(path):
            pass
    except codex_cli_scan._NotFast:
        return False
    return True


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name[:40])
def test_real_rollouts_plan_the_same(path, monkeypatch):
    fast, reference = plans(path, monkeypatch)
    assert fast_taken(path)
    assert fast == reference
    assert reference.usage and reference.usage_fate and reference.tools


def _env(kind: str, payload: dict, ts: str = "2025-09-24T19:22:20.000Z") -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload},
                      separators=(",", ":"), ensure_ascii=False)


#: Lines of every kind the first pass learns from or passes over: a prompt and its mirror,
#: calls of unified exec with their outputs, usage reports (one repeating), a compaction.
BODY = [
    _env("session_meta", {"id": "11111111-2222-3333-4444-555555555555", "instructions": "x"}),
    _env("turn_context", {"cwd": "/w", "model": "m"}),
    _env("response_item", {"type": "message", "role": "user",
                           "content": [{"type": "input_text", "text": "do it"}]}),
    _env("event_msg", {"type": "user_message", "message": "do it"}),
    _env("response_item", {"type": "reasoning", "summary": [], "encrypted_content": "e"}),
    _env("response_item", {"type": "function_call", "name": "exec_command", "call_id": "c1",
                           "arguments": "{\"cmd\":\"make\"}"}),
    _env("response_item", {"type": "function_call_output", "call_id": "c1",
                           "output": "Process running with session ID 7\nOutput:\n"}),
    _env("event_msg", {"type": "token_count", "info": {"total_token_usage": {"n": 1}}}),
    _env("event_msg", {"type": "agent_reasoning", "text": "thinking"}),
    _env("response_item", {"type": "function_call", "name": "write_stdin", "call_id": "c2",
                           "arguments": "{\"session_id\":7}"}),
    _env("event_msg", {"type": "token_count", "info": {"total_token_usage": {"n": 2}}}),
    _env("response_item", {"type": "function_call_output", "call_id": "c2",
                           "output": "Process exited with code 2\nOutput:\nfail"}),
    _env("event_msg", {"type": "exec_command_end", "call_id": "c1", "exit_code": 2}),
    _env("response_item", {"type": "message", "role": "assistant",
                           "content": [{"type": "output_text", "text": "done"}]}),
    _env("event_msg", {"type": "token_count", "info": {"total_token_usage": {"n": 2}}}),
    _env("event_msg", {"type": "token_count", "info": None}),
    _env("response_item", {"type": "ghost_snapshot", "ghost_commit": {}}),
    _env("compacted", {"message": "summary", "replacement_history": []}),
    _env("response_item", {"type": "message", "role": "user",
                           "content": [{"type": "input_text", "text": "<environment_context>"}]}),
    _env("response_item", {"type": "local_shell_call", "call_id": "c3", "action": {}}),
    _env("event_msg", {"type": "token_count", "info": {"total_token_usage": {"n": 3}}}),
]

#: Lines the fast path passes over unchecked, which the reference reading rejects or reads
#: otherwise: the first pass must learn nothing from them either way.
PASSED_OVER = [
    # repeated key: orjson keeps the last (a mirror), the reference rejects the record
    ('{"timestamp":"t","type":"event_msg","payload":{"type":"token_count",'
    '"info":{"total_token_usage":{"n":9}},"type":"agent_reasoning"}}'),
    # spaced JSON of a reasoning item, and an escaped type
    '{ "timestamp": "t", "type": "response_item", "payload": {"type": "reasoning"} }',
    '{"timestamp":"t","type":"turn_conte\\u0078t","payload":{}}',
]

#: Lines the fast path must hand back (the whole file is then read the reference way).
HANDED_BACK = [
    # repeated key, the other way round: the last type is one the first pass learns from
    ('{"timestamp":"t","type":"event_msg","payload":{"type":"agent_reasoning",'
    '"type":"token_count","info":{"total_token_usage":{"n":9}}}}'),
    _env("event_msg", {"type": "user_message", "message": "do it"}).replace(":", ": ", 1),
    _env("response_item", {"type": "function_call", "name": "x", "call_id": "c9",
                           "arguments": "{}"}) + _env("event_msg", {"type": "token_count",
                                                                    "info": {"n": 1}}),
    '{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"n":123456789012345678901234567890}}}',
    _env("response_item", {"type": "message", "role": "user",
                           "content": [{"type": "input_text", "text": "do it"}]})[:-9],
]


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / f"rollout-{name}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("at", range(0, len(BODY) + 1, 4))
def test_lines_passed_over_plan_the_same(tmp_path, monkeypatch, at):
    path = _write(tmp_path, f"over{at}", BODY[:at] + PASSED_OVER + BODY[at:])
    assert fast_taken(path)
    fast, reference = plans(path, monkeypatch)
    assert fast == reference
    assert reference.exit_codes == {"c1": 2} and len(reference.usage) == 2


@pytest.mark.parametrize("odd", HANDED_BACK, ids=range(len(HANDED_BACK)))
def test_lines_handed_back_plan_the_same(tmp_path, monkeypatch, odd):
    path = _write(tmp_path, "back", BODY[:8] + [odd] + BODY[8:])
    assert not fast_taken(path)
    fast, reference = plans(path, monkeypatch)
    assert fast == reference
