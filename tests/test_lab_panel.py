"""The Lab tab (widgets/lab_panel.py): each experiment runs in the background and shows the
table the command line prints."""

from __future__ import annotations

from explorer.lab import frames, trigger_gap
from tests.test_replay import COMPACTED
from tests.test_window import WAIT, loaded_window


def _run(qtbot, lab):
    assert lab.run() is not None and lab.cancel_button.isEnabled()
    # What the panel shows, not the worker's signal: a short experiment can end before a
    # waitSignal connected after run() would hear it (CI: 60 s waited for a 20 ms run).
    qtbot.waitUntil(lambda: not lab.cancel_button.isEnabled(), timeout=WAIT)


def test_the_lab_tab_runs_each_experiment_and_shows_its_table(qtbot):
    window = loaded_window(qtbot, [COMPACTED])
    lab = window.lab
    assert window.main_tabs.indexOf(lab) >= 0
    lab.slots.setValue(2000)
    _run(qtbot, lab)
    assert lab.model.keys == trigger_gap.KEYS
    assert lab.model.rows == trigger_gap.run(slots=2000, seed=1)
    assert lab.model.rowCount() == len(trigger_gap.DEFAULT_CASES)
    lab.experiment.setCurrentIndex(1)
    lab.records.setValue(300)
    lab.ks.setText("100")
    _run(qtbot, lab)
    assert lab.model.keys == frames.KEYS and lab.model.rowCount() == 9
    interleaved = [r for r in lab.model.rows if r["damage"] == "interleaved"]
    assert [r["lost"] for r in interleaved] == [2, 2, 1]
    lab.experiment.setCurrentIndex(2)
    lab.estimates.setText("1.5:4,3:6")
    lab.budgets.setText("400")
    _run(qtbot, lab)
    assert lab.model.rowCount() == 5 and "over_budget" in lab.model.keys
    lab.ks.setText("x")
    lab.experiment.setCurrentIndex(1)
    assert lab.run() is None and "invalid literal" in lab.status.text()
