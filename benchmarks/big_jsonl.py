"""A big canonical JSON Lines file for the big-input checks of issue 6 §5, written in a stream.

    python benchmarks/big_jsonl.py [--gb 2] [--out /work/bench/big-2gb.jsonl] [--seed 1]

Appends batches of ``explorer.cli.generate.generate_table(text=True)`` (500 sessions of 20
turns each, about 150 MB of JSON Lines) until the file reaches the size asked for; batch
``b`` renames its sessions ``b<b>-s…`` and its event ids ``b<b>-evt-…`` and continues the
global ``seq``, so the batches are distinct sessions of one append-only log. Memory stays at
one batch. Prints the size, rows and time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from explorer.cli import generate  # noqa: E402

SESSIONS_PER_BATCH = 500


def batch(index: int, seed: int, seq_base: int) -> pa.Table:
    """One batch of realistic events, renamed apart from every other batch."""
    table = generate.generate_table(sessions=SESSIONS_PER_BATCH, turns=20, max_calls=4,
                                    p_retry=0.01, ts_align=0.05, text=True, seed=seed + index)
    prefix = f"b{index:05d}-"
    for name in ("session_id", "event_id"):
        renamed = pc.binary_join_element_wise(prefix, table[name], "")
        table = table.set_column(table.schema.get_field_index(name), name, renamed)
    seq = pc.add(table["seq"], seq_base)
    return table.set_column(table.schema.get_field_index("seq"), "seq", seq)


def write(out: Path, size: int, seed: int) -> tuple[int, int]:
    """Write batches until ``out`` holds at least ``size`` bytes: (bytes, rows)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = 0
    with open(out, "wb") as stream:
        index = 0
        while stream.tell() < size:
            table = batch(index, seed, rows)
            generate._write_jsonl_to(table, stream)  # the generator's own JSON Lines encoder
            rows += table.num_rows
            index += 1
        return stream.tell(), rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gb", type=float, default=2.0)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    out = args.out or Path(f"/work/bench/big-{args.gb:g}gb.jsonl")
    start = time.perf_counter()
    size, rows = write(out, int(args.gb * 1024**3), args.seed)
    print(f"wrote {out}: {size / 1024**2:.0f} MB, {rows:,} events "
          f"in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
