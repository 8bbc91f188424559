"""The database file: reopened without re-import, rebuilt when older, refused when newer."""

from __future__ import annotations

import duckdb
import pytest

from explorer.audits import counts as audits
from explorer.ingest.imports import import_paths, open_database
from explorer.store import db as store_module
from explorer.store.db import Store, StoreError
from tests.helpers import jsonl


def _log(tmp_path, name="a.jsonl", n=3):
    return jsonl(tmp_path / name, [
        {"session_id": "s", "seq": i, "kind": "USER" if i == 1 else "ASSISTANT", "chars": 4}
        for i in range(1, n + 1)])


def test_reopen_skips_files_already_imported(tmp_path):
    db, log = tmp_path / "corpus.duckdb", _log(tmp_path)
    first = Store(db)
    assert import_paths(first, [log]).files[0].events == 3
    first.close()
    again = Store(db)
    report = import_paths(again, [log])
    assert report.files[0].unchanged
    assert audits.corpus_counts(again)["events"] == 3


def test_changed_file_is_imported_again(tmp_path):
    db, log = tmp_path / "corpus.duckdb", _log(tmp_path)
    s = Store(db)
    import_paths(s, [log])
    _log(tmp_path, n=5)  # same path, new content
    report = import_paths(s, [log])
    assert not report.files[0].unchanged and report.files[0].events == 5
    assert audits.corpus_counts(s)["events"] == 5
    assert s.con.execute("SELECT count(*) FROM files").fetchone() == (1,)


def test_older_schema_is_rebuilt_from_its_sources(tmp_path, monkeypatch):
    db, log = tmp_path / "corpus.duckdb", _log(tmp_path)
    s = Store(db)
    import_paths(s, [log])
    s.run("set_meta", key="schema_version", value="0")
    s.close()
    reopened, report = open_database(db)
    assert report is not None and [f.path for f in report.files] == [str(log)]
    assert audits.corpus_counts(reopened)["events"] == 3


def test_newer_schema_is_refused(tmp_path):
    db = tmp_path / "corpus.duckdb"
    s = Store(db)
    s.run("set_meta", key="schema_version", value=str(store_module.SCHEMA_VERSION + 1))
    s.close()
    with pytest.raises(StoreError, match="newer Turnscope"):
        Store(db)


def test_not_a_database(tmp_path):
    path = tmp_path / "notes.duckdb"
    path.write_text("just text\n" * 100)
    with pytest.raises(StoreError, match=str(path)):
        Store(path)


def test_cursor_sees_the_same_data(tmp_path):
    s = Store()
    import_paths(s, [_log(tmp_path)])
    assert audits.corpus_counts(s.cursor())["events"] == 3


def test_failed_import_leaves_nothing_behind(tmp_path, monkeypatch):
    s = Store()
    import_paths(s, [_log(tmp_path)])
    other = _log(tmp_path, "b.jsonl", 4)

    def boom(*args, **kwargs):
        raise duckdb.InterruptException("stopped")
    monkeypatch.setattr("explorer.ingest.imports.record_copies", boom)   # after the insert
    with pytest.raises(duckdb.InterruptException):
        import_paths(s, [other])
    assert audits.corpus_counts(s)["events"] == 3
    assert s.con.execute("SELECT count(*) FROM files").fetchone() == (1,)


def test_cancel_rolls_back_the_file(tmp_path):
    from explorer.jobs import Cancelled
    s = Store()
    with pytest.raises(Cancelled):
        import_paths(s, [_log(tmp_path)], should_stop=lambda: True)
    assert audits.corpus_counts(s)["events"] == 0
    assert s.con.execute("SELECT count(*) FROM files").fetchone() == (0,)
