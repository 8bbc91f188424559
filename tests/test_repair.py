"""Repair (issue 20): a corrected copy of a real Claude Code session, written in Claude Code's
own JSONL, imports clean, keeps its parentUuid chain and leaves untouched events as they were;
canonical JSON Lines likewise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.cli.main import main
from explorer.compaction import SessionLog
from explorer.ingest.imports import import_paths
from explorer.model import Order
from explorer.providers.session_check import check_session
from explorer.repair import RepairError, plan, repair
from explorer.store.db import Store
from explorer.tokens.session_events import session_events

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "claude-code"
FULL = CORPUS / "jnarowski-agentcmd__full-session.jsonl"
SESSION = "cfa1e878-62b5-4e40-b281-bbf9b250d766"
ORPHAN_ID = "toolu_injected_orphan_0001"
ORPHAN_UUID = "00000000-0000-4000-8000-00000000beef"


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _injected(tmp_path: Path, at: int = 10) -> Path:
    """The corpus session with an orphan tool result spliced into its chain after line ``at``."""
    lines = FULL.read_text(encoding="utf-8").splitlines()
    before = json.loads(lines[at - 1])
    orphan = {"parentUuid": before["uuid"], "isSidechain": False, "userType": "external",
              "sessionId": SESSION, "type": "user", "uuid": ORPHAN_UUID,
              "timestamp": before["timestamp"],
              "message": {"role": "user", "content": [
                  {"tool_use_id": ORPHAN_ID, "type": "tool_result", "content": "stray"}]}}
    after = json.loads(lines[at])
    assert after["parentUuid"] == before["uuid"]
    after["parentUuid"] = ORPHAN_UUID
    out = lines[:at] + [json.dumps(orphan, separators=(",", ":")),
                        json.dumps(after, separators=(",", ":"))] + lines[at + 1:]
    path = tmp_path / "injected.jsonl"
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def _chain(records: list[dict]) -> set[str]:
    """The uuids reached from the last record by parentUuid (logicalParentUuid across a
    compact boundary)."""
    by_uuid = {r["uuid"]: r for r in records if r.get("uuid")}
    reached, at = set(), records[-1]
    while at is not None and at.get("uuid") not in reached:
        reached.add(at["uuid"])
        parent = at.get("parentUuid") or at.get("logicalParentUuid")
        at = by_uuid.get(parent)
    return reached


def _rows(path: Path) -> list[tuple]:
    s = Store()
    try:
        import_paths(s, [path])
        frame = s.frame("export_events", session_id=SESSION)
        return [(r["event_id"], r["kind"], r["call_id"], r["text"])
                for r in frame.iter_rows(named=True)]
    finally:
        s.close()


def _violations(path: Path) -> list:
    s = Store()
    try:
        import_paths(s, [path])
        log = SessionLog.from_frame(SESSION, session_events(s, SESSION, Order.SEQ, texts=False))
        return check_session(log, ("anthropic",))["anthropic"]
    finally:
        s.close()


@pytest.fixture
def repaired(tmp_path):
    source = _injected(tmp_path)
    s = Store()
    import_paths(s, [source])
    found = plan(s, SESSION, provider="anthropic")
    out = repair(s, found, tmp_path / "repaired.jsonl")
    s.close()
    return source, found, out


def test_the_injected_session_is_rejected_before_repair(tmp_path):
    rules = {v.rule for v in _violations(_injected(tmp_path))}
    assert rules == {"anthropic.unanswered", "anthropic.unexpected"}


def test_the_plan_drops_the_orphan_and_answers_the_three_dangling_calls(repaired):
    _, found, _ = repaired
    dangling = [r["message"]["content"][0]["id"] for r in _records(FULL)[-3:]]
    assert [(c.action, c.call_id) for c in found.changes] == \
        [("drop", ORPHAN_ID)] + [("add", cid) for cid in dangling]
    assert found.changes[0].line == 11 and "orphan" in found.changes[0].reason
    assert found.left == [] and found.format == "claude-code"


def test_the_repaired_copy_imports_clean_for_anthropic(repaired):
    source, _, out = repaired
    assert _violations(out) == []
    assert _violations(source)   # the source is untouched
    assert ORPHAN_UUID in source.read_text(encoding="utf-8")


def test_the_chain_from_the_last_record_reaches_every_kept_record(repaired):
    source, _, out = repaired
    before, after = _records(source), _records(out)
    kept = {r["uuid"] for r in after}
    added = kept - {r["uuid"] for r in before}
    assert len(added) == 3 and ORPHAN_UUID not in kept
    assert _chain(after) == (_chain(before) - {ORPHAN_UUID}) | added
    assert _chain(after) == kept
    assert all(r["parentUuid"] in kept for r in after if r.get("parentUuid"))


def test_untouched_events_import_to_the_same_rows(repaired):
    source, _, out = repaired
    old = [r for r in _rows(source) if r[2] != ORPHAN_ID]
    new = _rows(out)
    placeholders = [r for r in new if r[1] == "RESULT" and r[3] and "interrupted" in r[3]]
    assert len(placeholders) == 3
    assert [r for r in new if r not in placeholders] == old
    # each placeholder right after its call
    for p in placeholders:
        i = new.index(p)
        assert new[i - 1][1] == "CALL" and new[i - 1][2] == p[2]


def test_untouched_lines_are_copied_byte_for_byte(repaired):
    source, _, out = repaired
    old = source.read_text(encoding="utf-8").splitlines()
    new = out.read_text(encoding="utf-8").splitlines()
    assert len(new) == len(old) - 1 + 3
    changed = [line for line in new if line not in old]
    # three placeholders, the record that hung from the dropped orphan, and the two call
    # records (of the last message's three) that now hang from a placeholder
    assert len(changed) == 6
    assert sum('"parentUuid"' in line and "interrupted" in line for line in changed) == 3


def test_orphans_as_text_and_unanswered_dropped(tmp_path):
    # between two turns: as text, the orphan is one more user text there
    source = _injected(tmp_path, at=5)
    s = Store()
    import_paths(s, [source])
    found = plan(s, SESSION, orphans="text", unanswered="drop")
    out = repair(s, found, tmp_path / "text.jsonl")
    s.close()
    assert found.counts() == {"drop": 3, "text": 1, "add": 0}
    rows = _rows(out)
    texted = [r for r in rows if r[3] and ORPHAN_ID in r[3]]
    assert [r[1] for r in texted] == ["USER"] and "stray" in texted[0][3]
    assert not any(r[1] == "CALL" and r[2] in {c.call_id for c in found.changes} for r in rows)
    assert _violations(out) == []
    assert _chain(_records(out)) == {r["uuid"] for r in _records(out)}


def test_the_source_is_never_overwritten(tmp_path):
    source = _injected(tmp_path)
    s = Store()
    import_paths(s, [source])
    with pytest.raises(RepairError, match="the source"):
        repair(s, plan(s, SESSION), source)
    s.close()


def test_canonical_jsonl_copy(tmp_path, write_lines):
    path = write_lines("c.jsonl",
                       '{"session_id":"s","seq":1,"kind":"USER","text":"hi","event_id":"u"}',
                       '{"session_id":"s","seq":2,"kind":"RESULT","call_id":"x","text":"r"}',
                       '{"session_id":"s","seq":3,"kind":"CALL","call_id":"y","tool":"t"}',
                       '{"session_id":"s","seq":4,"kind":"ASSISTANT","text":"ok"}')
    s = Store()
    import_paths(s, [path])
    found = plan(s, "s", provider="openai-chat")
    out = repair(s, found, tmp_path / "fixed.jsonl")
    s.close()
    events = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(e["seq"], e["kind"], e.get("call_id")) for e in events] == \
        [(1, "USER", None), (3, "CALL", "y"), (3, "RESULT", "y"), (4, "ASSISTANT", None)]
    assert events[2]["synthetic"] is True and "interrupted" in events[2]["text"]


def test_the_command_writes_the_copy(tmp_path, capsys):
    source = _injected(tmp_path)
    out = tmp_path / "cli.jsonl"
    status = main(["repair", str(source), "--session", SESSION, "--provider", "anthropic",
                   "--json", str(out)])
    assert status == 0
    changes = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [c["action"] for c in changes] == ["drop", "add", "add", "add"]
    assert main(["validate", "--provider", "anthropic", str(out)]) == 0
