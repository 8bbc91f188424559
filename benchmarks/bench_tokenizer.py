"""How fast the real tokenizers count a corpus's text (explorer.tokens.counts).

    python -m benchmarks.bench_tokenizer [PATH ...] [--repeat N]

Imports the files (default: every file of ../shared/corpus and the demo data), then times
the whole-corpus count of each encoding, ``--repeat`` times on a fresh table each, and
prints texts, megabytes, seconds and MB/s (median), and what a session load then pays.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from explorer.ingest.imports import import_paths
from explorer.model import TOKENIZERS, CostSettings
from explorer.store.db import Store
from explorer.tokens import counts as token_counts
from explorer.tokens.session_events import session_events


def _default_paths() -> list[str]:
    from explorer.cli.demo import demo_paths
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus"
    files = sorted(p for p in corpus.rglob("*") if p.is_file() and p.name != "SOURCES.md")
    return [str(p) for p in files + list(demo_paths())]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    store = Store()
    report = import_paths(store, args.paths or _default_paths())
    texts, chars, size = store.con.execute(
        "SELECT count(*), sum(length(text)), sum(octet_length(encode(text))) "
        "FROM event_details d JOIN events e USING (eid) "
        "WHERE d.text IS NOT NULL AND e.tokens IS NULL").fetchone()
    print(f"{len(report.files)} files, {texts:,} texts without tokens, {chars:,} characters, "
          f"{size / 1e6:.1f} MB")
    session = store.con.execute("SELECT session_id FROM events GROUP BY 1 "
                                "ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
    for name, encoding in TOKENIZERS.items():
        settings = CostSettings(tokenizer=name)
        times = []
        for _ in range(args.repeat):
            store.con.execute(f"DROP TABLE IF EXISTS {token_counts.table_name(name)}")
            store.run("set_meta", key=f"tokens:{name}", value="")
            started = time.perf_counter()
            token_counts.ensure(store, settings)
            times.append(time.perf_counter() - started)
        total = store.con.execute(
            f"SELECT sum(bpe_tokens) FROM {token_counts.table_name(name)}").fetchone()[0]
        median = statistics.median(times)
        started = time.perf_counter()
        frame = session_events(store, session, settings=settings)
        load = time.perf_counter() - started
        print(f"{encoding:<12} {total:>11,} tokens  median {median:6.3f} s "
              f"(min {min(times):.3f}, max {max(times):.3f})  {size / 1e6 / median:6.1f} MB/s  "
              f"{texts / median:10,.0f} texts/s;  then session {session[:12]}… "
              f"({frame.height:,} events) loads in {load * 1000:.1f} ms")


if __name__ == "__main__":
    main()
