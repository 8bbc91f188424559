"""Issue 6 §1: every record of every input is accounted for — records = imported + skipped
+ rejected + duplicates, per file and in total, in the report, the ``files`` table,
``turnscope audit --json`` and the window's import report."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from explorer.cli.generate import generate
from explorer.cli.main import main
from explorer.formats import LogFileError, codex_cli, detect
from explorer.ingest.imports import ACCOUNT_KEYS, import_paths
from explorer.store.db import Store
from tests.helpers import corpus_and_demo, detected_as, jsonl
from tests.test_format_spring_ai import sample_rows, write_csv


def _readable(paths) -> list[Path]:
    found = []
    for path in paths:
        try:
            detect(Path(path))
            found.append(Path(path))
        except LogFileError:
            pass
    return found


@pytest.fixture(scope="module")
def extra_files(tmp_path_factory) -> list[Path]:
    """Canonical CSV and Parquet (generated) and a Spring AI dump: formats the corpus lacks."""
    folder = tmp_path_factory.mktemp("formats")
    out = [folder / "gen.csv", folder / "gen.parquet"]
    for path in out:
        generate(path, sessions=6, turns=4, p_retry=0.2, seed=3)
    return [*out, write_csv(folder / "AI_SESSION_EVENT.csv", sample_rows())]


FILES = _readable(corpus_and_demo())


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _count(store: Store, table: str) -> int:
    return store.con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]


def _import_one(path: Path):
    store = Store()
    report = import_paths(store, [path])
    assert not report.errors, report.errors
    return store, report.files[0]


def _check_file(store: Store, f) -> None:
    assert f.records == f.imported + f.skipped + f.rejected + f.duplicates > 0, f
    assert f.skipped == sum(f.skipped_by_reason.values())
    assert f.events == _count(store, "events")
    assert f.duplicate_events == _count(store, "duplicates")
    assert f.imported <= f.events and f.duplicates <= f.duplicate_events
    # the rejected table keeps at least one row per rejected record
    assert _count(store, "rejected") >= f.rejected
    row = store.frame("list_files").to_dicts()[0]
    assert {k: row[k] for k in ACCOUNT_KEYS} == {k: getattr(f, k) for k in ACCOUNT_KEYS}
    assert json.loads(row["skipped_by_reason"]) == f.skipped_by_reason


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:60])
def test_every_corpus_and_demo_file_reconciles(path):
    store, f = _import_one(path)
    _check_file(store, f)
    assert f.format == detect(path).NAME


def test_every_format_is_covered_and_reconciles(extra_files):
    formats = set()
    for path in [*FILES, *extra_files]:
        store, f = _import_one(path)
        _check_file(store, f)
        formats.add(f.format)
    assert {"canonical-jsonl", "canonical-csv", "canonical-parquet", "claude-code", "codex-cli",
            "spring-ai-session", "swe-agent", "openhands", "inspect-ai", "gemini-cli",
            "anthropic-messages", "openai-chat-completions"} <= formats


def test_claude_code_skips_counted_by_reason_from_the_raw_lines():
    paths = detected_as("claude-code", FILES)
    assert paths
    for path in paths:
        _, f = _import_one(path)
        raw = Counter(r.get("type") for r in _lines(path))
        reasons = f.skipped_by_reason
        progress = sum(n for k, n in reasons.items() if k.startswith("progress ("))
        assert progress == raw["progress"]
        assert reasons.get("file-history snapshot", 0) == raw["file-history-snapshot"]
        assert reasons.get("queue operation", 0) == raw["queue-operation"]
        assert f.records == sum(raw.values())
    spotter = next(p for p in paths if "ae4a77f8" in p.name)
    _, f = _import_one(spotter)
    assert f.skipped > 0 and f.skipped_by_reason["progress (agent_progress)"] == 25


def test_codex_skips_counted_by_reason_from_the_raw_lines():
    paths = detected_as("codex-cli", FILES)
    assert paths
    for path in paths:
        _, f = _import_one(path)
        rows = _lines(path)
        msgs = Counter(r["payload"]["type"] for r in rows if r.get("type") == "event_msg")
        kinds = Counter(r.get("type") for r in rows)
        reasoning = sum(1 for r in rows if r.get("type") == "response_item"
                        and r["payload"].get("type") == "reasoning")
        reasons = f.skipped_by_reason
        assert f.skipped > 0 and f.records == len(rows)
        assert reasons.get(codex_cli.SKIP_CONFIG, 0) == kinds["turn_context"]
        assert reasons.get(codex_cli.SKIP_REASONING, 0) == reasoning
        assert sum(n for k, n in reasons.items() if k.startswith("token_count")) == msgs["token_count"]
        mirrors = sum(msgs[k] for k in ("user_message", "agent_message", "agent_reasoning"))
        assert reasons.get(codex_cli.SKIP_MIRROR, 0) == mirrors


def test_document_formats_count_their_elements():
    """Inspect AI: every sample message is a record and every sample event a skipped one;
    SWE-agent: every trajectory step is a skipped copy of history, but a step whose action
    no history entry took (the final submit), which is imported."""
    inspect_paths = detected_as("inspect-ai", FILES)
    assert inspect_paths
    for path in inspect_paths:
        _, f = _import_one(path)
        samples = json.loads(path.read_text(encoding="utf-8"))["samples"]
        assert f.records == sum(len(s.get("messages") or []) + len(s.get("events") or [])
                                for s in samples)
        assert f.skipped == sum(len(s.get("events") or []) for s in samples)
    swe_paths = detected_as("swe-agent", FILES)
    assert swe_paths
    for path in swe_paths:
        _, f = _import_one(path)
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert f.records == len(doc["history"]) + len(doc.get("trajectory") or [])
        actions = {(h.get("action") or "").strip() for h in doc["history"]}
        alone = [t for t in doc["trajectory"] if t["action"].strip() not in actions]
        assert f.skipped_by_reason["trajectory step (a copy of history)"] == \
            len(doc["trajectory"]) - len(alone)


def test_canonical_jsonl_worked_by_hand(store, tmp_path, capsys):
    """Six lines, one blank: two kept, one copy of the first, one bad seq, one kept CALL."""
    path = tmp_path / "hand.jsonl"
    rows = [
        {"session_id": "s", "seq": 1, "kind": "USER", "event_id": "e1", "text": "hi"},
        {"session_id": "s", "seq": 2, "kind": "ASSISTANT", "event_id": "e2", "text": "ok"},
        None,
        {"session_id": "s", "seq": 3, "kind": "USER", "event_id": "e1", "text": "hi"},
        {"session_id": "s", "seq": "abc", "kind": "USER", "text": "bad"},
        {"session_id": "s", "seq": 4, "kind": "CALL", "call_id": "c", "tool": "t"},
    ]
    path.write_text("".join((json.dumps(r) if r else "") + "\n" for r in rows), encoding="utf-8")
    f = import_paths(store, [path]).files[0]
    assert (f.records, f.imported, f.skipped, f.rejected, f.duplicates, f.events) == (5, 3, 0, 1, 1, 3)
    assert store.con.execute("SELECT line FROM rejected").fetchall() == [(5,)]
    assert store.con.execute("SELECT line FROM duplicates").fetchall() == [(4,)]
    status = main(["audit", str(path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    expected = {"records": 5, "imported": 3, "skipped": 0, "rejected": 1, "duplicates": 1, "events": 3}
    assert status == 0 and doc["input"] == expected
    assert doc["files"] == [{"path": str(path), "format": "canonical-jsonl", **expected,
                             "skipped_by_reason": {}, "unknown_types": {}}]


def _cc(uuid: str, kind: str, content, ts="2025-01-01T00:00:00Z", **extra) -> dict:
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = f"m-{uuid}"
    return {"type": kind, "sessionId": "S", "uuid": uuid, "timestamp": ts, "message": message, **extra}


def test_agent_format_worked_by_hand(store, tmp_path):
    """A Claude Code transcript: a record of two events counts once; a repeated line is a
    duplicate record; progress and snapshot lines are skipped by reason; an unparsable
    timestamp and a broken line are rejected records; the blank line is no record."""
    lines = [
        json.dumps(_cc("u1", "user", "hello")),
        json.dumps(_cc("a1", "assistant", [{"type": "text", "text": "sure"},
                                           {"type": "tool_use", "id": "c1", "name": "Bash",
                                            "input": {"command": "ls"}}])),
        json.dumps({"type": "progress", "sessionId": "S", "data": {"type": "hook_progress"}}),
        json.dumps({"type": "file-history-snapshot", "snapshot": {}}),
        "",
        json.dumps(_cc("u1", "user", "hello")),
        json.dumps(_cc("u2", "user", "late", ts="not a time")),
        '{"type": "user", "sessionId": "S", "uu',
    ]
    path = tmp_path / "cc.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert detect(path).NAME == "claude-code"
    f = import_paths(store, [path]).files[0]
    assert (f.records, f.imported, f.skipped, f.rejected, f.duplicates, f.events) == (7, 2, 2, 2, 1, 3)
    assert f.skipped_by_reason == {"progress (hook_progress)": 1, "file-history snapshot": 1}
    assert [r[0] for r in store.con.execute("SELECT line FROM rejected ORDER BY line").fetchall()] == [7, 8]


def test_staging_maps_every_row_to_its_record(store):
    """record_rows: a record of two events maps both rows to it; a skipped one has no row."""
    from explorer.ingest import staging

    good = {"session_id": "s", "seq": 1, "kind": "USER", "text": "a"}
    bad = {"session_id": "s", "seq": 1, "sub": 1, "kind": "NOPE", "text": "b"}
    records = [staging.Record(1, [good, bad]), staging.Record(2, skipped="why")]
    chunks = list(staging.stage(store, records))
    assert len(chunks) == 1
    mapped = store.con.execute("SELECT row_no, rec, skipped FROM record_rows ORDER BY rec, row_no").fetchall()
    assert mapped == [(0, 0, None), (1, 0, None), (None, 1, "why")]


def test_partly_rejected_record_in_an_import(store, monkeypatch):
    """The rule for a record whose events are partly rejected (FileReport's docstring):
    imported, the rejected event still listed in the rejected table."""
    from explorer.formats import openhands
    from explorer.ingest import staging

    def records(path):
        yield staging.Record(1, [{"session_id": "s", "seq": 1, "kind": "USER", "text": "a"},
                                 {"session_id": "s", "seq": 1, "sub": 1, "kind": "NOPE"}])
        yield staging.Record(2, [{"session_id": "s", "seq": 2, "kind": "BAD"}])
        yield staging.Record(3)   # neither events nor a reason: skipped as "no events"

    monkeypatch.setattr(openhands, "records", records)
    path = next(p for p in FILES if detect(p).NAME == "openhands")
    f = import_paths(store, [path]).files[0]
    assert (f.records, f.imported, f.skipped, f.rejected, f.duplicates, f.events) == (3, 1, 1, 1, 0, 1)
    assert f.skipped_by_reason == {staging.NO_EVENTS: 1}
    assert _count(store, "rejected") == 2


def test_unchanged_file_reports_its_stored_counts(tmp_path):
    path = next(p for p in FILES if "ae4a77f8" in p.name)
    db = tmp_path / "a.duckdb"
    first = Store(db)
    before = import_paths(first, [path]).files[0]
    first.close()
    again = Store(db)
    after = import_paths(again, [path]).files[0]
    assert after.unchanged and not before.unchanged
    assert {k: getattr(after, k) for k in ACCOUNT_KEYS} == {k: getattr(before, k) for k in ACCOUNT_KEYS}
    assert after.skipped_by_reason == before.skipped_by_reason
    again.close()


def test_audit_json_input_sums_the_files(capsys):
    paths = [p for p in FILES if detect(p).NAME in ("claude-code", "codex-cli", "canonical-jsonl")]
    assert main(["audit", *map(str, paths), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["files"]) == len(paths)
    for entry in doc["files"]:
        assert set(entry) == {"path", "format", *ACCOUNT_KEYS, "skipped_by_reason", "unknown_types"}
        assert entry["records"] == sum(entry[k] for k in ("imported", "skipped", "rejected", "duplicates"))
        assert entry["skipped"] == sum(entry["skipped_by_reason"].values())
    assert doc["input"] == {k: sum(e[k] for e in doc["files"]) for k in ACCOUNT_KEYS}
    assert doc["input"]["skipped"] > 0 and doc["input"]["events"] == doc["events"]
    assert main(["audit", *map(str, paths)]) == 0
    text = capsys.readouterr().out
    assert "input records (records = imported + skipped + rejected + duplicates)" in text
    assert f"{doc['input']['skipped']:>10}" in text


# -- the window's import report ------------------------------------------------------------

def _report(extra_files):
    store = Store()
    paths = [*detected_as({"claude-code", "codex-cli"}, FILES), extra_files[0],
             Path(__file__)]   # this file: not a log, one error
    return import_paths(store, paths)


def test_import_report_model_and_total_row(qtmodeltester, extra_files):
    from PySide6.QtCore import Qt

    from widgets.import_report_dialog import COLUMNS, ImportReportModel

    report = _report(extra_files)
    model = ImportReportModel(report)
    qtmodeltester.check(model)
    keys = [key for key, _, _ in COLUMNS]
    assert model.rowCount() == len(report.files) + 1 and model.columnCount() == len(COLUMNS)
    total = model.rowCount() - 1
    for key in ACCOUNT_KEYS:
        column = keys.index(key)
        cells = [model.index(r, column).data(Qt.ItemDataRole.UserRole) for r in range(total)]
        assert model.index(total, column).data(Qt.ItemDataRole.UserRole) == sum(cells)
    # the tooltip of a file that skipped records names each reason (the first file may have none)
    row = next(r for r, f in enumerate(report.files) if f.skipped_by_reason)
    reasons = report.files[row].skipped_by_reason
    tip = model.index(row, keys.index("skipped")).data(Qt.ItemDataRole.ToolTipRole)
    assert reasons and all(reason in tip for reason in reasons)
    assert model.index(0, keys.index("records")).data() == f"{report.files[0].records:,}"
    assert model.index(total, 0).data() == f"Total ({len(report.files)} file(s))"
    lines = model.as_text().splitlines()
    assert len(lines) == model.rowCount() + 1 and lines[0].split("\t")[0] == "File"


def test_import_report_dialog_shows_files_and_errors(qtbot, extra_files):
    from widgets.import_report_dialog import show_import_report

    report = _report(extra_files)
    dialog = show_import_report(None, report)
    qtbot.addWidget(dialog)
    assert dialog.isVisible() and dialog.table.model().rowCount() == len(report.files) + 1
    assert dialog.errors is not None and "test_accounting.py" in dialog.errors.toPlainText()
    shots = Path("/tmp/shots")
    shots.mkdir(exist_ok=True)
    dialog.grab().save(str(shots / "import_report.png"))


def test_html_in_a_path_stays_text(qtmodeltester, tmp_path):
    from PySide6.QtCore import Qt

    from widgets.import_report_dialog import ImportReportModel

    folder = tmp_path / "<b>bold"
    folder.mkdir()
    path = jsonl(folder / "<i>x.jsonl", [{"session_id": "s", "seq": 1, "kind": "USER"}])
    model = ImportReportModel(import_paths(Store(), [path]))
    qtmodeltester.check(model)
    assert model.index(0, 0).data() == str(path)
    tip = model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "<b>bold" not in tip and "&lt;b&gt;bold" in tip


def test_status_line_names_the_skipped_records(extra_files):
    from widgets.tasks import import_summary

    report = _report(extra_files)
    text = import_summary(report)
    skipped = sum(f.skipped for f in report.files)
    top = next(iter(report.skipped_by_reason()))
    assert skipped > 0 and f"{skipped:,} records skipped ({top} " in text
    assert "1 file(s) failed" in text
