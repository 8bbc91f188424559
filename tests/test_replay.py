"""Replay (REPLAY.md) on hand-worked sessions, and against the preview on real logs.

Hand-worked sessions use the notation of tests/test_frameworks.py (one string per event,
``KIND[:call_id][@message_id][=tokens]``, 10 tokens unless said); a request is written as
the event indices it holds, ``+KIND`` for a synthetic item.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from explorer.compaction import SessionLog, Strategy, window
from explorer.compaction.window import in_view
from explorer.replay.calls import call_positions
from explorer.replay.run import ReplayLog, replay
from explorer.replay.triggers import Trigger
from explorer.tokens.session_events import session_events
from tests.helpers import jsonl, load
from tests.test_frameworks import rows

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
if not CORPUS.exists():
    CORPUS = Path("/work/shared/corpus")
COMPACTED = CORPUS / "claude-code" / "marot-spotter__ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
_names = itertools.count()
TALK = ("U", "A", "U", "A", "U", "A", "U", "A")       # calls before 1, 3, 5, 7


@pytest.fixture
def make(store, tmp_path):
    def make(*events: str) -> ReplayLog:
        session = f"r{next(_names)}"
        load(store, jsonl(tmp_path / f"{session}.jsonl", rows(*events, session=session)))
        frame = session_events(store, session, "seq")
        return ReplayLog.from_frame(session, frame)
    return make


def requests(rp) -> list[list]:
    """Each call's request: event indices, ``+KIND`` for synthetic items."""
    return [[i["index"] if not i["synthetic"] else "+" + i["kind"] for i in rp.items(j)]
            for j in range(len(rp.calls))]


def column(rp, key):
    return [c.figures[key] for c in rp.calls]


def test_calls_are_made_before_each_new_speaker_run_and_message():
    kind = np.array([0, 1, 2, 3, 4, 2, 6, 2, 3, 1, 3])     # S U A C R A O A C U C
    msg = np.array([-1, -1, -1, -1, -1, 5, -1, 5, 6, -1, -1])
    # A@1: after U; C after A (no id): same call; A after R; A@5 after O and A@5: same;
    # C@6 after A@5: another message; C after U.
    assert call_positions(kind, msg).tolist() == [2, 5, 8, 10]


