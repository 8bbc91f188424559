"""Compaction benchmark of issue 3: the corpus sweep and the per-session view.

    python -m benchmarks.bench_sweep [--sessions 60000] [--turns 50] [--data DIR] [--sweep-only]

Builds the corpus database once (``turnscope generate --sessions N --turns T``, then
``turnscope audit FILE --db DB``, which imports; cached under ``--data``, /tmp by default).
In one process it times the ``sweep()`` call of M0-M4 x budgets 400, 1600, 4000, 8000 in seq
order (every precomputation included) and DuckDB sorting the same events -- every column,
those of event_details the sweep reads included -- by (session, seq) into an in-memory table
with no memory limit, and prints both and their ratio. The sweep's peak memory is measured
in a child process of its own (its ``ru_maxrss``). Unless ``--sweep-only``: the framework
strategies' sweep; on a ~1-million-event corpus, the sweep against the straightforward
per-session Python loop (explorer.compaction.per_session), checking they agree; and the
median time of one view of a ~10,000-event session after the budget changes (100 changes).
Prints figures; asserts only that the two sweeps agree.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_core import _timed
from explorer.cli.generate import generate
from explorer.compaction import SessionLog, view
from explorer.compaction.per_session import session_logs, sweep_by_sessions
from explorer.compaction.strategies import DEFAULTS
from explorer.compaction.sweep import VECTORIZED, sweep
from explorer.ingest.imports import import_paths
from explorer.model import CostSettings
from explorer.store.db import Store
from explorer.tokens.session_events import session_events

BUDGETS = (400, 1600, 4000, 8000)
ROOT = Path(__file__).resolve().parents[1]
#: Every column of the events the sweep reads, sorted as the sweep orders them, into memory.
SORT = ("CREATE TEMP TABLE sorted AS SELECT e.*, d.* EXCLUDE (eid) FROM events e "
        "LEFT JOIN event_details d USING (eid) ORDER BY e.session_id, e.seq")


def _turnscope(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "explorer", *args], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)


def corpus_database(folder: Path, sessions: int, turns: int) -> Path:
    """The database of ``generate --sessions N --turns T`` imported by ``audit --db``,
    built once (under a temporary name, so that a stopped build is not taken for one)."""
    db = folder / f"corpus-{sessions}x{turns}.duckdb"
    if db.exists():
        return db
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=folder) as work:
        log, partial = Path(work) / "corpus.parquet", Path(work) / "corpus.duckdb"
        _turnscope("generate", str(log), "--sessions", str(sessions), "--turns", str(turns))
        _turnscope("audit", str(log), "--db", str(partial))
        partial.rename(db)
    print(f"built {db} in {time.perf_counter() - start:.0f} s")
    return db


def _sweep_peak_gb(db: Path) -> float:
    """Peak resident memory of a child process that opens ``db`` and runs the sweep (the
    file is closed here meanwhile: one process at a time holds it)."""
    child = subprocess.Popen([sys.executable, "-m", "benchmarks.bench_sweep", "--child", str(db)],
                             cwd=ROOT)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"the sweep's child process failed ({child.returncode})")
    return usage.ru_maxrss / 1024 / 1024  # kB on Linux


def _child(db: Path) -> None:
    store = Store(db)
    sweep(store, VECTORIZED, BUDGETS, "seq")
    store.close()


def _big(db: Path, frameworks: bool) -> None:
    # First, while this process is small: a child's ru_maxrss starts from its parent's
    # resident size (the exec records the high-water mark of the memory it replaces).
    peak_gb = _sweep_peak_gb(db)
    store = Store(db)
    store.con.execute("RESET memory_limit").fetchall()
    limit = store.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    store.con.execute("SELECT count(*), sum(seq) FROM events").fetchall()  # warm the file
    sort_s, _ = _timed(lambda: store.con.execute(SORT).fetchall())
    store.con.execute("DROP TABLE sorted")
    sweep_s, _ = _timed(lambda: sweep(store, VECTORIZED, BUDGETS, "seq"))
    events = store.con.execute("SELECT count(*) FROM events").fetchone()[0]
    print(f"events                         {events:,}")
    print(f"DuckDB sort by (session, seq)  {sort_s:6.2f} s  (all columns, in memory, "
          f"memory_limit {limit})")
    print(f"sweep M0-M4 x 4 budgets, seq   {sweep_s:6.2f} s  ({sweep_s / sort_s:.2f}x the sort; "
          f"target <= 2x)")
    print(f"peak memory (RSS) of the sweep {peak_gb:6.2f} GB in a child process (target <= 4 GB)")
    if frameworks:
        others = (*DEFAULTS, "spring-tokens", "recorded")
        others_s, _ = _timed(lambda: sweep(store, others, BUDGETS, "seq"))
        print(f"sweep of {len(others)} framework strategies x 4 budgets (defaults, seq) "
              f"{others_s:6.2f} s")
    store.close()


def _loop_ratio(folder: Path) -> None:
    path = folder / "corpus-1m.parquet"
    if not path.exists():
        generate(path, sessions=3570, turns=50)
    store = Store()
    import_paths(store, [path])
    fast_s, fast = _timed(lambda: sweep(store, VECTORIZED, BUDGETS, "seq"))
    slow_s, slow = _timed(lambda: sweep_by_sessions(
        session_logs(store, "seq", CostSettings()), VECTORIZED, BUDGETS))
    assert fast == [{k: r[k] for k in fast[0]} for r in slow], "the two sweeps disagree"
    events = store.con.execute("SELECT count(*) FROM events").fetchone()[0]
    print(f"1M corpus ({events:,} events): sweep {fast_s:.2f} s, per-session loop {slow_s:.1f} s "
          f"-> {slow_s / fast_s:.0f}x (goal >= 100x); figures identical")


def _view_latency() -> None:
    store = Store()
    path = Path("/tmp") / "turnscope-one-session.parquet"
    generate(path, sessions=1, turns=1800, seed=5)
    import_paths(store, [path])
    log = SessionLog.from_frame("s000000", session_events(store, "s000000"))
    budgets = np.random.default_rng(1).integers(100, 1_000_000, 100).tolist()
    for strategy in ("M0", "M1", "M2", "M3", "M4", "spring-events:20", "agentscope:50:20"):
        times = [_timed(lambda b=b, s=strategy: view(log, s, b))[0] for b in budgets]
        print(f"view of a {log.n:,}-event session, {strategy:<17} median "
              f"{statistics.median(times) * 1000:5.2f} ms (target <= 5 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=60000)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "turnscope-bench",
                        help="where the corpus database is kept between runs")
    parser.add_argument("--sweep-only", action="store_true",
                        help="only the M0-M4 sweep against the sort, and its peak memory")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # the measured process
    args = parser.parse_args()
    if args.child:
        _child(args.child)
        return
    _big(corpus_database(args.data, args.sessions, args.turns), not args.sweep_only)
    if not args.sweep_only:
        _loop_ratio(args.data)
        _view_latency()


if __name__ == "__main__":
    main()
