"""M0-M4 and recorded views (STRATEGIES.md) on hand-worked logs, and its invariants."""

from __future__ import annotations

import pytest

from explorer.cli.generate import generate
from explorer.compaction import CompactionSettings, SessionLog, view
from explorer.compaction.per_session import session_logs
from explorer.model import CostSettings
from explorer.tokens.session_events import session_events
from tests.helpers import jsonl, load


def _log(store, tmp_path, rows, order="seq", name="s"):
    load(store, jsonl(tmp_path / f"{name}.jsonl", rows))
    return SessionLog.from_frame(name, session_events(store, name, order))


def _ev(seq, kind, tokens, call_id=None, **more):
    row = {"session_id": "s", "seq": seq, "kind": kind, "tokens": tokens} | more
    return row | ({"call_id": call_id} if call_id else {})


# Two turns: U1(10) C1(5) R1(50) A1(5) | U2(10) C2(5) R2(50) A2(5); suffix costs from each
# index: 140 130 125 75 70 60 55 5 0.
TWO_TURNS = [_ev(1, "USER", 10), _ev(2, "CALL", 5, "c1"), _ev(3, "RESULT", 50, "c1"),
             _ev(4, "ASSISTANT", 5), _ev(5, "USER", 10), _ev(6, "CALL", 5, "c2"),
             _ev(7, "RESULT", 50, "c2"), _ev(8, "ASSISTANT", 5)]


def _seqs(items):
    return [i.seq for i in items]


def test_m0_cuts_between_call_and_result(store, tmp_path):
    log = _log(store, tmp_path, TWO_TURNS)
    items, m = view(log, "M0", 57)  # suffix(6) = 55 <= 57 < 60 = suffix(5): k0 = 6
    assert _seqs(items) == [7, 8]
    assert (m["cost"], m["orphan_results"], m["pair_split"]) == (55, 1, True)
    assert items[0].flags == ["orphan_result"]


def test_m1_keeps_the_whole_turn_and_goes_over(store, tmp_path):
    log = _log(store, tmp_path, TWO_TURNS)
    items, m = view(log, "M1", 57)  # start(6) = 4: the USER of turn 2
    assert _seqs(items) == [5, 6, 7, 8]
    assert (m["cost"], m["over"], m["orphan_results"], m["pair_split"]) == (70, True, 0, False)


def test_m3_and_m4(store, tmp_path):
    log = _log(store, tmp_path, TWO_TURNS)
    items, m = view(log, "M3", 57)  # forward from 6 to the next USER: none -> empty
    assert items == [] and m["empty"] and m["partial_dropped"] and not m["over"]
    items, m = view(log, "M4", 57)  # M3 is empty: fall back to M0's cut
    assert _seqs(items) == [7, 8] and m["fallback"] and not m["partial_dropped"]
    items, m = view(log, "M3", 72)  # k0 = 4 is a USER: whole second turn
    assert _seqs(items) == [5, 6, 7, 8] and not m["partial_dropped"]


def test_m2_drops_result_heads_and_adds_placeholders(store, tmp_path):
    rows = [_ev(1, "RESULT", 20, "x"), _ev(2, "CALL", 5, "open"), _ev(3, "ASSISTANT", 5),
            _ev(4, "USER", 10), _ev(5, "CALL", 5, "lost"), _ev(6, "ASSISTANT", 5)]
    log = _log(store, tmp_path, rows)
    # k0 = 0 (everything fits); M1 keeps the preamble, whose head is a RESULT with an id:
    # dropped. Then the first turn (up to the USER) has CALL "open" without a result.
    items, m = view(log, "M2", 1000)
    assert [(i.seq, i.kind, i.synthetic) for i in items] == [
        (2, "CALL", False), (None, "RESULT", True), (3, "ASSISTANT", False),
        (4, "USER", False), (5, "CALL", False), (6, "ASSISTANT", False)]
    assert (m["repaired"], m["cost"], m["orphan_calls"]) == (2, 5 + 8 + 5 + 10 + 5 + 5, 1)


def test_recorded_view(store, tmp_path):
    rows = [_ev(1, "USER", 10), _ev(2, "ASSISTANT", 10), _ev(3, "SUMMARY", 30),
            _ev(4, "RESULT", 5, "gone"), _ev(5, "USER", 10)]
    items, m = view(_log(store, tmp_path, rows), "recorded", 1)
    assert _seqs(items) == [3, 4, 5]
    assert m["starts_inside_turn"] and m["orphan_results"] == 1 and m["over"]
    archived = [_ev(1, "USER", 10, archived=True), _ev(2, "ASSISTANT", 10), _ev(3, "USER", 1)]
    items, _ = view(_log(store, tmp_path, [r | {"session_id": "a"} for r in archived],
                         name="a"), "recorded", 100)
    assert _seqs(items) == [2, 3]


