"""Findings panel benchmark: computing the findings cache, and opening the panel's first block.

    python -m benchmarks.bench_findings [--sessions 20000] [--turns 20] [--repeat 30]

On a generated corpus with faults (``explorer.cli.generate``: lost calls, unanswered calls,
retries, a coarse clock, collapsed keys) and, when ``/work/bench/corpus-1m.parquet`` exists,
on that corpus imported into an in-memory store, prints for each order: the time of
``explorer.audits.counts.findings`` read to the end (for comparison), of ``findings_cache.ensure``
(the worker's job, with its progress and stop hooks), of a second ``ensure`` on the unchanged
database (the reopen case), and p50/p95 of opening the panel's first block: a fresh model
over the table, its rule ranges, and every cell of the first 40 rows read (all rules, one
rule, one session, and a block in the middle of the table; the rule ranges the worker
reads are timed apart). Asserts nothing.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from explorer.audits import counts as audits
from explorer.audits import findings_cache
from explorer.cli.generate import generate_table, write_table
from explorer.ingest.imports import import_paths
from explorer.model import Order
from explorer.store.db import Store
from widgets.findings_model import COLUMNS, FindingsModel

BIG = Path("/work/bench/corpus-1m.parquet")
VISIBLE = 40  # rows a panel shows at once

def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value

def _p(values: list[float], q: float) -> float:
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, round(q * (len(ranked) - 1)))]

def _open(db, table: str, ranges: dict, rule: str | None, session: str | None,
          start_row: int) -> int:
    """What the panel does on the GUI thread once the worker is done: a fresh model over
    the table, the filter, every cell of the visible rows."""
    model = FindingsModel(db)
    model.set_table(table, ranges)
    model.set_filter(rule, session)
    last = min(model.rowCount(), start_row + VISIBLE)
    for row in range(min(start_row, last), last):
        for col in range(len(COLUMNS)):
            model.index(row, col).data()
    return model.blocks_read

def _percentiles(times: list[float]) -> str:
    return f"p50 {_p(times, .5) * 1000:7.2f} ms   p95 {_p(times, .95) * 1000:7.2f} ms"

def _measure(label: str, store: Store, repeat: int) -> None:
    events = store.con.execute("SELECT count(*) FROM events").fetchone()[0]
    print(f"\n{label}: {events:,} events")
    for order in Order:
        plain, found = _timed(lambda: sum(1 for _ in audits.findings(store, order)))
        db = store.cursor()
        compute, table = _timed(lambda: findings_cache.ensure(
            db, order, progress=lambda d, t: None, should_stop=lambda: False))
        again, _ = _timed(lambda: findings_cache.ensure(db, order))
        print(f"  {order.value:<11} {found:>9,} findings   audits.findings {plain * 1000:8.0f} ms"
              f"   ensure {compute * 1000:8.0f} ms   ensure (fresh) {again * 1000:6.1f} ms")
        ranges = findings_cache.rule_ranges(db, table)
        times = [_timed(lambda: findings_cache.rule_ranges(db, table))[0] for _ in range(repeat)]
        print(f"      rule ranges (worker)                      {_percentiles(times)}")
        present = sorted((r for r in ranges if ranges[r][1]), key=lambda r: ranges[r][1])
        cases = [("all rules", None, None, 0)]
        if present:
            first = findings_cache.read_block(db, table, 1, 1, limit=1)[0][2]
            cases += [(f"rule {present[0]}", present[0], None, 0),
                      (f"rule {present[-1]}", present[-1], None, 0),
                      (f"session {first}", None, first, 0),
                      ("middle block", None, None, found // 2)]
        for name, rule, session, start in cases:
            times = [_timed(lambda: _open(db, table, ranges, rule, session, start))[0]
                     for _ in range(repeat)]
            print(f"      open first block, {name:<24} {_percentiles(times)}")
        db.close()

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20000)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=30, help="openings measured (p50/p95)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "findings.parquet"
        table = generate_table(sessions=args.sessions, turns=args.turns, max_calls=3,
                               p_result=0.97, p_lost_call=0.03, p_retry=0.03, ts_align=0.4,
                               groups=args.sessions // 5, id_space=60, seed=3)
        write_table(table, path)
        store = Store()
        seconds, _ = _timed(lambda: import_paths(store, [path]))
        print(f"generated corpus imported in {seconds:.1f} s")
        _measure(f"generated --sessions {args.sessions} --turns {args.turns}", store, args.repeat)
        store.close()
    if BIG.exists():
        store = Store()
        seconds, _ = _timed(lambda: import_paths(store, [BIG]))
        print(f"\n{BIG} imported in {seconds:.1f} s")
        _measure(BIG.name, store, args.repeat)
        store.close()

if __name__ == "__main__":
    main()
