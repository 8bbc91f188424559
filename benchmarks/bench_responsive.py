"""Does the window stay responsive while it works? Opens the window on a database and, for
a while, measures how late a 20 ms timer on the GUI thread fires (p50/p95/max), listing the
background jobs seen meanwhile (the audit, the findings, a session load...).

    python -m benchmarks.bench_responsive DB [--seconds 30]

Use a copy of a large database whose findings are not cached yet to watch the window while
DuckDB computes them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QTimer  # noqa: E402

from widgets.app import application, make_window  # noqa: E402

TICK_MS = 20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db")
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    app = application()
    window = make_window([], db=args.db)
    window.show()
    late: list[float] = []
    last = [time.perf_counter()]
    seen: set[str] = set()

    def tick() -> None:
        now = time.perf_counter()
        late.append(now - last[0] - TICK_MS / 1000)
        last[0] = now
        seen.update(w.name for w in window.jobs.running())

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(TICK_MS)
    QTimer.singleShot(int(args.seconds * 1000), app.quit)
    app.exec()
    window.close()
    print(f"background jobs seen: {', '.join(sorted(seen)) or 'none'}")
    print(f"GUI timer lateness over {len(late):,} ticks: p50 {statistics.median(late) * 1000:.1f} ms"
          f"   p95 {float(np.percentile(late, 95)) * 1000:.1f} ms   max {max(late) * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
