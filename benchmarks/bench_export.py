"""Export and re-import speed of each interchange format (issue 16).

    python benchmarks/bench_export.py [--sessions 2000] [--turns 20] [--data /tmp/bench-export]

Generates a synthetic corpus (explorer.cli.generate, with text), imports it, then for each
export format prints the export's seconds, events/s and file size, and the re-import's
seconds; and whether the counts of AUDITS.md (but duplicates and shared_keys) came back the
same. Prints figures; asserts nothing. The files are deleted at the end.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.audits import counts as audits
from explorer.cli.generate import generate
from explorer.export import WRITERS, export
from explorer.ingest.imports import import_paths
from explorer.store.db import Store

NOT_KEPT = {"duplicates", "shared_keys"}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sessions", type=int, default=2000)
    p.add_argument("--turns", type=int, default=20)
    p.add_argument("--data", default="/tmp/bench-export")
    args = p.parse_args()
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    try:
        src = data / "corpus.jsonl"
        rows = generate(str(src), sessions=args.sessions, turns=args.turns, text=True,
                        p_result=0.97, p_retry=0.01, seed=1)
        store = Store()
        t = time.perf_counter()
        import_paths(store, [src])
        print(f"corpus: {rows:,} rows, imported in {time.perf_counter() - t:.1f} s")
        before = audits.corpus_counts(store)
        for name in WRITERS:
            out = data / f"export.{name}"
            t = time.perf_counter()
            done = export(store, name, out)
            took = time.perf_counter() - t
            again = Store()
            t = time.perf_counter()
            import_paths(again, [out])
            back = time.perf_counter() - t
            after = audits.corpus_counts(again)
            again.close()
            same = all(before[k] == after[k] for k in before if k not in NOT_KEPT)
            print(f"{name:10} export {took:6.1f} s  {done.events / took:9,.0f} events/s  "
                  f"{out.stat().st_size / 1e6:8.1f} MB   re-import {back:6.1f} s   "
                  f"counts kept: {same}")
        store.close()
    finally:
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
