"""``turnscope replay`` (REPLAY.md, "Command line"): its --json keys and its plain lines."""

from __future__ import annotations

import json

from explorer.cli.main import main
from tests.test_replay import COMPACTED

SESSION = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"


def test_replay_json_has_the_keys_of_replay_md(capsys):
    assert main(["replay", str(COMPACTED), "--session", SESSION, "--trigger", "tokens:30000",
                 "--strategy", "M1", "--budget", "8000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["session_id", "trigger", "strategy", "budget", "order", "calls",
                         "figures"]
    assert (out["trigger"], out["strategy"], out["budget"], out["order"]) == \
        ("tokens:30000", "M1", 8000, "seq")
    assert list(out["calls"][0]) == ["index", "event", "cost", "compacted", "dropped",
                                     "orphan_results", "orphan_calls", "empty", "over"]
    assert list(out["figures"]) == ["calls", "compactions", "peak_cost",
                                    "first_invalid_call", "invalid_calls"]
    assert out["figures"]["calls"] == len(out["calls"])
    assert out["figures"]["compactions"] == sum(c["compacted"] for c in out["calls"]) > 0
    assert max(c["cost"] for c in out["calls"]) == out["figures"]["peak_cost"]


def test_replay_plain_marks_the_recorded_compaction(capsys):
    assert main(["replay", str(COMPACTED), "--session", SESSION, "--strategy", "recorded"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sum("recorded compaction" in line for line in lines) == 1
    assert lines[-1].startswith("calls=") and "compactions=1" in lines[-1]


def test_replay_refuses_a_bad_trigger_and_a_missing_budget(capsys):
    assert main(["replay", str(COMPACTED), "--session", SESSION, "--trigger", "often"]) == 2
    assert "trigger" in capsys.readouterr().err
    assert main(["replay", str(COMPACTED), "--session", SESSION, "--strategy", "M0"]) == 2
    assert "budget" in capsys.readouterr().err
