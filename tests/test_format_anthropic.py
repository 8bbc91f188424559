"""Anthropic Messages reader (LOG-FORMATS.md §5) on the real pydantic-ai cassettes. Expected
counts come from the raw files with a few lines of independent code (PyYAML)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from explorer import formats
from explorer.audits import counts as audits
from explorer.cli.demo import demo_paths
from explorer.formats import anthropic_messages, openai_chat, read_head
from explorer.ingest.imports import import_paths
from explorer.session.data import load_session
from explorer.session.preview import overlay
from tests.conftest import CORPUS
from tests.helpers import cassette_body, stored_kinds

HERE = CORPUS / "anthropic-messages"
FILES = sorted(HERE.iterdir())
OTHERS = [p for p in CORPUS.rglob("*") if p.is_file() and p.parent != HERE
          and p.name != "SOURCES.md"]
THINKING = HERE / "pydantic-pydantic-ai__test_anthropic_tool_with_thinking.yaml"
COMPACTION = HERE / "pydantic-pydantic-ai__test_anthropic_compaction_end_to_end.yaml"


def interactions(path: Path) -> list[dict]:
    """A cassette's interactions; a HAR file's entries in the same shape (bodies as text)."""
    if path.suffix == ".har":
        return [{"request": {"body": e["request"]["postData"]["text"]},
                 "response": {"body": e["response"]["content"]["text"]}}
                for e in json.loads(path.read_text())["log"]["entries"]]
    return yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))[
        "interactions"]


def _streamed(events: list[dict]) -> dict:
    """The reply of a streamed Messages body, as this test reads it: the blocks each
    ``content_block_start`` opens (enough to count kinds and ids; the reader joins the
    deltas too)."""
    return {"content": [e["content_block"] for e in events
                        if e.get("type") == "content_block_start"]}


def body(part: dict) -> dict:
    return cassette_body(part, _streamed)


def last_conversation(path: Path) -> tuple[str | None, list[dict]]:
    """The system prompt and the last request's messages plus its reply (checking that every
    earlier request is a prefix of the last one). A reply the client replayed with blocks
    left out (server tools, citations) is taken as received, the API's own ids all kept."""
    items = interactions(path)
    last = body(items[-1]["request"])
    msgs = list(last["messages"])
    for earlier in items[:-1]:
        sent = body(earlier["request"])["messages"]
        assert last["messages"][:len(sent)] == sent
        got = body(earlier["response"])["content"]
        ids = {b.get("id") for b in got} - {None}
        replay = msgs[len(sent)]["content"]
        if isinstance(replay, list) and {b.get("id") for b in replay} - {None} <= ids:
            msgs[len(sent)] = {"role": "assistant", "content": got}
    reply = {"role": "assistant", "content": body(items[-1]["response"])["content"]}
    return last.get("system"), msgs + [reply]


def kind_of(block: dict, role: str) -> str:
    """LOG-FORMATS.md's kind of a content block ("" for none: thinking)."""
    t = block["type"]
    if t in ("tool_use", "server_tool_use", "mcp_tool_use"):
        return "CALL"
    if t == "tool_result" or t.endswith("_tool_result"):
        return "RESULT"
    return {"compaction": "SUMMARY", "thinking": "", "redacted_thinking": "",
            "text": "USER" if role == "user" else "ASSISTANT"}[t]


def expected(path: Path) -> tuple[Counter, tuple[int, int]]:
    """Events by kind, and (dangling, orphan), from the blocks and their ids."""
    system, msgs = last_conversation(path)
    kinds = Counter({"SYSTEM": 1} if system else {})
    calls, results = [], []
    for m in msgs:
        blocks = [{"type": "text"}] if isinstance(m["content"], str) else m["content"]
        for b in blocks:
            kind = kind_of(b, m["role"])
            kinds[kind] += 1
            calls += [b["id"]] if kind == "CALL" else []
            results += [b["tool_use_id"]] if kind == "RESULT" else []
    del kinds[""]
    return +kinds, (sum(c not in results for c in calls), sum(r not in calls for r in results))


def imported(store, path: Path):
    report = import_paths(store, [str(path)])
    assert not report.errors and report.rejected == 0
    kinds = stored_kinds(store)
    counts = audits.session_counts(store)
    assert counts.height == 1 and counts["session_id"][0] == path.stem
    return kinds, (counts["dangling_calls"][0], counts["orphan_results"][0])


@pytest.mark.parametrize("path", FILES, ids=lambda p: getattr(p, "name", "")[:40])
def test_corpus_files_are_detected_as_anthropic_messages(path):
    assert formats.detect(path).NAME == anthropic_messages.NAME
    assert not openai_chat.matches(path, read_head(path))


@pytest.mark.parametrize("path", OTHERS + demo_paths(), ids=lambda p: p.name[:40])
def test_no_other_file_is_taken_for_anthropic_messages(path):
    assert not anthropic_messages.matches(path, read_head(path))


