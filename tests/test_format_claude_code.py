"""Claude Code session transcripts (LOG-FORMATS.md §2): detection, counts against the real
files of the corpus (expected values derived from the raw lines by the few lines of
``_expected`` below, not by the reader), and each quirk §2 lists."""

from __future__ import annotations

import gzip
import json
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from explorer.audits import counts as audits
from explorer.compaction.log import SessionLog
from explorer.compaction.strategies import parse as parse_strategy
from explorer.formats import claude_code, detect
from explorer.ingest.imports import import_paths
from explorer.tokens.session_events import session_events
from tests.helpers import corpus_and_demo, detected_as, pair_counts, stored_kinds

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
HERE = CORPUS / "claude-code"
SPOTTER = HERE / "marot-spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
AGENT = HERE / "marot-spotter__agent-aac57f5.jsonl"
FULL = HERE / "jnarowski-agentcmd__full-session.jsonl"
FILES = (SPOTTER, AGENT, FULL)
SID = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"

recorded = parse_strategy("recorded").decide  # (log, budget) -> its Window


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _expected(path: Path) -> tuple[Counter, dict]:
    """Kinds and, per session, calls/results/dangling/orphans, straight from the raw lines."""
    kinds: Counter = Counter()
    ids: dict = defaultdict(lambda: {"calls": [], "results": []})
    for r in _lines(path):
        session = r.get("sessionId")
        if r.get("isSidechain"):
            session = f"{session}/{r['agentId']}"
        if r["type"] == "system" and r["subtype"] in ("compact_boundary", "api_error", "local_command"):
            kinds["OTHER"] += 1
        if r["type"] not in ("user", "assistant"):
            continue
        content = r["message"]["content"]
        if r.get("isCompactSummary"):
            kinds["SUMMARY"] += 1
            continue
        if isinstance(content, str):
            kinds["USER"] += 1
            continue
        for block in content:
            t = block["type"]
            if t == "tool_use":
                kinds["CALL"] += 1
                ids[session]["calls"].append(block["id"])
            elif t == "tool_result":
                kinds["RESULT"] += 1
                ids[session]["results"].append(block["tool_use_id"])
            elif t in ("text", "image"):
                kinds["USER" if r["type"] == "user" else "ASSISTANT"] += 1
    per_session = {
        s: {"calls": len(v["calls"]), "results": len(v["results"]),
            "dangling_calls": sum(c not in set(v["results"]) for c in v["calls"]),
            "orphan_results": sum(x not in set(v["calls"]) for x in v["results"])}
        for s, v in ids.items()}
    return kinds, per_session


def _events(path: Path) -> list[dict]:
    return [e for rec in claude_code.records(path) for e in rec.events]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:30])
def test_corpus_file_detected_imported_and_counted(store, path):
    assert detect(path).NAME == "claude-code"
    report = import_paths(store, [path])
    assert not report.errors and report.rejected == 0
    kinds, per_session = _expected(path)
    assert stored_kinds(store) == kinds
    assert pair_counts(store) == per_session


def test_corpus_figures_of_log_formats():
    """The figures LOG-FORMATS.md and SOURCES.md give for these files, as a cross-check."""
    spotter, _ = _expected(SPOTTER)
    assert spotter["CALL"] == spotter["RESULT"] == 179 and spotter["SUMMARY"] == 1
    _, full = _expected(FULL)
    assert full[next(iter(full))]["dangling_calls"] == 3
    _, agent = _expected(AGENT)
    assert list(agent) == [f"{SID}/aac57f5"] and agent[f"{SID}/aac57f5"]["calls"] == 12


def test_no_other_file_is_detected_as_claude_code(tmp_path):
    others = corpus_and_demo(leave_out=HERE.iterdir())
    assert len(others) > 10
    assert detected_as("claude-code", others) == []
    canonical = tmp_path / "c.jsonl"
    canonical.write_text('{"session_id": "s", "seq": 1, "kind": "USER", "type": "user", "text": "hi"}\n')
    api = tmp_path / "api.jsonl"   # API messages, not transcript records
    api.write_text('{"type": "message", "role": "user", "content": "hi"}\n'
                   '{"type": "user", "message": {"role": "user", "content": "hi"}}\n')
    # the API lines are no canonical records either: no reader takes them (issue 15 §3)
    assert detected_as("claude-code", [canonical, api]) == []


