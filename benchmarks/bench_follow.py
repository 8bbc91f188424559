"""Catch-up latency of following a growing log (issue 22; target ≤ 1 s).

    python benchmarks/bench_follow.py [--lines 200] [--log PATH]

A real Claude Code transcript (the corpus's biggest, 2 MB) is written up to its last
``--lines`` lines; then its remaining lines are appended, one every 100 ms, by this process.
Measured: (1) the core — after each append, the time :meth:`Follower.catch_up` takes to
import the new line (only its bytes are read: explorer.ingest.appending), wall and CPU (the
median and the worst); (2) the window — started with ``--follow``, the time from each
append until the open session's tree shows the line's events (median, worst), its timer
looking every 250 ms. Prints the figures with the target and the machine's load;
asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))
CORPUS = HERE.parent / "shared" / "corpus" / "claude-code"
LOG = CORPUS / "marot-spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"


def _core(lines: list[bytes], start: int, folder: Path) -> tuple[list[float], list[float]]:
    from explorer.ingest.follow import Follower
    from explorer.store.db import Store
    path = folder / "core.jsonl"
    path.write_bytes(b"".join(lines[:start]))
    store, follower = Store(None), Follower(path)
    follower.catch_up(store)
    times, cpu = [], []
    for line in lines[start:]:
        with open(path, "ab") as fh:
            fh.write(line)
        t0, c0 = time.perf_counter(), time.process_time()
        report = follower.catch_up(store)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        assert report.files and report.files[0].appended == 1, "the new line alone read"
    return times, cpu


def _window(lines: list[bytes], start: int, folder: Path, every: float = 0.1) -> list[float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication

    from widgets.app import make_window
    path = folder / "window.jsonl"
    path.write_bytes(b"".join(lines[:start]))
    window = make_window([], follow=str(path))
    panel = window.session_panel
    app = QCoreApplication.instance()

    def pump_until(test, limit=30.0) -> float:
        t0 = time.perf_counter()
        while not test() and time.perf_counter() - t0 < limit:
            app.processEvents()
            time.sleep(0.005)
        return time.perf_counter() - t0

    pump_until(lambda: window.workspace.data is not None)
    db = window.store.cursor()   # the window's own connection is its models'
    latencies = []
    for line in lines[start:]:
        with open(path, "ab") as fh:
            fh.write(line)
        t0 = time.perf_counter()

        def shown() -> bool:
            data = window.workspace.data
            return (data is not None and window.follow_job._kept is None
                    and panel.model.event_count() == db.con.execute(
                        "SELECT count(*) FROM events WHERE session_id = ?",
                        [data.session_id]).fetchall()[0][0]
                    and db.frame("list_files").to_dicts()[0]["size"]
                    == path.stat().st_size)
        pump_until(shown)
        latencies.append(time.perf_counter() - t0)
        pump_until(lambda: False, every)
    db.close()
    window.close()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=40, help="lines appended (default 40)")
    parser.add_argument("--log", type=Path, default=LOG)
    args = parser.parse_args()
    lines = args.log.read_bytes().splitlines(keepends=True)
    start = max(1, len(lines) - args.lines)
    with tempfile.TemporaryDirectory() as tmp:
        size = sum(len(x) for x in lines)
        print(f"log: {args.log.name}: {len(lines):,} lines, {size / 1e6:.1f} MB; "
              f"{len(lines) - start} appended")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
              f"on {os.cpu_count()} CPUs")
        core, cpu = _core(lines, start, Path(tmp))
        print(f"core catch-up (new lines read): median {statistics.median(core) * 1000:.0f} ms"
              f" (CPU {statistics.median(cpu) * 1000:.0f} ms), worst {max(core) * 1000:.0f} ms"
              f" (CPU {max(cpu) * 1000:.0f} ms) (target <= 1000 ms)")
        c0 = time.process_time()
        shown = _window(lines, start, Path(tmp))
        print(f"window, append to shown: median {statistics.median(shown) * 1000:.0f} ms, "
              f"worst {max(shown) * 1000:.0f} ms (target <= 1000 ms); CPU "
              f"{(time.process_time() - c0) / len(shown) * 1000:.0f} ms per append, "
              f"the window's 100 ms waits between appends included")


if __name__ == "__main__":
    main()
