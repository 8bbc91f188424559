"""OpenHands V1 agent-SDK reader (docs/FORMATS.md §C) on the real files: the SDK's JSON Lines
fixture, the same events as a JSON list (which crashed the V0 reader), and the CLI's
one-file-per-event folder. Expected figures come from the raw events by this test's own code."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from explorer import formats
from explorer.audits import counts as audits
from explorer.cli.demo import demo_paths
from explorer.cli.main import main
from explorer.formats import openhands, openhands_v1, read_head
from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS
from tests.helpers import pair_counts, stored_kinds

HERE = CORPUS / "openhands-v1"
JSONL = HERE / "OpenHands-software-agent-sdk__events.jsonl"
FOLDER = HERE / "OpenHands-OpenHands-CLI__cli447_hi_followup_iterative_case_a"
EVENT_FILES = sorted(FOLDER.iterdir())
OTHERS = [p for p in CORPUS.rglob("*") if p.is_file() and HERE not in p.parents
          and p.name != "SOURCES.md"]


def jsonl_events() -> list[dict]:
    return [json.loads(line) for line in JSONL.read_text().splitlines() if line.strip()]


def folder_events() -> list[dict]:
    return [json.loads(p.read_text()) for p in EVENT_FILES]


def parts_text(value) -> list[str]:
    if isinstance(value, dict):
        value = [value]
    return [p["text"] for p in value or [] if p.get("type") == "text"]


def expected(events: list[dict]) -> tuple[Counter, dict[str, int], int, int]:
    """Events by kind; calls, results, dangling, orphans (by tool_call_id); the RESULTs that
    are errors; the records skipped."""
    kinds, calls, results, errors, skipped = Counter(), [], [], 0, 0
    for e in events:
        k = e["kind"]
        if k == "SystemPromptEvent":
            kinds["SYSTEM"] += 1
        elif k == "MessageEvent":
            kinds[{"user": "USER", "assistant": "ASSISTANT"}[e["llm_message"]["role"]]] += 1
        elif k == "ActionEvent":
            kinds["ASSISTANT"] += bool("".join(parts_text(e.get("thought"))))
            kinds["CALL"] += 1
            calls.append(e["tool_call_id"])
        elif k == "ObservationEvent":
            kinds["RESULT"] += 1
            results.append(e["tool_call_id"])
            obs = e["observation"]
            codes = [obs.get("exit_code"), (obs.get("metadata") or {}).get("exit_code")]
            errors += obs.get("is_error") is True or any(isinstance(c, int) and c != 0
                                                         for c in codes)
        elif k == "ConversationStateUpdateEvent" and e["key"] == "stats":
            kinds["OTHER"] += 1
        else:
            skipped += 1
    pairs = {"calls": len(calls), "results": len(results),
             "dangling_calls": sum(c not in results for c in calls),
             "orphan_results": sum(r not in calls for r in results)}
    return +kinds, pairs, errors, skipped


def _imported(store, path: Path):
    report = import_paths(store, [str(path)])
    assert not report.errors
    file = report.files[0]
    assert file.rejected == 0
    assert file.records == file.imported + file.skipped + file.rejected + file.duplicates
    return file


@pytest.mark.parametrize("path", [JSONL, *EVENT_FILES], ids=lambda p: p.name[:40])
def test_files_are_detected_as_openhands_v1(path):
    assert formats.detect(path).NAME == openhands_v1.NAME
    assert not openhands.matches(path, read_head(path))


@pytest.mark.parametrize("path", OTHERS + demo_paths(), ids=lambda p: p.name[:40])
def test_no_other_file_is_taken_for_openhands_v1(path):
    assert not openhands_v1.matches(path, read_head(path))


def test_jsonl_figures_match_the_raw_events(store):
    file = _imported(store, JSONL)
    kinds, pairs, errors, skipped = expected(jsonl_events())
    assert stored_kinds(store) == kinds
    assert pair_counts(store) == {JSONL.stem: pairs}
    assert pairs["orphan_results"] == 1   # the trimmed slice lost one action (SOURCES.md)
    assert file.skipped == skipped and file.records == len(jsonl_events())
    flagged = store.con.execute("SELECT count(*) FROM event_details WHERE is_error").fetchall()
    assert flagged == [(errors,)]


def test_the_same_events_as_a_json_list_import_alike(store, tmp_path):
    """A JSON list of V1 events crashed the V0 reader (unhashable dict); it reads as V1."""
    listed = tmp_path / f"{JSONL.stem}.json"
    listed.write_text(json.dumps(jsonl_events(), indent=1))
    assert formats.detect(listed).NAME == openhands_v1.NAME
    _imported(store, listed)
    kinds, pairs, _, _ = expected(jsonl_events())
    assert stored_kinds(store) == kinds and pair_counts(store) == {JSONL.stem: pairs}


def test_a_folder_of_event_files_is_one_conversation():
    assert openhands_v1.is_event_folder(FOLDER) and not openhands_v1.is_event_folder(HERE)
    records = list(openhands_v1.records(FOLDER))
    assert len(records) == len(EVENT_FILES)
    assert all(r.error is None and r.skipped is None for r in records)
    events = [e for r in records for e in r.events]
    assert {e["session_id"] for e in events} == {FOLDER.name}
    assert [r.line for r in records] == [int(p.name[6:11]) + 1 for p in EVENT_FILES]
    kinds, pairs, _, _ = expected(folder_events())
    assert Counter(e["kind"] for e in events) == kinds
    assert pairs == {"calls": 3, "results": 3, "dangling_calls": 0, "orphan_results": 0}


def test_the_event_files_imported_one_by_one_give_the_folders_session(store):
    report = import_paths(store, [str(p) for p in EVENT_FILES])
    assert not report.errors and report.rejected == 0
    kinds, pairs, _, _ = expected(folder_events())
    assert stored_kinds(store) == kinds
    assert pair_counts(store) == {FOLDER.name: pairs}
    # one session from many inputs: what shared_keys says
    assert audits.corpus_counts(store)["shared_keys"] == 1


def test_the_folder_is_one_input_through_the_cli(capsys):
    """`turnscope audit FOLDER`: the folder is one file of the report (its records the
    event files), one session, no shared keys; its figures are the raw events'."""
    assert formats.detect(FOLDER).NAME == openhands_v1.NAME
    assert main(["audit", "--json", str(FOLDER)]) == 0
    doc = json.loads(capsys.readouterr().out)
    (file,) = doc["files"]
    kinds, pairs, _, skipped = expected(folder_events())
    assert (file["path"], file["format"]) == (str(FOLDER), openhands_v1.NAME)
    assert file["records"] == len(EVENT_FILES) == file["imported"] + skipped
    assert file["events"] == doc["events"] == sum(kinds.values())
    assert (doc["sessions"], doc["shared_keys"], doc["not_logs"]) == (1, 0, [])
    assert {k: doc[k] for k in pairs} == pairs


