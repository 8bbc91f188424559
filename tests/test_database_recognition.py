"""A Turnscope database is recognised positively (issue 14): another program's DuckDB file is
refused untouched, a Turnscope database written before the marker keeps working, and a
damaged database, a full disk and a path holding "lock" each get their own clear message."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from explorer.cli.main import main
from explorer.store import recognition
from explorer.store.db import Store, StoreError
from tests.helpers import jsonl, load

ROOT = Path(__file__).resolve().parents[1]


def _log(path: Path, n: int = 3, text: str = "") -> Path:
    return jsonl(path, [{"session_id": path.stem, "seq": i, "kind": "USER" if i == 1 else
                         "ASSISTANT", "chars": 4, **({"text": f"{i} {text}"} if text else {})}
                        for i in range(1, n + 1)])


def _dump(path: Path) -> dict:
    """Every table of every schema with its columns and rows, read without writing."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        names = con.execute("SELECT table_schema, table_name FROM information_schema.tables "
                            "ORDER BY 1, 2").fetchall()
        return {f"{s}.{t}": (con.execute(f'DESCRIBE "{s}"."{t}"').fetchall(),
                             sorted(con.execute(f'SELECT * FROM "{s}"."{t}"').fetchall()))
                for s, t in names}
    finally:
        con.close()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _theirs(path: Path, *statements: str) -> Path:
    con = duckdb.connect(str(path))
    for sql in statements:
        con.execute(sql)
    con.close()
    return path


_EVENTS_FILES_META = (
    "CREATE TABLE events (id INTEGER, what VARCHAR)",
    "INSERT INTO events VALUES (1, 'deploy'), (2, 'rollback')",
    "CREATE TABLE files (name VARCHAR)", "INSERT INTO files VALUES ('a.txt')",
    "CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR)",
)
OTHERS = {
    "meta without a schema version": (*_EVENTS_FILES_META, "INSERT INTO meta VALUES ('x', '1')"),
    "schema_version 2": (*_EVENTS_FILES_META, "INSERT INTO meta VALUES ('schema_version', '2')"),
    "a meta of another shape": ("CREATE TABLE meta (id INTEGER)", "INSERT INTO meta VALUES (7)",
                                "CREATE TABLE events (id INTEGER)"),
    "no meta": ("CREATE TABLE events (x INTEGER)", "INSERT INTO events VALUES (1), (2)"),
    "only another schema": ("CREATE SCHEMA crm", "CREATE TABLE crm.events (x INTEGER)",
                            "INSERT INTO crm.events VALUES (3)"),
}
REFUSED_AS = {
    "meta without a schema version": "events, files, meta",
    "schema_version 2": "events, files, meta",
    "a meta of another shape": "events, meta",
    "no meta": "events",
    "only another schema": "crm.events",
}


@pytest.mark.parametrize("case", OTHERS)
def test_another_programs_database_is_refused_untouched(tmp_path, capsys, case):
    path = _theirs(tmp_path / "other.duckdb", *OTHERS[case])
    before, digest = _dump(path), _sha(path)
    log = _log(tmp_path / "ok.jsonl")
    expected = (f"{path}: not a Turnscope database: it holds tables {REFUSED_AS[case]} that "
                "Turnscope did not write; it was left untouched: give another database file "
                "(a new one is created)")
    with pytest.raises(StoreError) as refused:
        Store(path)
    assert str(refused.value) == expected
    assert main(["audit", str(log), "--db", str(path)]) == 2
    assert capsys.readouterr().err == f"turnscope audit: error: {expected}\n"
    assert _sha(path) == digest and _dump(path) == before
    assert not path.with_name(path.name + ".wal").exists()


def test_a_turnscope_database_with_a_table_of_another_program_is_refused(tmp_path):
    """Tables of Turnscope's names plus one it never wrote, without the marker: not ours."""
    path = tmp_path / "corpus.duckdb"
    db = Store(path)
    load(db, _log(tmp_path / "a.jsonl"))
    db.con.execute("DELETE FROM meta WHERE key = 'application'")
    db.con.execute("CREATE TABLE invoices (n INTEGER)")
    db.close()
    before, digest = _dump(path), _sha(path)
    with pytest.raises(StoreError, match="holds tables .*invoices.* that Turnscope did not"):
        Store(path)
    assert _sha(path) == digest and _dump(path) == before


