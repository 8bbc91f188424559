"""A session's view computed without a loop or a set per event: the tree's pairing
(display_pairs) and the marks give what the plain per-event definitions give."""

from __future__ import annotations

import random
from collections import defaultdict

import polars as pl
import pytest

from explorer.audits.marks import event_marks
from explorer.cli.demo import demo_paths
from explorer.model import Order
from explorer.store.db import Store
from explorer.tokens.session_events import display_pairs, session_events
from tests.helpers import load


def _reference(kinds: list[str], ids: list[str | None]) -> list[int | None]:
    """AUDITS.md's display pairing, one event at a time (positions from 1)."""
    open_calls: dict[str, list[int]] = defaultdict(list)
    out: list[int | None] = [None] * len(kinds)
    for i, (kind, call_id) in enumerate(zip(kinds, ids)):
        if call_id is None:
            continue
        if kind == "CALL":
            open_calls[call_id].append(i + 1)
        elif kind == "RESULT" and open_calls[call_id]:
            out[i] = open_calls[call_id].pop()
    return out


@pytest.mark.parametrize("seed", range(30))
def test_display_pairs_is_the_nearest_open_call(seed):
    rng = random.Random(seed)
    n = rng.randint(0, 60)
    kinds = [rng.choice(["CALL", "RESULT", "RESULT", "USER"]) for _ in range(n)]
    ids = [rng.choice([None, "a", "b", "c"]) for _ in range(n)]
    frame = pl.DataFrame({"pos": list(range(1, n + 1)), "kind": kinds, "call_id": ids},
                         schema={"pos": pl.Int64, "kind": pl.String, "call_id": pl.String})
    assert display_pairs(frame).to_list() == _reference(kinds, ids)


def test_marks_follow_the_rows_in_any_order():
    store = Store()
    load(store, *demo_paths())
    sessions = [r[0] for r in store.con.execute(
        "SELECT session_id FROM events GROUP BY 1 ORDER BY count(*) DESC LIMIT 5").fetchall()]
    marked = 0
    for session in sessions:
        frame = session_events(store, session, Order.TS)
        marks = event_marks(frame)
        marked += sum(1 for m in marks if m)
        shuffled = frame.with_row_index("row").sample(fraction=1.0, shuffle=True, seed=3)
        again = event_marks(shuffled.drop("row"))
        assert [marks[r] for r in shuffled["row"]] == again
    assert marked > 0
    store.close()