def test_turns_trigger_compacts_when_more_than_n_turns_are_held(make):
    rp = replay(make(*TALK), "turns:2", "M1", budget=20)
    assert requests(rp) == [[0], [0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert column(rp, "compacted") == [False, False, True, True]
    assert column(rp, "dropped") == [0, 0, 2, 2]
    assert [c.turns for c in rp.calls] == [1, 2, 2, 2]
    general = replay(rp.rlog, "turns:2", "M1", budget=20, fast=False)
    assert [c.figures for c in general.calls] == [c.figures for c in rp.calls]
    assert [c.turns for c in general.calls] == [1, 2, 2, 2]
    assert rp.figures == {"calls": 4, "compactions": 2, "peak_cost": 30,
                          "first_invalid_call": None, "invalid_calls": 0}


def test_tokens_and_fraction_triggers_compact_at_the_threshold(make):
    log = make(*TALK)
    for trigger in ("tokens:30", "fraction:0.5:60"):
        rp = replay(log, trigger, "M0", budget=15)
        assert requests(rp) == [[0], [2], [4], [6]], trigger
        assert rp.figures["compactions"] == 3 and rp.figures["peak_cost"] == 10
    # tokens:31: 30 at call 1 does not fire; 50 at call 2 does; 30 at call 3 not
    assert replay(log, "tokens:31", "M0", budget=15).figures["compactions"] == 1
    # fraction:0.5:61: 30.5 tokens, so 30 at call 1 does not fire either
    assert replay(log, "fraction:0.5:61", "M0", budget=15).figures["compactions"] == 1


def test_messages_trigger_counts_messages_not_events(make):
    log = make("U", "A@m", "C:x@m", "R:x", "U", "A")     # calls before 1 and 5
    # at call 1 the memory holds U, A@m, C@m, R, U: 4 messages (A and C one message)
    assert replay(log, "messages:5", "M0", budget=10).figures["compactions"] == 0
    rp = replay(log, "messages:4", "M0", budget=10)
    assert requests(rp) == [[0], [4]] and rp.figures["compactions"] == 1


def test_a_memory_that_opens_inside_a_message_counts_its_part_as_one(make):
    """M0 cuts between A@m and C@m: the memory then opens with C@m, a message of its own."""
    log = make("U", "A@m", "C:x@m", "R:x", "U", "A=1", "U=1", "A=1")   # calls before 1, 5, 7
    for fast in (True, False):
        rp = replay(log, "tokens:45|messages:5", "M0", budget=30, fast=fast)
        # call 1: 50 tokens fire; call 2: C@m R U A U, 5 messages in 32 tokens, fire too
        assert requests(rp) == [[0], [2, 3, 4], [3, 4, 5, 6]], fast
        assert column(rp, "compacted") == [False, True, True], fast


def test_always_compacts_at_every_call_and_composition_fires_on_either(make):
    log = make(*TALK)
    assert requests(replay(log, "always", "M0", budget=20)) == [[0], [1, 2], [3, 4], [5, 6]]
    tokens = requests(replay(log, "tokens:30", "M0", budget=15))
    turns = requests(replay(log, "turns:2", "M0", budget=15))
    assert requests(replay(log, "turns:5|tokens:30", "M0", budget=15)) == tokens
    assert requests(replay(log, "turns:2|tokens:1000", "M0", budget=15)) == turns
    assert replay(log, "turns:5|tokens:1000", "M0", budget=15).figures["compactions"] == 0
    assert Trigger.parse("turns:5|tokens:30").threshold() == ("cost", 30)


def test_a_spring_summary_survives_later_calls_and_the_next_summary_replaces_it(make):
    log = make(*TALK, "U", "A")                            # calls before 1, 3, 5, 7, 9
    rp = replay(log, "turns:2", "spring-summary:2")
    assert requests(rp) == [[0], [0, 1, 2], ["+USER", "+SUMMARY", 4],
                            ["+USER", "+SUMMARY", 4, 5, 6],     # held, not counted as a turn
                            ["+USER", "+SUMMARY", 8]]
    assert column(rp, "cost") == [10, 30, 310, 330, 310]
    assert column(rp, "compacted") == [False, False, True, False, True]
    assert column(rp, "dropped") == [0, 0, 4, 0, 4]
    assert [c.turns for c in rp.calls] == [1, 2, 1, 2, 1]     # synthetic USER not counted


def test_a_spring_strategy_leaves_its_earlier_summary_out_of_its_count(make):
    # calls before 2, 5 (C:b after R:a) and 7. At call 1, spring-summary:2 (latest turn not
    # kept) cuts everything after SYSTEM: memory S +USER +SUMMARY. At call 2 the memory is
    # S +USER +SUMMARY C:b R:b: set aside, the two synthetic items do not count, C:b and R:b
    # are 2 messages, nothing is cut and the summary stays pinned after S. Counted as
    # ordinary messages (4 > 2) they would make it cut C:b R:b and summarise again.
    from explorer.compaction.settings import CompactionSettings
    log = make("S", "U", "A", "C:a", "R:a", "C:b", "R:b", "A")
    rp = replay(log, "always", "spring-summary:2",
                settings=CompactionSettings(keep_latest_turn=False))
    assert requests(rp) == [[0, 1], [0, "+USER", "+SUMMARY"],
                            [0, "+USER", "+SUMMARY", 5, 6]]
    assert column(rp, "compacted") == [False, True, False]


def test_agentscope_treats_an_earlier_summary_as_an_ordinary_message(make):
    rp = replay(make(*TALK), "always", "agentscope:4:2")
    # call 3: SUMMARY, A, U, A, U are 5 messages; the old SUMMARY is cut with A and U
    assert requests(rp) == [[0], [0, 1, 2], ["+SUMMARY", 3, 4], ["+SUMMARY", 5, 6]]
    assert column(rp, "dropped") == [0, 0, 3, 2]


def test_orphans_of_a_request_make_it_invalid(make):
    log = make("U", "C:a", "R:a=100", "A", "U", "A")      # calls before 1, 3, 5
    rp = replay(log, "always", "M0", budget=105)
    # call 1: memory U C R (120): M0 at 105 keeps R alone, an orphan result
    assert requests(rp)[1] == [2] and rp.calls[1].figures["orphan_results"] == 1
    assert rp.figures["first_invalid_call"] == 1 and rp.figures["invalid_calls"] >= 1
    assert column(rp, "over") == [False, False, False]
    assert replay(log, "turns:100", "recorded").calls[0].figures["over"] is None


def test_bad_triggers_and_a_budgeted_strategy_without_a_budget_are_refused(make):
    for text in ("sometimes", "turns:-1", "tokens:0", "fraction:1.5:100", "fraction:0.9"):
        with pytest.raises(ValueError, match="trigger"):
            Trigger.parse(text)
    with pytest.raises(ValueError, match="budget"):
        replay(make("U", "A"), "always", "M0")


def _history_view(frame: pl.DataFrame, session: str, end: int, strategy: str, budget: int):
    log = SessionLog.from_frame(session, frame.head(end))
    return np.flatnonzero(in_view(log, window(log, Strategy.parse(strategy), budget))).tolist()


REAL = sorted(p for p in (CORPUS / "claude-code").glob("*.jsonl")) + \
    sorted((CORPUS / "codex-cli").glob("*.jsonl"))[:1]


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name[:40])
def test_always_with_m0_and_m1_is_the_preview_of_each_history(store, path):
    load(store, path)
    for (session,) in store.run("session_names"):
        frame = session_events(store, session, "seq")
        rlog = ReplayLog.from_frame(session, frame)
        for budget in (1600, 8000):
            m0 = replay(rlog, "always", "M0", budget)
            m1 = replay(rlog, "always", "M1", budget)
            for fast, general in ((m0, replay(rlog, "always", "M0", budget, fast=False)),
                                  (m1, replay(rlog, "always", "M1", budget, fast=False))):
                assert [c.figures for c in fast.calls] == [c.figures for c in general.calls]
            assert m0.calls, session
            for a, b in zip(m0.calls, m1.calls):
                assert m0.request(a.index).src.tolist() == \
                    _history_view(frame, session, a.position, "M0", budget)
                if not len(m1.request(b.index).src):
                    break   # M1: the same holds until a call's request is empty
                assert m1.request(b.index).src.tolist() == \
                    _history_view(frame, session, b.position, "M1", budget)


def test_recorded_replays_the_compaction_the_claude_code_log_recorded(store):
    raw = [json.loads(line) for line in COMPACTED.read_text().splitlines() if line.strip()]
    boundaries = sum(1 for r in raw if r.get("subtype") == "compact_boundary")
    assert boundaries == 1
    load(store, COMPACTED)
    (session,), = store.run("session_names")
    frame = session_events(store, session, "seq")
    rlog = ReplayLog.from_frame(session, frame)
    rp = replay(rlog, "always", "recorded")
    assert rp.figures["compactions"] == boundaries
    at = next(c.index for c in rp.calls if c.figures["compacted"])
    assert sum(c.recorded for c in rp.calls) == boundaries and rp.calls[at].recorded
    log = rlog.log
    for c in rp.calls[at:]:
        request = rp.request(c.index).src
        held = [i for i in request.tolist() if log.kind[i] != 0]
        view = [i for i in _history_view(frame, session, c.position, "recorded", 1)
                if log.kind[i] != 0]
        assert held == view
    before = rp.calls[at - 1].figures["cost"]
    assert rp.calls[at].figures["cost"] < before / 5    # the sawtooth's drop


def test_calls_are_columns_sharing_one_memory_per_compaction(store):
    """A replay keeps each compaction's memory once, whatever the calls after it (a session
    of 1.5M calls held 1.8 GB when every call kept its own); the sawtooth reads the columns
    the calls' figures are made from."""
    from explorer.session.replay_view import sawtooth

    load(store, COMPACTED)
    (session,), = store.run("session_names")
    rlog = ReplayLog.from_frame(session, session_events(store, session, "seq"))
    for strategy in ("M1", "M2", "recorded"):
        rp = replay(rlog, "always", strategy, 1600)
        starts = [c.index for c in rp.calls if c.index == 0 or c.figures["compacted"]]
        assert rp.figures["compactions"] > 0 and len(rp.calls) > len(starts), strategy
        assert len(rp.calls.bases) == len(starts), strategy
        drawn = sawtooth(rp)
        assert drawn.cost.tolist() == column(rp, "cost")
        assert drawn.compacted.tolist() == [c.index for c in rp.calls if c.figures["compacted"]]
        assert drawn.turns.tolist() == [c.turns for c in rp.calls]
        assert rp.calls[-1].figures == rp.calls[len(rp.calls) - 1].figures
