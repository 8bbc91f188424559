"""Inspect AI eval logs (LOG-FORMATS.md §8): detection, the corpus file's counts derived from its
own ids, the ``.eval`` zip, and the format's quirks."""

from __future__ import annotations

import json
import zipfile
from collections import Counter
from datetime import datetime

import pytest

from explorer.audits import counts as audits
from explorer.formats import detect, inspect_ai, read_head
from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS
from tests.helpers import PAIR_COUNTS, corpus_and_demo, detected_as, pair_counts, stored_kinds

FILES = sorted((CORPUS / "inspect-ai").glob("*.json"))


def _doc() -> dict:
    return json.loads(FILES[0].read_text(encoding="utf-8"))


def _expected(sample: dict) -> dict:
    """Counts from the raw messages, written independently of the reader."""
    kinds, calls, results = Counter(), [], []
    for m in sample["messages"]:
        if m["role"] == "assistant":
            kinds["ASSISTANT"] += bool(m["content"]) or not m.get("tool_calls")
            calls += [c["id"] for c in m.get("tool_calls") or []]
        elif m["role"] == "tool":
            results.append(m["tool_call_id"])
        else:
            kinds[m["role"].upper()] += 1
    kinds["CALL"], kinds["RESULT"] = len(calls), len(results)
    return {"kinds": +kinds, "calls": len(calls), "results": len(results),
            "dangling_calls": sum(i not in results for i in calls),
            "orphan_results": sum(i not in calls for i in results)}


def _rows(store):
    return store.con.execute("SELECT session_id, seq, sub, CAST(kind AS VARCHAR), call_id, tool, "
                             "ts, message_id, event_id, d.text, d.is_error FROM events "
                             "LEFT JOIN event_details d USING (eid) ORDER BY seq, sub").fetchall()


def _eval_zip(tmp_path, doc: dict):
    """An ``.eval`` archive in Inspect's layout, holding the corpus log's own parts."""
    path = tmp_path / "run.eval"
    header = {k: v for k, v in doc.items() if k != "samples"}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("_journal/start.json", json.dumps(
            {"version": doc["version"], "eval": doc["eval"], "plan": doc["plan"]}))
        for s in doc["samples"]:
            zf.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        zf.writestr("header.json", json.dumps(header))
    return path


def test_corpus_file_is_detected_as_inspect_ai():
    assert len(FILES) == 1
    assert detect(FILES[0]).NAME == "inspect-ai"


def test_no_other_file_is_detected_as_inspect_ai():
    assert detected_as("inspect-ai", corpus_and_demo(leave_out=FILES)) == []


def test_corpus_counts_equal_the_files_own_ids(store):
    report = import_paths(store, FILES)
    assert not report.errors and report.rejected == 0
    doc = _doc()
    counts = pair_counts(store)
    for sample in doc["samples"]:
        session = f"{doc['eval']['eval_id']}/{sample['id']}/{sample['epoch']}"
        want = _expected(sample)
        kinds = stored_kinds(store, session)
        assert kinds == want["kinds"]
        assert counts[session] == {k: want[k] for k in PAIR_COUNTS}
    assert session == "ZB2vu5GNujYaBdPSReCeop/1/1" and counts[session]["calls"] == 4


def test_times_come_from_the_sample_events(store):
    """Messages have no time: the RESULT takes its tool event's, the assistant its model
    event's ``completed``, the input the ``sample_init`` time (offset -04:00 → UTC)."""
    import_paths(store, FILES)
    sample = _doc()["samples"][0]
    tool_done = {e["id"]: e["completed"] for e in sample["events"] if e["event"] == "tool"}
    init = next(e["timestamp"] for e in sample["events"] if e["event"] == "sample_init")

    def ms(iso: str) -> int:
        return int(datetime.fromisoformat(iso).timestamp() * 1000)

    rows = _rows(store)
    assert rows[0][6] == ms(init)
    for row in rows:
        if row[3] == "RESULT":
            assert row[6] == ms(tool_done[row[4]])
    assert all(r[6] is not None for r in rows)
    assert audits.corpus_counts(store)["clock_regressions"] == 0


