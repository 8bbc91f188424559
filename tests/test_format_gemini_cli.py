"""Gemini CLI chat recordings (LOG-FORMATS.md §9): detection, the corpus file's counts derived
from its own ids, and the format's quirks."""

from __future__ import annotations

import copy
import json
from collections import Counter
from datetime import datetime

import pytest

from explorer.audits import counts as audits
from explorer.formats import detect, gemini_cli
from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS
from tests.helpers import PAIR_COUNTS, corpus_and_demo, detected_as, pair_counts, stored_kinds

FILES = sorted((CORPUS / "gemini-cli").glob("*.json"))


def _doc() -> dict:
    return json.loads(FILES[0].read_text(encoding="utf-8"))


def _expected(doc: dict) -> dict:
    """Counts from the raw messages, written independently of the reader."""
    kinds, calls, results, errors = Counter(), [], [], 0
    for m in doc["messages"]:
        if m["type"] == "user":
            kinds["USER"] += 1
        elif m["type"] == "gemini":
            kinds["ASSISTANT"] += bool(m["content"])
            for c in m.get("toolCalls", []):
                calls.append(c["id"])
                for part in c.get("result", []):
                    results.append(part["functionResponse"]["id"])
                    errors += c["status"] in ("error", "cancelled")
        else:
            kinds["SYSTEM"] += 1
    kinds["CALL"], kinds["RESULT"] = len(calls), len(results)
    return {"kinds": +kinds, "calls": len(calls), "results": len(results), "errors": errors,
            "dangling_calls": sum(i not in results for i in calls),
            "orphan_results": sum(i not in calls for i in results)}


def _rows(store):
    return store.con.execute(
        "SELECT seq, sub, CAST(kind AS VARCHAR), call_id, ts, message_id, d.is_error, d.raw "
        "FROM events LEFT JOIN event_details d USING (eid) ORDER BY seq, sub").fetchall()


def _write(tmp_path, doc: dict):
    path = tmp_path / "session-2025-10-29T10-39-a63242d9.json"
    path.write_text(json.dumps(doc, indent=2))
    return path


def test_corpus_file_is_detected_as_gemini_cli():
    assert len(FILES) == 1
    assert detect(FILES[0]).NAME == "gemini-cli"


def test_no_other_file_is_detected_as_gemini_cli():
    assert detected_as("gemini-cli", corpus_and_demo(leave_out=FILES)) == []


def test_corpus_counts_equal_the_files_own_ids(store):
    report = import_paths(store, FILES)
    assert not report.errors and report.rejected == 0
    doc = _doc()
    want = _expected(doc)
    kinds = stored_kinds(store)
    assert kinds == want["kinds"]
    assert pair_counts(store) == {doc["sessionId"]: {k: want[k] for k in PAIR_COUNTS}}
    assert sum(bool(r[6]) for r in _rows(store) if r[2] == "RESULT") == want["errors"] == 1


def test_error_call_with_empty_content_keeps_thoughts_and_usage_in_raw(store):
    import_paths(store, FILES)
    rows = _rows(store)
    msg = _doc()["messages"][1]
    assert [r[2] for r in rows] == ["USER", "CALL", "RESULT"]  # empty content: no ASSISTANT
    raw = json.loads(rows[1][7])
    assert raw["thoughts"] == msg["thoughts"] and raw["tokens"] == msg["tokens"]
    assert store.con.execute("SELECT count(*) FROM events WHERE tokens IS NOT NULL"
                             ).fetchone()[0] == 0
    assert rows[1][5] == msg["id"] and rows[2][5] is None


