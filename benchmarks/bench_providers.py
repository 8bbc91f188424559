"""Provider check benchmark of issue 18 (PROVIDERS.md): the slider and the sweep.

    python -m benchmarks.bench_providers [--turns 1800] [--sessions 60000] [--sweep-turns 50]
                                         [--data /tmp/turnscope-bench] [--no-sweep]

Slider: one generated session of about 10,000 events. For every strategy, as a user drags
the slider over 50 budgets (the session's memo of checked views fresh for each strategy):
what a move costs without providers (:func:`explorer.session.preview.overlay`), what the
provider check adds to it with all five providers (per provider the window's path,
:func:`explorer.session.provider_view.provider_view` of the overlay's window and its
marks on the overlay), and
what the compare table's provider columns add when it refreshes at that budget (every
strategy's view checked by all five, :func:`explorer.providers.view_checks.error_counts`;
the views' decisions and metrics are the table's without providers, not counted). Target:
<= 5 ms added per move, the five providers and the table's columns included (p95).

Sweep: the benchmark corpus (``generate --sessions N --turns T`` imported, built once under
``--data``), M0-M4 x budgets 400, 1600, 4000, 8000 in seq order, with and without
``rejected_<provider>`` for all five. Target: <= 1.5x the sweep without.

Wall and CPU time (``time.thread_time`` per move, ``time.process_time`` for the sweep,
DuckDB's threads included) are printed side by side, and ``uptime``'s load: the machine is
shared. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_preview import BUDGETS, _session
from explorer.compaction import CompactionSettings, Strategy, window
from explorer.compaction.sweep import VECTORIZED, sweep
from explorer.compaction.window import in_view
from explorer.providers import PROVIDERS
from explorer.providers.sweep_figures import rejected_figures
from explorer.providers.view_checks import error_counts
from explorer.session.preview import overlay_and_window, strategy_texts
from explorer.session.provider_view import provider_view
from explorer.store.db import Store

SETTINGS = CompactionSettings()
TARGET_MS, TARGET_RATIO = 5.0, 1.5


def _load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _p(times, q) -> float:
    return float(np.percentile(np.asarray(times) * 1000, q))


def _row(label: str, wall, cpu, target: float | None = None) -> str:
    text = (f"  {label:<44} wall p50 {_p(wall, 50):6.2f} p95 {_p(wall, 95):6.2f} ms   "
            f"CPU p50 {_p(cpu, 50):6.2f} p95 {_p(cpu, 95):6.2f} ms")
    if target is not None:
        text += (f"   target <= {target:g} ms p95: wall {_met(_p(wall, 95) <= target)}, "
                 f"CPU {_met(_p(cpu, 95) <= target)}")
    return text


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


class _Clock:
    """Wall and CPU time of the blocks it times, appended to two lists."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __enter__(self):
        self._w, self._c = time.perf_counter(), time.thread_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall.append(time.perf_counter() - self._w)
        self.cpu.append(time.thread_time() - self._c)


def _fresh(log) -> None:
    """Forget the checked views kept on ``log`` (as a session just opened)."""
    for name in ("_provider_counts", "_provider_verdicts"):
        log.__dict__.pop(name, None)


def slider(turns: int) -> None:
    data = _session(turns)
    log = data.log
    texts = strategy_texts()
    print(f"slider: one session of {log.n:,} events, {len(texts)} strategies x "
          f"{len(BUDGETS)} budgets  ({_load()})")
    base, added, table, both = _Clock(), _Clock(), _Clock(), _Clock()
    for text in texts:
        strategy = Strategy.parse(text)
        _fresh(log)
        for budget in BUDGETS:
            windows = [window(log, Strategy.parse(t), budget, SETTINGS) for t in texts]
            keeps = [in_view(log, w) for w in windows]
            with base:
                shown, w = overlay_and_window(log, strategy, budget, SETTINGS)
            with both:
                with added:
                    for p in PROVIDERS:
                        provider_view(log, strategy, budget, SETTINGS, p,
                                      (w, shown.in_view)).marked(shown)
                with table:
                    error_counts(log, windows, keeps, PROVIDERS)
    print(_row("a move without providers (overlay)", base.wall, base.cpu))
    print(_row("added per move: the five providers' checks", added.wall, added.cpu))
    print(_row(f"added per refresh: compare table's 5 columns ({len(texts)} views)",
               table.wall, table.cpu))
    print(_row("added per move, the table's columns included", both.wall, both.cpu,
               TARGET_MS))


def sweep_ratio(folder: Path, sessions: int, turns: int) -> None:
    from benchmarks.bench_sweep import corpus_database
    db = Store(str(corpus_database(folder, sessions, turns)))
    try:
        events = db.con.execute("SELECT count(*) FROM events").fetchone()[0]
        print(f"sweep: {sessions:,} sessions x {turns} turns ({events:,} events), "
              f"{','.join(VECTORIZED)} x 4 budgets  ({_load()})")
        budgets = (400, 1600, 4000, 8000)
        sweep(db, VECTORIZED, budgets)   # warm: token counts, caches
        times: dict[str, list] = {}
        for label, more in (("without providers", None),
                            ("with all five", rejected_figures(PROVIDERS)),
                            ("without providers", None),
                            ("with all five", rejected_figures(PROVIDERS))):
            wall, cpu = time.perf_counter(), time.process_time()
            sweep(db, VECTORIZED, budgets, more=more)
            times.setdefault(label, []).append((time.perf_counter() - wall,
                                                time.process_time() - cpu))
        (w0, c0), (w1, c1) = (min(times[k]) for k in ("without providers", "with all five"))
        print(f"  without providers  wall {w0:7.2f} s   CPU {c0:7.2f} s")
        print(f"  with all five      wall {w1:7.2f} s   CPU {c1:7.2f} s")
        print(f"  ratio              wall {w1 / w0:7.2f} x   CPU {c1 / c0:7.2f} x   target <= "
              f"{TARGET_RATIO}x: wall {_met(w1 / w0 <= TARGET_RATIO)}, "
              f"CPU {_met(c1 / c0 <= TARGET_RATIO)}  (best of two runs each; {_load()})")
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1800)
    parser.add_argument("--sessions", type=int, default=60000)
    parser.add_argument("--sweep-turns", type=int, default=50)
    parser.add_argument("--data", type=Path, default=Path("/tmp/turnscope-bench"))
    parser.add_argument("--no-sweep", action="store_true")
    args = parser.parse_args()
    slider(args.turns)
    if not args.no_sweep:
        sweep_ratio(args.data, args.sessions, args.sweep_turns)


if __name__ == "__main__":
    main()
