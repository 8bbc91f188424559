"""Replay benchmark of issue 19: ``sweep --trigger`` against the plain M0-M4 sweep.

    python -m benchmarks.bench_replay_sweep [--sessions 60000] [--turns 50] [--data DIR]

Builds (or reuses) the corpus database of benchmarks/bench_sweep.py, then times, in one
process and each with every precomputation included (loading the corpus, the call arrays):
the plain sweep of M0-M4 x budgets 400, 1600, 4000, 8000, and the replayed sweeps under
``turns:20`` x M1 and ``tokens:8000`` x M0 at the same budgets. Prints the times and each
replayed sweep's ratio to the plain one (target: at most 3). Asserts nothing.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from benchmarks.bench_core import _timed
from benchmarks.bench_sweep import BUDGETS, corpus_database
from explorer.compaction.sweep import VECTORIZED, sweep
from explorer.replay.sweep import sweep_triggered
from explorer.store.db import Store


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sessions", type=int, default=60_000)
    p.add_argument("--turns", type=int, default=50)
    p.add_argument("--data", default=tempfile.gettempdir())
    args = p.parse_args()
    db = corpus_database(Path(args.data), args.sessions, args.turns)
    store = Store(db)
    events = store.con.execute("SELECT count(*) FROM events").fetchone()[0]
    sweep(store, ["M0"], [400], "seq")   # warm the file and the token counts
    plain_s, _ = _timed(lambda: sweep(store, VECTORIZED, BUDGETS, "seq"))
    print(f"corpus: {args.sessions:,} sessions x {args.turns} turns, {events:,} events")
    print(f"plain sweep M0-M4 x {len(BUDGETS)} budgets: {plain_s:.2f} s")
    for trigger, strategy in (("turns:20", "M1"), ("tokens:8000", "M0")):
        seconds, rows = _timed(lambda t=trigger, s=strategy: sweep_triggered(
            store, [t], [s], BUDGETS, "seq"))
        calls = rows[0]["calls"]
        print(f"sweep --trigger {trigger} x {strategy} x {len(BUDGETS)} budgets: "
              f"{seconds:.2f} s ({calls:,} calls a budget), {seconds / plain_s:.2f} x the plain "
              f"sweep")
    store.close()


if __name__ == "__main__":
    main()
