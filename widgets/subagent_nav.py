"""Sub-agents one step away, and back (issue 17): from the CALL that started a sub-agent (a
Claude Code ``Task``) to the sub-agent's session, and from that session back to its parent
with the calling CALL selected. Two actions, shown as buttons at the right of the session
panel's title and in the View menu:

- *Open sub-agent session* (Alt+Right; also Enter or a double click on the CALL row): enabled
  when the current tree row is a CALL whose sub-agent session is in the list;
- *Back to parent session* (Alt+Left): enabled while a sub-agent's session is shown.

The links are the session list's (``SessionsModel.parents``, FORMAT.md ``parent_session`` /
``parent_call``); showing a session is the window's (:attr:`SubagentNav.session_requested`).
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QToolButton, QWidget

from explorer.session.subagents import children_by_call
from explorer.text_escape import elided, visible
from widgets.session_panel import SessionPanel
from widgets.sessions_model import SessionsModel

OPEN_TEXT = "Open sub-agent session"
BACK_TEXT = "Back to parent session"


class SubagentNav(QWidget):
    """The two actions (``open_action``, ``back_action``) and their buttons.

    Signals:
        session_requested(str, list): show this session with these events selected (the
            window's ``go_to_finding``): the child with none, the parent with its CALL.
    """

    session_requested = Signal(str, list)

    def __init__(self, panel: SessionPanel, sessions: SessionsModel,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.panel, self.sessions = panel, sessions
        self._children: dict[str, str] = {}   # the shown session's: call id -> child
        self._children_of = ""
        self._marked: tuple = ()   # (session, tree) whose CALL rows are marked in the tree
        self.open_action = QAction(f"{OPEN_TEXT} ▶", self)
        self.open_action.setShortcut(QKeySequence("Alt+Right"))
        self.back_action = QAction(f"◀ {BACK_TEXT}", self)
        self.back_action.setShortcut(QKeySequence("Alt+Left"))
        # short on the buttons (beside the session's title), whole in the View menu
        self.open_action.setIconText("Sub-agent ▶")
        self.back_action.setIconText("◀ Parent")
        for action in (self.open_action, self.back_action):
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.back_button, self.open_button = QToolButton(self), QToolButton(self)
        for button, action in ((self.back_button, self.back_action),
                               (self.open_button, self.open_action)):
            button.setDefaultAction(action)
            # reached by their keys and the View menu: out of the Tab chain
            button.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
            layout.addWidget(button)
        self.open_action.triggered.connect(self.open_child)
        self.back_action.triggered.connect(self.back_to_parent)
        panel.tree.activated.connect(self._on_tree_activated)
        panel.tree.selectionModel().currentChanged.connect(self._on_tree_current_changed)
        for signal in (panel.model.modelReset, panel.model.layoutChanged,
                       sessions.modelReset):
            signal.connect(self.update_actions)
        self.update_actions()

    def actions(self) -> list[QAction]:   # type: ignore[override]
        """The two actions, for a menu."""
        return [self.open_action, self.back_action]

    # -- what the current row and session lead to -------------------------------------------
    def child_of_current(self) -> str | None:
        """The sub-agent session the current tree row's CALL started, when it is listed."""
        return self._child_at(self.panel.tree.currentIndex())

    def _child_at(self, index: QModelIndex) -> str | None:
        row = self.panel.model.frame_row(index) if index.isValid() else None
        if row is None or self.panel.model.tree.kind[row] != "CALL":
            return None
        call = self.panel.model.tree.call_id[row]
        return self._links().get(call) if call is not None else None

    def _links(self) -> dict[str, str]:
        session = self.panel.session_id
        if session != self._children_of:
            self._children_of = session
            self._children = children_by_call(self.sessions.parents(), session) if session else {}
        return self._children

    def parent_of_shown(self) -> tuple[str, str | None] | None:
        """(parent session, calling call id) of the session shown, when it is a sub-agent's."""
        session = self.panel.session_id
        return self.sessions.parent_of(session) if session else None

    # -- actions --------------------------------------------------------------------------
    @Slot()
    def open_child(self) -> str | None:
        """Show the sub-agent session of the current CALL row (its id, or None)."""
        child = self.child_of_current()
        if child is not None:
            self.session_requested.emit(child, [])
        return child

    @Slot()
    def back_to_parent(self) -> str | None:
        """Show the parent of the sub-agent session shown, its calling CALL selected."""
        link = self.parent_of_shown()
        if link is None:
            return None
        parent, call = link
        self.session_requested.emit(parent, [{"kind": "CALL", "call_id": call}] if call else [])
        return parent

    @Slot()
    def update_actions(self) -> None:
        """Enable each action where it leads somewhere; its tooltip says where."""
        self._children_of = "\0"   # the list or the session changed: read the links again
        self._mark_calls()
        self._show_child(self.child_of_current())
        link = self.parent_of_shown()
        self.back_action.setEnabled(link is not None)
        self.back_action.setToolTip(
            f"Show {elided(link[0])}, the session that started this sub-agent, at its call "
            "(Alt+Left)" if link else "The session shown is not a sub-agent's")

    def _mark_calls(self) -> None:
        """Mark the CALL rows of the tree that started a listed sub-agent session (once
        per session and tree read, not on every relayout)."""
        model = self.panel.model
        links = self._links()
        shown = (self.panel.session_id, tuple(sorted(links.items())))
        # the same tree read is the same object (a tree's == compares its columns)
        if self._marked and self._marked[0] == shown \
                and self._marked[1] is model.tree:
            return
        self._marked = (shown, model.tree)
        rows: dict[int, str] = {}
        if links:
            tree = model.tree
            calls = ((tree.kind == "CALL") & tree.call_id.is_in(list(links))).fill_null(False).to_numpy()
            call_ids = tree.call_id
            rows = {int(r): links[call_ids[int(r)]] for r in calls.nonzero()[0]}
        model.set_links(rows)
        self.panel.tree.viewport().update()

    def _show_child(self, child: str | None) -> None:
        self.open_action.setEnabled(child is not None)
        self.open_action.setToolTip(
            f"Show the sub-agent session {visible(child)} this call started (Alt+Right, "
            "Enter)" if child else "The current row is not a call that started a listed "
            "sub-agent session")

    @Slot(QModelIndex, QModelIndex)
    def _on_tree_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_child(self._child_at(current))

    @Slot(QModelIndex)
    def _on_tree_activated(self, index: QModelIndex) -> None:
        child = self._child_at(index)
        if child is not None:
            self.session_requested.emit(child, [])