def test_usage_stays_in_raw_and_model_call_copies_are_not_events(store):
    import_paths(store, FILES)
    sample = _doc()["samples"][0]
    assert store.con.execute("SELECT count(*) FROM events").fetchone()[0] == \
        len(sample["messages"])
    assert store.con.execute("SELECT count(*) FROM events WHERE tokens IS NOT NULL"
                             ).fetchone()[0] == 0
    raws = [json.loads(r[0]) for r in store.con.execute(
        "SELECT d.raw FROM events JOIN event_details d USING (eid) WHERE sub = 0 "
        "ORDER BY seq").fetchall()]
    assert raws[0]["model_usage"] == sample["model_usage"]
    model = next(e for e in sample["events"] if e["event"] == "model")
    assert raws[1]["usage"] == model["output"]["usage"]


def test_eval_zip_gives_the_same_events_as_the_json(tmp_path):
    doc = _doc()
    path = _eval_zip(tmp_path, doc)
    assert inspect_ai.matches(path, read_head(path))
    from_zip = [e for r in inspect_ai.records(path) for e in r.events]
    from_json = [e for r in inspect_ai.records(FILES[0]) for e in r.events]
    assert from_zip == from_json and len(from_zip) == 10


def test_eval_zip_is_detected(tmp_path):
    assert detect(_eval_zip(tmp_path, _doc())).NAME == "inspect-ai"


def test_attachments_are_resolved_and_tool_errors_flagged(store, tmp_path):
    """The corpus log's own attachment reference and the documented ``error`` field."""
    doc = _doc()
    sample = doc["samples"][0]
    init = next(e for e in sample["events"] if e["event"] == "sample_init")
    ref = init["state"]["messages"][0]["content"]
    assert ref.startswith("attachment://")
    original = sample["messages"][0]["content"]
    sample["messages"][0]["content"] = ref
    sample["messages"][2]["error"] = {"type": "timeout", "message": "timed out"}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(doc))
    import_paths(store, [path])
    rows = _rows(store)
    assert rows[0][9] == original
    assert [r[10] for r in rows if r[3] == "RESULT"] == [True, False, False, False]


@pytest.mark.parametrize("doc", [
    {"eval": "x", "samples": []},
    {"version": 2, "messages": []},
    [{"eval": {"eval_id": "x"}}],
])
def test_other_json_shapes_are_not_inspect_ai(tmp_path, doc):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(doc))
    assert not inspect_ai.matches(path, path.read_bytes())


@pytest.mark.parametrize(("field", "value", "reason"), [
    ("eval", "x", "eval: expected object, got string"),
    ("eval_id", {"a": 1}, "eval.eval_id: expected string or number, got object"),
])
def test_a_header_value_of_the_wrong_type_is_rejected_with_its_path(
        store, tmp_path, field, value, reason):
    """The .eval header is read with the typed accessors (explorer.formats.typed), as the
    samples are: a wrong type is the archive's one rejected record naming the path, never a
    crash nor a session named after a dict."""
    doc = _doc()
    if field == "eval":
        doc["eval"] = value
    else:
        doc["eval"][field] = value
    path = _eval_zip(tmp_path, doc)
    report = import_paths(store, [path])
    assert not report.errors
    file = report.files[0]
    assert (file.records, file.rejected, file.events) == (1, 1, 0)
    reasons = [r for (r,) in store.con.execute("SELECT reason FROM rejected").fetchall()]
    assert reasons == [f"the .eval archive's header: {reason}"]


def test_a_message_of_an_unknown_role_is_kept_and_said(store, tmp_path):
    """Format drift: a message of a role Inspect is not known to write (made up, added to a
    real sample) is an OTHER event noted `unknown type: X`, imported."""
    doc = _doc()
    doc["samples"][0]["messages"].insert(1, {"id": "x1", "role": "critic", "content": "hm"})
    path = tmp_path / "drift.json"
    path.write_text(json.dumps(doc))
    report = import_paths(store, [path])
    assert report.files[0].unknown_types == {"critic": 1}
    assert store.con.execute("SELECT CAST(e.kind AS VARCHAR), d.text FROM events e JOIN "
                             "event_details d USING (eid) WHERE d.note IS NOT NULL").fetchall() == \
        [("OTHER", "hm")]