@pytest.mark.parametrize("path", FILES, ids=lambda p: getattr(p, "name", "")[:40])
def test_counts_match_the_last_request_and_reply(store, path):
    assert imported(store, path) == expected(path)


def test_earlier_requests_are_skipped_as_replays():
    path = HERE / "pydantic-pydantic-ai__test_anthropic_mixed_strict_tool_run.yaml"
    skipped = [r.skipped for r in anthropic_messages.records(path) if r.skipped]
    assert skipped == ["history re-sent in a later request"] * (len(interactions(path)) - 1)


def test_thinking_makes_no_event_and_stays_in_raw_of_the_first_event(store):
    import_paths(store, [str(THINKING)])
    thought = interactions(THINKING)[0]["response"]["parsed_body"]["content"][0]["thinking"]
    rows = store.con.execute(
        "SELECT e.seq, e.sub, CAST(e.kind AS VARCHAR), e.message_id, d.text, d.raw FROM events e "
        "JOIN event_details d USING (eid) ORDER BY e.seq, e.sub").fetchall()
    assert all(thought not in (text or "") for *_, text, _ in rows)
    first = [r for r in rows if r[3] == "msg_01WvueFjZVbHcj4H4zUzeGv2"]
    assert [(r[1], r[2]) for r in first] == [(0, "ASSISTANT"), (1, "CALL")]
    raw = json.loads(first[0][5])
    assert raw["message"]["content"][0]["thinking"] == thought
    assert raw["response"]["usage"]["output_tokens"] == 155
    assert first[1][5] is None


def test_tool_result_is_error_and_usage_not_in_tokens(store):
    path = HERE / "pydantic-pydantic-ai__test_anthropic_mixed_strict_tool_run.yaml"
    import_paths(store, [str(path)])
    flags = store.con.execute("SELECT d.is_error FROM events e JOIN event_details d USING (eid) "
                              "WHERE e.kind = 'RESULT'").fetchall()
    assert flags == [(False,), (False,)]
    assert store.con.execute("SELECT count(tokens) FROM events").fetchall() == [(0,)]


def test_compaction_block_is_the_recorded_summary(store):
    """The server-side compaction block is a synthetic SUMMARY; the recorded view starts at
    it, leaving out the huge prompt it stands for, and so starts inside that turn."""
    import_paths(store, [str(COMPACTION)])
    summary = interactions(COMPACTION)[0]["response"]["parsed_body"]["content"][0]["content"]
    rows = store.con.execute(
        "SELECT CAST(e.kind AS VARCHAR), d.text, d.synthetic FROM events e "
        "JOIN event_details d USING (eid) WHERE e.kind = 'SUMMARY'").fetchall()
    assert rows == [("SUMMARY", summary, True)]
    data = load_session(store, COMPACTION.stem)
    view = overlay(data.log, "recorded", 1000)
    kinds = [k for k, keep in zip(data.log.columns()[2], view.in_view) if keep]
    assert kinds == ["SUMMARY", "ASSISTANT", "USER", "ASSISTANT"]
    assert view.metrics["starts_inside_turn"] is True


def test_server_tool_blocks_and_json_history(store, tmp_path):
    """Built from the documented schema (no such file in the corpus): a JSON message list
    (Cline's api_conversation_history.json shape) with a server tool and its result."""
    msgs = [{"role": "user", "content": "find it"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "hm", "signature": "s"},
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                 "input": {"query": "q"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
                 "content": {"type": "web_search_tool_result_error", "error_code": "x"}},
                {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2",
                                          "content": [{"type": "text", "text": "body"}],
                                          "is_error": True}]}]
    path = tmp_path / "api_conversation_history.json"
    path.write_text(json.dumps(msgs))
    assert formats.detect(path).NAME == anthropic_messages.NAME
    import_paths(store, [str(path)])
    rows = store.con.execute(
        "SELECT CAST(e.kind AS VARCHAR), e.call_id, e.tool, d.is_error FROM events e "
        "JOIN event_details d USING (eid) ORDER BY e.seq, e.sub").fetchall()
    assert rows == [("USER", None, None, None), ("CALL", "srvtoolu_1", "web_search", None),
                    ("RESULT", "srvtoolu_1", "web_search", True),
                    ("CALL", "toolu_2", "read", None), ("RESULT", "toolu_2", "read", True)]


def test_a_gzip_compressed_body_reads_as_the_plain_one(store, tmp_path):
    """No corpus cassette keeps a compressed body, so this one is made from a real streamed
    cassette the way vcrpy writes one it did not decode: the gzip bytes, base64 under
    ``!!binary``. It must import exactly as the plain file does."""
    import gzip

    plain = HERE / "traceloop-openllmetry__test_anthropic_tools_streaming_legacy.yaml"
    data = interactions(plain)
    for item in data:
        text = item["response"]["body"]["string"]
        item["response"]["body"]["string"] = gzip.compress(text.encode())
    packed = tmp_path / plain.name
    packed.write_text(yaml.safe_dump({"interactions": data}))
    assert "!!binary" in packed.read_text()
    assert imported(store, packed) == expected(plain)
