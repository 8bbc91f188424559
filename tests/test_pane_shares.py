"""The window's panes share its width by what each needs (widgets.pane_shares): on a small
screen the session list and the tree give way so that the right pane's controls stay whole,
the window stays within the screen, Tab scrolls the right pane to the control it reaches,
and a width the user dragged is kept, also across runs (issue 13, item 4)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QWidget,
)

from explorer.cli.demo import demo_paths
from explorer.model import Order
from widgets.app import make_window
from widgets.pane_shares import Pane, shares
from widgets.saved_state import fit_to_screen

WAIT = 60_000
SCREENS = {"1024x768": QRect(0, 0, 1024, 768), "1280x800": QRect(0, 0, 1280, 800)}
PARTS = (QAbstractButton, QComboBox, QAbstractSpinBox, QLineEdit, QAbstractSlider,
         QAbstractItemView, QGroupBox, QLabel)
#: The window's three panes as the splitters claim them: list, tree, preview.
PANES = [Pane(430, 210), Pane(680, 240), Pane(480, 438)]


def test_shares_follow_the_weights_then_give_way_down_to_each_least_width():
    wide = shares(2000, PANES)
    assert wide == [540, 855, 605] and sum(wide) == 2000      # by weight alone
    narrow = shares(1000, PANES)     # the preview raised to its least, the others giving way
    assert narrow == [217, 344, 439] and sum(narrow) == 1000
    assert shares(700, PANES) == [210, 240, 250]   # short of every least: the last scrolls
    assert shares(100, PANES) == [210, 240, 0]     # (the splitter then clamps to minimums)


@pytest.fixture
def window(qtbot):
    window = make_window([str(p) for p in demo_paths()], None, Order.SEQ)
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.audit_shown, timeout=WAIT):
        pass
    return window


def shown_on(qtbot, window, room: QRect):
    fit_to_screen(window, room)
    window.show()
    qtbot.waitExposed(window)
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        window.select_session("k0000")
    # the background work done (the replay strip's labels are set by it), then the layouts
    # settle on the texts the session gave
    qtbot.waitUntil(lambda: not window.jobs.is_busy(), timeout=WAIT)
    qtbot.wait(50)


def cut_parts(window) -> list[str]:
    """The right pane's visible parts lying outside its scrolled widget or narrower than
    their minimum (a cut label or box), named by class and text."""
    inner = window.workspace.right_splitter
    cut = []
    for part in inner.findChildren(QWidget):
        if not isinstance(part, PARTS) or not part.isVisibleTo(window):
            continue
        rect = QRect(part.mapTo(inner, QPoint(0, 0)), part.size())
        if not inner.rect().contains(rect) or part.width() < part.minimumSizeHint().width():
            text = part.text() if hasattr(part, "text") and callable(part.text) else ""
            cut.append(f"{type(part).__name__} {text[:30]!r} {part.width()} "
                       f"< {part.minimumSizeHint().width()}")
    return cut


@pytest.mark.parametrize("screen", SCREENS)
def test_on_a_small_screen_the_right_pane_is_whole_and_the_window_fits(qtbot, window,
                                                                       screen):
    room = SCREENS[screen]
    shown_on(qtbot, window, room)
    workspace, pane = window.workspace, window.workspace.right_pane
    assert window.frameGeometry().width() <= room.width()
    assert window.minimumSizeHint().width() <= room.width()
    # The pane's widget is as wide as it needs: nothing to scroll sideways, nothing cut.
    assert pane.viewport().width() >= workspace.right_splitter.minimumSizeHint().width()
    assert pane.horizontalScrollBar().maximum() == 0
    assert cut_parts(window) == []
    # The list and the tree gave way, each no further than its own least width.
    assert window.left_tabs.width() >= window.centralWidget()._left_least()
    assert workspace.session_panel.width() >= workspace.session_panel.least_width()
    assert window.left_tabs.width() < 430 and workspace.session_panel.width() < 680


def test_tab_into_the_right_pane_scrolls_it_to_the_focused_control(qtbot, window):
    shown_on(qtbot, window, SCREENS["1024x768"])
    pane = window.workspace.right_pane
    bar = pane.verticalScrollBar()
    assert bar.maximum() > 0   # at 768 px the pane scrolls
    viewport = pane.viewport()

    def in_view(widget) -> bool:
        rect = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
        seen = rect.intersected(viewport.rect())
        return (seen.height() >= min(rect.height(), viewport.height())
                and seen.width() >= min(rect.width(), viewport.width()))

    # The pane scrolled to its bottom; from the tree, Tab by Tab through the preview (from
    # its top) down to the comparison table.
    bar.setValue(bar.maximum())
    window.session_panel.tree.setFocus(Qt.FocusReason.OtherFocusReason)
    reached, scrolled = [], {bar.value()}
    inner = window.workspace.right_splitter
    for _ in range(40):
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        focused = QApplication.focusWidget()
        if inner.isAncestorOf(focused):
            reached.append(focused)
            scrolled.add(bar.value())
            assert in_view(focused), type(focused).__name__
        if focused is window.preview.table:
            break
    assert window.preview.budget_control.box in reached and reached[-1] is window.preview.table
    assert len(scrolled) > 1 and bar.value() < bar.maximum()   # it scrolled back up
    # Jumping there by its shortcut's target scrolls it too.
    bar.setValue(bar.maximum())
    window.focus_part("strategy")
    assert in_view(window.preview.picker.family) and bar.value() < bar.maximum()


def drag(splitter, dx: int) -> None:
    handle = splitter.handle(1)
    at = QPoint(handle.width() // 2, handle.height() // 2)
    QTest.mousePress(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
    QTest.mouseMove(handle, at + QPoint(dx, 0))
    QTest.mouseRelease(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                       at + QPoint(dx, 0))


def test_a_width_the_user_dragged_is_kept_and_restored(qtbot, window, tmp_path):
    shown_on(qtbot, window, SCREENS["1280x800"])
    split = window.workspace.splitter
    shared = split.sizes()
    drag(split, -120)                      # a wider right pane
    dragged = split.sizes()
    assert split.dragged and dragged[1] > shared[1] + 100
    window.resize(window.width() - 40, window.height())   # not shared again over it
    QApplication.processEvents()
    assert split.sizes()[1] > shared[1] + 80
    settings = QSettings(str(tmp_path / "saved.ini"), QSettings.Format.IniFormat)
    from widgets.saved_state import SavedState
    SavedState(window, settings).save()
    again = make_window([str(p) for p in demo_paths()], None, Order.SEQ, settings)
    qtbot.addWidget(again)
    assert again.workspace.splitter.dragged          # the user's widths, kept
    assert not again.splitter.dragged                # the list's share: shared anew
    assert again.workspace.splitter.saveState() == split.saveState()
