"""Turn-tree benchmark of issue 4: the preview overlay on a big session, and expanding a turn.

    python benchmarks/bench_tree.py [--turns 1700] [--moves 200] [--events 1000]

Builds one ~10,000-event session with ``explorer.cli.generate`` (faults on: lost calls,
unanswered calls, a coarse clock), shows it in a :class:`widgets.session_panel.SessionPanel`
(offscreen, 1280 x 800) with every turn expanded, and times ``set_overlay`` for a slider
sweeping the budget down and up on a log scale (M2, spring-tokens, agentscope-tokens:50),
alone and with the repaint that follows. Then times expanding one turn of ~1,000 events in
a fresh tree (fetchMore, layout and paint). Overlays come from the compaction engine; their
building is timed apart (it is the preview's work, not the tree's). Prints p50/p95 in ms.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from explorer.cli.generate import generate  # noqa: E402
from explorer.compaction import Strategy, evaluate, window  # noqa: E402
from explorer.compaction.window import in_view  # noqa: E402
from explorer.ingest.imports import import_paths  # noqa: E402
from explorer.session.data import load_session  # noqa: E402
from explorer.session.view_overlay import VIEW_ERRORS, SyntheticItem, ViewOverlay  # noqa: E402
from explorer.store.db import Store  # noqa: E402
from widgets.session_panel import SessionPanel  # noqa: E402

STRATEGIES = ("M2", "spring-tokens", "agentscope-tokens:50")


def overlay(data, text: str, budget: int) -> ViewOverlay:
    """What the preview gives the tree, built from the engine."""
    w = window(data.log, Strategy.parse(text), budget, data.settings)
    items, metrics = evaluate(data.log, w, budget, data.settings.placeholder_cost)
    errors = {it.index: tuple(f for f in it.flags if f in VIEW_ERRORS) for it in items
              if it.index is not None and set(it.flags) & set(VIEW_ERRORS)}
    synthetic, after = [], None
    for it in items:
        if it.synthetic:
            synthetic.append(SyntheticItem(after, it.kind, it.cost, f"{it.kind} {it.call_id}"))
        else:
            after = it.index
    return ViewOverlay(text, budget, in_view(data.log, w), errors, tuple(synthetic), metrics)


def _ms(values: list[float]) -> str:
    q = np.percentile(np.array(values) * 1000, [50, 95])
    return f"p50 {q[0]:7.2f} ms   p95 {q[1]:7.2f} ms   (n={len(values)})"


def _session(store: Store, folder: Path, turns: int):
    path = folder / "big.jsonl"
    generate(path, sessions=1, turns=turns, max_calls=4, p_result=0.97, p_lost_call=0.02,
             ts_align=0.3, text=True, seed=7)
    import_paths(store, [path])
    return load_session(store, "s000000", "ts-unstable")


def _long_turn(store: Store, folder: Path, events: int):
    rows = [{"session_id": "long", "seq": 1, "kind": "USER", "text": "do many things"}]
    for i in range(events // 2):
        rows.append({"session_id": "long", "seq": 2 + 2 * i, "kind": "CALL", "call_id": f"c{i}",
                     "tool": "bash", "text": f"step {i}"})
        if i % 50 != 7:  # a few unanswered calls: marks on the way
            rows.append({"session_id": "long", "seq": 3 + 2 * i, "kind": "RESULT",
                         "call_id": f"c{i}", "text": f"output of step {i} " * 5})
    path = folder / "long.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    import_paths(store, [path])
    return load_session(store, "long", "seq")


def bench_overlay(app: QApplication, data, moves: int) -> None:
    panel = SessionPanel()
    panel.resize(1280, 800)
    panel.set_data(data)
    panel.expand_all()
    panel.show()
    panel.select_row(int(data.log.k0(20_000)))  # the detail follows the overlay too
    app.processEvents()
    total = int(data.log.cost.sum())
    budgets = np.geomspace(100, min(total, 1_000_000), moves // 2).astype(int).tolist()
    sweep = budgets[::-1] + budgets  # the slider goes down, then back up
    print(f"session: {data.frame.height:,} events, {data.turns:,} turns, {total:,} tokens; "
          f"{moves} slider positions from {budgets[-1]:,} down to 100 and back, every turn "
          "expanded, the current row near the cut")
    for text in STRATEGIES:
        overlays, build, alone, painted, first = [], [], [], [], []
        for budget in sweep:
            t0 = time.perf_counter()
            overlays.append(overlay(data, text, budget))
            build.append(time.perf_counter() - t0)
        for _ in range(5):  # laying an overlay on (every row changes) and taking it off
            t0 = time.perf_counter()
            panel.set_overlay(overlays[0])
            app.processEvents()
            first.append(time.perf_counter() - t0)
            panel.set_overlay(None)
            app.processEvents()
        panel.set_overlay(overlays[0])
        for ov in overlays[1:]:
            t0 = time.perf_counter()
            panel.set_overlay(ov)
            t1 = time.perf_counter()
            app.processEvents()
            alone.append(t1 - t0)
            painted.append(time.perf_counter() - t1)
        synthetic = max(len(ov.synthetic) for ov in overlays)
        print(f"  {text:22s} slider move: set_overlay  {_ms(alone)}")
        print(f"  {'':22s} then the repaint           {_ms(painted)}")
        print(f"  {'':22s} overlay on, with repaint   {_ms(first)}")
        print(f"  {'':22s} engine overlay build       {_ms(build)}  (up to {synthetic} synthetic)")
        panel.set_overlay(None)
    panel.close()


def bench_expand(app: QApplication, data, repeats: int = 25) -> None:
    size = data.frame.height
    times = []
    panel = SessionPanel()
    panel.resize(1280, 800)
    panel.show()
    for _ in range(repeats):
        panel.model.set_session(data.frame, data.marks, data.texts)  # a fresh tree, nothing built
        app.processEvents()
        turn = panel.model.index(0, 0)
        assert panel.model.canFetchMore(turn)
        t0 = time.perf_counter()
        panel.tree.expand(turn)
        app.processEvents()
        times.append(time.perf_counter() - t0)
    print(f"expand a turn of {size:,} events (fetchMore + layout + paint)  {_ms(times)}")
    panel.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1700)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--events", type=int, default=1000)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    store = Store()
    with tempfile.TemporaryDirectory() as folder:
        big = _session(store, Path(folder), args.turns)
        long = _long_turn(store, Path(folder), args.events)
    bench_overlay(app, big, args.moves)
    bench_expand(app, long)
    store.close()


if __name__ == "__main__":
    main()
