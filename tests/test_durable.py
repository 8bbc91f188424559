"""Durable databases (issue 6 §4): a killed import loses only its own file and names it; a
newer schema and a database in use are refused with a clear message, and nothing is damaged."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pytest

from explorer.audits import counts as audits
from explorer.cli.generate import generate
from explorer.cli.main import main
from explorer.ingest.imports import import_paths, open_database
from explorer.jobs import Cancelled
from explorer.store import db as store_module
from explorer.store import durability
from explorer.store.db import Store, StoreError
from tests.helpers import events_as_dicts, jsonl, load

ROOT = Path(__file__).resolve().parents[1]
#: The longest a subprocess test waits for its child's next line before failing.
CHILD_TIMEOUT = 60.0

# Imports each file given as the wired import will (explorer.store.durability.importing around the
# file), printing "progress DONE TOTAL PATH" from the import's hook and "done PATH" after.
IMPORTER = r"""
import sys
from explorer.store import durability
from explorer.ingest.imports import import_paths, open_database
from explorer.jobs import Cancelled
from explorer.store.db import Store

store = Store(sys.argv[1])
for path in sys.argv[2:]:
    def progress(done, total, path=path):
        print("progress", done, total, path, flush=True)
    with durability.importing(store, path):
        report = import_paths(store, [path], progress)
    assert not report.errors, report.errors
    print("done", path, flush=True)
store.close()
"""

# Holds a database open (after importing the files given) until its stdin is closed; then
# imports one more file, showing the database still takes writes after a refused open.
HOLDER = r"""
import sys
from explorer.ingest.imports import import_paths, open_database
from explorer.jobs import Cancelled
from explorer.store.db import Store

