"""Replay benchmark of issue 19: ``sweep --trigger`` against the plain M0-M4 sweep.

    python -m benchmarks.bench_replay_sweep [--sessions 60000] [--turns 50] [--data DIR]

Builds (or reuses) the corpus database of benchmarks/bench_sweep.py, then times, in one
process and each with every precomputation included (loading the corpus, the call arrays):
the plain sweep of M0-M4 x budgets 400, 1600, 4000, 8000, and the replayed sweeps under
``turns:20`` x M1 and ``tokens:8000`` x M0 at the same budgets. Prints the times and each
replayed sweep's ratio to the plain one (target: at most 3, met or not met), each time as
wall and CPU seconds of this process (the machine is shared: the CPU seconds are the steadier
figure) and the load average (``uptime``) before and after. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from benchmarks.bench_sweep import BUDGETS, corpus_database
from explorer.compaction.sweep import VECTORIZED, sweep
from explorer.replay.sweep import sweep_triggered
from explorer.store.db import Store

TARGET = 3.0
REPLAYED = (("turns:20", "M1"), ("tokens:8000", "M0"))


def _measured(fn) -> tuple[float, float, object]:
    """Wall and CPU seconds (every thread of this process) of ``fn()``, and its value."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, value


def _load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) + \
        f" ({os.cpu_count()} cores)"


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
    print(f"corpus: {args.sessions:,} sessions x {args.turns} turns, {events:,} events")
    print(f"before: {_load()}")
    wall, cpu, _ = _measured(lambda: sweep(store, VECTORIZED, BUDGETS, "seq"))
    print(f"plain sweep M0-M4 x {len(BUDGETS)} budgets: {wall:.2f} s wall, {cpu:.2f} s CPU")
    for trigger, strategy in REPLAYED:
        t_wall, t_cpu, rows = _measured(lambda t=trigger, s=strategy: sweep_triggered(
            store, [t], [s], BUDGETS, "seq"))
        ratio, cpu_ratio = t_wall / wall, t_cpu / cpu
        met = "met" if max(ratio, cpu_ratio) <= TARGET else "NOT met"
        print(f"sweep --trigger {trigger} x {strategy} x {len(BUDGETS)} budgets: "
              f"{t_wall:.2f} s wall, {t_cpu:.2f} s CPU ({rows[0]['calls']:,} calls a budget); "
              f"{ratio:.2f}x the plain sweep (wall), {cpu_ratio:.2f}x (CPU); "
              f"target <= {TARGET:g}x: {met}")
    print(f"after: {_load()}")
    store.close()


if __name__ == "__main__":
    main()
