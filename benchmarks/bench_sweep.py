"""Compaction benchmark of issue 3: the corpus sweep and the per-session view.

    python benchmarks/bench_sweep.py [--sessions 60000] [--turns 50] [--data DIR]

With the events of ``generate --sessions N --turns T`` already loaded, times the sweep of
M0-M4 x budgets 400, 1600, 4000, 8000 in seq order (every precomputation included) against
DuckDB sorting the same events by (session, seq) into a table and one GROUP BY session_id
scan, in the same process, and prints peak memory. On a ~1-million-event corpus, compares
the sweep with the straightforward per-session Python loop (explorer.compaction.per_session)
and checks they agree. Last, the median time of one view of a ~10,000-event session after
the budget changes (100 changes). Prints figures; asserts only that the two sweeps agree.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import numpy as np

from benchmarks.bench_core import _corpus, _peak_gb, _timed
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


def _big(path: Path, memory_limit: str) -> None:
    store = Store(memory_limit=memory_limit)
    import_paths(store, [path])
    sort_s, _ = _timed(lambda: store.con.execute(
        "CREATE TEMP TABLE sorted AS SELECT * FROM events ORDER BY session_id, seq").fetchall())
    store.con.execute("DROP TABLE sorted")
    scan_s, _ = _timed(lambda: store.con.execute(
        "SELECT session_id, count(*) FROM events GROUP BY session_id").fetchall())
    sweep_s, rows = _timed(lambda: sweep(store, VECTORIZED, BUDGETS, "seq"))
    peak_m = _peak_gb()
    others = (*DEFAULTS, "spring-tokens", "recorded")
    others_s, _ = _timed(lambda: sweep(store, others, BUDGETS, "seq"))
    events = store.con.execute("SELECT count(*) FROM events").fetchone()[0]
    print(f"events                         {events:,}")
    print(f"DuckDB sort by (session, seq)  {sort_s:6.2f} s")
    print(f"GROUP BY session_id scan       {scan_s:6.2f} s")
    print(f"sweep M0-M4 x 4 budgets, seq   {sweep_s:6.2f} s  ({sweep_s / sort_s:.2f}x the sort; "
          f"target <= 3x; {sweep_s / scan_s:.0f}x the scan)")
    print(f"peak memory (RSS) after M0-M4  {peak_m:6.2f} GB (target <= 4 GB)")
    print(f"sweep of {len(others)} framework strategies x 4 budgets (defaults, seq) "
          f"{others_s:6.2f} s; peak memory then {_peak_gb():.2f} GB")
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
        times = [_timed(lambda b=b: view(log, strategy, b))[0] for b in budgets]
        print(f"view of a {log.n:,}-event session, {strategy:<17} median "
              f"{statistics.median(times) * 1000:5.2f} ms (target <= 5 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=60000)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--data", type=Path, default=Path("bench_data"))
    parser.add_argument("--memory-limit", default="2.5GB",
                        help="DuckDB memory limit of the store (the numpy columns come on top)")
    args = parser.parse_args()
    _big(_corpus(args.data, args.sessions, args.turns), args.memory_limit)
    _loop_ratio(args.data)
    _view_latency()


if __name__ == "__main__":
    main()
