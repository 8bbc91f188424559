"""The framework strategies of STRATEGIES.md on small hand-worked logs and a generated corpus.

Logs are written in a short notation, one string per event, in viewed order, index 0 first:
``KIND[:call_id][@message_id][=tokens]`` with KIND one of S(YSTEM) U(SER) A(SSISTANT) C(ALL)
R(ESULT); an event costs 10 tokens unless ``=tokens`` says otherwise. Views are described by
event index, ``^`` marking a pinned SYSTEM event and ``+KIND:cost`` a synthetic item.
"""

from __future__ import annotations

import itertools
import re

import pytest

from explorer.cli.generate import generate
from explorer.compaction import CompactionSettings, SessionLog, Strategy, view, window
from explorer.compaction.strategies.messages import messages
from explorer.compaction.strategies.one_session import corpus_of
from explorer.tokens.session_events import session_events
from tests.helpers import jsonl, load

KIND = {"S": "SYSTEM", "U": "USER", "A": "ASSISTANT", "C": "CALL", "R": "RESULT"}
EVENT = re.compile(r"(?P<kind>[SUACR])(?::(?P<call>\w+))?(?:@(?P<msg>\w+))?(?:=(?P<tokens>\d+))?$")
OFF = CompactionSettings(keep_latest_turn=False)
ON = CompactionSettings(keep_latest_turn=True)
_names = itertools.count()


def rows(*events: str, session: str = "s") -> list[dict]:
    out = []
    for seq, text in enumerate(events, 1):
        m = EVENT.match(text)
        assert m, text
        row = {"session_id": session, "seq": seq, "kind": KIND[m["kind"]],
               "tokens": int(m["tokens"] or 10)}
        if m["call"]:
            row["call_id"] = m["call"]
        if m["msg"]:
            row["message_id"] = m["msg"]
        out.append(row)
    return out


@pytest.fixture
def make_log(store, tmp_path):
    """Build a SessionLog from the short notation through the importer."""
    def make(*events: str) -> SessionLog:
        session = f"s{next(_names)}"
        load(store, jsonl(tmp_path / f"{session}.jsonl", rows(*events, session=session)))
        return SessionLog.from_frame(session, session_events(store, session, "seq"))
    return make


def cut_of(log, text, budget=1000, settings=ON):
    return window(log, Strategy.parse(text), budget, settings)


def described(log, text, budget=1000, settings=ON):
    """The view's items in the notation of the module docstring, and its metrics."""
    items, metrics = view(log, text, budget, settings)
    names = [f"+{i.kind}:{i.cost}" if i.synthetic else f"{i.index}{'^' if i.pinned else ''}"
             for i in items]
    return names, metrics


# -- Spring AI: turn window ------------------------------------------------------------------
def test_spring_turns_keeps_the_preamble_and_the_last_turns(make_log):
    log = make_log("S", "A", "U", "A", "U", "C:c1", "R:c1", "U", "A")
    # Three USER events (2, 4, 7) > N = 2: the cut is the USER opening the first kept turn
    # (4); the preamble's ASSISTANT (1) stays, and so does the pinned SYSTEM event (0).
    w = cut_of(log, "spring-turns:2")
    assert (w.cut, w.partial_dropped) == (4, False)
    # (A kept preamble is not a suffix: the Window carries an explicit mask, and the SYSTEM
    # event before the cut is still shown pinned, at the front.)
    names, metrics = described(log, "spring-turns:2")
    assert names == ["0^", "1", "4", "5", "6", "7", "8"]
    assert metrics["cost"] == 70
    # At most N USER events: nothing happens.
    assert cut_of(log, "spring-turns:3").cut == 0
    # Without a non-SYSTEM preamble the view is the pinned SYSTEM events plus a suffix.
    bare = make_log("S", "U", "A", "U", "A")
    assert described(bare, "spring-turns:1")[0] == ["0^", "3", "4"]