def test_a_new_or_empty_database_gets_the_marker(tmp_path):
    empty = _theirs(tmp_path / "empty.duckdb")   # a DuckDB file with no tables at all
    for path in (tmp_path / "new.duckdb", empty):
        db = Store(path)
        assert db.one("get_meta", key="application") == {"value": "turnscope"}
        db.close()


def test_a_current_database_written_before_the_marker_is_adopted(tmp_path):
    path, log = tmp_path / "corpus.duckdb", _log(tmp_path / "a.jsonl")
    db = Store(path)
    load(db, log)
    db.con.execute("DELETE FROM meta WHERE key = 'application'")
    db.con.execute("DROP TABLE imports_in_progress")   # schema 3 made before it existed
    db.close()
    db = Store(path)
    assert db.rebuild_sources == []   # kept, not rebuilt
    assert db.one("get_meta", key="application") == {"value": "turnscope"}
    assert db.con.execute("SELECT count(*) FROM events").fetchall() == [(3,)]
    db.close()


@pytest.mark.parametrize("version, dropped, cache", [
    ("1", ("event_details", "imports_in_progress"), None),
    ("2", ("imports_in_progress",), "findings_seq"),
])
def test_an_older_schema_without_the_marker_is_rebuilt(tmp_path, version, dropped, cache):
    """Tables exactly those of schema 1 or 2 (with a cache table of schema 2): upgraded from
    the files they were built from, as before the marker existed, and marked."""
    path, log = tmp_path / "corpus.duckdb", _log(tmp_path / "a.jsonl")
    db = Store(path)
    load(db, log)
    db.con.execute("DELETE FROM meta WHERE key = 'application'")
    for table in dropped:
        db.con.execute(f"DROP TABLE {table}")
    if cache:
        db.con.execute(f"CREATE TABLE {cache} (n INTEGER)")
    db.run("set_meta", key="schema_version", value=version)
    db.close()
    assert recognition.is_earlier_schema({name.split(".", 1)[1] for name in _dump(path)})
    db = Store(path)
    assert db.rebuild_sources == [str(log)]
    assert db.one("get_meta", key="application") == {"value": "turnscope"}
    db.close()


def test_a_path_holding_lock_is_not_called_in_use(tmp_path, capsys):
    """DuckDB quotes the path in its error: only its words for a held lock mean in use."""
    path = tmp_path / "no such folder" / "clock.duckdb"
    with pytest.raises(StoreError) as refused:
        Store(path)
    assert "in use" not in str(refused.value)
    assert str(refused.value).startswith(f"{path}: cannot open the database (")


def _data_block(path: Path, table: str) -> int:
    con = duckdb.connect(str(path), read_only=True)
    blocks = con.execute(f"SELECT min(block_id) FROM pragma_storage_info('{table}') "
                         "WHERE block_id >= 0").fetchall()[0][0]
    size = con.execute("SELECT block_size FROM pragma_database_size()").fetchall()[0][0]
    con.close()
    return 3 * 4096 + blocks * size   # DuckDB's three header pages, then the blocks


