"""Type confusion (issue 14 §5, §4): one value of a real log replaced by a value of another
type (or a string holding a lone surrogate) is a rejected record naming its JSON path, never
a crash; the rest of the file is imported and every record is accounted for. A JSON key
repeated with two values is a rejected record naming the key.

The fuzz walks every value of the seed file (JSON text inside a string, as cassette bodies
and Spring AI's ``message_data`` are, is walked too), replaces one, writes the file back and
imports it with the real import.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from explorer.formats import LogFileError, detect, registry
from explorer.ingest.imports import import_paths
from explorer.store.db import Store
from tests.conftest import CORPUS
from tests.interchange_samples import atif_sample, otlp_current
from tests.test_format_spring_ai import sample_rows, write_jsonl
from tests.test_fuzz import reconcile

#: One real file per agent format (the smallest of its corpus folder).
SEEDS = {
    "claude-code": "claude-code/marot-spotter__agent-aac57f5.jsonl",
    "swe-agent": "swe-agent/princeton-nlp-SWE-agent__6e44b9__sweagenttestrepo-1c2844.traj",
    "openhands": "openhands/All-Hands-AI-OpenHands__basic.json",
    "openhands-v1": "openhands-v1/OpenHands-software-agent-sdk__events.jsonl",
    "openai-responses": "openai-responses/traceloop-openllmetry__test_music_composer_handoff_hierarchy.yaml",
    "inspect-ai": "inspect-ai/UKGovernmentBEIS-inspect_ai__2025-05-12T20-27-36-04-00_browser.json",
    "gemini-cli": "gemini-cli/jnarowski-agentcmd__session-2025-10-29T10-39-a63242d9.json",
    "codex-cli": "codex-cli/madshn-localpush__rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl",
    "anthropic-messages": "anthropic-messages/pydantic-pydantic-ai__test_anthropic_tool_with_thinking.yaml",
    "openai-chat-completions": "openai-chat-completions/pydantic-pydantic-ai__test_openai_tool_output.yaml",
    "langfuse": "langfuse/langfuse-langfuse__openai-agents-2025-09-30.trace.json",
}
#: Formats without a corpus file (Spring AI dumps: made from the format test's rows; ATIF
#: and OTLP JSON: built from their specifications, tests/interchange_samples.py; the owners
#: table is a companion file, never imported alone).
MADE = {"spring-ai-session", "atif", "otel-json"}
COMPANIONS = {"spring-ai-session-owners"}
#: What a rejection for a wrong type says: ``<path>: expected <what>, got <type>``.
WRONG = re.compile(r"[\w.\[\]]+: expected [a-z ]+, got [a-z]+")

LONE = "a\ud800b"
VALUES = (None, 0, 1.5, True, "x", LONE, [], {}, [1, "y"], {"k": 1})

RECORD_READERS = [r.NAME for r in registry.READERS if r.KIND == "records"]


def _kind(value) -> type:
    return type(value) if not isinstance(value, bool) else bool


def _paths(value, at=()) -> list[tuple]:
    """Every place in ``value`` (a key or index path; ``"<json>"`` steps into a string of
    JSON text)."""
    out = []
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        items = []
    for key, child in items:
        out.append(at + (key,))
        inner = _json_in(child)
        if inner is not None:
            out.extend(_paths(inner, at + (key, "<json>")))
        else:
            out.extend(_paths(child, at + (key,)))
    return out


def _json_in(value):
    if isinstance(value, str) and value[:1] in "{[":
        try:
            inner = json.loads(value)
        except ValueError:
            return None
        return inner if isinstance(inner, (dict, list)) else None
    return None


def _replaced(doc, path: tuple, new):
    """``doc`` with the value at ``path`` replaced by ``new`` (strings of JSON re-written)."""
    if not path:
        return new
    key, rest = path[0], path[1:]
    if rest[:1] == ("<json>",):
        child = json.dumps(_replaced(json.loads(doc[key]), rest[1:], new))
    else:
        child = _replaced(doc[key], rest, new)
    copy = dict(doc) if isinstance(doc, dict) else list(doc)
    copy[key] = child
    return copy


def _load(path: Path):
    """The seed's documents: one per line for JSON Lines, else the whole file."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if path.suffix == ".yaml":
        return yaml.safe_load(text)
    return json.loads(text)


def _dump(path: Path, doc, target: Path) -> None:
    if path.suffix == ".jsonl":
        target.write_text("".join(json.dumps(d) + "\n" for d in doc), encoding="utf-8")
    elif path.suffix == ".yaml":
        target.write_text(yaml.safe_dump(doc, allow_unicode=False, sort_keys=False), encoding="utf-8")
    else:
        target.write_text(json.dumps(doc, indent=1), encoding="utf-8")


@pytest.fixture(scope="module")
def seeds(tmp_path_factory) -> dict[str, Path]:
    found = {name: CORPUS / rel for name, rel in SEEDS.items()}
    folder = tmp_path_factory.mktemp("seeds")
    found["spring-ai-session"] = write_jsonl(folder / "events.jsonl", sample_rows())
    found["atif"] = atif_sample(folder / "trajectory.json")
    found["otel-json"] = otlp_current(folder / "traces.json")
    return found