def test_the_folders_row_in_files_is_the_folder(store):
    """The files table holds one row for the folder: its size the sum of its event files'."""
    import_paths(store, [str(FOLDER)])
    rows = store.con.execute("SELECT path, size, records FROM files").fetchall()
    assert rows == [(str(FOLDER), sum(p.stat().st_size for p in EVENT_FILES),
                     len(EVENT_FILES))]
    assert audits.corpus_counts(store)["shared_keys"] == 0


def test_a_folder_above_it_keeps_the_event_folder_whole(store):
    report = import_paths(store, [str(HERE)])
    assert sorted(f.path for f in report.files) == sorted([str(FOLDER), str(JSONL)])
    assert report.not_logs == [] and report.errors == []


def test_the_folder_imported_again_is_unchanged_until_a_file_changes(store, tmp_path):
    """The folder's identity for re-import is its event files (names, lengths, bytes): the
    same folder is not read again; an event file removed makes it read again, in place."""
    copy = Path(shutil.copytree(FOLDER, tmp_path / FOLDER.name))
    first = import_paths(store, [str(copy)]).files[0]
    again = import_paths(store, [str(copy)]).files[0]
    assert not first.unchanged and again.unchanged and again.records == first.records
    max(copy.iterdir()).unlink()
    third = import_paths(store, [str(copy)]).files[0]
    assert not third.unchanged and third.records == len(EVENT_FILES) - 1
    assert store.con.execute("SELECT count(*), max(records) FROM files").fetchall() == [
        (1, len(EVENT_FILES) - 1)]
    (events,), = store.con.execute("SELECT count(*) FROM events").fetchall()
    assert events == third.events < first.events


def _source_pieces(events: list[dict]) -> list[str]:
    """Every text, thinking, tool input, tool output and usage figure of the events."""
    pieces = []
    for e in events:
        pieces += parts_text((e.get("llm_message") or {}).get("content"))
        pieces += parts_text(e.get("thought")) + parts_text(e.get("system_prompt"))
        pieces += [e["reasoning_content"]] if e.get("reasoning_content") else []
        pieces += [b["thinking"] for b in e.get("thinking_blocks") or []]
        pieces += [e["tool_call"]["arguments"]] if "tool_call" in e else []
        pieces += parts_text((e.get("observation") or {}).get("content"))
        if e.get("key") == "stats":
            usage = e["value"]["usage_to_metrics"]["default"]["accumulated_token_usage"]
            pieces.append(str(usage["prompt_tokens"]))
    return [p for p in pieces if p]


def strings(value) -> list[str]:
    """Every string and number inside a JSON value."""
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [str(value)] if value is not None else []


@pytest.mark.parametrize("source", ["jsonl", "folder"])
def test_no_content_is_silently_dropped(store, source):
    if source == "jsonl":
        import_paths(store, [str(JSONL)])
        events = jsonl_events()
    else:
        import_paths(store, [str(FOLDER)])
        events = folder_events()
    rows = store.con.execute(
        "SELECT d.text, CAST(d.raw AS VARCHAR) FROM event_details d").fetchall()
    stored = [t for t, _ in rows if t] + [s for _, raw in rows if raw
                                          for s in strings(json.loads(raw))]
    missing = [p for p in _source_pieces(events) if not any(p in s for s in stored)]
    assert missing == []
