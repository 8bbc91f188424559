"""OpenAI Chat Completions reader (LOG-FORMATS.md §4) on the real corpus files: tau-bench
trajectories and pydantic-ai VCR cassettes. Expected counts come from the raw files with a
few lines of independent code (PyYAML / json), never from the reader."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
import yaml

from explorer import formats
from explorer.audits import counts as audits
from explorer.cli.demo import demo_paths
from explorer.formats import anthropic_messages, openai_chat, read_head
from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS
from tests.helpers import cassette_body, stored_kinds

HERE = CORPUS / "openai-chat-completions"
FILES = sorted(HERE.iterdir())
CASSETTES = [p for p in FILES if p.suffix == ".yaml"]
TAU = HERE / "sierra-research-tau-bench__gpt-4o-airline.json"
OTHERS = [p for p in CORPUS.rglob("*") if p.is_file() and p.parent != HERE
          and p.name != "SOURCES.md"]


def _streamed(chunks: list[dict]) -> dict:
    """The reply of ``chat.completion.chunk`` payloads, as this test builds it: the chunks'
    tool-call ids and their contents joined."""
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    calls = [t for d in deltas for t in d.get("tool_calls") or [] if t.get("id")]
    content = "".join(d.get("content") or "" for d in deltas)
    return {"choices": [{"message": {"role": "assistant", "content": content or None,
                                     "tool_calls": [{"id": t["id"]} for t in calls]}}]}


def body(part: dict) -> dict:
    return cassette_body(part, _streamed)


def last_conversation(path: Path) -> list[dict]:
    """The last Chat Completions request's messages plus its reply, read with PyYAML."""
    chats = [i for i in yaml.safe_load(path.read_text())["interactions"]
             if "messages" in body(i["request"])]
    last = body(chats[-1]["request"])
    for earlier in chats[:-1]:  # every earlier request is replayed by the last one
        msgs = body(earlier["request"])["messages"]
        assert last["messages"][:len(msgs)] == msgs
    return last["messages"] + [body(chats[-1]["response"])["choices"][0]["message"]]


def expected(conversations: dict[str, list[dict]]) -> tuple[Counter, dict]:
    """Events by kind, and per session (dangling, orphan), from the messages' own ids."""
    kinds: Counter = Counter()
    per_session = {}
    for session, msgs in conversations.items():
        calls, results = [], []
        for m in msgs:
            role = m["role"]
            kinds[{"system": "SYSTEM", "developer": "SYSTEM", "user": "USER",
                   "tool": "RESULT"}.get(role, "")] += role != "assistant"
            if role == "assistant":
                kinds["ASSISTANT"] += bool(m.get("content"))
                calls += [c["id"] for c in m.get("tool_calls") or []]
                kinds["CALL"] += len(m.get("tool_calls") or [])
            if role == "tool":
                results.append(m["tool_call_id"])
        per_session[session] = (sum(1 for c in calls if c and c not in results),
                                sum(1 for r in results if r and r not in calls))
    return +kinds, per_session


def imported(store, path: Path) -> tuple[Counter, dict, dict]:
    report = import_paths(store, [str(path)])
    assert not report.errors and report.rejected == 0
    kinds = stored_kinds(store)
    counts = audits.session_counts(store)
    per_session = {r["session_id"]: (r["dangling_calls"], r["orphan_results"])
                   for r in counts.iter_rows(named=True)}
    return kinds, per_session, audits.totals(counts)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_corpus_files_are_detected_as_chat_completions(path):
    assert formats.detect(path).NAME == openai_chat.NAME


@pytest.mark.parametrize("path", OTHERS + demo_paths(), ids=lambda p: p.name[:40])
def test_no_other_file_is_taken_for_chat_completions(path):
    assert not openai_chat.matches(path, read_head(path))


