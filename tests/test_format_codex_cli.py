"""OpenAI Codex CLI rollouts (LOG-FORMATS.md §3): detection, counts against the real files of
the corpus (expected values derived from the raw lines by ``_expected`` below, not by the
reader), and each quirk §3 lists. Where the corpus has no example (un-enveloped items of very
old versions, an encrypted ``compaction`` item, ``error`` events, a plain-text exit status)
small samples are built from the documented schema, and the test says so."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from explorer.audits import counts as audits
from explorer.compaction.log import SessionLog
from explorer.compaction.strategies import parse as parse_strategy
from explorer.formats import codex_cli, detect, read_head
from explorer.ingest.imports import import_paths
from explorer.tokens.session_events import session_events
from tests.helpers import corpus_and_demo, detected_as, jsonl, pair_counts, stored_kinds

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
HERE = CORPUS / "codex-cli"
V040 = HERE / "jnarowski-agentcmd__rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"
RESUMED = HERE / "madshn-localpush__rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl"
COMPACTED = HERE / "madshn-localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
SHORT = HERE / "madshn-localpush__rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
FILES = (V040, RESUMED, COMPACTED, SHORT)
CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output")

recorded = parse_strategy("recorded").decide  # (log, budget) -> its Window


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _expected(path: Path) -> tuple[Counter, dict]:
    """Events by kind and the per-session pairing counts, from the file's own types and ids.
    The human prompts are the ``user_message`` events (LOG-FORMATS.md §3); every other
    user-role item is injected context (SYSTEM)."""
    rows = _lines(path)
    items = [r["payload"] for r in rows if r["type"] == "response_item"]
    events = Counter(r["payload"]["type"] for r in rows if r["type"] == "event_msg")
    roles = Counter(i["role"] for i in items if i["type"] == "message")
    kinds = Counter({
        "USER": events["user_message"],
        "ASSISTANT": roles["assistant"],
        "SYSTEM": roles["developer"] + roles["system"] + roles["user"] - events["user_message"]
        + sum(r["type"] == "session_meta" for r in rows)
        + events["turn_aborted"] + events["context_compacted"] + events["error"],
        "CALL": sum(i["type"] in CALLS for i in items),
        "RESULT": sum(i["type"] in OUTPUTS for i in items),
        "SUMMARY": sum(r["type"] == "compacted" for r in rows)
        + sum(i["type"] == "compaction" for i in items)})
    calls = Counter(i["call_id"] for i in items if i["type"] in CALLS and i.get("call_id"))
    results = Counter(i["call_id"] for i in items if i["type"] in OUTPUTS and i.get("call_id"))
    session = rows[0]["payload"]["id"]
    return +kinds, {session: {
        "calls": kinds["CALL"], "results": kinds["RESULT"],
        "dangling_calls": sum(n for c, n in calls.items() if c not in results),
        "orphan_results": sum(n for c, n in results.items() if c not in calls)}}


def _events(path: Path) -> list[dict]:
    return [e for r in codex_cli.records(path) for e in r.events]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_corpus_file_detected_imported_and_counted(store, path):
    assert detect(path).NAME == "codex-cli"
    report = import_paths(store, [path])
    assert not report.errors and report.rejected == 0
    kinds, per_session = _expected(path)
    assert stored_kinds(store) == kinds
    assert pair_counts(store) == per_session
    assert audits.session_counts(store)["turns"].to_list() == [kinds["USER"]]


def test_corpus_figures_of_sources_md():
    """The figures SOURCES.md gives for these files, as a cross-check of ``_expected``."""
    kinds, per = _expected(V040)
    assert kinds["CALL"] == kinds["RESULT"] == 123 and kinds["USER"] == 13
    kinds, per = _expected(COMPACTED)
    assert kinds["SUMMARY"] == 1 and kinds["USER"] == 38 and kinds["CALL"] == 316 + 49 + 7
    assert next(iter(per.values()))["dangling_calls"] == 0
    assert next(iter(_expected(RESUMED)[1].values()))["dangling_calls"] == 1
    kinds, per = _expected(SHORT)
    assert kinds["USER"] == 1 and next(iter(per.values()))["dangling_calls"] == 1


def test_no_other_file_is_detected_as_codex(tmp_path):
    others = corpus_and_demo(leave_out=HERE.iterdir())
    assert len(others) > 10
    for path in others:
        assert not codex_cli.matches(path, read_head(path)), path.name
    assert detected_as("codex-cli", others) == []
    shapes = {
        "canonical.jsonl": '{"session_id": "s", "seq": 1, "kind": "USER", "type": "message", "text": "hi"}\n',
        "item.jsonl": '{"type": "message", "role": "user", "content": "hi"}\n',
        "no_payload.jsonl": '{"timestamp": "2025-01-01T00:00:00Z", "type": "response_item"}\n',
        "meta_no_id.jsonl": '{"timestamp": "2025-01-01T00:00:00Z", "type": "session_meta", "payload": {}}\n',
        "array.json": '[{"timestamp": "2025-01-01T00:00:00Z", "type": "event_msg", "payload": {}}]\n',
    }
    for name, text in shapes.items():
        path = tmp_path / name
        path.write_text(text)
        assert not codex_cli.matches(path, read_head(path)), name


def test_event_msg_mirrors_and_configuration_are_skipped_by_reason():
    for path in FILES:
        rows = _lines(path)
        reasons = Counter(r.skipped for r in codex_cli.records(path) if r.skipped)
        raw = Counter(r["payload"]["type"] if r["type"] == "event_msg" else r["type"] for r in rows)
        mirrors = raw["user_message"] + raw["agent_message"] + raw["agent_reasoning"]
        assert reasons[codex_cli.SKIP_MIRROR] == mirrors
        assert reasons[codex_cli.SKIP_CONFIG] == raw["turn_context"]
        assert reasons[codex_cli.SKIP_PROGRESS] == raw["task_started"] + raw["task_complete"]
        usage = sum(n for k, n in reasons.items() if k.startswith("token_count"))
        assert usage == raw["token_count"]
        assert sum(reasons.values()) + sum(1 for _ in _events(path)) == len(rows)


def test_injected_context_is_synthetic_system_not_a_prompt():
    """13-19-38: 4 user-role items, 1 real prompt (line 9); lines 4, 5 and 11 are injected."""
    events = {e["seq"]: e for e in _events(SHORT)}
    assert [s for s, e in events.items() if e["kind"] == "USER"] == [9]
    for line in (4, 5, 11):
        assert events[line]["kind"] == "SYSTEM" and events[line]["synthetic"] is True
    developer = [s for s, e in events.items() if e["kind"] == "SYSTEM" and not e.get("synthetic")]
    assert developer == [2, 3, 6, 7]
    # the unsanitized 0.40 file: <environment_context> items are SYSTEM, IDE-context prompts USER
    v040 = _events(V040)
    env = [e for e in v040 if e.get("text", "").startswith("<environment_context>")]
    assert [e["seq"] for e in env] == [2, 267] and {e["kind"] for e in env} == {"SYSTEM"}
    assert all(e["text"].startswith("# Context from my IDE setup") for e in v040 if e["kind"] == "USER")


def test_prompt_with_an_image_is_matched_by_its_text_part():
    """12-54-34: 13 prompts carry an image (text, <image>, input_image, </image>); each is a
    USER event with its text parts, the image stays in raw."""
    events = [e for e in _events(COMPACTED) if e["kind"] == "USER"]
    images = [e for e in events if any(p["type"] == "input_image" for p in e["raw"]["payload"]["content"])]
    assert len(events) == 38 and len(images) == 13


def test_turn_aborted_and_items_flushed_after_it():
    """0.40: 4 turn_aborted markers (SYSTEM); twice the aborted function_call and its
    ``patch rejected by user`` output are written after the abort line, kept in file order,
    paired, and their error status unknown."""
    events = _events(V040)
    aborts = [e for e in events if e["kind"] == "SYSTEM" and e["raw"]["type"] == "event_msg"]
    assert [e["seq"] for e in aborts] == [169, 262, 552, 615]
    assert {e["text"] for e in aborts} == {"turn aborted: interrupted"}
    by_seq = {e["seq"]: e for e in events}
    for abort in (169, 262):
        call, result = by_seq[abort + 2], by_seq[abort + 3]
        assert call["kind"] == "CALL" and result["kind"] == "RESULT"
        assert call["call_id"] == result["call_id"] and result["text"] == "patch rejected by user"
        assert "is_error" not in result and result["ts"] > by_seq[abort]["ts"]


def test_is_error_from_the_exit_code_only():
    """8 outputs with metadata.exit_code != 0 are errors; the 7 plain-text ones are unknown."""
    codes = {}
    for r in _lines(V040):
        p = r["payload"]
        if p.get("type") == "function_call_output":
            try:
                codes[p["call_id"]] = json.loads(p["output"])["metadata"]["exit_code"]
            except ValueError:
                codes[p["call_id"]] = None
    got = {e["call_id"]: e.get("is_error") for e in _events(V040) if e["kind"] == "RESULT"}
    assert got == {c: None if code is None else code != 0 for c, code in codes.items()}
    assert Counter(got.values()) == {False: 108, True: 8, None: 7}
    # the redacted 0.104 outputs show no exit status
    assert {e.get("is_error") for e in _events(COMPACTED) if e["kind"] == "RESULT"} == {None}


def test_dangling_call_mid_file_before_a_resume(store):
    """12-47-42: the exec_command call of line 826 never gets an output; the session resumes
    15 minutes later in the same file with re-injected context, and later prompts."""
    import_paths(store, [RESUMED])
    dangling = [f for f in audits.findings(store) if f["rule"] == "dangling_calls"]
    assert [e for f in dangling for e in f["events"]] == [
        {"seq": 826, "sub": 0, "kind": "CALL", "call_id": "call_BpTazJ89W9PntRqGPwDNfwEY"}]
    rows = _lines(RESUMED)
    later = [e for e in _events(RESUMED) if e["seq"] > 826]
    assert [e["kind"] for e in later[:3]] == ["SYSTEM"] * 3   # the re-injected developer context
    assert sum(e["kind"] == "USER" for e in later) == sum(
        1 for r in rows[826:] if r["type"] == "event_msg" and r["payload"]["type"] == "user_message") > 0


def test_compacted_is_one_summary_and_the_recorded_view_starts_there(store):
    """12-54-34: the ``compacted`` line (1788) is one synthetic SUMMARY; its 40
    replacement_history copies are not events but its messages make the summary's text;
    the recorded view starts at it (inside a turn: the next event is not a USER)."""
    rows = _lines(COMPACTED)
    line = next(i for i, r in enumerate(rows, 1) if r["type"] == "compacted")
    history = rows[line - 1]["payload"]["replacement_history"]
    assert line == 1788 and len(history) == 40
    summary = [e for e in _events(COMPACTED) if e["kind"] == "SUMMARY"]
    assert [e["seq"] for e in summary] == [line] and summary[0]["synthetic"] is True
    messages = [h for h in history if h["type"] == "message"]
    assert summary[0]["text"].count("\n\n") == len(messages)   # the message, then each copy
    assert summary[0]["text"].split("\n\n")[1] == "user: " + messages[0]["content"][0]["text"]
    import_paths(store, [COMPACTED])
    sid = rows[0]["payload"]["id"]
    frame = session_events(store, sid)
    log = SessionLog.from_frame(sid, frame)
    cut = recorded(log, 1000).cut
    kinds = frame["kind"].cast(str)
    assert log.seq[cut] == line and kinds[cut] == "SUMMARY"
    assert kinds[cut + 1] == "SYSTEM" and frame["seq"][cut + 1] == line + 1  # context_compacted
    assert kinds[cut + 1:].to_list().count("USER") == 38 - sum(
        1 for r in rows[:line] if r["type"] == "event_msg" and r["payload"]["type"] == "user_message")


def test_web_search_calls_have_no_id_and_pair_with_nothing():
    calls = [e for e in _events(COMPACTED) if e["kind"] == "CALL" and e["tool"] == "web_search"]
    assert len(calls) == 7 and all("call_id" not in e for e in calls)


def test_reasoning_and_reported_usage_stay_in_raw_never_in_tokens():
    """Each reasoning item is in the raw of the next event; each token_count with new totals
    is on the first event of its response: after it in 0.40 (usage written first), before it
    in 0.104 (usage written after the response)."""
    for path, usage_first in ((V040, True), (COMPACTED, False)):
        rows = _lines(path)
        events = _events(path)
        assert not any("tokens" in e for e in events)
        reasoning = [r for r in rows if r["type"] == "response_item" and r["payload"]["type"] == "reasoning"]
        kept = [x for e in events for x in e["raw"].get("turnscope", {}).get("reasoning", [])]
        assert kept == reasoning
        totals, last = [], None
        for r in rows:
            if r["type"] == "event_msg" and r["payload"]["type"] == "token_count" and r["payload"]["info"]:
                total = r["payload"]["info"]["total_token_usage"]
                if total != last:
                    totals.append(total)
                last = total
        with_usage = [e for e in events if "reported_usage" in e["raw"].get("turnscope", {})]
        reported = [e["raw"]["turnscope"]["reported_usage"] for e in with_usage]
        assert [r["payload"]["info"]["total_token_usage"] for r in reported] == totals
        assert all(e["kind"] in ("ASSISTANT", "CALL") for e in with_usage)
        line_of = {json.dumps(r, sort_keys=True): i for i, r in enumerate(rows, 1)}
        lines = [line_of[json.dumps(r, sort_keys=True)] for r in reported]
        assert all((line < e["seq"]) == usage_first for line, e in zip(lines, with_usage))


def test_session_id_seq_and_ts_from_the_envelope():
    rows = _lines(SHORT)
    events = _events(SHORT)
    assert {e["session_id"] for e in events} == {"019c8a70-dda7-7f33-98ea-f30553347322"}
    assert events[0]["kind"] == "SYSTEM" and events[0]["seq"] == 1 and events[0]["synthetic"]
    assert events[0]["text"] == rows[0]["payload"]["base_instructions"]["text"]
    assert [e["ts"] for e in events] == [rows[e["seq"] - 1]["timestamp"] for e in events]
    assert events[0]["ts"].startswith("2026-02-23T12:19")   # UTC; the file name says 13-19 local


def test_old_unenveloped_items(tmp_path, store):
    """Built from LOG-FORMATS.md §3 ("very old versions wrote un-enveloped items"): a session
    header, then bare items and state records; the session id from the header."""
    path = jsonl(tmp_path / "rollout-old.jsonl", [
        {"id": "old-1", "timestamp": "2025-05-01T10:00:00Z", "instructions": "be brief"},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>x"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]},
        {"type": "reasoning", "summary": [], "encrypted_content": "e"},
        {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1",
         "output": json.dumps({"output": "no", "metadata": {"exit_code": 2}})},
    ])
    assert detect(path).NAME == "codex-cli"
    events = _events(path)
    assert [(e["kind"], e.get("synthetic")) for e in events] == [
        ("SYSTEM", True), ("SYSTEM", True), ("USER", None), ("CALL", None), ("RESULT", None)]
    assert {e["session_id"] for e in events} == {"old-1"} and events[-1]["is_error"] is True
    assert events[3]["raw"]["turnscope"]["reasoning"][0]["type"] == "reasoning"
    report = import_paths(store, [path])
    assert report.rejected == 0 and stored_kinds(store)["USER"] == 1


def test_encrypted_compaction_error_marker_and_plain_exit_status(tmp_path):
    """Built from LOG-FORMATS.md §3: a response_item ``compaction`` (SUMMARY), an ``error``
    event (SYSTEM), and newer plain-text outputs whose header gives the exit code."""
    def env(kind, payload):
        return {"timestamp": "2026-01-01T00:00:00.000Z", "type": kind, "payload": payload}
    path = jsonl(tmp_path / "r.jsonl", [
        env("session_meta", {"id": "s1", "timestamp": "2026-01-01T00:00:00.000Z"}),
        env("response_item", {"type": "compaction", "encrypted_content": "zzz"}),
        env("event_msg", {"type": "error", "message": "stream disconnected"}),
        env("response_item", {"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "a"}),
        env("response_item", {"type": "function_call_output", "call_id": "a",
                              "output": "Chunk ID: 1\nProcess exited with code 1\nOutput:\nboom"}),
        env("response_item", {"type": "function_call_output", "call_id": "b",
                              "output": "Exit code: 0\nOutput:\nProcess exited with code 7"}),
        env("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}}),
        "not json",
    ])
    path.write_text(path.read_text().replace('"not json"', "{not json"))
    recs = list(codex_cli.records(path))
    events = [e for r in recs for e in r.events]
    assert [e["kind"] for e in events] == ["SYSTEM", "SUMMARY", "SYSTEM", "CALL", "RESULT", "RESULT"]
    assert events[1]["synthetic"] is True and events[2]["text"] == "error: stream disconnected"
    assert [e["is_error"] for e in events[4:]] == [True, False]
    assert [r.skipped for r in recs if r.skipped] == [codex_cli.SKIP_SNAPSHOT]
    assert [(r.line, r.text) for r in recs if r.error] == [(8, "{not json")]


def _unified_exec(tmp_path: Path, with_end: bool) -> Path:
    """No public rollout with a failing unified-exec command was found (the corpus's 0.104
    files are redacted): built from the format's documentation (LOG-FORMATS.md §3 and the
    unified exec tools of Codex: ``exec_command`` answers ``Process running with session ID
    N`` while the command runs; ``write_stdin`` on session N polls it; the poll during which
    it ends reports ``Process exited with code C``; an ``exec_command_end`` event names the
    command's call_id with its ``exit_code``). One command fails (exit 2) after two polls; a
    second one succeeds at once."""
    def env(kind, payload, second):
        return {"timestamp": f"2026-01-01T00:00:{second:02d}.000Z", "type": kind, "payload": payload}

    def call(call_id, name, args, second):
        return env("response_item", {"type": "function_call", "name": name,
                                     "arguments": json.dumps(args), "call_id": call_id}, second)

    def output(call_id, text, second):
        return env("response_item", {"type": "function_call_output", "call_id": call_id,
                                     "output": text}, second)

    head = "Chunk ID: {c}\nWall time: 1.0 seconds\n{status}\nOriginal token count: 3\nOutput:\n{out}"
    rows = [
        env("session_meta", {"id": "s-exec", "timestamp": "2026-01-01T00:00:00.000Z"}, 0),
        call("c-make", "exec_command", {"cmd": "make test", "yield_time_ms": 1000}, 1),
        output("c-make", head.format(c=1, status="Process running with session ID 7", out="building"), 2),
        call("c-poll1", "write_stdin", {"session_id": 7, "chars": ""}, 3),
        output("c-poll1", head.format(c=2, status="Process running with session ID 7", out="..."), 4),
        call("c-poll2", "write_stdin", {"session_id": 7, "chars": ""}, 5),
        output("c-poll2", head.format(c=3, status="Process exited with code 2", out="FAILED"), 6),
        call("c-ls", "exec_command", {"cmd": "ls"}, 7),
        output("c-ls", head.format(c=4, status="Process exited with code 0", out="a b"), 8),
    ]
    if with_end:
        rows.insert(7, env("event_msg", {"type": "exec_command_end", "call_id": "c-make",
                                         "exit_code": 2, "aggregated_output": "FAILED"}, 6))
    return jsonl(tmp_path / f"exec-{with_end}.jsonl", rows)


@pytest.mark.parametrize("with_end", [False, True], ids=["polls-only", "exec_command_end"])
def test_unified_exec_failure_lands_on_the_command_that_failed(tmp_path, with_end):
    """Issue 15, item 6: the non-zero exit is an error of the exec_command's RESULT, not of
    the write_stdin poll that reported it; the exec_command_end record that carries the
    code is an OTHER event (note `exec end`), not skipped as progress."""
    path = _unified_exec(tmp_path, with_end)
    recs = list(codex_cli.records(path))
    results = {e["call_id"]: e.get("is_error") for r in recs for e in r.events if e["kind"] == "RESULT"}
    assert results == {"c-make": True, "c-poll1": None, "c-poll2": None, "c-ls": False}
    ends = [e for r in recs for e in r.events if e.get("note") == "exec end"]
    assert [(e["kind"], e["text"]) for e in ends] == ([("OTHER", "exit code 2")] if with_end else [])
    assert not any(r.skipped for r in recs)
