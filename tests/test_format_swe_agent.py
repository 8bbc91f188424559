"""SWE-agent trajectories (LOG-FORMATS.md §6): detection, the corpus files' counts derived from
their own ids, and the format's quirks."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from explorer.audits import counts as audits
from explorer.formats import detect, swe_agent
from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS
from tests.helpers import corpus_and_demo, detected_as, stored_kinds

FILES = sorted((CORPUS / "swe-agent").glob("*.traj"))


def only_in_trajectory(doc: dict) -> list[dict]:
    """The trajectory steps whose action no history entry took."""
    actions = {(h.get("action") or "").strip() for h in doc["history"]}
    return [t for t in doc["trajectory"] if t["action"].strip() not in actions]


def _expected(doc: dict) -> dict:
    """Counts from the raw history, written independently of the reader."""
    kinds, call_ids, result_ids = Counter(), [], []
    for h in doc["history"]:
        role = h["role"]
        if role == "system":
            kinds["SYSTEM"] += 1
        elif role == "user":
            kinds["USER"] += 1
        elif role == "assistant":
            kinds["ASSISTANT"] += bool(h["content"])
            call_ids += [c["id"] for c in h["tool_calls"]]
        elif role == "tool":
            result_ids += h["tool_call_ids"]
    kinds["CALL"], kinds["RESULT"] = len(call_ids), len(result_ids)
    # a trajectory step whose action no history entry took (the final submit): its thought,
    # a CALL without id and its observation, paired by position
    alone = only_in_trajectory(doc)
    kinds["ASSISTANT"] += sum(bool(t["thought"]) for t in alone)
    kinds["CALL"] += len(alone)
    kinds["RESULT"] += len(alone)
    return {"kinds": +kinds, "calls": len(call_ids) + len(alone),
            "results": len(result_ids) + len(alone),
            "dangling_calls": sum(i not in result_ids for i in call_ids),
            "orphan_results": sum(i not in call_ids for i in result_ids),
            "duplicate_call_ids": sum(n > 1 for n in Counter(call_ids).values())}


def test_corpus_files_are_detected_as_swe_agent():
    assert len(FILES) == 2
    for path in FILES:
        assert detect(path).NAME == "swe-agent"


def test_no_other_file_is_detected_as_swe_agent():
    assert detected_as("swe-agent", corpus_and_demo(leave_out=FILES)) == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_corpus_counts_equal_the_files_own_ids(store, path):
    report = import_paths(store, [path])
    assert not report.errors and report.rejected == 0
    doc = json.loads(path.read_text(encoding="utf-8"))
    want = _expected(doc)
    session = path.name.removesuffix(".traj")
    row = audits.session_counts(store).row(0, named=True)
    assert row["session_id"] == session
    assert stored_kinds(store, session) == want["kinds"]
    for name in ("calls", "results", "dangling_calls", "orphan_results", "duplicate_call_ids"):
        assert row[name] == want[name], name
    assert row["events"] == sum(want["kinds"].values())
    assert len(only_in_trajectory(doc)) == ("6e44b9" in path.name)   # its submit step


def test_ids_reused_within_a_trajectory_pair_with_the_nearest_call(store):
    """The replay sample reuses 5 of its 11 call ids (SOURCES.md); each reuse pairs anyway."""
    path = next(p for p in FILES if "marshmallow" in p.name)
    import_paths(store, [path])
    ids = [c["id"] for h in json.loads(path.read_text())["history"]
           for c in h.get("tool_calls") or []]
    assert len(ids) == 11 and len(ids) - len(set(ids)) == 5
    row = audits.session_counts(store).row(0, named=True)
    assert row["mispair"] == 0 and row["orphan_results"] == 0 and row["dangling_calls"] == 0


def test_trajectory_copy_is_skipped_and_nothing_has_a_timestamp(store):
    """The trajectory repeats history's steps (skipped), but its final submit step, which
    history does not hold: that one is imported (issue 15, nothing silently dropped)."""
    path = FILES[0]
    recs = list(swe_agent.records(path))
    doc = json.loads(path.read_text())
    assert sum(r.skipped == "trajectory step (a copy of history)" for r in recs) == \
        len(doc["trajectory"]) - len(only_in_trajectory(doc)) == len(doc["trajectory"]) - 1
    import_paths(store, [path])
    assert store.con.execute("SELECT count(*) FROM events WHERE ts IS NOT NULL").fetchone()[0] == 0
    assert store.con.execute("SELECT count(*) FROM events WHERE tokens IS NOT NULL"
                             ).fetchone()[0] == 0


def test_run_usage_is_in_the_raw_of_the_first_event_only(store):
    path = FILES[0]
    import_paths(store, [path])
    raw = store.con.execute("SELECT d.raw FROM events e JOIN event_details d USING (eid) "
                            "WHERE e.seq = 1 AND e.sub = 0").fetchone()[0]
    stats = json.loads(path.read_text())["info"]["model_stats"]
    assert json.loads(raw)["info"]["model_stats"] == stats


def test_one_message_groups_its_thought_and_calls(store):
    import_paths(store, [FILES[0]])
    rows = store.con.execute("SELECT seq, list(CAST(kind AS VARCHAR) ORDER BY sub), "
                             "count(DISTINCT message_id) FROM events GROUP BY seq ORDER BY seq"
                             ).fetchall()
    assert rows[2] == (3, ["ASSISTANT", "CALL"], 1)


def test_old_trajectories_without_ids_pair_by_position(store, tmp_path):
    """No pre-function-calling trajectory is in the corpus: this sample follows the documented
    0.x shape (assistant ``action`` text, the next user ``observation`` is its result)."""
    doc = {"environment": "swe_main", "trajectory": [{"action": "ls -a\n", "observation": "a.py",
                                                     "response": "Look.", "thought": "Look.",
                                                     "state": "{}"}],
           "history": [
               {"role": "system", "content": "SETTING", "agent": "primary"},
               {"role": "user", "content": "demo", "agent": "primary", "is_demo": True},
               {"role": "user", "content": "the issue", "agent": "primary"},
               {"role": "assistant", "content": "Look.\n```\nls -a\n```", "thought": "Look.",
                "action": "ls -a\n", "agent": "primary"},
               {"role": "user", "content": "a.py", "agent": "primary"},
               {"role": "assistant", "content": "Now the issue text again", "agent": "primary"},
               {"role": "user", "content": "a reply", "agent": "primary"}],
           "info": {"exit_status": "submitted"}}
    path = tmp_path / "inst-1.traj"
    path.write_text(json.dumps(doc))
    assert detect(path).NAME == "swe-agent"
    import_paths(store, [path])
    rows = store.con.execute("SELECT seq, CAST(kind AS VARCHAR), call_id, tool FROM events "
                             "ORDER BY seq, sub").fetchall()
    assert [r[1] for r in rows] == ["SYSTEM", "USER", "USER", "ASSISTANT", "CALL", "RESULT",
                                    "ASSISTANT", "USER"]
    assert rows[4] == (4, "CALL", None, "ls") and rows[5][2] is None
    row = audits.session_counts(store).row(0, named=True)
    assert (row["session_id"], row["calls"], row["results"], row["dangling_calls"],
            row["orphan_results"]) == ("inst-1", 1, 1, 0, 0)


def test_unreadable_document_is_one_rejected_record(store, tmp_path):
    path = tmp_path / "cut.traj"
    text = FILES[0].read_text()
    path.write_text(text[: len(text) // 2])
    assert detect(path).NAME == "swe-agent"
    report = import_paths(store, [path])
    assert report.rejected == 1 and report.files[0].events == 0


@pytest.mark.parametrize("doc", [
    {"trajectory": [{"id": 0, "source": "user", "action": "message", "timestamp": "x"}]},
    {"history": [{"role": "user", "content": "hi"}]},
    [{"traj": [], "task_id": 1}],
])
def test_other_json_shapes_are_not_swe_agent(tmp_path, doc):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc))
    assert not swe_agent.matches(path, path.read_bytes())


def test_json_prefix_keeps_what_a_cut_head_holds():
    assert swe_agent.json_prefix(b'{"a": [1, {"b": 2}, {"c": "tru') == {"a": [1, {"b": 2}, {}]}
    assert swe_agent.json_prefix(b"not json") is None


def test_a_message_of_an_unknown_role_is_kept_and_said(store, tmp_path):
    """Format drift: a history entry of a role SWE-agent is not known to write (made up,
    added to the real trajectory) is an OTHER event noted `unknown type: X`, imported."""
    doc = json.loads(FILES[0].read_text(encoding="utf-8"))
    doc["history"].insert(1, {"role": "critic", "content": "looks wrong", "agent": "primary"})
    path = tmp_path / "drift.traj"
    path.write_text(json.dumps(doc))
    report = import_paths(store, [path])
    assert report.files[0].unknown_types == {"critic": 1} and report.rejected == 0
    assert store.con.execute("SELECT e.seq, CAST(e.kind AS VARCHAR), d.text FROM events e JOIN "
                             "event_details d USING (eid) WHERE d.note IS NOT NULL").fetchall() == \
        [(2, "OTHER", "looks wrong")]
