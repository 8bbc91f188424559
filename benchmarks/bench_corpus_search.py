"""The window's corpus search (issue 17: ≤ 1 s per query), printing the index's build time,
size and peak memory, and each query's time:

    python -m benchmarks.bench_corpus_search [--sessions 5000] [--turns 50] [--db PATH]
                                             [--corpus] [--repeat 5] [--rebuild] [--scan]

Generates ``generate --sessions N --turns T --text`` (kept in /tmp between runs; written in
row groups of 65,536 rows: the import of one 1.4M-row group ran out of its 512 MiB), imports
it into a DuckDB file (``--db``, default one in /tmp named for the size), builds the search
index (:mod:`explorer.search.index`) in a child process (its wall and CPU seconds, its peak
RSS, the blocks its tables take and the database's growth), then times :func:`explorer.session.corpus_search.find` for
each of :data:`QUERIES`: p50 and p95 wall seconds, p50 CPU seconds, sessions and events
found, how the index answered (exact, verified or a scan; marked * when its first result is
bounded to the last :data:`~explorer.session.corpus_search.SCAN_TEXTS` import positions) and
the verdict of that first result against the 1 s target; for a bounded one, once, the time
to its complete result (:func:`explorer.session.corpus_search.steps` read to the end: its
steps, wall and CPU seconds, sessions and events). ``--scan`` also times the
scan of every text once per query (what the search did before the index); ``--corpus``
repeats it all over ../shared/corpus. The load average is printed: on a shared machine
wall seconds are CPU seconds times the queue.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import statistics
import time
from pathlib import Path

import pyarrow.parquet as pq

from explorer.cli.generate import generate_table
from explorer.ingest.imports import import_paths
from explorer.search import index
from explorer.search.words import plan
from explorer.session.corpus_search import SCAN_TEXTS, find, search, steps
from explorer.store.db import Store

#: A frequent word, a rare one, one absent, a word's start and middle, another case,
#: phrases of frequent words, CJK of 1, 2 and 4 letters (a bounded scan), punctuation
#: (narrowed by the index's symbols) and a symbol alone.
QUERIES = ("the", "otel", "zqxjvk", "conf", "e", "ile", "ERROR", "tool_use", "the file",
           "check the file", "a to", "the a", "e t", ". the", "的", "的是", "想发目过", "的。",
           "test 的", "->", "()", '{"', ". ", "。", "、。")
#: The target per query (issue 17), wall seconds.
TARGET = 1.0


def _peak_rss_mb() -> float:
    """This process's peak RSS since :func:`_reset_peak` (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak() -> None:
    """Forget the peak RSS so far (a child's ru_maxrss starts at its parent's RSS)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _build(db_path: str, rebuild: bool, report) -> None:
    """In the child: bring the index in step (dropped first when ``rebuild``)."""
    _reset_peak()
    store = Store(db_path)
    if rebuild:
        for table in ("search_postings", "search_terms", "search_files"):
            store.con.execute(f"DROP TABLE IF EXISTS {table}")   # our own names
        store.con.execute("DELETE FROM meta WHERE key = $key", {"key": index.VERSION_KEY})
        store.con.execute("CHECKPOINT")
    before = os.path.getsize(db_path)
    wall, cpu = time.perf_counter(), time.process_time()
    done = index.ensure(store)
    store.con.execute("CHECKPOINT")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    terms, postings = store.con.execute("SELECT (SELECT count(*) FROM search_terms),"
                                        " (SELECT count(*) FROM search_postings)").fetchone()
    block = store.con.execute("SELECT block_size FROM pragma_database_size()").fetchone()[0]
    blocks = sum(store.con.execute(
        f"SELECT count(DISTINCT block_id) FROM pragma_storage_info('{table}') WHERE persistent"
    ).fetchone()[0] for table in ("search_terms", "search_postings", "search_files"))
    store.close()
    rss = _peak_rss_mb()
    report.put((done, wall, cpu, os.path.getsize(db_path) - before, terms, postings, rss,
                blocks * block))


def _build_in_child(db_path: Path, rebuild: bool) -> None:
    context = multiprocessing.get_context("spawn")
    report = context.Queue()
    child = context.Process(target=_build, args=(str(db_path), rebuild, report))
    child.start()
    done, wall, cpu, grown, terms, postings, rss, size = report.get()
    child.join()
    print(f"  index: {done:,} import positions indexed in {wall:,.1f} s wall, {cpu:,.1f} s CPU;"
          f" peak RSS {rss:,.0f} MB; {terms:,} words, {postings:,} postings in"
          f" {size / 1e6:,.1f} MB of blocks; the database grew {grown / 1e6:,.1f} MB")


def _time(store: Store, repeat: int, scan: bool) -> None:
    db = store.cursor()
    try:
        size = db.con.execute("SELECT count(*), coalesce(sum(strlen(text)), 0) FROM event_details"
                              " WHERE text IS NOT NULL").fetchone()
        print(f"  {size[0]:,} texts, {size[1] / 1e6:,.0f} M characters;"
              f" load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        for words in QUERIES:
            asked = plan(words)
            walls, cpus, found = [], [], None
            for _ in range(repeat):
                wall, cpu = time.perf_counter(), time.process_time()
                found = find(db, words, complete=False)
                walls.append(time.perf_counter() - wall)
                cpus.append(time.process_time() - cpu)
            hits = found.hits
            how = "scan" if asked.scan else "verified" if asked.verify else "exact"
            if found.bounded_from is not None:
                how += "*"
            p95 = statistics.quantiles(walls, n=20, method="inclusive")[-1] if repeat > 1 \
                else walls[0]
            verdict = "ok" if p95 <= TARGET else "OVER"
            line = (f"  {words!r:16} {how:9} {len(hits):5,} sessions"
                    f" {sum(h.events for h in hits):8,} events   p50 {statistics.median(walls):6.3f} s"
                    f"  p95 {p95:6.3f} s  (CPU p50 {statistics.median(cpus):6.3f} s)"
                    f"  {verdict} against {TARGET:g} s")
            if scan:
                wall, cpu = time.perf_counter(), time.process_time()
                search(db, words, indexed=False)
                line += (f"   scan {time.perf_counter() - wall:6.3f} s"
                         f" (CPU {time.process_time() - cpu:6.3f} s)")
            if found.bounded_from is not None:
                wall, cpu, made = time.perf_counter(), time.process_time(), 0
                for last in steps(db, words):
                    made += 1
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                line += (f"\n  {'':16} complete: {len(last.hits):5,} sessions"
                         f" {sum(h.events for h in last.hits):8,} events in {made} steps,"
                         f" {wall:6.3f} s wall (CPU {cpu:6.3f} s)")
            print(line, flush=True)
        print(f"  load average {os.getloadavg()[0]:.1f} (target: p95 ≤ {TARGET:g} s wall per query;"
              f" * bounded: the texts of the last {SCAN_TEXTS:,} import positions only)")
    finally:
        db.close()


def _generated(args) -> None:
    name = f"turnscope-search-{args.sessions}x{args.turns}"
    source = Path("/tmp") / f"{name}.parquet"
    if not source.exists():
        table = generate_table(sessions=args.sessions, turns=args.turns, text=True)
        pq.write_table(table, source, row_group_size=65_536)
        del table
    db_path = Path(args.db or Path("/tmp") / f"{name}.duckdb")
    if not db_path.exists():
        store = Store(db_path)
        start = time.perf_counter()
        import_paths(store, [str(source)])
        store.close()
        print(f"imported {source} in {time.perf_counter() - start:,.1f} s")
    print(f"generate --sessions {args.sessions} --turns {args.turns} --text ({db_path}):")
    _build_in_child(db_path, args.rebuild)
    store = Store(db_path)
    _time(store, args.repeat, args.scan)
    store.close()


def _corpus(args) -> None:
    corpus = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
    files = [str(p) for p in corpus.rglob("*") if p.is_file() and p.name != "SOURCES.md"]
    db_path = Path("/tmp") / f"turnscope-search-corpus-{os.getpid()}.duckdb"
    try:
        store = Store(db_path)
        import_paths(store, files)
        store.close()
        print(f"the shared corpus ({len(files)} files):")
        _build_in_child(db_path, rebuild=False)
        store = Store(db_path)
        _time(store, args.repeat, args.scan)
        store.close()
    finally:
        for path in (db_path, db_path.with_name(db_path.name + ".wal")):
            path.unlink(missing_ok=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=5000)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--db", help="the database to import into (default: one in /tmp)")
    parser.add_argument("--corpus", action="store_true", help="also over ../shared/corpus")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rebuild", action="store_true",
                        help="drop the index first (to time its build again)")
    parser.add_argument("--scan", action="store_true", help="also time the scan once per query")
    args = parser.parse_args()
    _generated(args)
    if args.corpus:
        _corpus(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