@pytest.mark.parametrize("where", ["catalog", "files"])
def test_a_damaged_database_is_said_so(tmp_path, capsys, where):
    """16 bytes of one page overwritten: at open (the catalog's page) or at a read (the files
    table's data page), a message naming the database and what to do, exit 2."""
    path = tmp_path / "corpus.duckdb"
    db = Store(path)
    load(db, _log(tmp_path / "a.jsonl", n=3000, text="words " * 20))
    db.close()
    offset = 3 * 4096 if where == "catalog" else _data_block(path, "files")
    with path.open("r+b") as f:
        f.seek(offset + 100)
        f.write(b"\xff" * 16)
    assert main(["audit", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"turnscope audit: error: {path}: the database file is damaged "
                          "(DuckDB: Corrupt database file: ")
    assert err.endswith("import the logs again into a new database file (this one was left "
                        "as it is)\n")


_LIMITED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
from explorer.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def test_a_full_disk_is_said_so_and_keeps_what_was_imported(tmp_path):
    """A file size limit (RLIMIT_FSIZE: writes fail with EFBIG, as on a full disk with
    ENOSPC): the import that cannot be written is said so, exit 2, no traceback; the file
    imported before it is still there."""
    path, first = tmp_path / "corpus.duckdb", _log(tmp_path / "a.jsonl")
    db = Store(path)
    load(db, first)
    db.close()
    big = _log(tmp_path / "big.jsonl", n=20_000, text="many words " * 30)
    command = [sys.executable, "-c", _LIMITED, "1000000", "audit", str(big), "--db", str(path)]
    done = subprocess.run(command, check=False, cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert (f"turnscope audit: error: {path}: cannot write the database: the disk is full or "
            "the file too large (DuckDB: ") in done.stderr
    assert "what was imported before is kept" in done.stderr
    db = Store(path)
    assert [f["path"] for f in db.frame("list_files").to_dicts()] == [str(first)]
    assert db.con.execute("SELECT count(*) FROM events").fetchall() == [(3,)]
    db.close()


def test_the_window_says_why_in_its_error_box_and_leaves_the_file(qtbot, tmp_path):
    """File → Open Recent on another program's database: the error box gives the refusal,
    the window stays on its own database, the other file is unchanged."""
    from PySide6.QtCore import QSettings

    from explorer.model import Order
    from widgets.app import WindowHost, make_window
    other = _theirs(tmp_path / "other.duckdb", *OTHERS["schema_version 2"])
    before, digest = _dump(other), _sha(other)
    settings = QSettings(str(tmp_path / "saved.ini"), QSettings.Format.IniFormat)
    window = make_window([], str(tmp_path / "mine.duckdb"), Order.SEQ, settings)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=60_000):
        pass
    host = WindowHost(window, settings)
    assert host.open_database(str(other)) is None and host.window is window
    assert window.error_box.text() == (
        f"Cannot open the database:\n\n{other}: not a Turnscope database: it holds tables "
        "events, files, meta that Turnscope did not write; it was left untouched: give "
        "another database file (a new one is created)")
    assert _sha(other) == digest and _dump(other) == before


def test_a_failed_checkpoint_after_a_durable_commit_is_a_database_message(tmp_path):
    """DuckDB's FatalException once a commit is durable but its checkpoint could not be
    written (seen on a full 40 MB tmpfs importing a 23 MB log): a database message, with or
    without the disk's own words in it; any other DuckDB error is not one."""
    from explorer.store.damage import database_problem
    path = tmp_path / "corpus.duckdb"
    full = duckdb.FatalException(
        "FATAL Error: Transaction COMMIT succeeded and is durable, but the autocheckpoint "
        f'failed. Failed to create checkpoint because of error: Could not write file "{path}": '
        "No space left on device")
    assert database_problem(path, full).startswith(
        f"{path}: cannot write the database: the disk is full")
    stopped = duckdb.FatalException("FATAL Error: Failed: database has been invalidated")
    assert database_problem(path, stopped).startswith(
        f"{path}: DuckDB stopped using the database after a failed write (DuckDB: FATAL Error")
    assert database_problem(path, duckdb.BinderException("Binder Error: no column x")) is None


def test_a_full_disk_during_an_import_in_the_window_is_said_as_such(qtbot, tmp_path,
                                                                     monkeypatch):
    """The window's import meets the full disk DuckDB reports (its own exception, raised
    where the import writes): the box and the status bar say what to do, not DuckDB's text
    alone."""
    import duckdb

    from explorer.model import Order
    from widgets import import_job
    from widgets.app import make_window

    def full(store, paths, progress, should_stop):
        raise duckdb.IOException('Could not write file "x.wal": No space left on device')
    monkeypatch.setattr(import_job, "import_task", full)
    db = tmp_path / "mine.duckdb"
    window = make_window([], str(db), Order.SEQ)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.import_ended, timeout=60_000) as ended:
        window.import_paths([str(_log(tmp_path / "a.jsonl"))])
    assert ended.args == ["failed"]
    said = window.error_box.text()
    assert f"{db}: cannot write the database: the disk is full" in said
    assert "free some space" in window.statusBar().currentMessage()