def test_every_record_reader_has_a_seed():
    assert set(RECORD_READERS) == set(SEEDS) | MADE | COMPANIONS


def _accounted(report) -> list[str]:
    """What does not add up in a one-file report: records = imported + skipped + rejected +
    duplicates (an event row rejected by the canonical typing, a timestamp that is no time,
    may add a row to the rejected table for a record counted once: FileReport)."""
    if report.errors:   # a file no longer taken for its format is refused, with a reason
        return [f"error of type {type(e).__name__}" for e in report.errors
                if not isinstance(e, LogFileError)]
    f = report.files[0]
    if f.records != f.imported + f.skipped + f.rejected + f.duplicates:
        return [f"records {f.records} != {f.imported} + {f.skipped} + {f.rejected} + {f.duplicates}"]
    return []


def _import(path: Path) -> tuple[list[str], list[str]]:
    """Import ``path`` alone: what does not add up, and the rejection reasons."""
    store = Store()
    try:
        problems = _accounted(import_paths(store, [path]))
        reasons = [r for (r,) in store.con.execute("SELECT reason FROM rejected").fetchall()]
        return problems, reasons
    finally:
        store.close()


@pytest.mark.parametrize("name", sorted(set(SEEDS) | MADE))
def test_a_value_of_another_type_is_a_rejected_record(name, seeds, tmp_path_factory):
    seed = seeds[name]
    doc = _load(seed)
    places = _paths(doc)
    base_problems, base_reasons = _import(seed)
    assert base_problems == []
    work = tmp_path_factory.mktemp(name)

    @settings(max_examples=30, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(st.integers(0, len(places) - 1), st.sampled_from(VALUES))
    def mutated(index, new):
        place = places[index]
        if seed.suffix == ".yaml" and "<json>" not in place and new == LONE:
            new = "x"   # YAML cannot carry a lone surrogate; the JSON bodies inside can
        old = _value_at(doc, place)
        if _kind(old) == _kind(new) and old != LONE:
            new = LONE if isinstance(old, str) else "x"
        target = work / f"mutated{seed.suffix}"
        _dump(seed, _replaced(doc, place, new), target)
        note(f"{place} = {new!r} (was {type(old).__name__})")
        problems, reasons = _import(target)
        assert problems == []
        typed = [r for r in reasons if r not in base_reasons and ", got " in r]
        assert all(WRONG.fullmatch(r) for r in typed), typed

    mutated()


def _value_at(doc, path: tuple):
    for key in path:
        doc = json.loads(doc) if key == "<json>" else doc[key]
    return doc


#: Per reader: the key of a value to replace (its first place in the seed, in a request for
#: a cassette), the value put there, and the rejection that names it.
SPECIFIC = [
    ("claude-code", "tool_use_id", {}, "message.content[0].tool_use_id: expected string or number, got object"),
    ("codex-cli", "content", 5, "payload.content: expected array, got number"),
    ("openhands", "tool_call_metadata", "x", "tool_call_metadata: expected object, got string"),
    ("openhands-v1", "tool_call_id", {}, "tool_call_id: expected string or number, got object"),
    ("swe-agent", "tool_call_ids", "x", "tool_call_ids: expected array, got string"),
    ("gemini-cli", "toolCalls", "x", "toolCalls: expected array, got string"),
    ("inspect-ai", "tool_calls", "x", "tool_calls: expected array, got string"),
    ("anthropic-messages", "tool_use_id", {}, "content[0].tool_use_id: expected string or number, got object"),
    ("openai-chat-completions", "tool_calls", "x", "tool_calls: expected array, got string"),
    ("spring-ai-session", "timestamp", [1], "timestamp: expected string or number, got array"),
]


def _import_one(path: Path):
    """Import ``path`` alone: its file report and the rejection reasons."""
    store = Store()
    try:
        report = import_paths(store, [path])
        assert not report.errors and reconcile(store, report) == []
        reasons = [r for (r,) in store.con.execute("SELECT reason FROM rejected").fetchall()]
        return report.files[0], reasons
    finally:
        store.close()


@pytest.mark.parametrize(("name", "key", "new", "reason"), SPECIFIC, ids=[s[0] for s in SPECIFIC])
def test_a_wrong_type_is_rejected_with_its_path(name, key, new, reason, seeds, tmp_path):
    seed = seeds[name]
    doc = _load(seed)
    place = next(p for p in _paths(doc) if p[-1] == key and "response" not in p)
    target = tmp_path / f"wrong{seed.suffix}"
    _dump(seed, _replaced(doc, place, new), target)
    assert detect(target).NAME == name
    before, _ = _import_one(seed)
    after, reasons = _import_one(target)
    assert reason in reasons
    assert after.rejected == before.rejected + 1   # that record only; the rest goes on
    assert after.records == before.records


def test_a_lone_surrogate_is_kept_visible_as_its_escape(tmp_path):
    """A lone surrogate (valid JSON, no Unicode) is imported written as ``\\ud800``."""
    seed = CORPUS / SEEDS["claude-code"]
    lines = seed.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"type":"user"' in line.replace(" ", ""))
    record = json.loads(lines[at])
    record["message"] = {"role": "user", "content": "before \ud800 after"}
    lines[at] = json.dumps(record)   # ensure_ascii: the file holds the escape \ud800
    target = tmp_path / "surrogate.jsonl"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = Store()
    try:
        report = import_paths(store, [target])
        assert not report.errors and report.rejected == 0
        texts = [t for (t,) in store.con.execute("SELECT text FROM event_details").fetchall()]
        assert "before \\ud800 after" in texts
    finally:
        store.close()


def _demo_log() -> Path:
    from explorer.cli.demo import demo_paths
    return demo_paths()[0]


@pytest.mark.parametrize(("seed", "key", "reason", "one_event"), [
    (lambda: CORPUS / SEEDS["claude-code"], "sessionId",
     "key 'sessionId' repeated with two values", False),
    # DuckDB reads canonical JSON Lines and would keep a repeated key's first value only.
    (_demo_log, "text", "key 'text' repeated with two values", True),
], ids=["claude-code", "canonical-jsonl"])
def test_a_repeated_key_on_a_line_rejects_that_line(tmp_path, seed, key, reason, one_event):
    """The first line holding ``key`` gets it a second time, with another value: that line
    is rejected naming the key, every other line imported as before (a canonical line is
    one event; an agent's line may be several)."""
    seed = seed()
    data = seed.read_bytes()
    lines = (gzip.decompress(data) if seed.suffix == ".gz" else data).decode("utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if f'"{key}"' in line)
    lines[at] = lines[at][:-1] + f', "{key}": "another"}}'
    target = tmp_path / "repeated.jsonl"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before, _ = _import_one(seed)
    after, reasons = _import_one(target)
    assert reason in reasons
    assert after.rejected == before.rejected + 1 and after.records == before.records
    if one_event:
        assert after.events == before.events - 1


@pytest.mark.parametrize("seed", [lambda: CORPUS / SEEDS["claude-code"], _demo_log],
                         ids=["claude-code", "canonical-jsonl"])
def test_a_key_repeated_with_the_same_value_loses_nothing_and_is_read(tmp_path, seed):
    """Issue 14: canonical JSON Lines and the agent readers agree: a key written twice with
    one value loses nothing, so the line is imported as before (two values: rejected)."""
    seed = seed()
    data = seed.read_bytes()
    lines = (gzip.decompress(data) if seed.suffix == ".gz" else data).decode("utf-8").splitlines()
    key = "sessionId" if seed.suffix == ".jsonl" and "sessionId" in lines[0] else "seq"
    at = next(i for i, line in enumerate(lines) if f'"{key}"' in line)
    value = json.loads(lines[at])[key]
    lines[at] = lines[at].rstrip()[:-1] + f', "{key}": {json.dumps(value)}}}'
    target = tmp_path / "repeated.jsonl"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before, _ = _import_one(seed)
    after, reasons = _import_one(target)
    assert not [r for r in reasons if "repeated" in r]
    assert (after.rejected, after.records, after.events) == (
        before.rejected, before.records, before.events)


def test_a_repeated_key_in_a_document_rejects_that_record(tmp_path):
    seed = CORPUS / SEEDS["gemini-cli"]
    text = seed.read_text(encoding="utf-8")
    doc = json.loads(text)
    first = json.dumps(doc["messages"][0])
    doubled = first[:-1] + ', "type": "gemini"}'
    assert first in json.dumps(doc)
    target = tmp_path / "repeated.json"
    target.write_text(json.dumps(doc).replace(first, doubled, 1), encoding="utf-8")
    before, _ = _import_one(seed)
    after, reasons = _import_one(target)
    assert "record: key 'type' repeated with two values" in reasons
    assert after.rejected == before.rejected + 1 and after.records == before.records


@pytest.mark.parametrize("head", [
    '{"id": "s", "timestamp": "2025-01-01T00:00:00Z"}\n{"type": ["message"]}\n',   # codex-cli
    '{"sessionId": "s", "projectHash": "h", "messages": [{"type": ["user"]}]}',     # gemini-cli
], ids=["codex-cli", "gemini-cli"])
def test_a_wrong_type_in_the_head_never_breaks_detection(head, tmp_path):
    """Sniffing a file whose first records hold a list where a type name goes says the file
    is not a recognised format (no reader takes it: canonical JSON Lines needs its fields)
    instead of raising TypeError."""
    path = tmp_path / "head.jsonl"
    path.write_text(head, encoding="utf-8")
    with pytest.raises(LogFileError, match="not a recognised log format"):
        detect(path)


def test_a_cassette_whose_messages_are_not_a_list_is_read(seeds, tmp_path):
    """A request's ``parsed_body.messages`` given as a string (the lines of its messages are
    looked up in the YAML) is not an exchange of the API, not an AttributeError."""
    seed = seeds["anthropic-messages"]
    doc = _load(seed)
    target = tmp_path / "messages.yaml"
    _dump(seed, _replaced(doc, ("interactions", 0, "request", "parsed_body", "messages"), "x"),
          target)
    problems, _ = _import(target)
    assert problems == []

