"""The turn tree's structure as plain data (explorer.session.turn_tree), without Qt."""

from __future__ import annotations

import polars as pl
import pytest

from explorer.audits.marks import event_marks
from explorer.session.turn_tree import TurnTree
from explorer.tokens.session_events import session_events
from tests.test_turn_tree import _expected_tree_rows


@pytest.mark.parametrize("session", ["k0002", "s000012"])
def test_the_structure_follows_the_display_pairing(demo, session):
    frame = session_events(demo, session, "ts-unstable")
    marks = event_marks(frame)
    tree = TurnTree.build(frame, marks)
    assert tree.tree_order.tolist() == _expected_tree_rows(frame)
    assert sorted(tree.tree_pos[tree.tree_order].tolist()) == list(range(frame.height))
    for call, result in tree.result_of.items():
        assert tree.kind[call] == "CALL" and tree.call_of[result] == call
        assert tree.turn_of[result] == tree.turn_of[call]
    assert int(tree.turn_size.sum()) == frame.height
    assert int(tree.turn_cost.sum()) == frame["cost"].sum()
    assert sum(sum(m.values()) for m in tree.turn_marks.values()) == sum(len(m) for m in marks)
    assert tree.finding_rows(marks) == [r for r in tree.tree_order.tolist() if marks[r]]


@pytest.mark.parametrize("session", ["k0002", "s000012"])
def test_a_frame_out_of_order_takes_the_general_path_to_the_same_tree(demo, session):
    # session_events' frames (rows by pos, turns ascending) take build's fast paths; the
    # same rows with the turns last to first and every pos doubled take the sorting ones and
    # give the same structure, row for row
    frame = session_events(demo, session, "ts-unstable")
    marks = event_marks(frame)
    perm = (frame.with_row_index().sort(["turn_no", "index"], descending=[True, False])
            ["index"].to_numpy())
    shuffled = frame[perm].with_columns(pos=pl.col("pos") * 2,
                                        display_call_pos=pl.col("display_call_pos") * 2)
    assert frame["turn_no"].n_unique() > 2
    tree, other = TurnTree.build(frame, marks), TurnTree.build(shuffled, [marks[i] for i in perm])
    assert other.tree_order.tolist() == _expected_tree_rows(shuffled)
    assert perm[other.tree_order].tolist() == tree.tree_order.tolist()
    assert other.turn_no.tolist() == tree.turn_no.tolist()
    assert other.turn_size.tolist() == tree.turn_size.tolist()
    assert {perm[c]: perm[r] for c, r in other.result_of.items()} == dict(tree.result_of.items())
    assert dict(other.turn_marks) == dict(tree.turn_marks)


def test_an_empty_session_has_no_turns():
    tree = TurnTree.build(pl.DataFrame(), [])
    assert len(tree.top_rows) == 0 and len(tree.tree_order) == 0 and len(tree.turn_size) == 0