def test_one_block_per_line_grouped_by_message_id():
    """308 assistant lines, 163 message ids; a message's blocks get sub in block order,
    across lines, with a tool result between two CALL lines of one message."""
    events = _events(SPOTTER)
    model = [e for e in events if e["kind"] in ("ASSISTANT", "CALL")]
    assert len({e["message_id"] for e in model}) == 163
    assert len({e["message_id"] for e in _events(FULL) if e["kind"] in ("ASSISTANT", "CALL")}) == 10
    split = [e for e in model if e["message_id"] == "msg_01BJLvSoefRnd1zW1TnK12hw"]
    seqs = [e["seq"] for e in split]
    assert {1763, 1771} <= set(seqs)   # 0-based lines 1762 and 1770
    assert [e["sub"] for e in split] == sorted({e["sub"] for e in split})
    between = [e for e in events if 1763 < e["seq"] < 1771]
    assert any(e["kind"] == "RESULT" for e in between)
    assert len({(e["seq"], e["sub"]) for e in events}) == len(events)


def test_several_blocks_in_one_line_give_the_same_events(tmp_path):
    """The API shape: the last message of full-session.jsonl (3 tool_use lines) merged into
    one line, as hand-made fixtures write it (built from the real lines)."""
    rows = _lines(FULL)
    last = [r for r in rows if r["type"] == "assistant" and r["message"]["id"] == "msg_019GZYBfYyLDeGwbTaNRh1HG"]
    assert len(last) == 3
    merged = {**last[-1], "message": {**last[-1]["message"],
                                      "content": [r["message"]["content"][0] for r in last]}}
    path = tmp_path / "merged.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows[:-3] + [merged]) + "\n")
    assert detect(path).NAME == "claude-code"
    tail = [e for e in _events(path) if e["seq"] == len(rows) - 2]
    split = [e for e in _events(FULL) if e.get("message_id") == "msg_019GZYBfYyLDeGwbTaNRh1HG"]
    assert [(e["kind"], e["call_id"], e["sub"]) for e in tail] == \
           [(e["kind"], e["call_id"], e["sub"]) for e in split] == \
           [("CALL", b["message"]["content"][0]["id"], i) for i, b in enumerate(last)]
    assert [e["event_id"] for e in tail] == [f"{merged['uuid']}#{i}" for i in range(3)]
    assert ["usage" in e["raw"]["message"] for e in tail] == [True, False, False]


def test_usage_kept_once_per_message_with_its_final_value():
    rows = _lines(SPOTTER)
    final = {}
    for r in rows:
        if r["type"] == "assistant":
            final[r["message"]["id"]] = r["message"]["usage"]
    with_usage = defaultdict(list)
    for e in _events(SPOTTER):
        if e["kind"] in ("ASSISTANT", "CALL") and "usage" in e["raw"]["message"]:
            with_usage[e["message_id"]].append(e["raw"]["message"]["usage"])
            assert "tokens" not in e   # reported usage is never an event's cost
    assert set(with_usage) == set(final)
    assert all(v == [final[m]] for m, v in with_usage.items())


def test_thinking_stays_in_raw_of_the_messages_first_event():
    rows = _lines(SPOTTER)
    thinking = [b for r in rows if r["type"] == "assistant" for b in r["message"]["content"]
                if b["type"] == "thinking"]
    assert len(thinking) == 6
    recs = list(claude_code.records(SPOTTER))
    assert sum(1 for r in recs if (r.skipped or "").startswith("thinking only")) == 6
    kept = [b for e in (e for r in recs for e in r.events)
            for b in e["raw"].get("turnscope", {}).get("thinking", [])]
    assert kept == thinking
    first = next(e for r in recs for e in r.events if e["message_id"] == "msg_01AjAtmphJjr4oSLfTyzk8LA")
    assert first["seq"] == 8 and first["raw"]["turnscope"]["thinking"][0]["type"] == "thinking"


