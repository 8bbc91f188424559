"""What each cell of the turn tree shows: the text, badges, tooltips and colours of turn,
event and synthetic rows. A mixin of :class:`widgets.turn_tree_model.TurnTreeModel`, which
holds the session's columns and the overlay's state these methods read."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor

from explorer.audits.marks import MARKS
from explorer.session.readable import event_label
from explorer.session.view_overlay import SyntheticItem
from explorer.text_escape import elided, visible
from widgets.mark_style import BADGES_ROLE, STYLES, VIEW_ERROR_KEYS, tooltip

COLUMNS = ("event", "seq", "cost", "view", "marks")
#: After the tool of a CALL that started a listed sub-agent session.
SUBAGENT_MARK = "↳ sub-agent"
EVENT, SEQ, COST, VIEW, MARK = range(len(COLUMNS))
_ROLE = Qt.ItemDataRole
#: The background of a row whose text holds the session search's words (Ctrl+F), and the
#: dark text on it (readable under a dark palette too).
HIT_BRUSH = QBrush(QColor(196, 222, 255))
HIT_TEXT = QBrush(QColor(10, 20, 40))


class TurnTreeCells:
    """The per-role data of the three kinds of rows (see the module docstring)."""

    def set_hits(self, rows: list[int]) -> None:
        """Mark the frame rows the session search found (and their turns); the view
        repaints to show it."""
        rows = frozenset(rows)
        self._hit_state = (self._frame, rows, frozenset(int(self._turn_of[r]) for r in rows))

    def set_links(self, links: dict[int, str]) -> None:
        """Mark the CALL rows that started a listed sub-agent session (row -> its id,
        :mod:`widgets.subagent_nav`): their label says so, their tooltip names it."""
        self._link_state = (self._frame, dict(links))

    def _links(self) -> dict[int, str]:
        state = getattr(self, "_link_state", None)
        return state[1] if state is not None and state[0] is self._frame else {}

    def _hits(self) -> tuple[frozenset, frozenset]:
        state = getattr(self, "_hit_state", None)
        if state is None or state[0] is not self._frame:
            return frozenset(), frozenset()
        return state[1], state[2]

    def mark_keys(self, row: int) -> list[str]:
        """The finding marks and view errors of one frame row, in legend order."""
        errors = self._errors.get(row, ())
        return ([m for m in MARKS if m in self._marks[row]]
                + [k for k in VIEW_ERROR_KEYS if k[5:] in errors])

    def _turn_data(self, turn: int, column: int, role: int) -> Any:
        counts = dict(self._turn_marks.get(turn, ()))
        counts.update({f"view:{e}": c for e, c in self._turn_errors.get(turn, {}).items()})
        keys = [k for k in (*MARKS, *VIEW_ERROR_KEYS) if k in counts]
        if role == _ROLE.DisplayRole:
            if column == EVENT:
                no, top = self._turn_no[turn], self._top_rows[turn]
                title = "Preamble" if no == 0 else f"Turn {no}"
                text = self._text_preview(top[0]) if top else ""
                return f"{title} — {text}" if text else title
            if column == COST:
                return f"{int(self._turn_cost[turn]):,}"
            if column == VIEW and self._overlay is not None:
                return f"{int(self._turn_in_view[turn]):,}/{int(self._turn_size[turn]):,} in view"
            if column == MARK:
                return ", ".join(f"{counts[k]} {STYLES[k].label}" for k in keys)
        elif role == BADGES_ROLE:
            return [(k, str(counts[k])) for k in keys]
        elif role == _ROLE.ToolTipRole and keys:
            return tooltip(keys)
        elif role == _ROLE.ForegroundRole and self._overlay is not None and not self._turn_in_view[turn]:
            return self._grey
        elif role in (_ROLE.BackgroundRole, _ROLE.ForegroundRole) and turn in self._hits()[1]:
            return HIT_BRUSH if role == _ROLE.BackgroundRole else HIT_TEXT
        return None

    def _event_data(self, row: int, column: int, role: int) -> Any:
        if role == _ROLE.DisplayRole:
            if column == EVENT:
                # the tool and note are log text; the call id is in the detail
                tool = self._tool[row]
                note = self._note[row] if self._note is not None else self._column("note", row)
                if tool and row in self._links():
                    tool = f"{elided(tool)} {SUBAGENT_MARK}"
                elif tool:
                    tool = elided(tool)
                return event_label(self._kind[row], tool or None,
                                   elided(str(note)) if note else None,
                                   self._column("is_error", row), self._text_preview(row))
            if column == SEQ:
                return f"{self._seq[row]}.{self._sub[row]}" if self._sub[row] else str(self._seq[row])
            if column == COST:
                return f"{self._cost[row]:,}"
            if column == VIEW and self._in_view is not None:
                return "" if self._in_view[row] else "out"
            if column == MARK:
                return ", ".join(STYLES[k].label for k in self.mark_keys(row))
            return None
        if role == BADGES_ROLE:
            return [(k, STYLES[k].label) for k in self.mark_keys(row)]
        out = self._in_view is not None and not self._in_view[row]
        if role == _ROLE.ForegroundRole and out:
            return self._grey
        if role == _ROLE.FontRole and out:
            return self._italic
        if role == _ROLE.ToolTipRole and column == EVENT and row in self._links():
            child = self._links()[row]
            keys = self.mark_keys(row)
            return (f"Started the sub-agent session {visible(child)}: Enter or Alt+Right "
                    "shows it" + (f"\n{tooltip(keys)}" if keys else ""))
        if role in (_ROLE.ToolTipRole, _ROLE.BackgroundRole):
            keys = self.mark_keys(row)
            if keys and role == _ROLE.ToolTipRole:
                note = self._overlay.notes.get(row) if self._overlay is not None else None
                return tooltip(keys) + (f"\n{note}" if note else "")
            if keys:
                return self._brushes[keys[0]]
        if role in (_ROLE.BackgroundRole, _ROLE.ForegroundRole) and row in self._hits()[0]:
            return HIT_BRUSH if role == _ROLE.BackgroundRole else HIT_TEXT
        return None

    def _synthetic_data(self, item: SyntheticItem, column: int, role: int) -> Any:
        if role == _ROLE.DisplayRole:
            return {EVENT: f"{item.kind} — {item.label}", COST: f"{item.cost:,}",
                    VIEW: "added"}.get(column)
        if role == BADGES_ROLE:
            return [("synthetic", STYLES["synthetic"].label)]
        if role == _ROLE.ToolTipRole:
            return tooltip(["synthetic"])
        if role == _ROLE.BackgroundRole:
            return self._brushes["synthetic"]
        if role == _ROLE.FontRole:
            return self._italic
        return None

    def _column(self, name: str, row: int) -> Any:
        """The value of an optional column of the session's frame (None when it has none)."""
        frame = self._frame
        cached = getattr(self, "_optional", None)
        if cached is None or cached[0] is not frame:
            cached = self._optional = (frame, {})
        if name not in cached[1]:   # the column itself, read a cell at a time: a list of
            # its values held a pointer per event (a session of 3M events: 23 MB)
            cached[1][name] = frame[name] if name in frame.columns else None
        values = cached[1][name]
        return values[int(row)] if values is not None else None

    def _text_preview(self, row: int) -> str:
        """The first words of an event's text, on one line (read with its block of rows)."""
        return self._texts.preview(row)