# -- Spring AI: sliding window ---------------------------------------------------------------
def test_spring_events_snaps_a_cut_inside_a_turn_forward(make_log):
    log = make_log("U", "A", "U", "C:c1", "R:c1", "A", "U", "A")
    # Eight messages, N = 3: raw cut = first event of message 8 - 3 = 5 (the ASSISTANT at 5),
    # inside the turn opened at 2, so it snaps forward to the next USER (6).
    w = cut_of(log, "spring-events:3")
    assert (w.raw_cut, w.cut, w.partial_dropped) == (5, 6, True)
    # N = 4: raw cut at the RESULT (4), snapped to 6 as well: no orphan result is kept.
    assert (cut_of(log, "spring-events:4").cut, view(log, "spring-events:4", 1000)[1]
            ["orphan_results"]) == (6, 0)
    # N = 6: raw cut at message 2, a USER event: no snapping, no partial turn dropped.
    w = cut_of(log, "spring-events:6")
    assert (w.cut, w.partial_dropped) == (2, False)
    # At most N messages: nothing happens.
    assert cut_of(log, "spring-events:8").cut == 0


def test_spring_events_latest_turn_over_the_limit_with_the_switch_off_and_on(make_log):
    log = make_log("U", "A", "U", "C:c1", "R:c1", "C:c2", "R:c2", "A")
    # N = 3: raw cut = message 5 (the CALL at 5) inside the latest turn (2..7), no USER after.
    # Off (the incubating library): the cut is n = 8 and the view is empty.
    off = cut_of(log, "spring-events:3", settings=OFF)
    assert (off.cut, off.partial_dropped) == (8, True)
    assert view(log, "spring-events:3", 1000, OFF)[1]["empty"] is True
    # On: the cut becomes the latest USER (2): the latest turn, six messages > N, stays whole.
    on = cut_of(log, "spring-events:3", settings=ON)
    assert (on.cut, on.partial_dropped) == (2, False)
    assert described(log, "spring-events:3", settings=ON)[0] == ["2", "3", "4", "5", "6", "7"]


def test_keep_latest_turn_without_any_user_keeps_from_the_first_non_system_event(make_log):
    log = make_log("S", "A", "C:c1", "R:c1", "A")
    # Four messages, N = 2: raw cut at the RESULT (3); no USER at all, so snapping gives n.
    assert cut_of(log, "spring-events:2", settings=OFF).cut == 5
    # On: "the first non-SYSTEM event if there is none" (1): the whole log is the view.
    assert cut_of(log, "spring-events:2", settings=ON).cut == 1
    assert described(log, "spring-events:2", settings=ON)[0] == ["0^", "1", "2", "3", "4"]


# -- Spring AI: token window -----------------------------------------------------------------
def test_spring_tokens_does_not_count_system_and_snaps_forward(make_log):
    log = make_log("S=1000", "U", "A", "U", "C:c1", "R:c1", "A")
    # B = 45: from the newest back 10, 20, 30, 40 (USER at 3) fit, the ASSISTANT at 2 makes
    # 50 > 45: raw cut 3, a USER event. The SYSTEM event's 1000 tokens are not counted.
    w = cut_of(log, "spring-tokens", 45)
    assert (w.raw_cut, w.cut, w.partial_dropped) == (3, 3, False)
    assert described(log, "spring-tokens", 45)[0] == ["0^", "3", "4", "5", "6"]
    # B = 25: the CALL at 4 makes 30 > 25: raw cut 5 (the RESULT), snapped forward: no USER
    # after it, so n (off) or the latest USER, 3 (on).
    assert (cut_of(log, "spring-tokens", 25, OFF).cut, cut_of(log, "spring-tokens", 25, ON).cut) \
        == (7, 3)
    # B = 5: the newest event alone does not fit: the walk leaves nothing.
    assert (cut_of(log, "spring-tokens", 5, OFF).cut, cut_of(log, "spring-tokens", 5, ON).cut) \
        == (7, 3)
    # B = 60: all six non-SYSTEM events fit (SYSTEM not counted): nothing happens.
    assert cut_of(log, "spring-tokens", 60).cut == 0


