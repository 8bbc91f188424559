"""Compaction preview benchmark of issue 4: the live path while the budget slider moves.

    python -m benchmarks.bench_preview [--turns 1800] [--repeat 5]

On one generated session of about 10,000 events (``generate --sessions 1 --turns 1800``,
loaded once as a SessionData), prints p50/p95 of: :func:`explorer.session.preview.overlay` for every
strategy family over 50 budgets from 100 to 1,000,000 tokens; the panel's whole
``set_budget`` path (overlay, metrics strip, ``overlay_changed``) over the same budgets; and
one :func:`explorer.session.preview.compare` of every strategy (the debounced table). Target: the
live path <= 30 ms p95.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from explorer.cli.generate import generate
from explorer.ingest.imports import import_paths
from explorer.session.data import load_session
from explorer.session.preview import compare, overlay, strategy_texts
from explorer.store.db import Store

BUDGETS = np.unique(np.round(np.logspace(2, 6, 50)).astype(int)).tolist()


def _ms(times: list[float]) -> str:
    return (f"p50 {statistics.median(times) * 1000:6.2f} ms   "
            f"p95 {float(np.percentile(times, 95)) * 1000:6.2f} ms")


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _session(turns: int):
    path = Path("/tmp") / f"turnscope-preview-{turns}.parquet"
    if not path.exists():
        generate(path, sessions=1, turns=turns, seed=5)
    store = Store()
    import_paths(store, [path])
    session = store.run("session_names")[0][0]
    return load_session(store, session)


def _overlays(data, repeat: int) -> None:
    order = BUDGETS * repeat
    for text in strategy_texts():
        times = [_timed(lambda b=b: overlay(data.log, text, b)) for b in order]
        print(f"overlay {text:<22} {_ms(times)}")
    times = [_timed(lambda b=b: compare(data.log, b, strategy_texts())) for b in BUDGETS]
    print(f"compare of {len(strategy_texts())} strategies  {_ms(times)}  (debounced, not live)")


def _panel(data, repeat: int) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from widgets.preview_panel import PreviewPanel

    app = QApplication.instance() or QApplication(sys.argv[:1])
    panel = PreviewPanel()
    panel.set_session(data)
    panel.show()
    received: list = []
    panel.overlay_changed.connect(received.append)
    for text in ("M0", "M2", "recorded", "spring-tokens", "agentscope-tokens:50"):
        panel.set_strategy(text)
        times = []
        for _ in range(repeat):
            for budget in BUDGETS:
                times.append(_timed(lambda b=budget: panel.set_budget(b)))
            panel.set_budget(BUDGETS[0] + 1)  # the next sweep starts with a change too
            app.processEvents()
        print(f"panel set_budget {text:<21} {_ms(times)}")
    assert received and received[-1].budget == panel.budget()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1800)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    data = _session(args.turns)
    print(f"session {data.session_id}: {data.log.n:,} events, {data.turns:,} turns; "
          f"{len(BUDGETS)} budgets from {BUDGETS[0]:,} to {BUDGETS[-1]:,}")
    _overlays(data, args.repeat)
    _panel(data, args.repeat)


if __name__ == "__main__":
    main()
