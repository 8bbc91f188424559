"""Build the demo corpus shipped in this folder (``python -m sample_data.make_demo``).

Three files, made with the generator so that every count of AUDITS.md is non-zero in some
order, and a first-time user sees each highlight:
- ``demo_main.jsonl.gz``: 240 sessions with lost calls (orphan results), unanswered calls
  (dangling), retried writes (duplicates) and a coarse clock (ties, clock regressions, and
  in ts-unstable order tie inversions and mispairs). Its last rows are cut off into
- ``demo_late.jsonl.gz``: the same sessions continued in a second file (shared keys).
- ``demo_collapsed.jsonl.gz``: 60 conversations stored under 12 keys with a small call-id
  pool (collapsed keys, turn collisions, event_id conflicts, duplicate call ids).
The output is deterministic: running this again writes the same bytes.
"""

from __future__ import annotations

from pathlib import Path

from explorer.cli.demo import DEMO_FILES
from explorer.cli.generate import generate_table, write_table

HERE = Path(__file__).resolve().parent
LATE_SHARE = 0.15  # the share of demo_main's rows written to the second file


def build(folder: Path = HERE) -> list[Path]:
    """Write the demo files into ``folder`` and return their paths."""
    main_name, collapsed_name, late_name = DEMO_FILES
    main = generate_table(sessions=240, turns=6, max_calls=3, p_result=0.97, p_lost_call=0.04,
                          p_retry=0.03, ts_align=0.4, text=True, seed=7)
    cut = int(main.num_rows * (1 - LATE_SHARE))
    collapsed = generate_table(sessions=60, turns=5, max_calls=3, p_retry=0.02, ts_align=0.4,
                               groups=12, id_space=40, text=True, seed=11)
    paths = [folder / main_name, folder / collapsed_name, folder / late_name]
    write_table(main.slice(0, cut), paths[0])
    write_table(collapsed, paths[1])
    write_table(main.slice(cut), paths[2])
    return paths


if __name__ == "__main__":
    for path in build():
        print(f"{path} ({path.stat().st_size:,} bytes)")
