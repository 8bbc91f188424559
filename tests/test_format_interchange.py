"""ATIF trajectories and OTLP JSON traces (docs/FORMATS.md): samples built from the
specifications (tests/interchange_samples.py says how; no real file with a permissive
license was found) import with the events the specifications' fields say."""

from __future__ import annotations

import json

import pytest

from explorer.formats import atif, detect, otlp_json
from explorer.ingest.imports import import_paths
from explorer.store.db import Store
from tests import interchange_samples as samples


def _stored(path) -> tuple[list[dict], object]:
    store = Store()
    try:
        report = import_paths(store, [path])
        assert not report.errors, report.errors
        rows = store.con.execute(
            "SELECT session_id, CAST(kind AS VARCHAR), call_id, tool, text, ts, archived, raw "
            "FROM events LEFT JOIN event_details USING (eid) ORDER BY session_id, seq, sub").fetchall()
        keys = ("session_id", "kind", "call_id", "tool", "text", "ts", "archived", "raw")
        return [dict(zip(keys, r)) for r in rows], report.files[0]
    finally:
        store.close()


def test_atif_sample_steps_become_events(tmp_path):
    path = samples.atif_sample(tmp_path / "t.json")
    doc = json.loads(path.read_text())
    assert detect(path) is atif
    events, account = _stored(path)
    main = [e for e in events if e["session_id"] == doc["session_id"]]
    want = []
    for step in doc["steps"]:
        want.append({"user": "USER", "agent": "ASSISTANT", "system": "SYSTEM"}[step["source"]])
        want += ["CALL"] * len(step.get("tool_calls", []))
        want += ["RESULT"] * len(step.get("observation", {}).get("results", []))
    assert [e["kind"] for e in main] == want
    calls = [c["tool_call_id"] for s in doc["steps"] for c in s.get("tool_calls", [])]
    assert [e["call_id"] for e in main if e["kind"] == "CALL"] == calls
    assert [e["call_id"] for e in main if e["kind"] == "RESULT"] == calls
    # is_copied_context: archived; the first step's timestamp is its events' time
    assert [e["archived"] for e in main][:2] == [True, None]
    assert main[0]["ts"] == 1760178540000   # 2025-10-11T10:29:00Z
    # the embedded subagent is a session of its own under the call whose result names it
    sub = [e for e in events if e["session_id"] != doc["session_id"]]
    assert {e["session_id"] for e in sub} == {"atif-sample/researcher-1"}
    assert len(sub) == len(doc["subagent_trajectories"][0]["steps"])
    steps = len(doc["steps"]) + len(doc["subagent_trajectories"][0]["steps"])
    assert account.records == account.imported == steps


def test_atif_step_metrics_are_reported_usage(tmp_path):
    from explorer.session.reported_usage import reported_usage
    path = samples.atif_sample(tmp_path / "t.json")
    events, _ = _stored(path)
    usage = [reported_usage(e["raw"]) for e in events]
    assert [u for u in usage if u] == [{"input": 520, "output": 80, "cache_read": 200}]


def test_atif_json_lines_of_trajectories(tmp_path):
    one = json.loads(samples.atif_sample(tmp_path / "t.json").read_text())
    two = dict(one, session_id="second", subagent_trajectories=None)
    del two["subagent_trajectories"]
    path = tmp_path / "many.jsonl"
    path.write_text(json.dumps(one) + "\n" + json.dumps(two) + "\n")
    assert detect(path) is atif
    events, account = _stored(path)
    assert {e["session_id"] for e in events} == {"atif-sample", "atif-sample/researcher-1",
                                                 "second"}
    assert account.records == 2 * len(one["steps"]) + 2


@pytest.mark.parametrize("build", [samples.otlp_current, samples.otlp_events])
def test_otlp_sample_is_one_conversation_in_message_order(build, tmp_path):
    """Spans out of time order; the later call's input repeats the earlier messages, read
    once; the tool span's result was sent to the model, so it adds nothing."""
    path = build(tmp_path / "traces.json")
    assert detect(path) is otlp_json
    events, account = _stored(path)
    assert [(e["kind"], e["call_id"]) for e in events] == [
        ("SYSTEM", None), ("USER", None), ("CALL", "call_1"), ("RESULT", "call_1"),
        ("ASSISTANT", None)]
    assert [e["text"] for e in events][1:] == [
        "Weather in Paris?", '{"city": "Paris"}', "rainy, 57F", "It is rainy in Paris."]
    spans = json.loads(path.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert account.records == len(spans)
    conv = {a["value"]["stringValue"] for s in spans for a in s["attributes"]
            if a["key"] == "gen_ai.conversation.id"}
    assert {e["session_id"] for e in events} == conv


def test_otlp_current_usage_and_skips(tmp_path):
    from explorer.session.reported_usage import reported_usage
    path = samples.otlp_current(tmp_path / "traces.json")
    events, account = _stored(path)
    assert [reported_usage(e["raw"]) for e in events if reported_usage(e["raw"])] == [
        {"input": 47, "output": 12}, {"input": 97, "output": 9}]
    assert account.skipped == 2   # the invoke_agent span, the tool span already answered


def test_openllmetry_flattened_attributes(tmp_path):
    path = samples.otlp_openllmetry(tmp_path / "traces.json")
    events, _ = _stored(path)
    assert [(e["kind"], e["call_id"], e["tool"]) for e in events] == [
        ("USER", None, None), ("CALL", "call_1", "get_weather")]


def test_a_tool_span_whose_result_no_model_saw_is_a_result(tmp_path):
    """The execute_tool span carries the result, and no later chat span was sent it."""
    doc = json.loads(samples.otlp_current(tmp_path / "a.json").read_text())
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans[:] = [s for s in spans if s["spanId"] != "chat0002"]
    tool = next(s for s in spans if s["spanId"] == "tool0001")
    tool["attributes"].append({"key": "gen_ai.tool.call.result",
                               "value": {"stringValue": "sunny"}})
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    events, _ = _stored(path)
    assert [(e["kind"], e["text"]) for e in events][-2:] == [
        ("CALL", '{"city": "Paris"}'), ("RESULT", "sunny")]


def test_a_span_without_trace_id_is_rejected_the_rest_imported(tmp_path):
    doc = json.loads(samples.otlp_current(tmp_path / "a.json").read_text())
    del doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["traceId"]
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    events, account = _stored(path)
    assert account.rejected == 1
    # the tool span now answers the call (no model call was sent its result)
    assert [e["kind"] for e in events] == ["SYSTEM", "USER", "CALL", "RESULT"]


def test_a_conversation_over_two_traces_reads_the_repeated_history_once(tmp_path):
    """A chat application's next turn is a new trace whose input repeats the conversation."""
    doc = json.loads(samples.otlp_current(tmp_path / "a.json").read_text())
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    later = {"role": "user", "parts": [{"type": "text", "content": "And Rome?"}]}
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "Sunny in Rome."}]}
    system = [{"type": "text", "content": "Be brief."}]
    history = [samples._USER, samples._CALL, samples._RESULT, samples._ANSWER, later]
    span = samples._span("chat0003", "chat gpt-4o", 5000, 5300, {
        "gen_ai.operation.name": "chat", "gen_ai.conversation.id": "conv-current",
        "gen_ai.system_instructions": json.dumps(system),
        "gen_ai.input.messages": json.dumps(history),
        "gen_ai.output.messages": json.dumps([answer])}, parent=None)
    span["traceId"] = "1" * 32
    spans.insert(0, span)
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc))
    events, _ = _stored(path)
    assert [e["text"] for e in events][-3:] == ["It is rainy in Paris.", "And Rome?",
                                                "Sunny in Rome."]
    assert len(events) == 7


