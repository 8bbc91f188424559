"""Claude Code session transcripts (LOG-FORMATS.md §2): detection, counts against the real
files of the corpus (expected values derived from the raw lines by the few lines of
``_expected`` below, not by the reader), and each quirk §2 lists."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
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
        if r["type"] not in ("user", "assistant", "system", "progress", "summary",
                             "file-history-snapshot", "queue-operation"):
            kinds["OTHER"] += 1   # an unknown type, kept (format drift)
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
            elif t in ("thinking", "redacted_thinking"):
                kinds["OTHER"] += 1
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
        if e["kind"] in ("ASSISTANT", "CALL", "OTHER") and "usage" in e["raw"].get("message", {}):
            with_usage[e["message_id"]].append(e["raw"]["message"]["usage"])
            # reported usage is never an event's cost (a thinking event costs 0: its own rule)
            assert e.get("tokens") == (0 if e.get("note") == "thinking" else None)
    assert set(with_usage) == set(final)
    assert all(v == [final[m]] for m, v in with_usage.items())


def test_thinking_blocks_are_other_events_without_cost(store):
    """LOG-FORMATS.md §2 (changed for issue 15: thinking was kept in raw only): each of the 6
    thinking blocks is an OTHER event with note `thinking`, tokens 0 and the thinking as
    text; the message's first event (a thinking line's event, when it comes first) keeps
    the usage."""
    rows = _lines(SPOTTER)
    thinking = [(i, b["thinking"]) for i, r in enumerate(rows, 1) if r["type"] == "assistant"
                for b in r["message"]["content"] if b["type"] == "thinking"]
    assert len(thinking) == 6
    events = _events(SPOTTER)
    got = [(e["seq"], e["text"]) for e in events if e.get("note") == "thinking"]
    assert got == thinking
    assert all(e["kind"] == "OTHER" and e["tokens"] == 0 for e in events if e.get("note") == "thinking")
    first = next(e for e in events if e["message_id"] == "msg_01L91py2ULbcRePE2kgunYJW")
    assert first["seq"] == 26 and first["note"] == "thinking" and "usage" in first["raw"]["message"]
    import_paths(store, [SPOTTER])
    frame = session_events(store, SID)
    noted = frame.filter(frame["note"] == "thinking")
    assert noted.height == 6 and noted["cost"].to_list() == [0] * 6


def test_a_thinking_only_message_is_kept_with_its_usage(tmp_path):
    """No real file has a message of thinking alone (an answer stopped after thinking): made
    from the real thinking line 26 of the spotter file, without the text and tool_use lines
    of its message that follow. It was dropped with its usage (issue 15, item 7)."""
    rows = _lines(SPOTTER)
    path = tmp_path / "thinking-only.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows[:26]) + "\n")
    assert rows[25]["message"]["content"][0]["type"] == "thinking"
    recs = list(claude_code.records(path))
    assert not any((r.skipped or "").startswith("thinking") for r in recs)
    last = recs[-1].events
    assert [(e["kind"], e["note"]) for e in last] == [("OTHER", "thinking")]
    assert last[0]["raw"]["message"]["usage"] == rows[25]["message"]["usage"]


def test_harness_text_is_a_noted_user_event_that_opens_no_turn(store):
    """The command records, the local-command caveat and output and the isMeta skill text of
    the spotter file are USER events with a note (FORMAT.md); the turns count only the rest."""
    expected = {}
    for i, r in enumerate(_lines(SPOTTER), 1):
        if r["type"] != "user" or r.get("isCompactSummary"):
            continue
        content = r["message"]["content"]
        text = content if isinstance(content, str) else next(
            (b["text"] for b in content if b.get("type") == "text"), None)
        if text is None:
            continue
        for tag, note in (("<command-name>", "command"), ("<local-command-stdout>", "command output"),
                          ("<local-command-caveat>", "caveat")):
            if text.startswith(tag):
                expected[i] = note
        if r.get("isMeta") and i not in expected:
            expected[i] = "reminder"
    assert sorted(expected.values()) == ["caveat", "command", "command output", "reminder"]
    events = _events(SPOTTER)
    assert {e["seq"]: e["note"] for e in events if e["kind"] == "USER" and e.get("note")} == expected
    import_paths(store, [SPOTTER])
    users = sum(1 for e in events if e["kind"] == "USER")
    counts = audits.session_counts(store)
    assert counts.filter(counts["session_id"] == SID)["turns"].to_list() == [users - 4]
    frame = session_events(store, SID)
    assert frame["turn_no"].max() == users - 4


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
    """compact_boundary -> OTHER (note `compact boundary`) without cost; the isCompactSummary
    record -> SUMMARY; the recorded view is the summary and what follows, and does not start
    inside a turn."""
    import_paths(store, [SPOTTER])
    frame = session_events(store, SID)
    assert frame.filter(frame["kind"].cast(str) == "OTHER")["note"].value_counts().sort(
        "note").rows() == [("compact boundary", 1), ("thinking", 6)]
    boundary = frame.filter(frame["note"] == "compact boundary")
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
    # Every event of the child names its parent session and Task call (FORMAT.md columns,
    # issue 15: the link was a raw key of the first event only); found by content, so in the
    # 2.1.x layout (<sid>/subagents/) and the 2.0.x one (beside) whatever the parent file's name.
    for layout in ("2.1", "2.0"):
        root = tmp_path / layout
        folder = root / SID / "subagents" if layout == "2.1" else root
        folder.mkdir(parents=True)
        shutil.copy(SPOTTER, root / "renamed-parent.jsonl")
        child = folder / "agent-aac57f5.jsonl"
        shutil.copy(AGENT, child)
        events = _events(child)
        assert len(events) == len(_events(AGENT))
        assert {(e["parent_session"], e["parent_call"]) for e in events} == \
            {(SID, "toolu_01Hf8v1Za7y4af8VUwSR4CXU")}
    assert not any("parent_session" in e for e in _events(SPOTTER))
    (tmp_path / "alone").mkdir()
    shutil.copy(AGENT, tmp_path / "alone" / AGENT.name)
    alone = _events(tmp_path / "alone" / AGENT.name)   # no parent beside it: the session is known
    assert {e["parent_session"] for e in alone} == {SID} and not any("parent_call" in e for e in alone)


def test_a_task_whose_sub_agent_is_absent_is_a_missing_child(store, tmp_path):
    """The spotter's one Task call names sub-agent aac57f5 (its agent_progress records and
    the result's toolUseResult.agentId); imported alone, that child is absent: one
    missing_child finding on the call; with the child file, none."""
    rows = _lines(SPOTTER)
    named = {r["toolUseResult"]["agentId"] for r in rows
             if isinstance(r.get("toolUseResult"), dict) and r["toolUseResult"].get("agentId")}
    assert named == {"aac57f5"}
    import_paths(store, [SPOTTER])
    assert audits.corpus_counts(store)["missing_child"] == 1
    found = [f for f in audits.findings(store) if f["rule"] == "missing_child"]
    assert [(f["session_id"], [e["call_id"] for e in f["events"]]) for f in found] == \
        [(SID, ["toolu_01Hf8v1Za7y4af8VUwSR4CXU"])]
    import_paths(store, [AGENT])
    assert audits.corpus_counts(store)["missing_child"] == 0


def test_the_call_whose_sub_agent_is_absent_is_marked_in_the_tree(store):
    """The missing_child finding has its mark in the turn tree (explorer.audits.marks reads
    the store for it): on the spotter imported without its agent-*.jsonl child, the one
    CALL marked is the Task whose result names the absent agent (found here in the raw
    lines: the tool_result's tool_use_id beside toolUseResult.agentId); with the child, none."""
    from explorer.session.data import load_session

    rows = _lines(SPOTTER)
    named = {block["tool_use_id"] for r in rows
             if isinstance(r.get("toolUseResult"), dict) and r["toolUseResult"].get("agentId")
             for block in r["message"]["content"] if block.get("type") == "tool_result"}
    import_paths(store, [SPOTTER])

    def marked() -> list[tuple[str, str]]:
        data = load_session(store, SID)
        rows = data.frame.select("kind", "call_id").rows()
        return [(str(kind), call) for (kind, call), marks in zip(rows, data.marks, strict=True)
                if "missing_child" in marks]

    assert marked() == [("CALL", c) for c in sorted(named)] and len(named) == 1
    import_paths(store, [AGENT])
    assert marked() == []


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


def test_error_records(tmp_path):
    """Shapes the corpus lacks, made from real lines of full-session.jsonl changed as
    LOG-FORMATS.md §2 describes: a `system`/`api_error` record and an assistant record with
    `isApiErrorMessage`."""
    rows = _lines(FULL)
    user, assistant = rows[0], next(r for r in rows if r["type"] == "assistant")
    api_error = {**{k: user[k] for k in ("sessionId", "timestamp", "uuid")}, "type": "system",
                 "subtype": "api_error", "level": "error", "content": "API Error: 529 overloaded"}
    synthetic = {**assistant, "uuid": "u-err", "isApiErrorMessage": True,
                 "message": {**assistant["message"], "id": "msg-err",
                             "content": [{"type": "text", "text": "API Error: 529"}]}}
    path = tmp_path / "variants.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (user, api_error, synthetic)) + "\n")
    assert detect(path).NAME == "claude-code"
    events = _events(path)
    assert [(e["kind"], e.get("is_error"), e.get("note")) for e in events] == \
           [("USER", None, None), ("OTHER", True, "api error"), ("ASSISTANT", True, None)]
    assert events[1]["text"] == "API Error: 529 overloaded"


def _inline_sidechains(tmp_path: Path) -> tuple[Path, list[dict]]:
    """No public 1.0.x file with inline sidechains was found: this one is made from the
    format's documentation (LOG-FORMATS.md §2, issue 15 item 4) and real lines of
    full-session.jsonl: an assistant message with two parallel Task calls, then the two
    sub-agents written inline (``isSidechain: true``, no ``agentId``), each a chain from a
    root user record (``parentUuid`` null) holding the Task's prompt, their records
    interleaved with each other, then the two Task results in the main chain."""
    rows = _lines(FULL)
    user, assistant = rows[0], next(r for r in rows if r["type"] == "assistant")
    t0 = "2025-08-01T10:00:0"

    def rec(uuid, parent, kind, content, ts, side=False, mid=None):
        message = {"role": kind, "content": content}
        if kind == "assistant":
            message = {**assistant["message"], "id": mid or f"msg-{uuid}", "content": content}
        r = {**{k: v for k, v in user.items() if k not in ("message", "toolUseResult")},
             "uuid": uuid, "parentUuid": parent, "type": kind, "message": message,
             "timestamp": f"{t0}{ts}.000Z", "isSidechain": side, "version": "1.0.98"}
        return r

    def task(i):
        return {"type": "tool_use", "id": f"toolu_task{i}", "name": "Task",
                "input": {"description": f"job {i}", "prompt": f"Look into part {i}"}}

    def result(call, text):
        return [{"type": "tool_result", "tool_use_id": call, "content": [{"type": "text", "text": text}]}]

    records = [
        rec("m1", None, "user", "Split the work in two", 0),
        rec("m2", "m1", "assistant", [task(1)], 1, mid="msg-main"),
        rec("m3", "m2", "assistant", [task(2)], 1, mid="msg-main"),
        rec("a1", None, "user", "Look into part 1", 2, side=True),
        rec("b1", None, "user", "Look into part 2", 2, side=True),
        rec("a2", "a1", "assistant", [{"type": "tool_use", "id": "toolu_a", "name": "Bash",
                                        "input": {"command": "ls"}}], 3, side=True),
        rec("b2", "b1", "assistant", [{"type": "text", "text": "part 2 is fine"}], 3, side=True),
        rec("a3", "a2", "user", result("toolu_a", "x.py"), 4, side=True),
        rec("a4", "a3", "assistant", [{"type": "text", "text": "part 1 has x.py"}], 5, side=True),
        rec("m4", "m3", "user", result("toolu_task1", "part 1 has x.py"), 6),
        rec("m5", "m4", "user", result("toolu_task2", "part 2 is fine"), 7),
    ]
    path = tmp_path / "inline-sidechains.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path, records


def test_inline_sidechains_are_one_session_per_root_with_their_parent(store, tmp_path):
    """1.0.x inline sidechains: one session per sidechain root (`sessionId/<root uuid>`),
    not one merged `…/sidechain` session (issue 15, item 4); each names the parent session
    and the Task call whose prompt is its root's; the Task calls name their child."""
    path, records = _inline_sidechains(tmp_path)
    assert detect(path).NAME == "claude-code"
    sid = records[0]["sessionId"]
    roots = {}
    for r in records:   # the expected root of each sidechain record, by its parentUuid chain
        if r["isSidechain"]:
            roots[r["uuid"]] = roots.get(r["parentUuid"], r["uuid"])
    events = _events(path)
    sessions = Counter(e["session_id"] for e in events)
    assert sessions == {sid: 5, f"{sid}/a1": 4, f"{sid}/b1": 2}
    for e in events:
        if e["event_id"] in roots:
            root = roots[e["event_id"]]
            assert e["session_id"] == f"{sid}/{root}" and e["branch"] == root
            assert (e["parent_session"], e["parent_call"]) == \
                (sid, {"a1": "toolu_task1", "b1": "toolu_task2"}[root])
        else:
            assert "parent_session" not in e
    task = {e["call_id"]: e["raw"]["turnscope"]["subagent_session"]
            for e in events if e.get("call_id", "").startswith("toolu_task")}
    assert task == {"toolu_task1": f"{sid}/a1", "toolu_task2": f"{sid}/b1"}
    import_paths(store, [path])
    counts = audits.corpus_counts(store)
    assert counts["clock_regressions"] == 0 and counts["sessions"] == 3
    stored = store.con.execute(
        "SELECT DISTINCT e.session_id, d.parent_session, d.parent_call FROM events e "
        "JOIN event_details d USING (eid) WHERE d.parent_session IS NOT NULL ORDER BY 1").fetchall()
    assert stored == [(f"{sid}/a1", sid, "toolu_task1"), (f"{sid}/b1", sid, "toolu_task2")]


def test_a_record_of_an_unknown_type_is_kept_and_said(store, tmp_path):
    """Format drift: a record type Claude Code was not known to write (shape made up after
    the real `custom-title` records of newer versions) is an OTHER event with note
    `unknown type: X` holding the record, counted as imported; detection still holds."""
    rows = _lines(FULL)
    drift = {"type": "custom-title", "customTitle": "my session", "sessionId": rows[0]["sessionId"]}
    path = tmp_path / "drift.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [drift, *rows]) + "\n")
    assert detect(path).NAME == "claude-code"
    first = _events(path)[0]
    assert (first["kind"], first["note"], first["raw"]) == ("OTHER", "unknown type: custom-title", drift)
    report = import_paths(store, [path])
    assert report.files[0].imported == len(rows) + 1 - report.files[0].skipped
    assert report.files[0].unknown_types == {"custom-title": 1}
    assert import_paths(store, [path]).files[0].unknown_types == {"custom-title": 1}   # unchanged
    doc = json.loads(subprocess.run([sys.executable, "-m", "explorer", "audit", "--json", str(path)],
                                    capture_output=True, text=True, check=True).stdout)
    assert [f["unknown_types"] for f in doc["files"]] == [{"custom-title": 1}]



def test_the_import_report_window_names_unknown_types(qapp, store, tmp_path):
    """The import report's imported cell of a file with records of unknown types names them."""
    from PySide6.QtCore import Qt

    from widgets.import_report_dialog import COLUMNS, ImportReportModel
    rows = _lines(FULL)
    drift = {"type": "custom-title", "customTitle": "t", "sessionId": rows[0]["sessionId"]}
    path = tmp_path / "drift.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [drift, *rows]) + "\n")
    model = ImportReportModel(import_paths(store, [path]))
    column = [key for key, _, _ in COLUMNS].index("imported")
    tip = model.index(0, column).data(Qt.ItemDataRole.ToolTipRole)
    assert "did not know" in tip and "1  custom-title" in tip
    assert model.index(0, column + 1).data(Qt.ItemDataRole.ToolTipRole) != tip
