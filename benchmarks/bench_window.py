"""The whole window's live paths (issue 4), offscreen, printing p50/p95:

    python -m benchmarks.bench_window [--turns 1800] [--repeat 3] [--db PATH]
    python -m benchmarks.bench_window --first-turn-only --against /work/wt-before --rounds 4

1. Slider movement on one ~10,000-event session shown in the window: the preview's
   ``set_budget`` through the overlay, the tree (every turn expanded: the worst case), the
   metrics strip, the cost plot's line, and the repaint (events processed). Target ≤ 30 ms p95.
2. With ``--db`` (e.g. a database of 60,000 sessions whose list was computed once): the
   time from opening the window to the session list showing its rows. Target ≤ 1 s.
3. With ``--against CHECKOUT``: this slider benchmark run on this checkout and on another
   (e.g. ``git worktree add /work/wt-before 52e4280``) in child processes whose cwd and
   PYTHONPATH are each checkout, alternating for ``--rounds`` rounds so that a shared machine's
   load falls on both alike; prints both sides' p50/p95 wall and CPU per move and their ratio.
   The child runs *this* file against the other checkout's code (its widgets and explorer).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
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


def slider(turns: int, repeat: int, states: tuple[bool, ...] = (False, True),
           samples: dict | None = None) -> None:
    """Time the slider; with ``samples``, also keep each move's (wall, cpu) by strategy."""
    path = Path("/tmp") / f"turnscope-preview-{turns}.parquet"
    tag = os.environ.get("TURNSCOPE_BENCH_TAG")   # one file per checkout (--against)
    if tag:
        path = path.with_name(f"turnscope-preview-{turns}-{tag}.parquet")
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
            if samples is not None:
                samples[f"{text} ({state})"] = {"wall": times, "cpu": cpu}
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


def _child(checkout: Path, argv: list[str]) -> dict:
    """Run this file's slider in a child process on ``checkout``'s code; its samples."""
    env = dict(os.environ, PYTHONPATH=str(checkout),
               TURNSCOPE_BENCH_TAG=str(abs(hash(str(checkout.resolve())))))
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--samples", *argv],
                         cwd=checkout, env=env, capture_output=True, text=True, check=True)
    line = out.stdout.strip().splitlines()[-1]
    return json.loads(line)


def _p(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) * 1000


def against(other: str, rounds: int, argv: list[str]) -> None:
    """This checkout and ``other``, alternating rounds; both sides' figures and their ratio."""
    sides = {"this": Path(__file__).resolve().parents[1], "other": Path(other).resolve()}
    pooled: dict[str, dict[str, dict[str, list[float]]]] = {"this": {}, "other": {}}
    print(f"this = {sides['this']}, other = {sides['other']}; load average before "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for r in range(rounds):
        for side in (("this", "other") if r % 2 == 0 else ("other", "this")):
            for key, got in _child(sides[side], argv).items():
                into = pooled[side].setdefault(key, {"wall": [], "cpu": []})
                into["wall"] += got["wall"]
                into["cpu"] += got["cpu"]
    for side in pooled.values():
        side["all moves"] = {m: [x for v in list(side.values()) for x in v[m]]
                             for m in ("wall", "cpu")}
    print(f"{'ms per move':<40} {'':>5} {'wall p50':>9} {'wall p95':>9} {'cpu p50':>8} "
          f"{'cpu p95':>8}")
    for key in pooled["this"]:
        a, b = pooled["this"][key], pooled["other"].get(key)
        if b is None:
            continue
        rows = {"this": a, "other": b}
        for side, v in rows.items():
            print(f"{key:<40} {side:>5} {_p(v['wall'], 50):9.2f} {_p(v['wall'], 95):9.2f} "
                  f"{_p(v['cpu'], 50):8.2f} {_p(v['cpu'], 95):8.2f}   n={len(v['wall'])}")
        print(f"{key:<40} {'ratio':>5} "
              + " ".join(f"{_p(a[m], q) / _p(b[m], q):{w}.2f}x" for m, q, w in
                         (("wall", 50, 8), ("wall", 95, 8), ("cpu", 50, 7), ("cpu", 95, 7))))
    print(f"load average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
          f"  (ratio = this / other)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1800)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--db", help="a database to time the session list on")
    parser.add_argument("--first-turn-only", action="store_true",
                        help="time the slider with the first turn expanded only")
    parser.add_argument("--against", metavar="CHECKOUT",
                        help="also run the slider on another checkout's code, alternating")
    parser.add_argument("--rounds", type=int, default=4, help="rounds of --against")
    parser.add_argument("--samples", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    states = (False,) if args.first_turn_only else (False, True)
    if args.against:
        argv = ["--turns", str(args.turns), "--repeat", str(args.repeat)]
        against(args.against, args.rounds,
                argv + (["--first-turn-only"] if args.first_turn_only else []))
        return 0
    if args.db:
        list_appears(args.db, args.repeat)
    samples: dict | None = {} if args.samples else None
    slider(args.turns, args.repeat, states, samples)
    if samples is not None:   # the last line, read by the parent of --against
        print(json.dumps(samples))
    return 0


if __name__ == "__main__":
    sys.exit(main())