def test_spring_tokens_raw_cut_on_a_system_event_drops_no_partial_turn(make_log):
    log = make_log("U", "A", "S", "U", "A")
    # B = 25: 10 + 10 fit (4, 3), the SYSTEM event is not counted, the ASSISTANT at 1 makes
    # 30: raw cut 2, the SYSTEM event. It is pinned either way, so the cut moves on to the USER
    # at 3 without dropping any part of a turn the raw cut kept.
    w = cut_of(log, "spring-tokens", 25)
    assert (w.raw_cut, w.cut, w.partial_dropped) == (2, 3, False)
    assert described(log, "spring-tokens", 25)[0] == ["2^", "3", "4"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Sessions of a generated corpus (no SYSTEM events) in two orders."""
    from explorer.store.db import Store
    path = tmp_path_factory.mktemp("gen") / "corpus.jsonl"
    generate(path, sessions=40, turns=6)
    store = Store()
    load(store, path)
    ids = [r[0] for r in store.con.execute(
        "SELECT DISTINCT session_id FROM events ORDER BY 1").fetchall()]
    logs = [SessionLog.from_frame(s, session_events(store, s, order))
            for s in ids for order in ("seq", "ts-unstable")]
    store.close()
    return logs


@pytest.mark.parametrize("budget", [1, 50, 200, 400, 1600, 4000, 100_000])
def test_spring_tokens_equals_m3_without_system_events_and_switch_off(generated, budget):
    assert len(generated) == 80 and not any(log.is_system.any() for log in generated)
    for log in generated:
        ours = cut_of(log, "spring-tokens", budget, OFF)
        m3 = window(log, Strategy.parse("M3"), budget)
        assert (ours.cut, ours.partial_dropped) == (m3.cut, m3.partial_dropped), log.session_id


def test_the_switch_changes_only_the_spring_session_strategies(generated):
    for log in generated[:20]:
        for text in ("spring-turns:2", "agentscope:5:3", "agentscope-tokens:5",
                     "memory-window:9:1.x", "memory-window:9:2.0"):
            on, off = cut_of(log, text, 300, ON), cut_of(log, text, 300, OFF)
            assert (on.cut, on.front, on.partial_dropped) == (
                off.cut, off.front, off.partial_dropped)


# -- Spring AI: recursive summarization -----------------------------------------------------
def test_spring_summary_puts_user_and_summary_after_the_pinned_system_events(make_log):
    log = make_log("S", "U", "A", "S", "U", "A", "U", "A")
    # Six messages (SYSTEM set aside), N = 3: raw cut = message 3 = the ASSISTANT at 5, snapped
    # to the USER at 6. The cut is after the first non-SYSTEM event (1): both pinned SYSTEM
    # events come first, then USER (0 tokens) and SUMMARY (summary_cost), then the suffix.
    settings = CompactionSettings(summary_cost=250)
    names, metrics = described(log, "spring-summary:3", settings=settings)
    assert names == ["0^", "3^", "+USER:0", "+SUMMARY:250", "6", "7"]
    assert metrics["cost"] == 10 + 10 + 0 + 250 + 10 + 10
    assert metrics["partial_dropped"] is True
    # Nothing cut (six messages, N = 6): no synthetic items.
    assert described(log, "spring-summary:6")[0] == [str(i) for i in range(8)]


def test_spring_summary_is_added_to_an_empty_window_but_not_to_a_whole_log(make_log):
    log = make_log("S", "A", "U", "C:c1", "R:c1", "A")
    # N = 2: raw cut at the RESULT (4), no USER after it. Off: cut n, the view is SYSTEM +
    # USER + SUMMARY ("also when the kept window is empty").
    assert described(log, "spring-summary:2", settings=OFF)[0] == ["0^", "+USER:0", "+SUMMARY:300"]
    # On: the latest USER (2), after the first non-SYSTEM event (1): summary again.
    assert described(log, "spring-summary:2", settings=ON)[0] == [
        "0^", "+USER:0", "+SUMMARY:300", "2", "3", "4", "5"]
    # No USER at all, switch on: the cut is the first non-SYSTEM event, nothing summarized.
    bare = make_log("S", "A", "C:c1", "R:c1", "A")
    assert cut_of(bare, "spring-summary:1", settings=ON).front == ()


# -- AgentScope ------------------------------------------------------------------------------
def test_agentscope_cut_on_a_result_moves_back_to_its_call(make_log):
    log = make_log("U", "A", "C:c1@m", "C:c2@m", "R:c1", "R:c2", "A")
    # Messages: U 0, A 1, the two CALLs 2 (one message_id), R 3, R 4, A 5: six >= T = 3. The cut
    # is before the last K = 3 messages: message 3, the RESULT at 4. Messages 3 and 4 hold only
    # RESULTs (ids c1, c2); the latest earlier message with a CALL of them is message 2.
    w = cut_of(log, "agentscope:3:3")
    assert (w.raw_cut, w.cut, w.front) == (4, 2, (("SUMMARY", 300),))
    names, metrics = described(log, "agentscope:3:3")
    assert names == ["+SUMMARY:300", "2", "3", "4", "5", "6"]
    assert metrics["orphan_results"] == 0 and metrics["pair_split"] is False
    # Fewer than T messages: nothing happens.
    assert cut_of(log, "agentscope:7:3").cut == 0


def test_agentscope_cut_on_results_without_their_call_moves_past_the_run(make_log):
    log = make_log("S", "U", "A", "R:x", "R:y", "A", "U", "A")
    # Seven messages; K = 5: the cut is at message 2 (the RESULT at 3); the run is messages
    # 2, 3 (ids x, y) and no earlier message holds a CALL of them: forward to message 4 (5).
    # No turn alignment: the view starts at an ASSISTANT event.
    w = cut_of(log, "agentscope:1:5")
    assert (w.raw_cut, w.cut) == (3, 5)
    assert described(log, "agentscope:1:5")[0] == ["0^", "+SUMMARY:300", "5", "6", "7"]


def test_agentscope_edges_first_message_and_past_the_last(make_log):
    # The repair moves back to the first message: nothing happens.
    back = make_log("C:c1", "R:c1", "A")
    assert (cut_of(back, "agentscope:1:2").cut, cut_of(back, "agentscope:1:2").front) == (0, ())
    # K >= count: the cut is before the first message: nothing happens.
    assert cut_of(back, "agentscope:1:9").cut == 0
    # The run reaches past the last message: the view is SYSTEM + SUMMARY (cut n).
    tail = make_log("S", "U", "A", "R:x")
    w = cut_of(tail, "agentscope:1:1")
    assert (w.cut, w.front) == (4, (("SUMMARY", 300),))
    names, metrics = described(tail, "agentscope:1:1")
    assert names == ["0^", "+SUMMARY:300"] and metrics["empty"] is True


def test_agentscope_tokens_cuts_at_the_earliest_message_that_fits(make_log):
    log = make_log("S=500", "U", "A=20", "C:c1=5", "R:c1=30", "A")
    # Suffix costs of the messages (SYSTEM not counted): U 75, A 65, C 45, R 40, A 10.
    # B = 45: the CALL (3) is the earliest that fits.
    assert cut_of(log, "agentscope-tokens:1", 45).cut == 3
    # B = 42: the RESULT (4) fits; it holds only a RESULT, so the cut moves back to its CALL.
    w = cut_of(log, "agentscope-tokens:1", 42)
    assert (w.raw_cut, w.cut) == (4, 3)
    # B = 5: nothing fits, but at least one message is kept (count - 1 = 4, the ASSISTANT).
    assert described(log, "agentscope-tokens:1", 5)[0] == ["0^", "+SUMMARY:300", "5"]
    # B = 75: everything fits: the cut is at the first message, nothing happens; SYSTEM and
    # summary costs are not counted against B.
    assert cut_of(log, "agentscope-tokens:1", 75).cut == 0
    # Fewer than T messages: nothing happens whatever the budget.
    assert cut_of(log, "agentscope-tokens:6", 5).cut == 0


# -- Messages --------------------------------------------------------------------------------
def test_messages_group_by_message_id_across_system_but_not_after_another_event(make_log):
    log = make_log("U", "C:a@m", "C:b@m", "S", "C:c@m", "R:a", "R:b", "R:c", "A@m")
    # Messages: U 0 | the three CALLs 1, 2, 4 sharing m (the SYSTEM at 3 does not split
    # them) | R 5 | R 6 | R 7 | A 8 (m reappears after other events: a new message). Six
    # messages plus one SYSTEM event: memory-window:7 keeps all.
    assert list(log.message_start) == [0, 1, 5, 6, 7, 8]
    assert cut_of(log, "memory-window:7:1.x").cut == 0
    # N = 6 evicts one message, the USER; N = 5 evicts two: the three CALLs go together and the
    # SYSTEM event between them stays pinned.
    assert cut_of(log, "memory-window:6:1.x").cut == 1
    assert described(log, "memory-window:5:1.x")[0] == ["3^", "5", "6", "7", "8"]
    # Spring-events counts the same six messages: N = 5 cuts at message 1, snapped (no USER
    # after it) to n with the switch off.
    assert cut_of(log, "spring-events:6", settings=OFF).cut == 0
    assert cut_of(log, "spring-events:5", settings=OFF).cut == 9
    # AgentScope: T = 6 triggers, T = 7 does not.
    assert cut_of(log, "agentscope:6:5").cut == 1
    assert cut_of(log, "agentscope:7:5").cut == 0


# -- Spring AI MessageWindowChatMemory -------------------------------------------------------
def test_memory_window_1x_cuts_anywhere_and_2_0_starts_at_a_user_message(make_log):
    log = make_log("S", "U", "A", "C:c@m", "R:c", "A", "U", "A")
    # One SYSTEM event + seven messages = 8 > N = 5: the oldest 3 messages (U, A, C) go.
    # 1.x: the cut is the first kept message, the RESULT at 4: an orphan and a pair split.
    w1 = cut_of(log, "memory-window:5:1.x")
    assert (w1.cut, w1.partial_dropped) == (4, False)
    names, metrics = described(log, "memory-window:5:1.x")
    assert names == ["0^", "4", "5", "6", "7"]
    assert (metrics["orphan_results"], metrics["pair_split"]) == (1, True)
    # 2.0: from there to the first message holding a USER event: the USER at 6.
    w2 = cut_of(log, "memory-window:5:2.0")
    assert (w2.raw_cut, w2.cut, w2.partial_dropped) == (4, 6, True)
    assert described(log, "memory-window:5:2.0")[0] == ["0^", "6", "7"]
    # 8 <= N: nothing happens.
    assert cut_of(log, "memory-window:8:2.0").cut == 0
    # N = 2: six messages go, the last (an ASSISTANT) has no USER at or after it: 2.0 is empty.
    assert (cut_of(log, "memory-window:2:1.x").cut, cut_of(log, "memory-window:2:2.0").cut) \
        == (7, 8)
    # N = 1 (<= #SYSTEM): every message is evicted, the SYSTEM event stays.
    assert described(log, "memory-window:1:1.x")[0] == ["0^"]


# -- Budget independence, strategy texts ----------------------------------------------------
def test_budget_independent_arrays_are_built_once_per_log(make_log):
    log = make_log("U", "A", "U", "A")
    cut_of(log, "spring-tokens", 5)
    first, arrays = corpus_of(log), messages(corpus_of(log))
    for budget in (5, 15, 25):
        cut_of(log, "spring-tokens", budget)
        cut_of(log, "agentscope-tokens:1", budget)
    assert corpus_of(log) is first and messages(corpus_of(log)) is arrays


@pytest.mark.parametrize("text, message", [
    ("spring-window:3", "unknown strategy 'spring-window:3'"),
    ("spring-events", "strategy spring-events takes 1 argument(s), as in spring-events:20"),
    ("agentscope:50", "strategy agentscope takes 2 argument(s), as in agentscope:50:20"),
    ("spring-tokens:4", "strategy spring-tokens takes 0 argument(s)"),
    ("spring-turns:x", "'spring-turns:x': 'x' is not an integer"),
    ("agentscope:0:20", "'agentscope:0:20': arguments are >= 1"),
    ("memory-window:20:3.0", "memory-window's variant is 1.x or 2.0, got '3.0'"),
    ("memory-window:0:2.0", "'memory-window:0:2.0': arguments are >= 1"),
])
def test_strategy_parse_rejects_bad_texts(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Strategy.parse(text)


def test_strategy_parse_reads_framework_arguments():
    assert Strategy.parse("memory-window:20:2.0").args == (20, "2.0")
    assert Strategy.parse(" agentscope:50:20 ").args == (50, 20)


def test_all_framework_cuts_are_valid_on_generated_logs(generated):
    for log in generated[:10]:
        for text in ("spring-turns:3", "spring-events:7", "spring-summary:7", "spring-tokens",
                     "agentscope:4:3", "agentscope-tokens:4", "memory-window:6:1.x",
                     "memory-window:6:2.0"):
            for budget in (100, 1000):
                w = cut_of(log, text, budget)
                assert 0 <= w.cut <= log.n and 0 <= w.raw_cut <= log.n and w.pinned
                # Only the Spring session strategies and memory-window 2.0 drop partial turns.
                assert not w.partial_dropped or text in (
                    "spring-events:7", "spring-summary:7", "spring-tokens", "memory-window:6:2.0")
