"""One bad file never loses the rest of the batch (issue 14, items 2, 7 and 11): a reader
that crashes, a file that may not be read, a name that is not UTF-8, a file deleted while it
is read, a FIFO, a device, a symbolic link loop are each one clear message naming the file,
every other file is imported, and a ``--db`` remembers a failed file until it imports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.cli.main import main
from explorer.formats import claude_code, codex_cli
from explorer.ingest import staging
from explorer.ingest.imports import import_paths
from explorer.store.db import Store
from tests.conftest import CORPUS

ROOT = Path(__file__).resolve().parents[1]
WAIT = 120_000
CLAUDE = CORPUS / "claude-code" / "marot-spotter__agent-aac57f5.jsonl"
CODEX = (CORPUS / "codex-cli" / "madshn-localpush__rollout-2026-02-23T13-19-38-"
         "019c8a70-dda7-7f33-98ea-f30553347322.jsonl")
GEMINI = CORPUS / "gemini-cli" / "jnarowski-agentcmd__session-2025-10-29T10-39-a63242d9.json"
BATCH = [CLAUDE, CODEX, GEMINI]
CRASH = "'int' object is not subscriptable"


@pytest.fixture
def crashing_codex(monkeypatch):
    """The Codex reader crashes (TypeError) on its fourth record, after blocks of two
    events were already staged (so there is a partial import to roll back)."""
    real = codex_cli.records

    def records(path):
        for number, record in enumerate(real(path)):
            if number == 3:
                raise TypeError(CRASH)
            yield record
    monkeypatch.setattr(codex_cli, "records", records)
    monkeypatch.setattr(staging, "BLOCK", 2)
    return monkeypatch


def alone(path: Path) -> dict:
    """The counts of ``path`` imported on its own, unbroken."""
    s = Store()
    try:
        report = import_paths(s, [path])
    finally:
        s.close()
    return {k: getattr(report.files[0], k) for k in ("records", "imported", "events")}


@pytest.fixture(scope="module")
def expected() -> dict[Path, dict]:
    return {p: alone(p) for p in (CLAUDE, GEMINI)}


def counts(report) -> dict[str, dict]:
    return {f.path: {k: getattr(f, k) for k in ("records", "imported", "events")}
            for f in report.files}


def test_a_crashing_reader_fails_its_file_only(store, crashing_codex, expected):
    report = import_paths(store, BATCH)
    assert counts(report) == {str(p): expected[p] for p in (CLAUDE, GEMINI)}
    [error] = report.errors
    assert error.path == str(CODEX)
    assert error.reason == f"the codex-cli reader failed after record 3, line 3: TypeError: {CRASH}"
    # Rolled back: nothing of the file in any table, no scratch table left behind.
    files = [row["path"] for row in store.frame("list_files").to_dicts()]
    assert files == [str(CLAUDE), str(GEMINI)]
    events = store.con.execute("SELECT count(*) FROM events").fetchone()[0]
    assert events == sum(c["events"] for c in expected.values())
    assert store.con.execute("SELECT count(*) FROM rejected").fetchone()[0] == 0
    temps = {r[0] for r in store.con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE temporary").fetchall()}
    assert not temps & {"parsed", "record_rows", "cand", "dups"}


def test_audit_db_remembers_the_failed_file(tmp_path, capsys, crashing_codex, expected):
    db = str(tmp_path / "kept.duckdb")
    assert main(["audit", "--json", "--db", db, *map(str, BATCH)]) == 2
    out, err = capsys.readouterr()
    doc = json.loads(out)
    reason = f"the codex-cli reader failed after record 3, line 3: TypeError: {CRASH}"
    assert doc["failed"] == [{"path": str(CODEX), "reason": reason}]
    assert [f["path"] for f in doc["files"]] == [str(CLAUDE), str(GEMINI)]
    assert [f["events"] for f in doc["files"]] == [expected[CLAUDE]["events"],
                                                  expected[GEMINI]["events"]]
    assert f"turnscope audit: error: {CODEX}: {reason}" in err
    assert "Traceback" not in err
    # Later, with no PATH: the database still names the file, and exits 2.
    assert main(["audit", "--json", "--db", db]) == 2
    out, err = capsys.readouterr()
    [failed] = json.loads(out)["failed"]
    assert failed["path"] == str(CODEX) and reason in failed["reason"]
    assert f"{CODEX}: an earlier import failed ({reason})" in err
    # Once the file imports, it is forgotten.
    crashing_codex.undo()
    assert main(["audit", "--db", db, str(CODEX)]) == 0
    capsys.readouterr()
    assert main(["audit", "--json", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["failed"] == []


def test_the_window_goes_on_and_names_the_failed_file(qtbot, crashing_codex, expected):
    from widgets.app import make_window
    window = make_window([])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        window.import_paths([str(p) for p in BATCH])
    assert ended.args == ["finished"]
    assert counts(window.last_report) == {str(p): expected[p] for p in (CLAUDE, GEMINI)}
    text = window.error_box.text()
    assert str(CODEX) in text and f"TypeError: {CRASH}" in text
    assert "1 file(s) failed" in window.statusBar().currentMessage()
    dialog = window.show_last_report()
    qtbot.addWidget(dialog)
    assert str(CODEX) in dialog.errors.toPlainText()


def test_a_reopened_database_names_its_failed_file(qtbot, tmp_path, crashing_codex):
    """The window on a --db whose earlier import failed on a file says so, and its Import
    again button imports the file (its reader mended meanwhile)."""
    from widgets.app import make_window
    db = tmp_path / "kept.duckdb"
    store = Store(db)
    assert [e.path for e in import_paths(store, BATCH).errors] == [str(CODEX)]
    store.close()
    crashing_codex.undo()
    window = make_window([], db=str(db))
    qtbot.addWidget(window)
    text = window.unfinished_box.text()
    assert f"{CODEX}: an earlier import failed (the codex-cli reader failed" in text
    again = next(b for b in window.unfinished_box.buttons() if b.text() == "Import again")
    with qtbot.waitSignal(window.import_ended, timeout=WAIT) as ended:
        again.click()
    assert ended.args == ["finished"]
    assert [f.path for f in window.last_report.files] == [str(CODEX)]
    from explorer.store import durability
    assert durability.failed_imports(window.store) == []


def test_a_sniffer_that_crashes_leaves_the_file_to_the_next_reader(store, monkeypatch,
                                                                  write_lines):
    """A reader whose ``matches`` fails on the file's first bytes does not take the file (as
    for a head nested too deep): the readers after it may read it."""
    def matches(path, head):
        raise TypeError("unhashable type: 'list'")
    monkeypatch.setattr(codex_cli, "matches", matches)
    path = write_lines("plain.jsonl", json.dumps({"session_id": "s", "kind": "USER",
                                                  "chars": 5}))
    report = import_paths(store, [path, CLAUDE])
    assert not report.errors
    assert (report.files[0].format, report.files[0].events) == ("canonical-jsonl", 1)


def test_odd_files_are_named_and_not_read(store, tmp_path):
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "gone.jsonl")
    odd_name = tmp_path / os.fsdecode(b"\xff.jsonl")
    shutil.copy(CLAUDE, odd_name)
    report = import_paths(store, [fifo, Path("/dev/zero"), loop, dangling, odd_name, CLAUDE])
    assert [f.path for f in report.files] == [str(CLAUDE)]
    assert {e.path: e.reason for e in report.errors} == {
        str(fifo): "not a regular file (a FIFO); not read",
        "/dev/zero": "not a regular file (a character device); not read",
        str(loop): "a symbolic link loop (the link leads back to itself)",
        str(dangling): "a symbolic link to a missing file",
        f"{tmp_path}/\\xff.jsonl": "the file name is not valid UTF-8; rename the file to "
                                  "import it",
    }


def test_a_file_deleted_while_it_is_read_is_imported(store, tmp_path, monkeypatch):
    path = tmp_path / "going.jsonl"
    shutil.copy(CLAUDE, path)
    real = claude_code.records

    def records(p):
        for number, record in enumerate(real(p)):
            if number == 1:
                path.unlink()   # the reader holds the file open
            yield record
    monkeypatch.setattr(claude_code, "records", records)
    report = import_paths(store, [path, GEMINI])
    assert not report.errors and not path.exists()
    assert [f.path for f in report.files] == [str(path), str(GEMINI)]
    sizes = {row["path"]: row["size"] for row in store.frame("list_files").to_dicts()}
    assert sizes[str(path)] == CLAUDE.stat().st_size


def _unprivileged() -> list[str]:
    """A command prefix under which a mode-000 file cannot be read (root reads anything:
    drop its capabilities to override file modes)."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a file cannot be made unreadable")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