def test_each_call_is_followed_by_its_result_and_cancelled_is_an_error(store, tmp_path):
    """The corpus has one call: a second (cancelled, finishing after the next message) and a
    third without result (a crash mid-write) follow the documented toolCalls shape."""
    doc = _doc()
    msg = doc["messages"][1]
    first = msg["toolCalls"][0]
    second = copy.deepcopy(first)
    second.update(id="run_shell_command-1-ab", name="run_shell_command", status="cancelled",
                  timestamp="2025-10-29T10:49:50.000Z")
    second["result"][0]["functionResponse"].update(
        id="run_shell_command-1-ab", name="run_shell_command",
        response={"output": "cancelled by user"})
    third = {"id": "glob-2-cd", "name": "glob", "args": {"pattern": "*"}, "status": "executing",
             "timestamp": "2025-10-29T10:39:47.900Z"}
    msg["toolCalls"] += [second, third]
    msg["content"] = "Let me try."
    doc["messages"].append({"id": "m3", "timestamp": "2025-10-29T10:40:00.000Z", "type": "info",
                            "content": "Request cancelled."})
    import_paths(store, [_write(tmp_path, doc)])
    rows = _rows(store)
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        (1, 0, "USER", None), (2, 0, "ASSISTANT", None),
        (2, 1, "CALL", first["id"]), (2, 2, "RESULT", first["id"]),
        (2, 3, "CALL", second["id"]), (2, 4, "RESULT", second["id"]),
        (2, 5, "CALL", "glob-2-cd"), (3, 0, "SYSTEM", None)]
    assert [r[6] for r in rows if r[2] == "RESULT"] == [True, True]
    row = audits.session_counts(store).row(0, named=True)
    assert (row["dangling_calls"], row["orphan_results"], row["clock_regressions"]) == (1, 0, 1)


def test_a_copy_taken_mid_write_is_reported_not_a_crash(store, tmp_path):
    text = FILES[0].read_text()
    path = tmp_path / "session-cut.json"
    path.write_text(text[: len(text) * 2 // 3])
    assert detect(path).NAME == "gemini-cli"
    report = import_paths(store, [path])
    assert report.rejected == 1 and report.files[0].events == 0


def test_content_as_a_list_of_parts(store, tmp_path):
    doc = _doc()
    doc["messages"][0]["content"] = [{"text": "hello"}, {"inlineData": {"data": "AA=="}},
                                     {"text": "world"}]
    import_paths(store, [_write(tmp_path, doc)])
    assert store.con.execute("SELECT d.text FROM events JOIN event_details d USING (eid) "
                             "WHERE seq = 1").fetchone()[0] == "hello\nworld"


@pytest.mark.parametrize("doc", [
    {"sessionId": "x", "type": "user", "message": {"role": "user", "content": "hi"}},
    {"sessionId": "x", "projectHash": "y", "messages": [{"role": "user", "parts": []}]},
    [{"role": "user", "parts": [{"text": "checkpoint"}]}],
])
def test_other_json_shapes_are_not_gemini_cli(tmp_path, doc):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc))
    assert not gemini_cli.matches(path, path.read_bytes())


def test_calls_of_several_model_steps_take_their_own_times(store, tmp_path):
    """No public recording with calls of several model steps in one message was found: made
    from the corpus file's call and LOG-FORMATS.md §9 (each toolCalls[] entry has its own
    timestamp, when it finished; one message can carry calls of three steps). Each CALL and
    its RESULT take the call's time, the message's own stays on its text: no false clock
    regression, and in ts order every result follows its call (issue 15, item 5)."""
    doc = _doc()
    msg = doc["messages"][1]
    msg["content"] = "Looking."
    base = msg["toolCalls"][0]
    steps = []
    for i, stamp in enumerate(("2025-10-29T10:40:05.000Z", "2025-10-29T10:40:20.000Z",
                               "2025-10-29T10:40:41.000Z")):
        call = copy.deepcopy(base)
        call.update(id=f"read_file-{i}-ab", timestamp=stamp)
        call["result"][0]["functionResponse"]["id"] = call["id"]
        steps.append(call)
    msg["toolCalls"] = steps
    doc["messages"].append({"id": "m3", "timestamp": "2025-10-29T10:40:50.000Z", "type": "gemini",
                            "content": "Done."})
    assert msg["timestamp"] < steps[0]["timestamp"]
    import_paths(store, [_write(tmp_path, doc)])
    rows = _rows(store)
    want = [(1, 0, "USER", None), (2, 0, "ASSISTANT", None)]
    for call in steps:
        want += [(2, len(want) - 1, "CALL", call["id"]), (2, len(want), "RESULT", call["id"])]
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [*want, (3, 0, "ASSISTANT", None)]
    stamps = [r[4] for r in rows]
    iso = [doc["messages"][0]["timestamp"], msg["timestamp"],
           *[c["timestamp"] for c in steps for _ in (0, 1)], "2025-10-29T10:40:50.000Z"]
    assert stamps == [int(datetime.fromisoformat(t).timestamp() * 1000)
                      for t in iso]
    for order in ("seq", "ts"):
        row = audits.session_counts(store, order).row(0, named=True)
        assert (row["clock_regressions"], row["mispair"]) == (0, 0)
