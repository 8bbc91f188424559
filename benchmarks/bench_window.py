"""The whole window's live paths (issue 4), offscreen, printing p50/p95:

    python -m benchmarks.bench_window [--turns 1800] [--repeat 3] [--db PATH]

1. Slider movement on one ~10,000-event session shown in the window: the preview's
   ``set_budget`` through the overlay, the tree (every turn expanded: the worst case), the
   metrics strip, the cost plot's line, and the repaint (events processed). Target ≤ 30 ms p95.
2. With ``--db`` (e.g. a database of 60,000 sessions whose list was computed once): the
   time from opening the window to the session list showing its rows. Target ≤ 1 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication  # noqa: E402

from explorer.cli.generate import generate  # noqa: E402
from widgets.app import make_window  # noqa: E402
from widgets.screenshot import settle  # noqa: E402

BUDGETS = np.unique(np.round(np.logspace(2, 6, 50)).astype(int)).tolist()
STRATEGIES = ("M0", "M2", "recorded", "spring-summary:10", "agentscope:50:20")


def _ms(times: list[float], cpu: list[float] | None = None) -> str:
    text = (f"p50 {statistics.median(times) * 1000:7.2f} ms   "
            f"p95 {float(np.percentile(times, 95)) * 1000:7.2f} ms   n={len(times)}")
    if cpu:   # the machine may be shared: the process's own CPU time beside the wall time
        text += (f"   cpu p50 {statistics.median(cpu) * 1000:6.2f} ms"
                 f" p95 {float(np.percentile(cpu, 95)) * 1000:6.2f} ms")
    return text


def slider(turns: int, repeat: int, states: tuple[bool, ...] = (False, True)) -> None:
    path = Path("/tmp") / f"turnscope-preview-{turns}.parquet"
    if not path.exists():
        generate(path, sessions=1, turns=turns, seed=5)
    window = make_window([str(path)])
    window.resize(1600, 1000)
    window.show()
    settle(window)
    session = window.model.session_id(0)
    window.select_session(session)
    settle(window)
    data = window.workspace.data
    print(f"session {session}: {data.log.n:,} events, {data.turns:,} turns")
    for expanded in states:
        if expanded:
            window.session_panel.expand_all()
            QCoreApplication.processEvents()
        for text in STRATEGIES:
            window.preview.set_strategy(text)
            QCoreApplication.processEvents()
            times, cpu = [], []
            for _ in range(repeat):
                for budget in BUDGETS:
                    start, start_cpu = time.perf_counter(), time.process_time()
                    window.preview.set_budget(budget)
                    QCoreApplication.processEvents()  # the repaint of the tree, strip, plot
                    times.append(time.perf_counter() - start)
                    cpu.append(time.process_time() - start_cpu)
            state = "all turns expanded" if expanded else "first turn expanded"
            print(f"slider {text:<18} ({state}) {_ms(times, cpu)}")
    window.close()


def list_appears(db: str, repeat: int) -> None:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        window = make_window([], db=db)
        window.show()
        QCoreApplication.processEvents()
        rows = window.model.rowCount()
        window.model.index(0, 0).data()
        QCoreApplication.processEvents()
        times.append(time.perf_counter() - start)
        window.close()
    print(f"session list of {rows:,} sessions shown after opening {db}: {_ms(times)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1800)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--db", help="a database to time the session list on")
    parser.add_argument("--first-turn-only", action="store_true",
                        help="time the slider with the first turn expanded only")
    args = parser.parse_args()
    if args.db:
        list_appears(args.db, args.repeat)
    slider(args.turns, args.repeat, (False,) if args.first_turn_only else (False, True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