def test_parallel_calls_split_across_two_chat_spans_are_ordered_by_time_and_say_so(tmp_path):
    """Two chat spans sent the same input, each giving one tool call (a model turn with two
    parallel calls recorded as two generations): both calls are kept, by start time."""
    def call(n):
        return {"role": "assistant", "parts": [{"type": "tool_call", "id": f"call_{n}",
                                                "name": "get_weather", "arguments": {"n": n}}]}
    spans = [samples._span(f"chat000{n}", "chat", start, start + 100, {
        "gen_ai.operation.name": "chat", "gen_ai.conversation.id": "split",
        "gen_ai.input.messages": json.dumps([samples._USER]),
        "gen_ai.output.messages": json.dumps([call(n)])}, parent=None)
        for n, start in ((2, 300), (1, 100))]
    path = tmp_path / "split.json"
    path.write_text(json.dumps(samples._document(spans)))
    from explorer.formats import otlp_json as reader
    events = sorted((e for r in reader.records(path) for e in r.events), key=lambda e: e["seq"])
    assert [(e["kind"], e.get("call_id"), e.get("note")) for e in events] == [
        ("USER", None, None), ("CALL", "call_1", None), ("CALL", "call_2", "order by time")]


def _bad_lines(tmp_path, docs: list[dict], name: str):
    """JSON Lines of ``docs`` with three lines no JSON Lines reader takes between them: a
    record cut mid-write, a key repeated with two values, a line past the longest allowed."""
    from explorer.formats import limits
    lines = [json.dumps(d) for d in docs]
    broken = ['{"steps": [', '{"a": 1, "a": 2}', json.dumps({"pad": "x" * 5000})]
    path = tmp_path / name
    path.write_text("\n".join([lines[0], *broken, *lines[1:]]) + "\n")
    return path, limits


@pytest.mark.parametrize("kind", ["atif", "otel-json"])
def test_json_lines_of_documents_reject_only_their_bad_lines(kind, tmp_path):
    """A bad line of an ATIF or OTLP JSON Lines file is one rejected record naming its line
    and why (the guards of every JSON Lines reader), and the other lines import as when
    alone; a bad line once rejected the whole file."""
    if kind == "atif":
        one = json.loads(samples.atif_sample(tmp_path / "t.json").read_text())
        two = {k: v for k, v in one.items() if k != "subagent_trajectories"}
        docs = [one, dict(two, session_id="second")]
    else:
        doc = json.loads(samples.otlp_current(tmp_path / "t.json").read_text())
        docs = [doc, doc]
    clean = tmp_path / "clean.jsonl"
    clean.write_text("".join(json.dumps(d) + "\n" for d in docs))
    want, want_account = _stored(clean)
    path, limits = _bad_lines(tmp_path, docs, "bad.jsonl")
    saved = limits.current()
    limits.configure(limits.dataclasses.replace(saved, max_line_bytes=4096), flags={})
    try:
        store = Store()
        report = import_paths(store, [path])
        account = report.files[0]
        got = store.con.execute(
            "SELECT session_id, CAST(kind AS VARCHAR), call_id, text FROM events "
            "LEFT JOIN event_details USING (eid) ORDER BY session_id, seq, sub").fetchall()
        reasons = [r[0] for r in store.con.execute(
            "SELECT reason FROM rejected ORDER BY line").fetchall()]
        store.close()
    finally:
        limits.configure(saved, flags={})
    assert got == [(e["session_id"], e["kind"], e["call_id"], e["text"]) for e in want]
    assert account.rejected == 3
    assert account.records == want_account.records + 3
    assert [r.split(":")[0] for r in reasons] == ["line 2", "line 3", "line 4"]
    assert "repeated with two values" in reasons[1]
    assert "--max-line-bytes" in reasons[2]
