"""The call scrubber and the sawtooth in the window (widgets/replay_strip.py), on the Claude
Code session that recorded a compaction."""

from __future__ import annotations

import json

import numpy as np
from PySide6.QtCore import Qt

from explorer.replay.calls import call_positions
from tests.test_replay import COMPACTED
from tests.test_window import WAIT, loaded_window

SESSION = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"


def _settled(qtbot, strip):
    qtbot.waitUntil(lambda: strip.replay is not None and not strip.job.busy(), timeout=WAIT)


def test_the_scrubber_shows_each_calls_request_in_the_tree(qtbot):
    window = loaded_window(qtbot, [COMPACTED])
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.select_session(SESSION)
    ws, strip = window.workspace, window.workspace.replay
    ws.preview.set_strategy("M1")
    ws.preview.set_budget(8000)
    strip.trigger_edit.setText("tokens:40000")
    strip.run()
    _settled(qtbot, strip)
    rp = strip.replay
    assert (rp.trigger.text, rp.strategy.text, rp.budget) == ("tokens:40000", "M1", 8000)
    log = ws.data.log
    assert strip.slider.maximum() + 1 == len(call_positions(log.kind, log.message)) == 176
    # the recorded compaction is marked apart: the call after the file's isCompactSummary
    raw = [json.loads(line) for line in COMPACTED.read_text().splitlines() if line.strip()]
    assert sum(bool(r.get("isCompactSummary")) for r in raw) == 1
    assert len(strip.recorded.data) == 1
    assert strip.threshold.isVisible() and strip.threshold.value() == 40000
    assert len(strip.simulated.data) == rp.figures["compactions"]
    # the sawtooth holds each call's request cost, in 32 bits (the plot keeps its arrays)
    x, y = strip.curve.getData()
    assert x.dtype == y.dtype == np.int32
    assert x.tolist() == list(range(176))
    assert y.tolist() == [rp.calls.figures(j)["cost"] for j in range(176)]

    strip.in_tree.setChecked(True)
    strip.choose(150)
    shown = ws.session_panel.model._in_view
    assert np.flatnonzero(shown).tolist() == sorted(rp.request(150).src.tolist())
    strip.slider.setFocus()
    qtbot.keyClick(strip.slider, Qt.Key.Key_Right)
    assert strip.slider.value() == 151
    assert np.flatnonzero(ws.session_panel.model._in_view).tolist() == \
        sorted(rp.request(151).src.tolist())

    strip.first_invalid.click()
    assert strip.slider.value() == rp.figures["first_invalid_call"] == 174
    strip.in_tree.setChecked(False)
    assert ws.session_panel.model._overlay is ws.preview.current_overlay()
    # the preview's budget moves the replay once it rests; the chosen call stays chosen
    strip.choose(100)
    ws.preview.set_budget(4000)
    qtbot.waitUntil(lambda: strip.replay.budget == 4000 and not strip.job.busy(), timeout=WAIT)
    assert strip.slider.value() == 100
    assert not strip.turn_line.isVisible()
    # a turn trigger draws the turns each request holds and N on the right axis
    strip.trigger_edit.setText("turns:3")
    strip.run()
    qtbot.waitUntil(lambda: strip.replay.trigger.text == "turns:3" and not strip.job.busy(),
                    timeout=WAIT)
    assert strip.turn_line.isVisible() and strip.turn_line.value() == 3
    assert not strip.threshold.isVisible()
    held = strip.turn_curve.getData()[1]
    assert held.tolist() == [c.turns for c in strip.replay.calls] and max(held) <= 4


def test_the_first_invalid_call_follows_the_picked_provider(qtbot):
    from tests import provider_oracle
    window = loaded_window(qtbot, [COMPACTED])
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.select_session(SESSION)
    ws, strip = window.workspace, window.workspace.replay
    ws.preview.set_strategy("M0")
    ws.preview.set_budget(1600)
    strip.trigger_edit.setText("always")
    strip.run()
    qtbot.waitUntil(lambda: strip.replay is not None and strip.replay.strategy.text == "M0"
                    and strip.replay.budget == 1600 and not strip.job.busy(), timeout=WAIT)
    assert strip.first_invalid.text().startswith("First invalid call")
    assert len(strip.rejected.data) == 0
    ws.preview.provider_picker.set_provider("openai-responses")
    qtbot.waitUntil(lambda: strip.replay is not None and not strip.job.busy()
                    and "rejected_openai_responses" in strip.replay.calls[0].figures,
                    timeout=WAIT)
    rp = strip.replay
    # each call's request judged again by the independent oracle
    want = [j for j in range(len(rp.calls)) if provider_oracle.check(
        [(i["kind"], i["call_id"], i["synthetic"]) for i in rp.items(j)])["openai-responses"]]
    assert want and sorted(strip.rejected.data["x"].astype(int).tolist()) == want
    assert strip.first_invalid.text() == f"First rejected (#{want[0]})"
    assert "OpenAI Responses rejects" in strip.first_invalid.toolTip()
    strip.choose(len(rp.calls) - 1)
    strip.first_invalid.click()
    assert strip.slider.value() == want[0]
    assert "OpenAI Responses rejects this call" in strip.label.text()
    ws.preview.provider_picker.set_provider(None)
    qtbot.waitUntil(lambda: not strip.job.busy()
                    and "rejected_openai_responses" not in strip.replay.calls[0].figures,
                    timeout=WAIT)
    assert strip.first_invalid.text().startswith("First invalid call")


def test_a_big_sessions_replay_waits_for_its_comparison(qtbot, monkeypatch):
    """Compared off the GUI thread (a big session), the strategies come first and the replay
    after them: the two jobs' peaks of memory one after the other, not together."""
    import threading

    from explorer.session import preview
    from widgets import compare_model, replay_strip

    release, compared, seen = threading.Event(), threading.Event(), []

    def compare(*args):
        release.wait(WAIT / 1000)   # held until the test has seen the replay wait
        try:
            return preview.compare(*args)
        finally:
            compared.set()

    def replay_task(*args, **kwargs):
        seen.append(compared.is_set())
        return replay_strip_task(*args, **kwargs)

    replay_strip_task = replay_strip.replay_task
    monkeypatch.setattr(compare_model, "BIG_LOG", 0)   # every session compared in a worker
    monkeypatch.setattr(compare_model, "compare", compare)
    monkeypatch.setattr(replay_strip, "replay_task", replay_task)
    window = loaded_window(qtbot, [COMPACTED])
    strip = window.workspace.replay
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.select_session(SESSION)
    assert strip.label.text().startswith("The replay of ") and strip.replay is None
    release.set()
    _settled(qtbot, strip)
    assert seen and all(seen)
    assert strip.replay.rlog.log.session_id == SESSION and window.workspace.preview.compare.rows()