store = Store(sys.argv[1])
import_paths(store, [sys.argv[2]])
print("held", flush=True)
sys.stdin.read()
import_paths(store, [sys.argv[3]])
store.close()
print("closed", flush=True)
"""


class Child:
    """A Python subprocess of this project whose stdout lines are read with a deadline
    (made by the ``spawn`` fixture, which kills it if the test leaves it running)."""

    def __init__(self, script: str, *args: str | Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", script, *map(str, args)], cwd=ROOT, text=True,
            encoding="utf-8", errors="replace",
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)  # end of output

    def wait_for(self, wanted) -> str:
        """The first line ``wanted(line)`` accepts; fails on a timeout or an early exit."""
        deadline = time.monotonic() + CHILD_TIMEOUT
        while True:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                self.kill()
                pytest.fail(f"no wanted line from the child in {CHILD_TIMEOUT:.0f} s")
            if line is None:
                self.proc.wait(CHILD_TIMEOUT)
                pytest.fail(f"the child ended first: {self.proc.stderr.read()}")
            if wanted(line):
                return line

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(CHILD_TIMEOUT)

    def finish(self) -> str:
        """Close stdin, wait for the exit; the rest of stdout."""
        self.proc.stdin.close()
        self.proc.wait(CHILD_TIMEOUT)
        rest = []
        while (line := self.lines.get(timeout=CHILD_TIMEOUT)) is not None:
            rest.append(line)
        assert self.proc.returncode == 0, self.proc.stderr.read()
        return "\n".join(rest)


@pytest.fixture
def spawn():
    """Start a :class:`Child`; any still running at the end of the test is killed."""
    children: list[Child] = []

    def start(script: str, *args: str | Path) -> Child:
        children.append(Child(script, *args))
        return children[-1]
    yield start
    for child in children:
        if child.proc.poll() is None:
            child.kill()


def _progress_of(path: Path, at_least: float, end: bool = False):
    """Accepts a progress line of ``path`` that is ``at_least`` of the way (and short of its
    end unless ``end``: the end is also reported after the COMMIT)."""
    def wanted(line: str) -> bool:
        word, done, total, name = (line.split(" ", 3) + ["", "", ""])[:4]
        if word != "progress" or name != str(path) or int(total) <= 0:
            return False
        return at_least * int(total) <= int(done) and (end or int(done) < int(total))
    return wanted


@pytest.fixture(scope="module")
def big_log(tmp_path_factory) -> Path:
    """A canonical log of ~100 MB (67,000 events with text): a few seconds to import."""
    path = tmp_path_factory.mktemp("big") / "big log ü.jsonl"  # a name to report exactly
    generate(path, sessions=600, turns=20, text=True, seed=3)
    return path


def _reference(*paths: Path) -> Store:
    """The same files imported into a fresh in-memory store."""
    ref = Store()
    load(ref, *paths)
    return ref


def _assert_same_data(db: Store, ref: Store) -> None:
    assert db.frame("list_files").to_dicts() == ref.frame("list_files").to_dicts()
    assert events_as_dicts(db) == events_as_dicts(ref)
    for table in ("event_details", "rejected", "duplicates", "conflicts"):
        count = f"SELECT count(*) FROM {table}"
        assert db.con.execute(count).fetchall() == ref.con.execute(count).fetchall(), table
    assert audits.corpus_counts(db) == audits.corpus_counts(ref)


def test_a_killed_import_keeps_every_earlier_file_and_names_its_own(tmp_path, big_log, spawn):
    db, earlier = tmp_path / "corpus.duckdb", _earlier_files(tmp_path)
    child = spawn(IMPORTER, db, *earlier, big_log)
    for path in earlier:
        child.wait_for(lambda line, path=path: line == f"done {path}")
    child.wait_for(_progress_of(big_log, 0.0))  # inside the big file's transaction
    child.kill()
    assert child.proc.returncode == -signal.SIGKILL

    reopened = Store(db)
    assert reopened.unfinished == [str(big_log)]
    assert durability.unfinished_message(reopened.unfinished[0]) == (
        f"{big_log} did not finish importing (the process stopped); import it again")
    _assert_same_data(reopened, _reference(*earlier))
    # Reported at every open until imported again (test_a_leftover_record_...).
    reopened.close()
    assert Store(db).unfinished == [str(big_log)]


def test_a_killed_reimport_keeps_the_earlier_version(tmp_path, big_log, spawn):
    db, log = tmp_path / "corpus.duckdb", tmp_path / "big log ü.jsonl"
    generate(log, sessions=5, turns=3, seed=9)
    other = _small(tmp_path, "other.jsonl")
    first = Store(db)
    load(first, log, other)
    first.close()
    ref = _reference(log, other)
    log.write_bytes(big_log.read_bytes())  # the same path, new content

    child = spawn(IMPORTER, db, log)
    child.wait_for(_progress_of(log, 0.5))  # the old version's rows are deleted by now
    child.kill()

    reopened = Store(db)
    assert reopened.unfinished == [str(log)]
    _assert_same_data(reopened, ref)  # the old version, as it was


def test_a_kill_at_any_later_point_leaves_one_version_or_the_other(tmp_path, big_log, spawn):
    """Killed during the big INSERTs (or, on a fast machine, after the COMMIT): the file is
    all there and not reported, or absent and reported; never in part."""
    db, log = tmp_path / "corpus.duckdb", tmp_path / "big.jsonl"
    log.symlink_to(big_log)
    child = spawn(IMPORTER, db, log)
    child.wait_for(_progress_of(log, 0.9, end=True))  # the file is read: the INSERTs follow
    time.sleep(1.0)
    child.kill()
    reopened = Store(db)
    files = reopened.frame("list_files").to_dicts()
    print("killed", "before" if reopened.unfinished else "after", "the COMMIT")  # with -s
    if reopened.unfinished:
        assert reopened.unfinished == [str(log)] and files == []
        assert reopened.con.execute("SELECT count(*) FROM events").fetchall() == [(0,)]
    else:
        _assert_same_data(reopened, _reference(log))


def _earlier_files(tmp_path: Path) -> list[Path]:
    """Small files of three readers, the third with a rejected line and a duplicate."""
    csv, parquet = tmp_path / "a.csv", tmp_path / "b.parquet"
    generate(csv, sessions=20, turns=5, seed=1)
    generate(parquet, sessions=20, turns=5, p_retry=0.05, seed=2)
    log = _small(tmp_path, "c.jsonl")
    with open(log, "a", encoding="utf-8") as fh:
        fh.write('{"session_id": "c", "seq": "abc", "kind": "USER"}\n')
    return [csv, parquet, log]


def _small(tmp_path: Path, name: str) -> Path:
    return jsonl(tmp_path / name, [
        {"session_id": name, "seq": i, "kind": "USER" if i == 1 else "ASSISTANT", "chars": 4}
        for i in range(1, 4)])


def test_a_failed_or_cancelled_import_is_not_reported_as_unfinished(tmp_path):
    db = Store(tmp_path / "corpus.duckdb")
    log = _small(tmp_path, "a.jsonl")
    with pytest.raises(Cancelled):
        with durability.importing(db, log):
            import_paths(db, [log], should_stop=lambda: True)
    with pytest.raises(duckdb.InterruptException):
        with durability.importing(db, log):
            raise duckdb.InterruptException("stopped")
    assert durability.unfinished_imports(db) == []
    assert db.con.execute("SELECT count(*) FROM imports_in_progress").fetchall() == [(0,)]


def test_a_leftover_record_is_reported_until_the_file_is_imported(tmp_path):
    path = tmp_path / "corpus.duckdb"
    log, other = _small(tmp_path, "a.jsonl"), _small(tmp_path, "b.jsonl")
    db = Store(path)
    durability.mark_started(db, [log])  # as a process killed in a.jsonl's import leaves it
    db.close()
    db = Store(path)
    assert db.unfinished == [str(log)]
    with durability.importing(db, other):
        load(db, other)
    db.close()
    db = Store(path)
    assert db.unfinished == [str(log)]  # another file's import does not clear it
    with durability.importing(db, log):
        load(db, log)
    db.close()
    assert Store(path).unfinished == []


def test_a_record_left_after_the_commit_is_not_reported(tmp_path):
    """A process stopped between the file's COMMIT and forgetting the record: the files row
    written after the record says the import finished."""
    path = tmp_path / "corpus.duckdb"
    log = _small(tmp_path, "a.jsonl")
    db = Store(path)
    durability.mark_started(db, [log])
    load(db, log)
    db.close()
    db = Store(path)
    assert db.unfinished == []
    assert db.con.execute("SELECT count(*) FROM imports_in_progress").fetchall() == [(0,)]


def test_forgetting_an_unfinished_file(tmp_path):
    path = tmp_path / "corpus.duckdb"
    log = tmp_path / "gone.jsonl"
    db = Store(path)
    durability.mark_started(db, [log])
    db.close()
    db = Store(path)
    durability.forget_unfinished(db, db.unfinished[0])
    db.close()
    assert Store(path).unfinished == []


def test_import_paths_records_each_file_while_it_runs(tmp_path):
    """Another connection sees the record (committed before the file's transaction) while
    the import runs; it is gone after."""
    db = Store(tmp_path / "corpus.duckdb")
    log = _small(tmp_path, "a.jsonl")
    seen: list[list[str]] = []

    def progress(done: int, total: int) -> None:
        other = db.cursor()
        seen.append(durability.unfinished_imports(other))
        other.close()
    import_paths(db, [log], progress)
    assert [str(log)] in seen
    assert durability.unfinished_imports(db) == []


def test_a_rebuild_stopped_before_its_imports_names_its_sources(tmp_path):
    """An older database is rebuilt in two steps (new schema, then the imports): stopped
    between them, the files it had not imported again are named; rebuilt, none are."""
    path, log = tmp_path / "corpus.duckdb", _small(tmp_path, "a.jsonl")
    db = Store(path)
    load(db, log)
    db.run("set_meta", key="schema_version", value="1")
    db.close()
    db = Store(path)  # the process stops here, before open_database's imports
    assert db.rebuild_sources == [str(log)] and db.unfinished == []
    db.close()
    db = Store(path)
    assert db.rebuild_sources == [] and db.unfinished == [str(log)]
    db.close()
    db, report = open_database(path)  # nothing to rebuild now: the user imports it again
    assert report is None
    with durability.importing(db, log):
        load(db, log)
    db.close()
    assert Store(path).unfinished == []


def test_a_finished_rebuild_leaves_nothing_unfinished(tmp_path):
    path, log = tmp_path / "corpus.duckdb", _small(tmp_path, "a.jsonl")
    db = Store(path)
    load(db, log)
    db.run("set_meta", key="schema_version", value="1")
    db.close()
    db, report = open_database(path)
    assert [f.path for f in report.files] == [str(log)]
    db.close()
    db = Store(path)
    assert db.unfinished == []
    _assert_same_data(db, _reference(log))


def test_a_newer_schema_is_refused_and_left_as_it_was(tmp_path, capsys):
    path, log = tmp_path / "corpus.duckdb", _small(tmp_path, "a.jsonl")
    db = Store(path)
    load(db, log)
    newer = store_module.SCHEMA_VERSION + 1
    db.run("set_meta", key="schema_version", value=str(newer))
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError) as refused:
        Store(path)
    assert str(refused.value) == (
        f"{path}: written by a newer Turnscope (schema {newer}, this one reads "
        f"{store_module.SCHEMA_VERSION}); open it with that version or import the logs again")
    assert main(["audit", "--db", str(path)]) == 2
    assert capsys.readouterr().err == f"turnscope audit: error: {refused.value}\n"
    assert path.read_bytes() == before  # nothing dropped, nothing rebuilt
    assert not path.with_name(path.name + ".wal").exists()


def test_an_unreadable_schema_version_is_refused(tmp_path):
    path = tmp_path / "corpus.duckdb"
    db = Store(path)
    db.run("set_meta", key="schema_version", value="three")
    db.close()
    with pytest.raises(StoreError, match=f"{path}: not a usable Turnscope database"):
        Store(path)


def test_another_programs_database_is_not_touched(tmp_path):
    path = tmp_path / "theirs.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE events (x INTEGER)")
    con.execute("INSERT INTO events VALUES (1), (2)")
    con.close()
    with pytest.raises(StoreError, match=r"not a Turnscope database: it holds tables events that"):
        Store(path)
    con = duckdb.connect(str(path))
    assert con.execute("SELECT sum(x) FROM events").fetchall() == [(3,)]
    con.close()


def test_a_database_in_use_by_another_process(tmp_path, capsys, spawn):
    """DuckDB lets one process open a file for writing, and while it has it open no other
    process may open it at all, not even read-only: the second app gets a clear message, and
    the first one's database is not harmed."""
    path = tmp_path / "corpus.duckdb"
    first, second = _small(tmp_path, "a.jsonl"), _small(tmp_path, "b.jsonl")
    holder = spawn(HOLDER, path, first, second)
    holder.wait_for(lambda line: line == "held")
    with pytest.raises(StoreError) as refused:
        Store(path)
    assert str(refused.value) == (
        f"{path}: the database is in use by process {holder.proc.pid} (another Turnscope, or "
        "DuckDB); close it there, or open another database file")
    with pytest.raises(duckdb.IOException, match="lock"):
        duckdb.connect(str(path), read_only=True)  # hence no read-only view is offered
    assert main(["audit", "--db", str(path), str(second)]) == 2
    assert "in use by process" in capsys.readouterr().err
    assert holder.finish() == "closed"  # it went on writing after the refused opens
    reopened = Store(path)
    assert reopened.unfinished == []
    _assert_same_data(reopened, _reference(first, second))


def test_no_progress_bar_is_printed(tmp_path):
    """DuckDB's Python client prints a progress bar on stdout for a statement over 2 s; on a
    big import it landed in the output of ``turnscope audit --json``."""
    db = Store()
    other = db.cursor()
    setting = "SELECT current_setting('enable_progress_bar_print')"
    store_module.run_watched(other, "SELECT 1", {}, lambda done, total: None, None)
    assert db.con.execute(setting).fetchall() == other.con.execute(setting).fetchall() == [
        (False,)]


def test_audit_names_a_file_a_killed_import_left_unfinished(tmp_path, capsys):
    """The mark a killed import leaves (made here as import_paths makes it, without the
    COMMIT that would follow): `audit --db` says which file is missing and exits 2."""
    from explorer.cli.main import main
    path = tmp_path / "kept.duckdb"
    db = Store(path)
    lost = str(tmp_path / "lost log.jsonl")
    durability.mark_started(db, [lost])
    db.close()
    assert main(["audit", "--db", str(path)]) == 2
    assert f"{lost}: did not finish importing (the process stopped)" in capsys.readouterr().err