def conversations(path: Path) -> dict[str, list[dict]]:
    """Each conversation of a cassette: a Chat Completions request that no later, longer
    request replays, with its reply (the same request recorded twice is two), keyed as the
    reader keys sessions (the file, or file/<interaction number> when there are several)."""
    items = yaml.safe_load(path.read_text())["interactions"]
    chats = [(n, body(i["request"])["messages"], i) for n, i in enumerate(items, start=1)
             if "messages" in body(i["request"])]
    heads = [(n, msgs + [body(i["response"])["choices"][0]["message"]])
             for k, (n, msgs, i) in enumerate(chats)
             if not any(len(later) > len(msgs) and later[:len(msgs)] == msgs
                        for _, later, _ in chats[k + 1:])]
    return {path.stem if len(heads) == 1 else f"{path.stem}/{n}": msgs for n, msgs in heads}


@pytest.mark.parametrize("path", CASSETTES, ids=lambda p: p.name[:40])
def test_cassette_counts_match_the_last_request_and_reply(store, path):
    kinds, per_session, _ = imported(store, path)
    want_kinds, want = expected(conversations(path))
    assert kinds == want_kinds
    assert per_session == want


def test_a_request_recorded_twice_is_two_conversations(store):
    """openllmetry recorded the same streamed request twice (2024 and 2026, new ids): the
    later request does not re-send the first reply, so both replies are kept and all 4
    calls dangle, as SOURCES.md says."""
    path = HERE / "traceloop-openllmetry__test_open_ai_function_calls_tools_streaming_parallel.yaml"
    _, per_session, totals = imported(store, path)
    assert sorted(per_session) == [f"{path.stem}/1", f"{path.stem}/2"]
    assert (totals["calls"], totals["dangling_calls"]) == (4, 4)


def test_tau_bench_counts_per_conversation(store):
    data = json.loads(TAU.read_text())
    convs = {f"{e['task_id']}/{e['trial']}": e["traj"] for e in data}
    kinds, per_session, totals = imported(store, TAU)
    want_kinds, want = expected(convs)
    assert kinds == want_kinds and per_session == want
    assert totals["sessions"] == len(data) == 25
    assert totals["calls"] == totals["results"] == 144


def test_tau_bench_reused_call_ids_are_counted_not_orphaned(store):
    """71 calls reuse an id seen earlier in the file, 8 inside one conversation (SOURCES.md):
    those 8 are duplicate_call_ids, and no reuse shows as an orphan or dangling call."""
    data = json.loads(TAU.read_text())
    inside = 0
    seen: set = set()
    across = 0
    for e in data:
        ids = Counter(c["id"] for m in e["traj"] for c in m.get("tool_calls") or [])
        inside += sum(1 for n in ids.values() if n > 1)
        for m in e["traj"]:
            for c in m.get("tool_calls") or []:
                across += c["id"] in seen
                seen.add(c["id"])
    assert (inside, across) == (8, 71)
    *_, totals = imported(store, TAU)
    assert totals["duplicate_call_ids"] == inside
    assert totals["orphan_results"] == totals["dangling_calls"] == 0


def test_replayed_requests_are_skipped_records():
    """Each earlier request of a cassette is one skipped record; Gemini-native ones too."""
    path = HERE / "pydantic-pydantic-ai__test_multiple_agent_tool_calls.yaml"
    skipped = Counter(r.skipped for r in openai_chat.records(path) if r.skipped)
    assert skipped == {"not an exchange of this API": 2,
                       "history re-sent in a later request": 1}


def test_output_tool_dangles_by_design(store):
    path = HERE / "pydantic-pydantic-ai__test_openai_tool_output.yaml"
    import_paths(store, [str(path)])
    rows = store.con.execute("SELECT call_id, tool FROM events WHERE kind = 'CALL'").fetchall()
    results = {r[0] for r in store.con.execute(
        "SELECT call_id FROM events WHERE kind = 'RESULT'").fetchall()}
    assert [tool for cid, tool in rows if cid not in results] == ["final_result"]
    assert audits.totals(audits.session_counts(store))["dangling_calls"] == 1


