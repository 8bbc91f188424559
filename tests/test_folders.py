"""Folders given to an import (explorer.ingest.folders): read recursively, every file
sniffed, the files that are not logs reported and counted, never an error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from explorer.cli.main import main
from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS

CLAUDE = CORPUS / "claude-code"
CODEX = CORPUS / "codex-cli"


def _tree(root: Path) -> tuple[list[Path], list[Path]]:
    """A ~/.claude/projects tree (a session with subagents/) and a Codex sessions tree made
    of real corpus files, plus two files that are not logs; (logs, not logs)."""
    project = root / "projects" / "-home-USER-spotter"
    subagents = project / "ae4a77f8-aedd-4bc1-888f-c94edc91af04" / "subagents"
    day = root / "sessions" / "2025" / "09" / "24"
    for folder in (subagents, day):
        folder.mkdir(parents=True)
    logs = [shutil.copy(CLAUDE / "marot-spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
                        project / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"),
            shutil.copy(CLAUDE / "marot-spotter__agent-aac57f5.jsonl",
                        subagents / "agent-aac57f5.jsonl")]
    codex = min(CODEX.glob("*.jsonl"))
    logs.append(shutil.copy(codex, day / codex.name.split("__")[1]))
    (root / "README.txt").write_text("notes about these sessions\n", encoding="utf-8")
    (project / ".DS_Store").write_bytes(b"")
    return [Path(p) for p in logs], [root / "README.txt", project / ".DS_Store"]


def test_a_folder_tree_imports_every_log_under_it_and_counts_the_rest(store, tmp_path):
    logs, others = _tree(tmp_path)
    report = import_paths(store, [tmp_path])
    assert sorted(Path(f.path) for f in report.files) == sorted(logs)
    assert report.errors == []
    assert sorted(Path(e.path) for e in report.not_logs) == sorted(others)
    assert {e.reason for e in report.not_logs} >= {"the file is empty"}
    (events,), = store.con.execute("SELECT count(*) FROM events").fetchall()
    assert events == sum(f.events for f in report.files) > 0


def test_audit_dir_lists_the_files_that_are_not_logs(capsys, tmp_path):
    logs, others = _tree(tmp_path)
    assert main(["audit", "--json", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert sorted(Path(f["path"]) for f in doc["files"]) == sorted(logs)
    assert sorted(Path(f["path"]) for f in doc["not_logs"]) == sorted(others)
    assert {f["format"] for f in doc["files"]} == {"claude-code", "codex-cli"}
    # the same figures as the files given one by one
    for path in logs:
        assert main(["audit", "--json", str(path)]) == 0
        (alone,) = json.loads(capsys.readouterr().out)["files"]
        (found,) = [f for f in doc["files"] if f["path"] == alone["path"]]
        assert found == alone


def test_the_import_report_dialog_lists_the_files_that_are_not_logs(qtbot, store, tmp_path):
    from widgets.import_report_dialog import ImportReportDialog
    from widgets.main_window import MainWindow  # noqa: F401  (File → Open Folder… exists)

    _, others = _tree(tmp_path)
    dialog = ImportReportDialog(import_paths(store, [tmp_path]))
    qtbot.addWidget(dialog)
    assert dialog.not_logs is not None
    text = dialog.not_logs.toPlainText()
    assert all(str(p) in text for p in others)
