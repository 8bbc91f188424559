"""An import reports progress through every step and stops at any point (issue 6 §5); it
runs with DuckDB's memory bounded, and gives the limit back after."""

from __future__ import annotations

import pytest

from explorer.cli.generate import generate
from explorer.ingest.imports import import_paths
from explorer.ingest.steps import HASHED, STAGED
from explorer.jobs import Cancelled
from explorer.store.db import IMPORT_MEMORY, bounded_memory


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    path = tmp_path_factory.mktemp("steps") / "log.jsonl"
    generate(path, sessions=1500, turns=6, text=True)
    return path


def _limit(store) -> str:
    return store.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]


def test_progress_moves_through_every_step(store, log):
    seen = []
    report = import_paths(store, [log], progress=lambda done, total: seen.append((done, total)))
    assert not report.errors and report.files[0].events > 0
    values = [done for done, _ in seen]
    assert values == sorted(values) and seen[-1] == (1000, 1000)
    assert any(0 < v <= HASHED for v in values)            # hashing
    assert any(HASHED < v <= STAGED for v in values)       # staging
    assert any(STAGED < v < 1000 for v in values)          # the statements over the file


@pytest.mark.parametrize("at, within", [(1, HASHED), (HASHED + 1, STAGED), (STAGED + 1, 999)])
def test_stopping_at_any_step_leaves_nothing(store, log, at, within):
    seen = []
    with pytest.raises(Cancelled):
        import_paths(store, [log], progress=lambda done, total: seen.append(done),
                     should_stop=lambda: bool(seen) and seen[-1] >= at)
    assert max(seen) <= within    # it stopped within the step it was asked in
    for table in ("events", "event_details", "rejected", "duplicates", "files"):
        assert store.con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0


def test_the_memory_limit_is_bounded_during_an_import_and_given_back(store, log):
    before = _limit(store)
    seen = []
    other = store.cursor()   # the limit is the database's: seen from another connection
    import_paths(store, [log], progress=lambda *_: seen.append(_limit(other)))
    assert set(seen[1:-1]) == {"1.0 GiB"} and IMPORT_MEMORY == 2**30
    assert _limit(store) == before
    store.con.execute("SET memory_limit = '100MB'")     # lower already: left alone
    lower = _limit(store)
    with bounded_memory(store):
        assert _limit(store) == lower
    assert _limit(store) == lower
