"""Repair (issue 20) of the other formats: a repaired copy of a real Codex rollout imports
with the source's event counts minus what the repair reports, and clean for the provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.compaction import SessionLog
from explorer.ingest.imports import import_paths
from explorer.model import Order
from explorer.providers.session_check import check_session
from explorer.repair import plan, repair
from explorer.repair.plan import PLACEHOLDER
from explorer.store.db import Store
from explorer.tokens.session_events import session_events

CODEX = (Path(__file__).resolve().parents[2] / "shared" / "corpus" / "codex-cli" /
         "jnarowski-agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl")
SESSION = "01997e76-d124-7592-9cac-2ec05abbca08"
ORPHAN = "call_injected_orphan"


def _broken(tmp_path: Path) -> tuple[Path, str]:
    """The rollout with the output of its first call lost and a stray output added."""
    lines = CODEX.read_text(encoding="utf-8").splitlines()
    call = json.loads(lines[8])["payload"]
    assert call["type"] == "function_call"
    assert json.loads(lines[9])["payload"]["call_id"] == call["call_id"]
    stray = {"timestamp": json.loads(lines[11])["timestamp"], "type": "response_item",
             "payload": {"type": "function_call_output", "call_id": ORPHAN, "output": "stray"}}
    path = tmp_path / "rollout-broken.jsonl"
    path.write_text("\n".join(lines[:9] + lines[10:12] + [json.dumps(stray)] + lines[12:])
                    + "\n", encoding="utf-8")
    return path, call["call_id"]


def _read(path: Path, providers) -> tuple[list[tuple], dict]:
    s = Store()
    try:
        import_paths(s, [path])
        rows = [(r["kind"], r["call_id"], r["text"])
                for r in s.frame("export_events", session_id=SESSION).iter_rows(named=True)]
        log = SessionLog.from_frame(SESSION, session_events(s, SESSION, Order.SEQ, texts=False))
        return rows, check_session(log, providers)
    finally:
        s.close()


def test_a_repaired_codex_rollout(tmp_path):
    source, lost = _broken(tmp_path)
    before, found = _read(source, ("openai-responses", "openai-chat"))
    assert all(found.values())
    s = Store()
    import_paths(s, [source])
    the_plan = plan(s, SESSION, provider="openai-chat")
    out = repair(s, the_plan, tmp_path / "rollout-fixed.jsonl")
    s.close()
    assert [(c.action, c.call_id) for c in the_plan.changes] == [("add", lost), ("drop", ORPHAN)]
    after, found = _read(out, ("openai-responses", "openai-chat", "anthropic"))
    assert found == {"openai-responses": [], "openai-chat": [], "anthropic": []}
    counts = the_plan.counts()
    assert len(after) == len(before) - counts["drop"] + counts["add"]
    added = [r for r in after if r[0] == "RESULT" and r[2] == PLACEHOLDER]
    assert [r[1] for r in added] == [lost]
    assert [r for r in after if r not in added] == [r for r in before if r[1] != ORPHAN]
    kept = CODEX.read_text(encoding="utf-8").splitlines()
    assert sum(line not in kept for line in out.read_text(encoding="utf-8").splitlines()) == 1


CORPUS = CODEX.parents[1]
RECORDED = [  # (file, provider, format written): recordings are written as message lists
    (CORPUS / "anthropic-messages" / "traceloop-openllmetry__test_anthropic_tools_streaming_legacy.yaml",
     "anthropic", ".json"),
    (CORPUS / "anthropic-messages" / "Mirascope-mirascope__streams-tool-calls-and-resumes-with-results.har",
     "anthropic", ".json"),
    (CORPUS / "openai-chat-completions" / "pydantic-pydantic-ai__test_openai_tool_output.yaml",
     "openai-chat", ".json"),
    (CORPUS / "openai-responses" / "traceloop-openllmetry__test_tool_call_and_result_attributes.yaml",
     "openai-responses", ".har"),
]


def _kinds(s: Store, session: str) -> list[tuple]:
    return [(r["kind"], r["call_id"]) for r in s.frame("export_events", session_id=session)
            .iter_rows(named=True) if r["kind"] != "OTHER"]


@pytest.mark.parametrize(("path", "provider", "suffix"), RECORDED, ids=lambda v: str(v)[-30:])
def test_a_repaired_recording_is_a_message_list_of_the_same_events(tmp_path, path, provider,
                                                                     suffix):
    s = Store()
    import_paths(s, [path])
    session = s.run("sessions_in_input_order")[-1][0]
    before = _kinds(s, session)
    the_plan = plan(s, session, provider=provider)
    out = repair(s, the_plan, tmp_path / f"copy{suffix}")
    s.close()
    assert the_plan.left == []
    copy = Store()
    try:
        assert not import_paths(copy, [out]).errors
        (name,) = copy.run("sessions_in_input_order")[0]
        after = _kinds(copy, name)
        log = SessionLog.from_frame(name, session_events(copy, name, Order.SEQ, texts=False))
        assert check_session(log, (provider,))[provider] == []
    finally:
        copy.close()
    counts = the_plan.counts()
    assert len(after) == len(before) - counts["drop"] + counts["add"]
    added = {c.call_id for c in the_plan.changes if c.action == "add"}
    assert [k for k in after if not (k[0] == "RESULT" and k[1] in added)] == \
        [k for k in before if (k[0], k[1]) not in
         {(c.kind, c.call_id) for c in the_plan.changes if c.action == "drop"}]
