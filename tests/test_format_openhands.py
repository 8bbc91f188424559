"""OpenHands event streams (LOG-FORMATS.md §7): detection, the corpus files' counts derived from
their own ids, and the format's quirks."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from explorer.audits import counts as audits
from explorer.formats import detect, openhands
from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS
from tests.helpers import PAIR_COUNTS, corpus_and_demo, detected_as, pair_counts, stored_kinds

FILES = sorted((CORPUS / "openhands").glob("*.json"))
_NOT_CALLS = {"message", "system", "condensation", "change_agent_state"}


def _expected(stream: list) -> dict:
    """Counts from the raw events, written independently of the reader."""
    kinds, calls, results = Counter(), [], []
    for e in stream:
        meta = e.get("tool_call_metadata") or {}
        if e.get("action") == "message":
            kinds["USER" if e["source"] == "user" else "ASSISTANT"] += 1
        elif e.get("action") and e["action"] not in _NOT_CALLS:
            kinds["ASSISTANT"] += bool(e["args"].get("thought"))
            calls.append(meta.get("tool_call_id"))
        elif e.get("observation") and e["observation"] != "agent_state_changed":
            results.append(meta.get("tool_call_id"))
    kinds["CALL"], kinds["RESULT"] = len(calls), len(results)
    return {"kinds": +kinds, "calls": len(calls), "results": len(results),
            "dangling_calls": sum(i is not None and i not in results for i in calls),
            "orphan_results": sum(i is not None and i not in calls for i in results)}


def test_corpus_files_are_detected_as_openhands():
    assert len(FILES) == 3
    for path in FILES:
        assert detect(path).NAME == "openhands"


def test_no_other_file_is_detected_as_openhands():
    assert detected_as("openhands", corpus_and_demo(leave_out=FILES)) == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem[-20:])
def test_corpus_counts_equal_the_files_own_ids(store, path):
    report = import_paths(store, [path])
    assert not report.errors and report.rejected == 0
    want = _expected(json.loads(path.read_text(encoding="utf-8")))
    assert stored_kinds(store, path.stem) == want["kinds"]
    assert pair_counts(store) == {path.stem: {k: want[k] for k in PAIR_COUNTS}}


def test_finish_dangles_in_every_sample_by_design(store):
    import_paths(store, FILES)
    dangling = store.con.execute(
        "SELECT c.session_id, c.tool FROM events c WHERE c.kind = 'CALL' AND NOT EXISTS ("
        "SELECT 1 FROM events r WHERE r.kind = 'RESULT' AND r.session_id = c.session_id "
        "AND r.call_id = c.call_id) ORDER BY 1").fetchall()
    assert dangling == [(p.stem, "finish") for p in FILES]
    assert audits.corpus_counts(store)["dangling_calls"] == 3


def test_observations_answer_the_action_their_cause_names(store):
    """Pairing by ``cause`` and by the call id agree on every observation of the corpus."""
    checked = 0
    for path in FILES:
        stream = json.loads(path.read_text())
        by_id = {e["id"]: e for e in stream}
        for obs in (e for e in stream if "cause" in e):
            assert by_id[obs["cause"]]["tool_call_metadata"]["tool_call_id"] == \
                obs["tool_call_metadata"]["tool_call_id"]
            checked += 1
    assert checked > 0, "no observation with a cause in the corpus"
    report = import_paths(store, FILES)
    assert not report.errors and audits.corpus_counts(store)["results"] >= checked
    assert audits.corpus_counts(store)["mispair"] == 0


def test_naive_timestamps_ids_with_gaps_and_thought_before_call(store):
    path = next(p for p in FILES if p.stem.endswith("__basic"))
    import_paths(store, [path])
    rows = store.con.execute("SELECT seq, sub, CAST(kind AS VARCHAR), event_id, message_id, ts "
                             "FROM events ORDER BY seq, sub").fetchall()
    assert [r[:4] for r in rows] == [(1, 0, "USER", "0"), (2, 0, "ASSISTANT", "3#0"),
                                     (2, 1, "CALL", "3#1"), (3, 0, "RESULT", "4"),
                                     (4, 0, "ASSISTANT", "5#0"), (4, 1, "CALL", "5#1")]
    assert rows[1][4] == rows[2][4] == "chatcmpl-6814daca-5c62-431d-8c88-9dafead244f1"
    # 2025-01-27T22:44:56.900854, no zone: read as UTC, microseconds truncated.
    assert rows[0][5] == 1738017896900


def test_usage_stays_in_raw_and_is_never_tokens(store):
    path = next(p for p in FILES if "wrong_initial" in p.name)
    import_paths(store, [path])
    assert store.con.execute("SELECT count(*) FROM events WHERE tokens IS NOT NULL"
                             ).fetchone()[0] == 0
    raw = store.con.execute("SELECT d.raw FROM events e JOIN event_details d USING (eid) "
                            "WHERE e.seq = 2 AND e.sub = 0").fetchone()[0]
    usage = json.loads(raw)["tool_call_metadata"]["model_response"]["usage"]
    assert usage["prompt_tokens"] == 3475


def test_errors_state_changes_and_condensation(store, tmp_path):
    """No corpus file has these event types: built from the documented event shapes."""
    meta = {"tool_call_id": "toolu_1", "function_name": "execute_bash"}
    stream = [
        {"id": 0, "source": "user", "action": "message", "args": {"content": "go"},
         "timestamp": "2025-01-27T22:44:56.900854"},
        {"id": 1, "source": "environment", "observation": "agent_state_changed",
         "extras": {"agent_state": "running"}, "content": ""},
        {"id": 2, "source": "agent", "action": "run", "args": {"command": "false", "thought": ""},
         "tool_call_metadata": meta},
        {"id": 3, "source": "agent", "observation": "run", "cause": 2, "content": "",
         "extras": {"metadata": {"exit_code": 1}}, "tool_call_metadata": meta},
        {"id": 4, "source": "user", "action": "run", "args": {"command": "ls"}},
        {"id": 5, "source": "agent", "observation": "error", "cause": 4, "content": "boom"},
        {"id": 6, "source": "agent", "action": "condensation",
         "args": {"summary": "so far", "forgotten_event_ids": [2, 3]}},
    ]
    path = tmp_path / "sid.json"
    path.write_text(json.dumps({"trajectory": stream}))
    assert detect(path).NAME == "openhands"
    report = import_paths(store, [path])
    assert report.rejected == 0
    rows = store.con.execute(
        "SELECT CAST(kind AS VARCHAR), call_id, d.is_error FROM events e "
        "LEFT JOIN event_details d USING (eid) ORDER BY seq, sub").fetchall()
    assert rows == [("USER", None, None), ("CALL", "toolu_1", None), ("RESULT", "toolu_1", True),
                    ("CALL", None, None), ("RESULT", None, True), ("SUMMARY", None, None)]


@pytest.mark.parametrize("doc", [
    [{"role": "user", "content": "hi"}],
    [{"task_id": 0, "traj": [], "trial": 0}],
    {"sessionId": "x", "messages": []},
    [],
])
def test_other_json_shapes_are_not_openhands(tmp_path, doc):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc))
    assert not openhands.matches(path, path.read_bytes())
