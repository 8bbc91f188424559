"""Session list benchmark of issue 4: a database of many sessions opens, scrolls, sorts, filters.

    python -m benchmarks.bench_session_list [--sessions 60000] [--turns 50] [--data DIR]
                                            [--db FILE] [--corpus FILE] [--repeat 20]

Builds the database once (``generate --sessions N --turns T`` as Parquet, imported into
``DIR/sessions-NxT.duckdb``; ``--db`` and ``--corpus`` name existing files instead), then
prints p50/p95 in milliseconds of: opening the database to the list showing its row count
and first block (the model alone, and the whole window offscreen); reading a block at a
random place (the model, and a view scrolled there and repainted); sorting by a column;
filtering; finding a session's row (``row_of``). Also prints the one-time computation of
the audit cache table. Asserts nothing (speed targets live here, not in the tests).
Small and quick: ``--sessions 2000 --turns 10 --data /tmp/bench``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402

from explorer.audits import cache as audit_cache  # noqa: E402
from explorer.audits.cache import COLUMNS  # noqa: E402
from explorer.ingest.imports import import_paths  # noqa: E402
from explorer.model import CostSettings, Order  # noqa: E402
from explorer.store.db import Store  # noqa: E402
from widgets.app import application, make_window  # noqa: E402
from widgets.sessions_model import SessionsModel  # noqa: E402
from widgets.sessions_view import SessionsView  # noqa: E402

DESC = Qt.SortOrder.DescendingOrder


def _ms(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def _report(name: str, samples: list[float]) -> None:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    print(f"{name:<60} p50 {statistics.median(samples):8.2f} ms   p95 {p95:8.2f} ms"
          f"   (n={len(samples)})")


def _database(args) -> Path:
    """The database to measure, built once (generated corpus, then imported)."""
    db = args.db or args.data / f"sessions-{args.sessions}x{args.turns}.duckdb"
    if db.exists():
        return db
    corpus = args.corpus or args.data / f"corpus-{args.sessions}x{args.turns}.parquet"
    if not corpus.exists():
        corpus.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "explorer", "generate", str(corpus),
                        "--sessions", str(args.sessions), "--turns", str(args.turns)], check=True)
    db.parent.mkdir(parents=True, exist_ok=True)
    part = db.with_name(db.name + ".part")
    part.unlink(missing_ok=True)
    start = time.perf_counter()
    store = Store(part)
    import_paths(store, [corpus])
    store.close()
    part.rename(db)
    print(f"imported {corpus} into {db} in {time.perf_counter() - start:.1f} s")
    return db


def _cache_computation(db: Path) -> None:
    """The one-time computation: with other ratios (stale), then back with the default."""
    store = Store(db)
    try:
        other = CostSettings(other_ratio=3.999)
        times = [_ms(lambda s=s: audit_cache.ensure(store, Order.SEQ, s))
                 for s in (other, CostSettings())]
        sessions = audit_cache.count(store, audit_cache.table_name(Order.SEQ))
    finally:
        store.close()
    print(f"{sessions:,} sessions; audit cache table computed in "
          f"{times[0] / 1000:.1f} s and {times[1] / 1000:.1f} s (order seq)")


def _open_model(db: Path, repeat: int) -> None:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        store = Store(db)
        model = SessionsModel()
        if audit_cache.is_fresh(store, Order.SEQ):
            model.set_source(store, audit_cache.table_name(Order.SEQ))
        rows = model.rowCount()
        first = [model.index(r, c).data() for r in range(min(rows, 40)) for c in range(19)]
        samples.append((time.perf_counter() - start) * 1000)
        assert rows and first[0]
        model.close()
        store.close()
    _report("open: Store(path) to row count + first block", samples)


def _open_window(db: Path, repeat: int) -> None:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        window = make_window([], db=str(db))
        window.show()
        application().processEvents()  # the first paint reads the first block
        samples.append((time.perf_counter() - start) * 1000)
        # The list came from the cached table: no audit job (the findings and the first
        # session may still be loading in the background).
        assert window.model.rowCount()
        assert not [w for w in window.jobs.running() if w.name == "audit"]
        window.close()
        window.deleteLater()
    _report("open: the window shown with its list (offscreen)", samples)


def _reads(model: SessionsModel, rows: int, count: int) -> list[float]:
    samples = []
    for _ in range(count):
        row = random.randrange(rows)
        model.block_reads = 0
        samples.append(_ms(lambda: model.index(row, 0).data()))
    return samples


def _scrolling(store: Store, table: str, repeat: int) -> None:
    model = SessionsModel(cached_blocks=1)  # every jump reads a block
    model.set_source(store, table)
    for label, sort, text, only in (("unfiltered, by session id", 0, "", False),
                                    ("unfiltered, by cost descending", 18, "", False),
                                    ("only findings, by orphan results desc.", 8, "", True),
                                    ("filter '1', by events descending", 1, "1", False)):
        model.set_filter(text, only)
        model.sort(sort, DESC if "desc" in label else Qt.SortOrder.AscendingOrder)
        if model.rowCount():
            _report(f"scroll: read a block at random, {label}",
                    _reads(model, model.rowCount(), repeat * 5))
    view = SessionsView()
    view.resize(1200, 700)
    view.setModel(model)
    model.set_filter("", False)
    view.show()
    application().processEvents()
    bar = view.verticalScrollBar()
    samples = []
    for _ in range(repeat * 3):
        value = random.randrange(bar.maximum() + 1)
        samples.append(_ms(lambda: (bar.setValue(value), view.viewport().repaint())))
    _report("scroll: a view jumps to a random place, repainted", samples)
    view.close()
    model.close()


def _sorting_filtering(store: Store, table: str, repeat: int) -> None:
    model = SessionsModel()
    model.set_source(store, table)
    ids = [model.session_id(random.randrange(model.rowCount())) for _ in range(repeat)]

    def first_block() -> None:
        for row in range(min(model.rowCount(), 30)):
            model.index(row, 1).data()
    samples = []
    for i in range(repeat):
        column = random.randrange(len(COLUMNS))
        order = DESC if i % 2 else Qt.SortOrder.AscendingOrder
        samples.append(_ms(lambda: (model.sort(column, order), first_block())))
    _report("sort by a column: rows moved + first block", samples)
    for label, texts, only in (("filter text: count + first block", ["s01", "0", "s00042", "zz"], False),
                               ("only findings on/off: count + first block", [""], True)):
        samples = []
        for i in range(repeat):
            text = texts[i % len(texts)]
            samples.append(_ms(lambda: (model.set_filter(text, only and i % 2 == 0),
                                        first_block())))
        _report(label, samples)
    model.set_filter("", False)
    for label, sort, text, only in (("row_of, unfiltered, by cost descending", 18, "", False),
                                    ("row_of, only findings, by events", 1, "", True)):
        model.set_filter(text, only)
        model.sort(sort, DESC if "desc" in label else Qt.SortOrder.AscendingOrder)
        _report(label, [_ms(lambda s=s: model.row_of(s)) for s in ids])
    model.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=60000)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--data", type=Path, default=Path("bench_data"))
    parser.add_argument("--db", type=Path, help="an existing database (else built in --data)")
    parser.add_argument("--corpus", type=Path, help="the log file to import (else generated)")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    random.seed(4)
    application()
    db = _database(args)
    _cache_computation(db)
    _open_model(db, args.repeat)
    _open_window(db, max(3, args.repeat // 4))
    store = Store(db)
    try:
        table = audit_cache.ensure(store, Order.SEQ)
        _scrolling(store, table, args.repeat)
        _sorting_filtering(store, table, args.repeat)
    finally:
        store.close()


if __name__ == "__main__":
    main()