def test_client_made_id_pairs_and_the_empty_api_id_stays_in_raw(store):
    """Gemini's endpoint answered ``id: ""``; the replay carries the client's ``pyd_ai_`` id.
    The imported call pairs by that id; the reply as recorded is kept in ``raw``."""
    path = HERE / "pydantic-pydantic-ai__test_compatible_api_with_tool_calls_without_id.yaml"
    import_paths(store, [str(path)])
    call_id, raw = store.con.execute(
        "SELECT e.call_id, d.raw FROM events e JOIN event_details d USING (eid) "
        "WHERE e.kind = 'CALL'").fetchall()[0]
    assert call_id.startswith("pyd_ai_")
    recorded = json.loads(raw)["response"]["reply_as_recorded"]
    assert recorded["tool_calls"][0]["id"] == ""
    assert audits.totals(audits.session_counts(store))["orphan_results"] == 0


def test_reported_usage_is_in_raw_never_in_tokens(store):
    path = HERE / "pydantic-pydantic-ai__test_openai_tool_output.yaml"
    usage = [i["response"]["parsed_body"]["usage"]
             for i in yaml.safe_load(path.read_text())["interactions"]]
    import_paths(store, [str(path)])
    assert store.con.execute("SELECT count(tokens) FROM events").fetchall() == [(0,)]
    raws = [json.loads(r) for (r,) in store.con.execute(
        "SELECT d.raw FROM events e JOIN event_details d USING (eid) "
        "WHERE e.kind = 'CALL' ORDER BY e.seq").fetchall()]
    assert [r["response"]["usage"] for r in raws] == usage


@pytest.mark.parametrize("shape", ["messages", "body"])
def test_a_bare_message_list_and_a_request_body(store, tmp_path, shape):
    """Made from the real tau-bench conversation of task 0 (no such dump in the corpus): the
    same messages as a bare array or a request body give the same events."""
    traj = json.loads(TAU.read_text())[0]["traj"]
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps(traj if shape == "messages" else
                               {"model": "gpt-4o", "messages": traj}))
    assert openai_chat.json_shape(read_head(path)) == shape
    assert formats.detect(path).NAME == openai_chat.NAME
    kinds, per_session, _ = imported(store, path)
    assert (kinds, per_session) == expected({"conversation": traj})


@pytest.mark.parametrize("text", [
    '{"session_id": "s", "seq": 1, "kind": "USER", "text": "hi"}\n',
    '{"sessionId": "x", "messages": [{"type": "user", "content": "hi"}]}',
    '[{"id": 0, "source": "user", "message": "hi", "action": "message"}]',
    '[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}]',
    '{"messages": []}',
])
def test_other_json_shapes_are_not_chat_completions(tmp_path, text):
    path = tmp_path / "other.json"
    path.write_text(text)
    assert not openai_chat.matches(path, read_head(path))


def test_list_content_and_legacy_function_messages(store, tmp_path):
    """Built from the documented schema (no such file in the corpus): content parts, a
    legacy ``function_call`` (a CALL without id) and its ``function`` result."""
    msgs = [{"role": "developer", "content": [{"type": "text", "text": "be brief"}]},
            {"role": "user", "content": [{"type": "text", "text": "look"},
                                         {"type": "image_url", "image_url": {"url": "x"}}]},
            {"role": "assistant", "content": None,
             "function_call": {"name": "f", "arguments": "{}"}},
            {"role": "function", "name": "f", "content": "ok"}]
    path = tmp_path / "legacy.json"
    path.write_text(json.dumps(msgs))
    import_paths(store, [str(path)])
    rows = pl.DataFrame(store.con.execute(
        "SELECT CAST(kind AS VARCHAR) AS kind, call_id, tool, d.text FROM events "
        "JOIN event_details d USING (eid) ORDER BY seq, sub").fetchall(), orient="row",
        schema=["kind", "call_id", "tool", "text"])
    assert rows.rows() == [("SYSTEM", None, None, "be brief"),
                           ("USER", None, None, "look\n[image_url]"),
                           ("CALL", None, "f", "{}"), ("RESULT", None, "f", "ok")]
    totals = audits.totals(audits.session_counts(store))
    assert totals["dangling_calls"] == totals["orphan_results"] == 0


def test_anthropic_reader_does_not_take_these_files():
    for path in FILES:
        assert not anthropic_messages.matches(path, read_head(path))
