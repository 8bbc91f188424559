"""Is the corpus form of a strategy's decision fast enough for the budget slider?

    python -m benchmarks.bench_corpus_decision [--turns 1800] [--repeat 5]

On one generated session of about 10,000 events (``generate --sessions 1 --turns 1800``),
loaded as a one-session :class:`~explorer.compaction.corpus.Corpus` (built once, as the
slider would keep it), prints p50/p95 of one corpus decision per strategy over 50 budgets
from 100 to 1,000,000 tokens, next to the session's Window read off it and the whole
per-session view the slider runs (:func:`explorer.session.preview.overlay`: the Window,
its metrics and per-row errors). Target: <= 5 ms per decision and per view.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from explorer.cli.generate import generate
from explorer.compaction import strategies
from explorer.compaction.corpus import load
from explorer.compaction.settings import CompactionSettings
from explorer.ingest.imports import import_paths
from explorer.model import CostSettings, Order
from explorer.session.data import load_session
from explorer.session.preview import overlay
from explorer.store.db import Store

BUDGETS = np.unique(np.round(np.logspace(2, 6, 50)).astype(int)).tolist()
TARGET_MS = 5.0


def _ms(times: list[float]) -> tuple[float, float]:
    return statistics.median(times) * 1000, float(np.percentile(times, 95)) * 1000


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1800)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    path = Path("/tmp") / f"turnscope-preview-{args.turns}.parquet"
    if not path.exists():
        generate(path, sessions=1, turns=args.turns, seed=5)
    store = Store()
    import_paths(store, [path])
    corpus, sessions = load(store, Order.SEQ, CostSettings())
    log = load_session(store, store.run("session_names")[0][0]).log
    print(f"one session, {len(corpus.kind):,} events ({sessions} session in the corpus)")
    settings = CompactionSettings()
    worst = worst_view = 0.0
    for text in strategies.texts():
        strategy = strategies.parse(text)
        strategy.corpus_decision(corpus, BUDGETS[0], settings)   # budget-independent arrays
        strategy.decide(log, BUDGETS[0], settings)
        order = BUDGETS * args.repeat
        corpus_times = [_timed(lambda b=b: strategy.corpus_decision(corpus, b, settings))
                        for b in order]
        session_times = [_timed(lambda b=b: strategy.decide(log, b, settings)) for b in order]
        view_times = [_timed(lambda b=b: overlay(log, strategy, b, settings)) for b in order]
        (c50, c95), (s50, s95), (v50, v95) = map(_ms, (corpus_times, session_times, view_times))
        worst, worst_view = max(worst, c95), max(worst_view, v95)
        print(f"{text:<22} corpus p50 {c50:6.3f} ms  p95 {c95:6.3f} ms   "
              f"window p50 {s50:6.3f} ms  p95 {s95:6.3f} ms   "
              f"view p50 {v50:6.3f} ms  p95 {v95:6.3f} ms")
    for what, ms in (("corpus decision", worst), ("per-session view", worst_view)):
        verdict = "fast enough" if ms <= TARGET_MS else "too slow"
        print(f"worst {what} p95 {ms:.3f} ms: {verdict} (target {TARGET_MS} ms)")
    store.close()


if __name__ == "__main__":
    main()
