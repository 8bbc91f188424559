"""File → Save Database As… (issue 17): the copy holds every row of the store's data and
opens as a Turnscope database; a stopped copy leaves no file."""

from __future__ import annotations

import pytest

from explorer.cli.demo import demo_paths
from explorer.ingest.imports import import_paths
from explorer.jobs import Cancelled
from explorer.store.db import Store, data_version
from explorer.store.save_as import DATA_TABLES, save_as


def rows(store: Store, table: str) -> list:
    return sorted(map(repr, store.con.execute(f"SELECT * FROM {table}").fetchall()))


def test_the_copy_holds_the_store_and_opens(tmp_path):
    store = Store()
    import_paths(store, [str(p) for p in demo_paths()])
    before = {t: rows(store, t) for t in DATA_TABLES}
    assert before["events"] and before["files"]
    out = save_as(store, tmp_path / "copy.duckdb")
    copy = Store(out)
    try:
        assert {t: rows(copy, t) for t in DATA_TABLES} == before
        assert data_version(copy) == data_version(store)
        assert copy.run("session_names") == store.run("session_names")
    finally:
        copy.close()
        store.close()


def test_a_stopped_copy_leaves_no_file(tmp_path):
    store = Store()
    import_paths(store, [str(demo_paths()[0])])
    out = tmp_path / "stopped.duckdb"
    with pytest.raises(Cancelled):
        save_as(store, out, should_stop=lambda: True)
    assert not out.exists()
    store.close()