def test_noise_and_title_records_are_skipped_by_reason(tmp_path):
    """progress (the 25 agent_progress copies of the sub-agent's messages included),
    snapshots and hook records are skipped; a file opening with `summary` title records
    (shape from LOG-FORMATS.md §2, added to the real file) gives the same events."""
    reasons = Counter(r.skipped for r in claude_code.records(SPOTTER) if r.skipped)
    raw = Counter((r["type"], (r.get("data") or {}).get("type") or r.get("subtype"))
                  for r in _lines(SPOTTER))
    assert reasons["progress (agent_progress)"] == raw[("progress", "agent_progress")] == 25
    assert reasons["progress (hook_progress)"] == raw[("progress", "hook_progress")]
    assert reasons["file-history snapshot"] == raw[("file-history-snapshot", None)]
    assert reasons["system (stop_hook_summary)"] == reasons["system (turn_duration)"] == 1
    child_calls = {b["id"] for r in _lines(AGENT) if r["type"] == "assistant"
                   for b in r["message"]["content"] if b["type"] == "tool_use"}
    assert not child_calls & {e.get("call_id") for e in _events(SPOTTER)}
    titles = [json.dumps({"type": "summary", "summary": f"Title {i}", "leafUuid": f"leaf-{i}"}) for i in range(16)]
    path = tmp_path / "titled.jsonl"
    path.write_text("\n".join(titles) + "\n" + FULL.read_text(encoding="utf-8"))
    assert detect(path).NAME == "claude-code"
    recs = list(claude_code.records(path))
    assert sum(r.skipped == "summary title (names another session)" for r in recs) == 16
    assert [(e["kind"], e.get("call_id")) for r in recs for e in r.events] == \
           [(e["kind"], e.get("call_id")) for e in _events(FULL)]


def test_recorded_compaction_starts_at_the_summary(store):
    """compact_boundary -> OTHER without cost; the isCompactSummary record -> SUMMARY; the
    recorded view is the summary and what follows, and does not start inside a turn."""
    import_paths(store, [SPOTTER])
    frame = session_events(store, SID)
    boundary = frame.filter(frame["kind"].cast(str) == "OTHER")
    assert boundary["seq"].to_list() == [1481] and boundary["cost"].to_list() == [0]
    log = SessionLog.from_frame(SID, frame)
    cut = recorded(log, 1000).cut
    assert log.seq[cut] == 1482 and frame["kind"].cast(str)[cut] == "SUMMARY"
    assert frame["kind"].cast(str)[cut + 1] == "USER"
    assert store.con.execute("SELECT d.synthetic, left(d.text, 40) FROM events e JOIN event_details d "
                             "USING (eid) WHERE e.kind = 'SUMMARY'").fetchall() == \
        [(True, "This session is being continued from a p")]


def test_timestamp_inversion_and_errors_as_in_the_file(store):
    """The /compact records written after the summary with earlier timestamps (one
    regression among conversation events), and the 11 tool results with is_error."""
    rows = [r for r in _lines(SPOTTER) if r["type"] in ("user", "assistant")
            and not (r["type"] == "assistant" and all(b["type"] == "thinking" for b in r["message"]["content"]))
            or (r["type"] == "system" and r.get("subtype") == "compact_boundary")]
    stamps = [r["timestamp"] for r in rows]
    regressions = sum(b < a for a, b in zip(stamps, stamps[1:]))
    errors = sum(1 for r in rows if r["type"] == "user" and isinstance(r["message"]["content"], list)
                 for b in r["message"]["content"] if b.get("is_error"))
    import_paths(store, [SPOTTER])
    counts = audits.corpus_counts(store)
    assert counts["clock_regressions"] == regressions == 1
    got = store.con.execute("SELECT count(*) FROM events JOIN event_details USING (eid) "
                            "WHERE kind = 'RESULT' AND is_error").fetchone()[0]
    assert got == errors == 11


