"""The preview panel holds still (issue 17): controls keep their place whatever the strategy,
the budget says when the strategy's cut ignores it, the comparison shows six rows at
1280×800 with the previewed strategy in view, and unfolding the transforms scrolls the pane
instead of growing the window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint

from explorer.cli.demo import demo_paths
from explorer.compaction.strategies import FAMILIES
from widgets.app import make_window
from widgets.budget_control import IGNORED_TEXT
from widgets.preview_panel import PreviewPanel

WAIT = 60_000
#: STRATEGIES.md: the families whose cut does not read the budget (issue 17 names them).
IGNORING = {"spring-turns", "spring-events", "spring-summary", "agentscope", "memory-window",
            "recorded"}


@pytest.fixture
def window(qtbot):
    window = make_window([str(p) for p in demo_paths()])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        pass
    window.resize(1280, 800)
    window.show()
    qtbot.waitExposed(window)
    return window


def place(widget, panel) -> tuple[int, int]:
    point = widget.mapTo(panel, QPoint(0, 0))
    return point.x(), point.y()


def test_controls_keep_their_place_and_the_budget_says_when_it_is_ignored(qtbot):
    panel = PreviewPanel()
    qtbot.addWidget(panel)
    panel.resize(460, 900)
    panel.show()
    qtbot.waitExposed(panel)
    watched = (panel.budget_control.box, panel.budget_control.slider, panel.picker.summary_cost,
               panel.other_ratio, panel.order_box)
    places, notes = set(), {}
    for i, family in enumerate(FAMILIES):
        panel.picker.family.setCurrentIndex(i)
        qtbot.wait(1)  # the layout settles
        places.add(tuple(place(w, panel) for w in watched))
        notes[family.name] = panel.budget_control.note.text()
        assert panel.budget_control.slider.isEnabled()  # still the limit "over" reads
    assert len(places) == 1, "a control moved when the strategy changed"
    assert {n for n, text in notes.items() if text == IGNORED_TEXT} == IGNORING
    assert {text for n, text in notes.items() if n not in IGNORING} == {""}
    # and the setting a family does not read is disabled, not removed
    panel.set_strategy("M0")
    assert panel.picker.summary_cost.isVisible() and not panel.picker.summary_cost.isEnabled()


def test_the_comparison_shows_six_rows_and_keeps_the_previewed_one_in_view(qtbot, window):
    table = window.preview.table
    window.preview.compare.refresh()
    qtbot.waitUntil(lambda: window.preview.compare.rowCount() > 6)
    row_height = table.verticalHeader().defaultSectionSize()
    assert table.viewport().height() >= 6 * row_height
    last = window.preview.compare.rows()[-1]["strategy"]
    window.preview.set_strategy(last)
    window.preview.compare.refresh()
    row = window.preview.compare.current_row()
    assert row is not None and row >= 6      # below the rows shown at first
    rect = table.visualRect(window.preview.compare.index(row, 0))
    assert rect.top() >= 0 and rect.bottom() <= table.viewport().height()


def test_unfolding_the_transforms_scrolls_the_pane_and_leaves_the_window(qtbot, window):
    size = window.size()
    budget_at = place(window.preview.budget_control, window.preview)
    window.preview.picker.transforms_button.click()
    qtbot.waitUntil(lambda: place(window.preview.budget_control, window.preview) != budget_at)
    assert window.preview.picker.transforms.isVisible()
    assert window.size() == size
    assert window.workspace.right_pane.verticalScrollBar().maximum() > 0
    window.preview.picker.transforms_button.click()
    qtbot.waitUntil(lambda: place(window.preview.budget_control, window.preview) == budget_at)
    assert window.size() == size
