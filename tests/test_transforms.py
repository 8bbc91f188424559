"""Tool-result eviction and pruning (STRATEGIES.md transforms) on hand-worked sessions."""

from __future__ import annotations

import math

from explorer.compaction import CompactionSettings, SessionLog, view
from explorer.compaction.settings import EVICTION_NOTICE
from explorer.compaction.transforms import for_log
from explorer.tokens.session_events import session_events
from tests.helpers import jsonl, load

BIG = 100_000  # characters: 25,000 tokens of plain text


def _session(store, tmp_path, results):
    """USER, then for each (tool, chars) a CALL and its RESULT; the newest last."""
    rows = [{"session_id": "s", "seq": 1, "kind": "USER", "chars": 40}]
    for n, (tool, chars) in enumerate(results):
        rows += [{"session_id": "s", "seq": 2 * n + 2, "kind": "CALL", "call_id": f"c{n}",
                  "tool": tool, "chars": 40},
                 {"session_id": "s", "seq": 2 * n + 3, "kind": "RESULT", "call_id": f"c{n}",
                  "tool": tool, "chars": chars}]
    load(store, jsonl(tmp_path / "t.jsonl", rows))
    return SessionLog.from_frame("s", session_events(store, "s"))


def _result_costs(log):
    return [int(c) for c, k in zip(log.cost, log.kind) if k == 4]


def test_eviction_keeps_head_tail_and_notice(store, tmp_path):
    log = _session(store, tmp_path, [("bash", BIG), ("read_file", BIG), ("bash", 500)])
    out = for_log(store, log, CompactionSettings(evict=True))
    evicted = math.floor((4000 + len(EVICTION_NOTICE)) / 4 + 0.5)
    # read_file is excluded; 500 characters are under the threshold
    assert _result_costs(out) == [evicted, 25_000, 125]
    assert out.notes == {2: "evicted"}
    items, metrics = view(out, "M0", 10**6, CompactionSettings(evict=True))
    assert items[2].flags == ["evicted"] and items[2].cost == evicted
    assert metrics["cost"] == 10 + 10 + evicted + 10 + 25_000 + 10 + 125


def test_pruning_protects_the_newest_40000_tokens(store, tmp_path):
    log = _session(store, tmp_path, [("bash", BIG), ("bash", BIG), ("bash", BIG)])
    # From the newest back: 25,000 (protected), 50,000 and 75,000 (candidates, 50,000
    # tokens in all >= 20,000): both become their first and last 1,000 characters.
    out = for_log(store, log, CompactionSettings(prune=True))
    assert _result_costs(out) == [500, 500, 25_000]
    assert sorted(out.notes.values()) == ["pruned", "pruned"]


def test_pruning_needs_enough_to_prune_and_skips_excluded_tools(store, tmp_path):
    log = _session(store, tmp_path, [("read_file", BIG), ("bash", BIG), ("bash", BIG)])
    assert _result_costs(for_log(store, log, CompactionSettings(prune=True))) == [25_000, 500, 25_000]
    higher = CompactionSettings(prune=True, prune_minimum=30_000)
    assert _result_costs(for_log(store, log, higher)) == [25_000, 25_000, 25_000]


def test_eviction_comes_before_pruning(store, tmp_path):
    log = _session(store, tmp_path, [("bash", BIG), ("bash", BIG), ("bash", BIG)])
    out = for_log(store, log, CompactionSettings(evict=True, prune=True))
    evicted = math.floor((4000 + len(EVICTION_NOTICE)) / 4 + 0.5)
    # after eviction every RESULT is small: all within the protected 40,000 tokens
    assert _result_costs(out) == [evicted] * 3
    assert set(out.notes.values()) == {"evicted"}


def test_cjk_text_is_counted_from_the_kept_characters(store, tmp_path):
    text = "字" * 2000 + "a" * 90_000 + "字" * 2000
    rows = [{"session_id": "s", "seq": 1, "kind": "USER", "text": "hi"},
            {"session_id": "s", "seq": 2, "kind": "CALL", "call_id": "x", "tool": "bash", "text": "go"},
            {"session_id": "s", "seq": 3, "kind": "RESULT", "call_id": "x", "tool": "bash", "text": text}]
    load(store, jsonl(tmp_path / "c.jsonl", rows))
    log = SessionLog.from_frame("s", session_events(store, "s"))
    out = for_log(store, log, CompactionSettings(evict=True))
    assert int(out.cost[2]) == math.floor(4000 / 1.5 + len(EVICTION_NOTICE) / 4 + 0.5)


def test_command_line_flags_reach_the_transforms(capsys, tmp_path):
    from explorer.cli.main import main
    rows = [{"session_id": "s", "seq": 1, "kind": "USER", "chars": 40},
            {"session_id": "s", "seq": 2, "kind": "CALL", "call_id": "c", "tool": "read_file", "chars": 8},
            {"session_id": "s", "seq": 3, "kind": "RESULT", "call_id": "c", "tool": "read_file",
             "chars": 1000}]
    path = jsonl(tmp_path / "f.jsonl", rows)
    base = ["view", str(path), "--session", "s", "--strategy", "M0", "--budget", "100000",
            "--json", "--evict", "--evict-chars", "500", "--evict-keep", "100"]
    import json
    assert main(base) == 0  # read_file is excluded by default: nothing evicted
    assert json.loads(capsys.readouterr().out)["items"][2]["flags"] == []
    assert main(base + ["--evict-excluded", ""]) == 0
    item = json.loads(capsys.readouterr().out)["items"][2]
    assert item["flags"] == ["evicted"]
    assert item["cost"] == math.floor((200 + len(EVICTION_NOTICE)) / 4 + 0.5)