def test_subagent_session_branch_and_link_to_the_task_call(store, tmp_path):
    """The sub-agent file shares the parent's sessionId: its session is sessionId/agentId
    (no key collision with the parent); the Task call names it, and in the 2.1.x layout
    (the two real files copied to <sid>.jsonl and <sid>/subagents/agent-<id>.jsonl) its
    first event names the parent's Task call."""
    import_paths(store, [SPOTTER, AGENT])
    sessions = sorted(r[0] for r in store.con.execute("SELECT DISTINCT session_id FROM events").fetchall())
    assert sessions == [SID, f"{SID}/aac57f5"]
    assert audits.corpus_counts(store)["shared_keys"] == 0
    branches = store.con.execute("SELECT DISTINCT e.session_id, d.branch FROM events e "
                                 "JOIN event_details d USING (eid)").fetchall()
    assert sorted(branches, key=str) == sorted([(SID, None), (f"{SID}/aac57f5", "aac57f5")], key=str)
    task = [e for e in _events(SPOTTER) if e.get("call_id") == "toolu_01Hf8v1Za7y4af8VUwSR4CXU"]
    assert [e["kind"] for e in task] == ["CALL", "RESULT"]
    assert all(e["raw"]["turnscope"]["subagent_session"] == f"{SID}/aac57f5" for e in task)
    (tmp_path / SID / "subagents").mkdir(parents=True)
    shutil.copy(SPOTTER, tmp_path / f"{SID}.jsonl")
    child = tmp_path / SID / "subagents" / "agent-aac57f5.jsonl"
    shutil.copy(AGENT, child)
    first = _events(child)[0]
    assert first["kind"] == "USER"
    assert first["raw"]["turnscope"] == {"parent_session": SID,
                                         "parent_call_id": "toolu_01Hf8v1Za7y4af8VUwSR4CXU"}


def test_gzip_transcript_and_a_broken_line(store, tmp_path):
    """A gzip copy reads as the file; a truncated line is rejected with its line number."""
    gz = tmp_path / "full.jsonl.gz"
    gz.write_bytes(gzip.compress(FULL.read_bytes()))
    assert detect(gz).NAME == "claude-code"
    assert len(_events(gz)) == len(_events(FULL))
    broken = tmp_path / "broken.jsonl"
    text = FULL.read_text(encoding="utf-8").splitlines()
    broken.write_text("\n".join(text[:5] + [text[5][:40]] + text[6:]) + "\n")
    report = import_paths(store, [broken])
    assert report.rejected == 1
    assert stored_kinds(store).total() == len(_events(FULL)) - len(
        [e for e in _events(FULL) if e["seq"] == 6])


def test_error_records_and_inline_sidechains(tmp_path):
    """Shapes the corpus lacks, made from real lines of full-session.jsonl changed as
    LOG-FORMATS.md §2 describes: a `system`/`api_error` record, an assistant record with
    `isApiErrorMessage`, and an older inline sidechain record (isSidechain without agentId)."""
    rows = _lines(FULL)
    user, assistant = rows[0], next(r for r in rows if r["type"] == "assistant")
    api_error = {**{k: user[k] for k in ("sessionId", "timestamp", "uuid")}, "type": "system",
                 "subtype": "api_error", "level": "error", "content": "API Error: 529 overloaded"}
    synthetic = {**assistant, "uuid": "u-err", "isApiErrorMessage": True,
                 "message": {**assistant["message"], "id": "msg-err",
                             "content": [{"type": "text", "text": "API Error: 529"}]}}
    inline = {**user, "uuid": "u-side", "isSidechain": True}
    path = tmp_path / "variants.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (user, api_error, synthetic, inline)) + "\n")
    assert detect(path).NAME == "claude-code"
    events = _events(path)
    assert [(e["kind"], e.get("is_error")) for e in events] == \
           [("USER", None), ("OTHER", True), ("ASSISTANT", True), ("USER", None)]
    assert events[1]["text"] == "API Error: 529 overloaded"
    sid = user["sessionId"]
    assert [e["session_id"] for e in events] == [sid, sid, sid, f"{sid}/sidechain"]
    assert events[3]["branch"] == "sidechain"