@pytest.fixture(scope="module")
def clean_logs(tmp_path_factory):
    """A clean generated corpus read in seq order: each CALL right before its RESULT."""
    from explorer.store.db import Store
    path = tmp_path_factory.mktemp("clean") / "clean.jsonl"
    generate(path, sessions=60, turns=8, seed=3)
    store = Store()
    load(store, path)
    return session_logs(store, "seq", CostSettings())


@pytest.mark.parametrize("budget", [50, 300, 1000, 3000, 10000])
def test_invariants_on_a_clean_log(clean_logs, budget):
    for log in clean_logs:
        m0 = view(log, "M0", budget)[1]
        m1 = view(log, "M1", budget)[1]
        m3_items, m3 = view(log, "M3", budget)
        m4 = view(log, "M4", budget)[1]
        assert m0["orphan_results"] == int(m0["pair_split"])
        assert m1["orphan_results"] == 0 and not m1["pair_split"]
        assert not m3["over"] and not m4["over"]
        assert m4["fallback"] == (not m3_items)


def test_a_noted_user_event_opens_no_turn_in_the_views(store, tmp_path):
    """FORMAT.md, Turns: a USER with a note (command output the harness wrote) belongs to the
    turn it falls in. M1 cutting inside turn 2 goes back to turn 2's own USER (seq 5), not
    to the noted USER at seq 7; the sweep's corpus reads the same kinds as the session."""
    from explorer.compaction import corpus as sweep_corpus
    from explorer.compaction.log import NOTED, USER
    from explorer.model import Order
    rows = [*TWO_TURNS[:6], _ev(7, "USER", 50, note="command output"), TWO_TURNS[7]]
    log = _log(store, tmp_path, rows)
    assert log.kind.tolist().count(NOTED) == 1 and log.kind.tolist().count(USER) == 2
    items, _ = view(log, "M1", 57)   # k0 = 6 (seq 7): its turn starts at seq 5
    assert _seqs(items) == [5, 6, 7, 8]
    whole, _ = sweep_corpus.load(store, Order.SEQ, CostSettings())
    assert whole.kind.tolist() == log.kind.tolist()


def test_a_session_log_holds_compact_arrays_and_shares_the_frames(store):
    """The log of a real compacted Claude Code session holds 32-bit positions and codes and
    8-bit kinds, reads seq, cost and eid from the frame's own buffers, builds what only the
    oracles read when first read, and its corpus of one shares its pairing (a session of
    3M events: 200 MB less for the log, 46 MB less for the corpus)."""
    import numpy as np

    from explorer.compaction.strategies.one_session import corpus_of
    from explorer.session.preview import compare, prepare, strategy_texts
    from tests.test_replay import COMPACTED

    load(store, COMPACTED)
    (session,), = store.run("session_names")
    frame = session_events(store, session, "seq")
    log = SessionLog.from_frame(session, frame)
    assert log.n == frame.height > 400
    assert log.kind.dtype == np.int8
    for name in ("call", "message", "user", "turn_start", "next_user", "prev_call",
                 "next_result"):
        assert getattr(log, name).dtype == np.int32, name
    for name in ("seq", "cost", "eid"):
        assert np.shares_memory(getattr(log, name), frame[name].to_numpy()), name
    prepare(log)
    compare(log, 4000, strategy_texts(), CompactionSettings())
    assert not {"suffix", "content_suffix", "_message_arrays", "_pair_arrays"} & set(vars(log))
    c = corpus_of(log)
    assert c.prev_call is log.prev_call and c.next_result is log.next_result
    # the pairing shared is the corpus's own: -1 wherever an event has no call id
    assert (log.prev_call[~c.has_id] == -1).all() and (log.next_result[~c.has_id] == -1).all()
    # the prefix costs, one array for the corpus and the replay's stretch cuts
    from itertools import accumulate

    from explorer.replay.stretch import StretchCuts
    assert c.total is log.prefix and StretchCuts(log).total is log.prefix
    assert log.prefix.tolist() == [0, *accumulate(frame["cost"].to_list())]
    # read when first asked for: a message per run of one message id, SYSTEM set aside
    body = log.kind != 0
    assert (log.message_no[~body] == -1).all()
    assert log.message_no[body].max() + 1 == len(log.message_start)
    assert "_message_arrays" in vars(log)
