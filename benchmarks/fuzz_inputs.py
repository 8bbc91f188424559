"""Longer fuzzing of the import (issue 6 §6): the mutations of tests/test_fuzz.py, drawn from
a seeded RNG, for a given time.

    python benchmarks/fuzz_inputs.py [--seconds 300] [--seed 1] [--out /tmp/fuzz-crashes]
    python benchmarks/fuzz_inputs.py --replay /tmp/fuzz-crashes/0003/<file>

Each input is a corpus file, a demo file or a small canonical file (JSON Lines, gzip, CSV,
Parquet) with 1-3 mutations, imported into a fresh in-memory Store. A crash is an uncaught
exception (a LogFileError in report.errors is not one) or accounting that does not
reconcile; each distinct crash (exception type and the innermost frame of explorer/ outside
store.py) keeps its smallest input under ``--out/NNNN/`` with ``crash.txt`` (mutations and
traceback); a crash already tracked by an xfail test of tests/test_fuzz.py says so. Prints how many inputs were
tried, how many crashed and the distinct crashes.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.test_fuzz import all_seeds, import_one, mutate_file  # noqa: E402


def signature(exc: BaseException) -> str:
    """Exception type and the innermost frame in our code: one line per distinct crash."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if "/explorer/" in f.filename and not f.filename.endswith("/store/db.py")]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    return f"{type(exc).__name__} at {where}"


def run_one(path: Path) -> tuple[str, str] | None:
    """(signature, details) of a crash importing ``path``, or None."""
    try:
        problems = import_one(path)
    except Exception as exc:  # noqa: BLE001 -- every uncaught exception is a finding
        return signature(exc), "".join(traceback.format_exception(exc))
    if problems:
        return "accounting: " + problems[0].split(" ")[0], "\n".join(problems)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("/tmp/fuzz-crashes"))
    parser.add_argument("--replay", type=Path, help="import one kept input again")
    args = parser.parse_args(argv)
    if args.replay:
        crash = run_one(args.replay)
        print(crash[1] if crash else "no crash")
        return 1 if crash else 0
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="fuzz-"))
    seeds = all_seeds(work / "seeds")
    blobs = {p: p.read_bytes() for p in seeds}
    args.out.mkdir(parents=True, exist_ok=True)
    tried, crashed, distinct = 0, 0, {}
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        seed = rng.choice(seeds)
        data, done = mutate_file(blobs[seed], seed.name, lambda lo, hi: rng.randint(lo, max(lo, hi)))
        path = work / "input" / seed.name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)  # left in place if the process dies: replay it
        tried += 1
        crash = run_one(path)
        if crash is None:
            continue
        crashed += 1
        sig, details = crash
        if sig not in distinct or len(data) < distinct[sig][1]:
            folder = args.out / f"{len(distinct):04d}" if sig not in distinct else distinct[sig][0]
            folder.mkdir(exist_ok=True)
            for old in folder.iterdir():
                old.unlink()
            (folder / seed.name).write_bytes(data)
            (folder / "crash.txt").write_text(f"{sig}\nseed: {seed}\nmutations: {done}\n\n{details}")
            distinct[sig] = (folder, len(data), distinct.get(sig, (0, 0, 0))[2] + 1)
        else:
            distinct[sig] = (*distinct[sig][:2], distinct[sig][2] + 1)
    print(f"tried {tried} inputs in {args.seconds:.0f} s; {crashed} crashed; "
          f"{len(distinct)} distinct crashes")
    for sig, (folder, size, count) in sorted(distinct.items(), key=lambda kv: -kv[1][2]):
        print(f"  {count:5d}x {sig}  (smallest input {size} bytes: {folder})")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
