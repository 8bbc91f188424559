"""``sweep --trigger`` (REPLAY.md, "Figures", corpus): the vectorised M0/M1 replay of every
session against one replay per session, on a generated corpus with faults and on real logs."""

from __future__ import annotations

import json

import pytest

from explorer.cli.generate import generate
from explorer.cli.main import main
from explorer.compaction.corpus import load
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy
from explorer.model import CostSettings, Order
from explorer.replay import sweep as sw
from explorer.replay.triggers import Trigger
from tests.helpers import load as load_files
from tests.test_replay import CORPUS

TRIGGERS = ("always", "turns:3", "tokens:6000", "messages:12", "fraction:0.5:9000",
            "turns:4|tokens:20000")


def _compare(store, triggers=TRIGGERS):
    c, _ = load(store, Order.SEQ, CostSettings())
    logs = sw._replay_logs(store, c, Order.SEQ, CostSettings(), CompactionSettings())
    rows = sw.sweep_triggered(store, triggers, sw.VECTORISED, (400, 4000))
    assert len(rows) == len(triggers) * 2 * 2
    for row in rows:
        slow = sw.replay_sessions(logs, Trigger.parse(row["trigger"]),
                                  Strategy.parse(row["strategy"]), row["budget"],
                                  CompactionSettings(), fast=False)
        assert {k: row[k] for k in sw.FIGURES} == slow, row
        fast = sw.replay_sessions(logs, Trigger.parse(row["trigger"]),
                                  Strategy.parse(row["strategy"]), row["budget"],
                                  CompactionSettings())
        assert fast == slow, row
    return rows


def test_vectorised_replay_equals_one_replay_per_session_on_a_faulty_corpus(store, tmp_path):
    path = tmp_path / "gen.jsonl"
    generate(path, sessions=16, turns=8, p_result=0.8, p_lost_call=0.05, seed=5)
    load_files(store, path)
    rows = _compare(store)
    assert any(r["invalid_calls"] for r in rows) and any(r["compactions"] for r in rows)


def test_vectorised_replay_equals_one_replay_per_session_on_real_logs(store):
    paths = sorted((CORPUS / "claude-code").glob("*.jsonl")) + \
        sorted((CORPUS / "codex-cli").glob("*.jsonl"))
    load_files(store, *paths)
    rows = _compare(store, ("always", "messages:30", "turns:2|tokens:20000"))
    assert all(r["calls"] == rows[0]["calls"] > 100 for r in rows)


def test_sweep_trigger_json_keys(capsys, tmp_path):
    path = tmp_path / "gen.jsonl"
    generate(path, sessions=5, turns=6, seed=2)
    assert main(["sweep", str(path), "--trigger", "turns:2,tokens:800", "--strategies",
                 "M1,spring-summary:3", "--budgets", "400", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [list(r) for r in rows] == [["trigger", "strategy", "budget", "calls",
                                        "compactions", "invalid_calls", "peak_cost",
                                        "sessions_with_invalid_call"]] * 4
    assert [(r["trigger"], r["strategy"]) for r in rows] == [
        ("turns:2", "M1"), ("turns:2", "spring-summary:3"), ("tokens:800", "M1"),
        ("tokens:800", "spring-summary:3")]
    assert all(r["compactions"] > 0 for r in rows)


@pytest.mark.parametrize("text", ["turns", "tokens:x"])
def test_sweep_refuses_a_bad_trigger(capsys, tmp_path, text):
    path = tmp_path / "gen.jsonl"
    generate(path, sessions=2, turns=2, seed=2)
    assert main(["sweep", str(path), "--trigger", text]) == 2
    assert "trigger" in capsys.readouterr().err
