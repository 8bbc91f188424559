"""Core speed benchmark of issue 2: import, audit and memory on a generated corpus.

    python benchmarks/bench_core.py [--sessions 60000] [--turns 50] [--data DIR]

Generates ``generate --sessions N --turns T`` as Parquet (``chars`` rows) once, in a child
process, then in this process measures: DuckDB loading the file into a plain table, one
plain ``GROUP BY session_id`` scan of the file, Turnscope's import of the same file, the
full audit in seq order (and in ts order), and the peak memory of this process; loads are
timed ``--repeat`` times and the medians printed. Prints the
figures; asserts nothing (speed targets live here, not in the tests).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from explorer.audits import counts as audits
from explorer.ingest.imports import import_paths
from explorer.store.db import Store


def _peak_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024  # kB on Linux


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def _corpus(folder: Path, sessions: int, turns: int) -> Path:
    path = folder / f"corpus-{sessions}x{turns}.parquet"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "explorer", "generate", str(path),
                        "--sessions", str(sessions), "--turns", str(turns)], check=True)
        print(f"generated {path} in {time.perf_counter() - start:.1f} s")
    return path


def _plain(path: Path) -> tuple[float, float]:
    con = duckdb.connect()
    literal = "'" + str(path).replace("'", "''") + "'"
    load, _ = _timed(lambda: con.execute(
        f"CREATE TABLE plain AS SELECT * FROM read_parquet({literal})").fetchall())
    scan, _ = _timed(lambda: con.execute(
        f"SELECT session_id, count(*) FROM read_parquet({literal}) GROUP BY session_id").fetchall())
    con.close()
    return load, scan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=60000)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--data", type=Path, default=Path("bench_data"))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each load (median)")
    parser.add_argument("--memory-limit", default="3.5GB",
                        help="DuckDB memory limit of the store (it spills past it)")
    args = parser.parse_args()
    path = _corpus(args.data, args.sessions, args.turns)
    plain = [_plain(path) for _ in range(args.repeat)]
    plain_load = statistics.median(p[0] for p in plain)
    plain_scan = statistics.median(p[1] for p in plain)
    imports = []
    for _ in range(args.repeat):  # a fresh store each time; the last one is audited
        store = Store(memory_limit=args.memory_limit)
        seconds, report = _timed(lambda: import_paths(store, [path]))
        imports.append(seconds)
    import_s = statistics.median(imports)
    audit_s, counts = _timed(lambda: audits.corpus_counts(store, "seq"))
    audit_ts, _ = _timed(lambda: audits.corpus_counts(store, "ts"))
    print(f"file                      {path} ({path.stat().st_size / 1e6:.0f} MB)")
    print(f"events                    {counts['events']:,} in {counts['sessions']:,} sessions")
    print(f"runs (median of)          {args.repeat}; imports {', '.join(f'{t:.2f}' for t in imports)} s")
    print(f"plain GROUP BY scan       {plain_scan:6.2f} s")
    print(f"DuckDB plain table load   {plain_load:6.2f} s")
    print(f"turnscope import          {import_s:6.2f} s  ({import_s / plain_load:.2f}x plain load; target <= 2.5x)")
    print(f"full audit, seq order     {audit_s:6.2f} s  (target <= 10 s)")
    print(f"full audit, ts order      {audit_ts:6.2f} s")
    print(f"peak memory (RSS)         {_peak_gb():6.2f} GB (target <= 4 GB; store memory_limit {args.memory_limit})")
    print(f"rejected                  {report.rejected}")


if __name__ == "__main__":
    main()
