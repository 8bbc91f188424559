"""The Spark engine against the local one (issue 21): ``sweep`` of the benchmark corpus.

    python -m benchmarks.bench_spark [--sessions 60000] [--turns 50] [--fraction 1.0]
                                     [--master local[2]] [--data DIR]

Writes the corpus of ``generate --sessions N --turns T`` (``--fraction`` of its sessions:
the full 60,000 x 50 is 16.8M events) as one Parquet file under ``--data``, then runs, each
in a child process, ``sweep FILE --json`` (M0-M4 x 400,1600,4000,8000) with the DuckDB
engine and with ``--engine spark``, plus a Spark run on a 1/20 slice to tell its fixed cost
(the JVM's start, the workers') from the cost per event. CPU seconds are those of the child
and of every process under it (the JVM, Spark's Python workers), read from /proc while it
runs. Prints wall and CPU seconds, events per core-second for each engine, checks that the
two print the same rows, and deletes the Parquet files. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def _cpu(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def measured(argv: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds of the process tree, and stdout of ``argv``."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL,
                                 cwd=Path(__file__).resolve().parents[1])
        seen: dict[int, float] = {}
        while child.poll() is None:
            tree, todo = [], [child.pid]
            while todo:
                pid = todo.pop()
                tree.append(pid)
                todo += _children(pid)
            for pid in tree:
                seen[pid] = max(seen.get(pid, 0.0), _cpu(pid))
            time.sleep(0.5)
        wall = time.perf_counter() - start
        out.seek(0)
        return wall, sum(seen.values()), out.read().decode()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sessions", type=int, default=60_000)
    p.add_argument("--turns", type=int, default=50)
    p.add_argument("--fraction", type=float, default=1.0)
    p.add_argument("--master", default="local[2]")
    p.add_argument("--data", default=tempfile.gettempdir())
    args = p.parse_args()
    python = sys.executable
    sessions = max(1, round(args.sessions * args.fraction))
    big = Path(args.data) / f"bench_spark_{sessions}x{args.turns}.parquet"
    small = Path(args.data) / f"bench_spark_{max(1, sessions // 20)}x{args.turns}.parquet"
    try:
        for path, n in ((big, sessions), (small, max(1, sessions // 20))):
            subprocess.run([python, "-m", "explorer", "generate", "--sessions", str(n),
                            "--turns", str(args.turns), str(path)], check=True,
                           stdout=subprocess.DEVNULL)
        import pyarrow.parquet as pq
        events = pq.ParquetFile(big).metadata.num_rows
        few = pq.ParquetFile(small).metadata.num_rows
        print(f"corpus: {sessions:,} sessions x {args.turns} turns ({args.fraction:g} of "
              f"{args.sessions:,}), {events:,} events; load {os.getloadavg()[0]:.1f} on "
              f"{os.cpu_count()} cores")
        sweep = [python, "-m", "explorer", "sweep", "--json"]
        spark = ["--engine", "spark", "--master", args.master]
        local_wall, local_cpu, local_out = measured([*sweep, str(big)])
        print(f"duckdb engine: {local_wall:.1f} s wall, {local_cpu:.1f} CPU s, "
              f"{events / local_cpu:,.0f} events per core-second")
        small_wall, small_cpu, _ = measured([*sweep, str(small), *spark])
        spark_wall, spark_cpu, spark_out = measured([*sweep, str(big), *spark])
        print(f"spark engine ({args.master}): {spark_wall:.1f} s wall, {spark_cpu:.1f} CPU s, "
              f"{events / spark_cpu:,.0f} events per core-second")
        marginal = (events - few) / max(spark_cpu - small_cpu, 1e-9)
        print(f"spark on {few:,} events: {small_wall:.1f} s wall, {small_cpu:.1f} CPU s; per "
              f"event beyond its fixed cost: {marginal:,.0f} events per core-second, fixed "
              f"cost {small_cpu - few / marginal:.1f} CPU s")
        print(f"same rows: {local_out == spark_out}; load {os.getloadavg()[0]:.1f}")
    finally:
        for path in (big, small):
            path.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
