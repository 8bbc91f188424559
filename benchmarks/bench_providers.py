"""Provider check benchmark of issue 18 (PROVIDERS.md): the slider and the sweep.

    python -m benchmarks.bench_providers [--turns 1800] [--sessions 2000] [--sweep-turns 50]

Slider: one generated session of about 10,000 events; for every strategy over 50 budgets,
p50/p95 of :func:`explorer.session.preview.overlay` (what a slider move costs now) and of
what the provider check adds to it: the window decision, the request and all five
providers' violations; then one compare-table refresh's provider columns (every strategy's
view checked by all five; the table refreshes when the budget stops, not per move).
Target: <= 5 ms added per move.

Sweep: the benchmark corpus of ``benchmarks.bench_sweep`` (``--sessions`` x ``--sweep-turns``,
built once under /tmp), M0-M4 x budgets 400, 1600, 4000, 8000 in seq order, with and without
``rejected_<provider>`` for all five; prints both times and their ratio. Target: <= 1.5x.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_preview import BUDGETS, _session
from explorer.compaction import Strategy, window
from explorer.compaction.sweep import VECTORIZED, sweep
from explorer.providers import PROVIDERS, check
from explorer.providers.request import from_window
from explorer.providers.sweep_figures import rejected_figures
from explorer.session.preview import overlay, strategy_texts
from explorer.store.db import Store


def _ms(times: list[float]) -> str:
    return (f"p50 {statistics.median(times) * 1000:6.2f} ms   "
            f"p95 {float(np.percentile(times, 95)) * 1000:6.2f} ms")


def _provider_work(log, strategy, budget) -> None:
    req = from_window(log, window(log, strategy, budget))
    check(req, PROVIDERS)


def slider(turns: int) -> None:
    data = _session(turns)
    log = data.log
    print(f"slider: one session of {log.n:,} events, {len(BUDGETS)} budgets per strategy")
    base, added = [], []
    texts = strategy_texts()
    for text in texts:
        strategy = Strategy.parse(text)
        for budget in BUDGETS:
            start = time.perf_counter()
            overlay(log, strategy, budget)
            middle = time.perf_counter()
            _provider_work(log, strategy, budget)
            added.append(time.perf_counter() - middle)
            base.append(middle - start)
    print(f"  overlay (now)                         {_ms(base)}")
    print(f"  added: decision + request + 5 checks  {_ms(added)}   (target <= 5 ms)")
    table = []
    for budget in BUDGETS[::5]:
        start = time.perf_counter()
        for text in texts:
            _provider_work(log, Strategy.parse(text), budget)
        table.append(time.perf_counter() - start)
    print(f"  compare table's 5 provider columns ({len(texts)} strategies, per refresh) "
          f"{_ms(table)}")


def sweep_ratio(sessions: int, turns: int) -> None:
    from benchmarks.bench_sweep import corpus_database
    db_path = corpus_database(Path("/tmp/turnscope-bench"), sessions, turns)
    db = Store(str(db_path))
    try:
        events = db.con.execute("SELECT count(*) FROM events").fetchone()[0]
        print(f"sweep: {sessions:,} sessions x {turns} turns ({events:,} events), "
              f"{','.join(VECTORIZED)} x 4 budgets")
        budgets = (400, 1600, 4000, 8000)
        sweep(db, VECTORIZED, budgets)   # warm: token counts, caches
        times = {}
        for label, more in (("without providers", None),
                            ("with all five", rejected_figures(PROVIDERS)),
                            ("without providers", None)):
            start = time.perf_counter()
            sweep(db, VECTORIZED, budgets, more=more)
            times.setdefault(label, []).append(time.perf_counter() - start)
        without, with_ = min(times["without providers"]), min(times["with all five"])
        print(f"  without providers  {without:7.2f} s")
        print(f"  with all five      {with_:7.2f} s   ratio {with_ / without:.2f}x "
              f"(target <= 1.5x)")
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1800)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--sweep-turns", type=int, default=50)
    parser.add_argument("--no-sweep", action="store_true")
    args = parser.parse_args()
    slider(args.turns)
    if not args.no_sweep:
        sweep_ratio(args.sessions, args.sweep_turns)


if __name__ == "__main__":
    main()
