"""Plots benchmark: the sweep panel on a ~1-million-event corpus, and the session plot.

    python -m benchmarks.bench_plots [--corpus /work/bench/corpus-1m.parquet] [--runs 5]

Imports the corpus into an in-memory store, then times, through the real widget (worker on a
JobPool, results drawn on the GUI thread): a sweep panel run of M0-M4 and one of every
strategy of the checklist, over the 13 budgets 100 ... 1,000,000; how long Cancel takes to
end the worker while the first load query runs; and the session plot's ``set_budget`` on the
generated session of ~10,000 events. Prints p50/p95; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402

from explorer.cli.generate import generate  # noqa: E402
from explorer.ingest.imports import import_paths  # noqa: E402
from explorer.session.data import load_session  # noqa: E402
from explorer.store.db import Store  # noqa: E402
from widgets.app import application  # noqa: E402
from widgets.cost_plot import SessionCostPlot  # noqa: E402
from widgets.sweep_panel import CHECKED, STRATEGIES, SweepPanel  # noqa: E402
from widgets.workers import JobPool  # noqa: E402


def _ms(times: list[float]) -> str:
    return (f"p50 {statistics.median(times) * 1000:8.1f} ms   "
            f"p95 {float(np.percentile(times, 95)) * 1000:8.1f} ms")


def _wait(signal, timeout_ms: int = 600_000) -> None:
    loop = QEventLoop()
    signal.connect(loop.quit)
    QTimer.singleShot(timeout_ms, loop.quit)
    loop.exec()
    signal.disconnect(loop.quit)


def _run_times(panel: SweepPanel, strategies, runs: int) -> list[float]:
    panel.set_checked(list(strategies))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        panel.run()
        _wait(panel.finished)
        times.append(time.perf_counter() - start)
    return times


def _cancel_times(panel: SweepPanel, jobs: JobPool, runs: int, delay_ms: int) -> list[float]:
    """Start a run, press Cancel ``delay_ms`` later (inside the load query), time until the
    worker has ended."""
    times = []
    for _ in range(runs):
        panel.run()
        loop = QEventLoop()
        QTimer.singleShot(delay_ms, loop.quit)
        loop.exec()
        start = time.perf_counter()
        panel.cancel()
        if jobs.is_busy():
            _wait(jobs.busy_changed)
        times.append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="/work/bench/corpus-1m.parquet")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--turns", type=int, default=1800, help="turns of the plotted session")
    args = parser.parse_args(argv)
    app = application()
    store = Store()
    start = time.perf_counter()
    import_paths(store, [args.corpus])
    events, sessions = store.con.execute(
        "SELECT count(*), count(DISTINCT session_id) FROM events").fetchall()[0]
    print(f"corpus {args.corpus}: {events:,} events, {sessions:,} sessions "
          f"(imported in {time.perf_counter() - start:.1f} s)")
    jobs = JobPool()
    panel = SweepPanel(store, jobs)
    panel.resize(1200, 700)
    panel.show()
    for label, strategies in (("M0-M4", CHECKED), (f"all {len(STRATEGIES)}", STRATEGIES)):
        times = _run_times(panel, strategies, args.runs)
        print(f"sweep panel run, {label:7} x {len(panel.budgets)} budgets  {_ms(times)}")
    load_s = _run_times(panel, ("M0",), 1)[0]
    delay = max(20, int(load_s * 1000 / 3))
    print(f"sweep panel run, M0 alone (mostly the load query)  {load_s * 1000:8.1f} ms")
    print(f"cancel {delay} ms into a run (load query running), until the worker ended  "
          f"{_ms(_cancel_times(panel, jobs, args.runs, delay))}")
    jobs.wait()
    store.close()
    _session_plot(app, args.turns)


def _session_plot(app, turns: int) -> None:
    """set_session and set_budget on one generated session of ``turns`` turns."""
    path = Path(tempfile.gettempdir()) / f"turnscope-plot-{turns}.parquet"
    if not path.exists():
        generate(path, sessions=1, turns=turns, seed=5)
    store = Store()
    import_paths(store, [path])
    data = load_session(store, store.run("session_names")[0][0])
    plot = SessionCostPlot()
    plot.resize(800, 450)
    plot.show()
    start = time.perf_counter()
    plot.set_session(data)
    app.processEvents()
    print(f"session plot set_session + paint, {data.log.n:,} events  "
          f"{(time.perf_counter() - start) * 1000:8.1f} ms")
    budgets = np.unique(np.round(np.logspace(2, 6, 200)).astype(int)).tolist()
    times = []
    for budget in budgets:
        t = time.perf_counter()
        plot.set_budget(budget)
        app.processEvents()
        times.append(time.perf_counter() - t)
    print(f"session plot set_budget + repaint, {data.log.n:,} events, "
          f"{len(plot.cost_curve().turn_x):,} turns  {_ms(times)}")
    store.close()


if __name__ == "__main__":
    main()