def test_a_file_that_may_not_be_read_is_named(tmp_path):
    locked = tmp_path / "locked.jsonl"
    shutil.copy(CLAUDE, locked)
    locked.chmod(0)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([*_unprivileged(), sys.executable, "-m", "explorer", "audit", "--json",
                           str(locked), str(GEMINI)], check=False, capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 2, done.stderr
    doc = json.loads(done.stdout)
    assert doc["failed"] == [{"path": str(locked), "reason": "permission denied"}]
    assert [f["path"] for f in doc["files"]] == [str(GEMINI)]
    assert done.stderr.strip() == f"turnscope audit: error: {locked}: permission denied"


def test_a_closed_output_pipe_stops_quietly():
    """``audit --findings | head -1``: the findings of the demo (130 KB) outgrow the pipe,
    so writing goes on after its reader closed it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "explorer", "audit", "--findings", "--demo"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    assert child.stdout.readline().strip()
    child.stdout.close()
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 141
    assert err == ""


def test_a_path_naming_no_file_is_said_once_not_remembered(tmp_path, capsys):
    """A typo is said when given, but a later `audit --db` does not fail for it: there is no
    file to fix and import again (a file that exists and fails is remembered, above)."""
    db, typo = str(tmp_path / "c.duckdb"), tmp_path / "no-such.jsonl"
    assert main(["audit", "--db", db, str(typo)]) != 0
    assert str(typo) in capsys.readouterr().err
    assert main(["audit", "--json", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["failed"] == []


def test_a_file_too_big_for_the_memory_fails_alone(store, monkeypatch):
    """DuckDB out of memory on a file even after the import's bound is lifted (a 32 MiB
    line under `prlimit --as=4G`): that file fails with the reason, the others import."""
    import duckdb

    from explorer.ingest import imports
    real = imports.import_file

    def short_of_memory(db, path, *args):
        if path == CODEX:
            raise duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block")
        return real(db, path, *args)
    monkeypatch.setattr(imports, "import_file", short_of_memory)
    report = import_paths(store, BATCH)
    assert [Path(f.path) for f in report.files] == [p for p in BATCH if p != CODEX]
    assert [Path(e.path) for e in report.errors] == [CODEX]
    assert "not enough memory to import the file" in report.errors[0].reason
