"""Langfuse trace exports (docs/FORMATS.md, "Langfuse"): the two real files of the corpus,
their figures derived from the raw observations by this test's own reading, and the
ordering the reader had to infer said on the events."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from explorer.formats import detect
from explorer.ingest.imports import import_paths
from explorer.store.db import Store
from tests.conftest import CORPUS

FOLDER = CORPUS / "langfuse"
CLAUDE = FOLDER / "langfuse-langfuse__claude-agent-2025-12-22.trace.json"
OPENAI = FOLDER / "langfuse-langfuse__openai-agents-2025-09-30.trace.json"


def _observations(path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["observations"]


def _events(path) -> list[dict]:
    store = Store()
    try:
        report = import_paths(store, [path])
        assert not report.errors
        rows = store.con.execute(
            "SELECT CAST(kind AS VARCHAR), call_id, tool, text, seq, sub, ts, raw "
            "FROM events LEFT JOIN event_details USING (eid) ORDER BY seq, sub").fetchall()
        return [dict(zip(("kind", "call_id", "tool", "text", "seq", "sub", "ts", "raw"), r))
                for r in rows], report.files[0]
    finally:
        store.close()


def _ms(text: str) -> int:
    from datetime import datetime
    return int(datetime.fromisoformat(text).timestamp() * 1000)


def test_both_files_are_read_as_langfuse():
    assert {detect(p).NAME for p in (CLAUDE, OPENAI)} == {"langfuse"}


def test_claude_agent_figures_from_the_raw_observations():
    obs = _observations(CLAUDE)
    gens = [o for o in obs if o["type"] == "GENERATION"]
    tools = [o for o in obs if o["type"] == "TOOL"]
    outputs = [json.loads(o["output"]) for o in gens]
    calls = {b["id"]: b["input"] for out in outputs for b in out["content"]
             if b["type"] == "tool_use"}
    texts = [b["text"] for out in outputs for b in out["content"] if b["type"] == "text"]
    users = {json.loads(o["input"]).get("content") for o in gens
             if json.loads(o["input"]).get("role") == "user"}
    events, account = _events(CLAUDE)
    kinds = Counter(e["kind"] for e in events)
    assert kinds == {"USER": len(users), "ASSISTANT": len(texts), "CALL": len(calls),
                     "RESULT": len(tools)}
    # every TOOL observation answers the call of its arguments (the file has no call ids there)
    results = {e["call_id"]: e["text"] for e in events if e["kind"] == "RESULT"}
    for tool in tools:
        args = json.loads(tool["input"])["input"]
        call_id = next(i for i, a in calls.items() if a == args)
        assert results[call_id] == json.loads(tool["output"])["content"][0]["text"]
    assert account.records == len(obs)
    assert account.skipped == len(obs) - len(gens) - len(tools)   # the root SPAN


def test_claude_agent_order_is_inferred_from_start_times_and_said_so():
    """The later GENERATIONs' input is garbled (``{"content":"role"}``): their place comes
    from their start times, and their events say so; the observations are not in time
    order in the file, the events are."""
    obs = _observations(CLAUDE)
    starts = [o["startTime"] for o in obs]
    assert starts != sorted(starts)
    events, _ = _events(CLAUDE)
    assert [e["kind"] for e in events] == [
        "USER", "ASSISTANT", "CALL", "CALL", "RESULT", "RESULT", "ASSISTANT"]
    calls = [e for e in events if e["kind"] == "CALL"]
    berlin = next(o for o in obs if o["type"] == "GENERATION" and "Berlin" in o["output"]
                  and "tool_use" in o["output"])
    assert calls[0]["call_id"] == json.loads(berlin["output"])["content"][0]["id"]
    # an output's time is its GENERATION's end (the New York call's ends after both tool
    # runs: the file's own clock, which clock_regressions then counts)
    by_id = {json.loads(o["output"])["content"][0].get("id"): o for o in obs
             if o["type"] == "GENERATION"}
    for call in calls:
        assert call["ts"] == _ms(by_id[call["call_id"]]["endTime"])


def test_claude_agent_events_carry_the_inference_note():
    from explorer.formats import langfuse
    recs = [e for r in langfuse.records(CLAUDE) for e in r.events]
    by_kind = {}
    for e in recs:
        by_kind.setdefault(e["kind"], set()).add(e.get("note"))
    assert by_kind["RESULT"] == {"paired by arguments"}
    assert by_kind["CALL"] == {"order by time"}
    assert None in by_kind["ASSISTANT"]     # the first answer's place is recorded
    assert "note" not in next(e for e in recs if e["kind"] == "USER")


def test_openai_agents_figures_from_the_raw_observations():
    """OpenInference attributes in ``metadata``: the system message is only there (the
    Langfuse ``input`` is the Responses input list, without the instructions)."""
    obs = _observations(OPENAI)
    attrs = [json.loads(o["metadata"])["attributes"] for o in obs if o["type"] == "GENERATION"]
    longest = max(attrs, key=lambda a: sum(k.endswith(".message.role") for k in a))
    roles = [longest[f"llm.input_messages.{i}.message.role"] for i in range(
        sum(k.startswith("llm.input_messages.") and k.endswith(".message.role") for k in longest))]
    roles.append(longest["llm.output_messages.0.message.role"])
    events, account = _events(OPENAI)
    assert [e["kind"] for e in events] == [
        {"system": "SYSTEM", "user": "USER", "tool": "RESULT"}.get(r, "CALL" if i == 2 else "ASSISTANT")
        for i, r in enumerate(roles)]
    call = next(e for e in events if e["kind"] == "CALL")
    assert call["call_id"] == longest["llm.input_messages.2.message.tool_calls.0.tool_call.id"]
    assert call["tool"] == "get_weather"
    result = next(e for e in events if e["kind"] == "RESULT")
    assert result["call_id"] == longest["llm.input_messages.3.message.tool_call_id"]
    # the TOOL observation's result was sent to the model: read once, its record skipped
    types = Counter(o["type"] for o in obs)
    assert account.records == len(obs)
    assert account.skipped == types["AGENT"] + types["TOOL"]
    assert account.imported == types["GENERATION"]


@pytest.mark.parametrize("path", [CLAUDE, OPENAI])
def test_reported_usage_rides_on_the_first_output_event(path):
    from explorer.session.reported_usage import reported_usage
    obs = _observations(path)
    events, _ = _events(path)
    usages = [reported_usage(e["raw"]) for e in events if e["raw"]]
    want = [{k: v for k, v in (("input", o["usageDetails"]["input"]),
                               ("output", o["usageDetails"]["output"]),
                               ("cache_read", o["usageDetails"].get("prompt_details.cache_read")))
             if v is not None}
            for o in sorted((o for o in obs if o["type"] == "GENERATION"),
                            key=lambda o: o["startTime"])]
    assert [u for u in usages if u] == want


@pytest.mark.parametrize("path", [CLAUDE, OPENAI])
def test_a_session_per_trace(path):
    store = Store()
    try:
        import_paths(store, [path])
        sessions = store.con.execute("SELECT DISTINCT session_id FROM events").fetchall()
    finally:
        store.close()
    assert sessions == [(json.loads(path.read_text())["trace"]["id"],)]


def test_a_session_export_of_several_traces(tmp_path):
    """A Langfuse session (``{id, traces: [trace with its observations]}``) and a list of
    trace exports: every observation is a record, the session's id is the session."""
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in (CLAUDE, OPENAI)]
    session = {"id": "sess-1", "traces": [dict(d["trace"], observations=d["observations"])
                                          for d in docs]}
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps(docs))
    grouped = tmp_path / "session.json"
    grouped.write_text(json.dumps(session))
    alone = [_events(p) for p in (CLAUDE, OPENAI)]
    for path in (listed, grouped):
        assert detect(path).NAME == "langfuse"
        events, account = _events(path)
        assert account.records == sum(len(d["observations"]) for d in docs)
        assert len(events) == sum(len(e) for e, _ in alone)
    store = Store()
    try:
        import_paths(store, [grouped])
        assert store.con.execute("SELECT DISTINCT session_id FROM events").fetchall() == [("sess-1",)]
    finally:
        store.close()
