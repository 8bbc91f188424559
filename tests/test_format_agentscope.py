"""AgentScope markers in any format (LOG-FORMATS.md §1, SPRING-AI-SESSION.md).

No real AgentScope file exists (AgentScope publishes no table format, and the corpus has no
AgentScope session), so the events and the Spring AI dump here are built from the documented
markers: a message named ``__compaction_summary__`` (id prefix ``__compaction_summary__:``),
metadata ``agentscope.tool_result_evicted``, the ``Tool output was too large (`` notice and
the ``...(N chars pruned)...`` cut.
"""

from __future__ import annotations

import json

import pytest

from explorer.formats.agentscope import EVICTED, MARKER_KEY, PRUNED, SUMMARY, mark
from explorer.ingest.imports import import_paths

NAME = "__compaction_summary__"


def _ev(kind, text="t", **extra):
    return {"session_id": "s", "seq": 1, "kind": kind, "text": text, **extra}


@pytest.mark.parametrize("event", [
    _ev("USER", raw={"role": "user", "name": NAME, "content": "so far"}),           # chat message
    _ev("USER", raw={"message": {"role": "user", "name": NAME, "content": "x"}}),   # envelope
    _ev("USER", raw=json.dumps({"id": f"{NAME}:abc", "role": "user"})),             # raw as text
    _ev("USER", message_id=f"{NAME}:abc"),
    _ev("ASSISTANT", event_id=f"{NAME}:abc#0"),
])
def test_compaction_summary_message_becomes_summary(event):
    marked = mark(event)
    assert marked["kind"] == "SUMMARY" and marked["synthetic"] is True
    assert marked[MARKER_KEY] == SUMMARY
    assert event["kind"] != "SUMMARY"  # the input is not changed
    assert mark(marked) == marked      # applying it twice changes nothing


def test_calls_and_results_of_a_summary_message_keep_their_kind():
    for kind in ("CALL", "RESULT"):
        event = _ev(kind, call_id="c1", message_id=f"{NAME}:1")
        assert mark(event) is event


@pytest.mark.parametrize("event", [
    _ev("USER", raw={"role": "user", "name": "alice"}),
    _ev("USER", text=NAME),                                        # only saying the name
    _ev("USER", raw={"messages": [{"name": NAME}]}),               # quoting other messages
    _ev("USER", raw={"request": {"message": {"name": NAME}}}),     # deeper than an envelope
    _ev("RESULT", text="the output ...(12 chars) ... no marker"),
    _ev("RESULT", text="Tool output was too large, not the notice"),
])
def test_other_events_are_left_alone(event):
    assert mark(event) is event


def test_evicted_result_keeps_kind_pairing_and_is_flagged():
    notice = _ev("RESULT", "Tool output was too large (120000 chars); saved to /tmp/x",
                 call_id="c1", tool="bash")
    by_meta = _ev("RESULT", "head ... tail", call_id="c2", tool="grep",
                  raw={"metadata": {"agentscope.tool_result_evicted": True}})
    nested = _ev("RESULT", "head", call_id="c3",
                 raw={"msg": {"metadata": json.dumps({"agentscope": {"tool_result_evicted": True}})}})
    for event in (notice, by_meta, nested):
        marked = mark(event)
        assert (marked["kind"], marked["call_id"], marked.get("tool")) == (
            "RESULT", event["call_id"], event.get("tool"))
        assert marked[MARKER_KEY] == EVICTED and marked["synthetic"] is True
    assert mark(_ev("USER", "Tool output was too large (1 chars)")).get(MARKER_KEY) is None


def test_pruned_result_is_flagged_and_keeps_its_text():
    text = "first lines\n...(48,213 chars pruned)...\nlast lines"
    event = _ev("RESULT", text, call_id="c1", synthetic=False)
    marked = mark(event)
    assert marked[MARKER_KEY] == PRUNED
    assert (marked["kind"], marked["text"], marked["synthetic"]) == ("RESULT", text, False)


def test_markers_in_a_spring_ai_dump_are_imported(store, tmp_path):
    """A Spring AI dump (built from the schema) of an AgentScope session: the summary row and
    an evicted and a pruned tool response, through the whole import."""
    t = "2026-03-01 10:00:0{}"
    rows = [
        dict(seq=1, id=f"{NAME}:1", session_id="s", timestamp=t.format(1), message_type="USER",
             message_content="Summary of the earlier conversation", synthetic=False,
             archived=False),
        dict(seq=2, id="a", session_id="s", timestamp=t.format(2), message_type="ASSISTANT",
             message_content="", message_data=json.dumps([
                 {"id": "c1", "type": "function", "name": "bash", "arguments": "{}"},
                 {"id": "c2", "type": "function", "name": "grep", "arguments": "{}"}]),
             synthetic=False, archived=False),
        dict(seq=3, id="b", session_id="s", timestamp=t.format(3), message_type="TOOL",
             message_content="", message_data=json.dumps([
                 {"id": "c1", "name": "bash",
                  "responseData": "Tool output was too large (90000 chars)"},
                 {"id": "c2", "name": "grep", "responseData": "a\n...(5000 chars pruned)...\nz"}]),
             synthetic=False, archived=False),
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert import_paths(store, [path]).rejected == 0
    got = store.con.execute(
        "SELECT CAST(kind AS VARCHAR), call_id, d.synthetic, "
        "json_extract_string(d.raw, '$.agentscope') FROM events e "
        "JOIN event_details d USING (eid) ORDER BY seq, sub").fetchall()
    assert got == [("SUMMARY", None, True, SUMMARY),
                   ("CALL", "c1", False, None), ("CALL", "c2", False, None),
                   ("RESULT", "c1", True, EVICTED), ("RESULT", "c2", False, PRUNED)]

