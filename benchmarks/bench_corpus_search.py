"""The window's corpus search (issue 17: ≤ 1 s per query), printing each query's time:

    python -m benchmarks.bench_corpus_search [--sessions 5000] [--turns 50] [--db PATH]
                                             [--corpus] [--repeat 3]

Generates ``generate --sessions N --turns T --text`` (kept in /tmp between runs), imports it
into a DuckDB file (``--db``, default one in /tmp named for the size), then times
:func:`explorer.session.corpus_search.search` (``queries/corpus_text_search.sql``: a scan of
every text, no index) for a frequent word, a rare one and one that is absent; with
``--corpus``, the same over the shared corpus (../shared/corpus). Prints the text size read.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from explorer.cli.generate import generate
from explorer.ingest.imports import import_paths
from explorer.session.corpus_search import search
from explorer.store.db import Store

WORDS = ("the", "otel", "zqxjvk")   # frequent, rare (real logs) / absent, absent


def _time(store: Store, repeat: int) -> None:
    db = store.cursor()
    try:
        size = db.con.execute("SELECT count(*), coalesce(sum(strlen(text)), 0) FROM event_details"
                              " WHERE text IS NOT NULL").fetchone()
        print(f"  {size[0]:,} texts, {size[1] / 1e6:,.0f} MB")
        for word in WORDS:
            times, hits = [], []
            for _ in range(repeat):
                start = time.perf_counter()
                hits = search(db, word)
                times.append(time.perf_counter() - start)
            print(f"  {word!r:10} {len(hits):6,} sessions   p50 {statistics.median(times):6.3f} s"
                  f"   max {max(times):6.3f} s   (target ≤ 1 s)")
    finally:
        db.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=5000)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--db", help="the database to import into (default: one in /tmp)")
    parser.add_argument("--corpus", action="store_true", help="also over ../shared/corpus")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    name = f"turnscope-search-{args.sessions}x{args.turns}"
    source = Path("/tmp") / f"{name}.parquet"
    if not source.exists():
        generate(source, sessions=args.sessions, turns=args.turns, text=True)
    db_path = Path(args.db or Path("/tmp") / f"{name}.duckdb")
    fresh = not db_path.exists()
    store = Store(db_path)
    if fresh:
        start = time.perf_counter()
        import_paths(store, [str(source)])
        print(f"imported {source} in {time.perf_counter() - start:,.1f} s")
    print(f"generate --sessions {args.sessions} --turns {args.turns} --text:")
    _time(store, args.repeat)
    store.close()
    if args.corpus:
        corpus = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
        files = [str(p) for p in corpus.rglob("*") if p.is_file() and p.name != "SOURCES.md"]
        store = Store()
        import_paths(store, files)
        print(f"the shared corpus ({len(files)} files):")
        _time(store, args.repeat)
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
