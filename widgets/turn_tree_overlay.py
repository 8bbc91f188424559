"""The turn tree's nodes, and how a compaction preview is laid over the tree: synthetic rows
inserted and removed where they sit, ``dataChanged`` per parent for the rows whose state
changed (in ranges a view repaints only where they show). A mixin of
:class:`widgets.turn_tree_model.TurnTreeModel`."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from PySide6.QtCore import QModelIndex

from explorer.session.view_overlay import SyntheticItem, ViewOverlay
from widgets.turn_tree_cells import COLUMNS

_MANY_PARENTS = 1000  # above this many parents to notify, one layoutChanged (a relayout) is cheaper
#: A view told of more than 200 cells in one dataChanged repaints its whole viewport (Qt 6.11,
#: measured), though none of the rows it shows changed (a slider move cutting turns 1560-1603
#: repainted turns 0-33: 7.8 ms instead of 1.6): rows are told in ranges of at most this many.
_ROWS_AT_ONCE = 200 // len(COLUMNS)
#: Above this many ranges (each costs the view ~0.25 ms), one range over them all (a repaint).
_MANY_RANGES = 16


class Node:
    """A turn (``turn`` set), an event (``row``: its frame row) or a synthetic ``item``."""

    __slots__ = ("parent", "row", "turn", "item", "children", "position")

    def __init__(self, parent: "Node | None", row: int | None = None, turn: int | None = None,
                 item: SyntheticItem | None = None) -> None:
        self.parent = parent
        self.row = row
        self.turn = turn            # index into the model's turns
        self.item = item
        # None: not built yet (a turn not expanded); synthetic rows never have children
        self.children: list[Node] | None = [] if item is not None else None
        self.position = 0


def ranges(first: int, last: int, positions) -> list[tuple[int, int]]:
    """The unique row positions ``positions`` (``first`` and ``last`` their least and greatest)
    as (first, last) ranges of at most :data:`_ROWS_AT_ONCE` rows, one per block of that many
    rows that holds some; one range over them all when they fit one or would need more than
    :data:`_MANY_RANGES`."""
    if last - first < _ROWS_AT_ONCE:
        return [(first, last)]
    at = np.unique(np.asarray(positions))
    cut = np.flatnonzero(np.diff(at // _ROWS_AT_ONCE)) + 1
    if len(cut) >= _MANY_RANGES:
        return [(first, last)]
    return list(zip(at[np.r_[0, cut]].tolist(), at[np.r_[cut - 1, len(at) - 1]].tolist()))


def number(nodes: list[Node], start: int = 0) -> None:
    for n in range(start, len(nodes)):
        nodes[n].position = n


class TurnTreeOverlay:
    """``set_overlay`` and its row bookkeeping (see the module docstring)."""

    def set_overlay(self, overlay: ViewOverlay | None) -> None:
        """Lay a compaction preview over the tree (None: remove it)."""
        n = len(self._kind)
        if overlay is not None and len(overlay.in_view) != n:
            raise ValueError(f"overlay of {len(overlay.in_view)} rows for a session of {n}")
        old_in, old_errors, had = self._in_view, self._errors, self._overlay is not None
        if overlay is None and not had:
            return
        synth: dict[int | None, tuple[SyntheticItem, ...]] = {}
        for item in overlay.synthetic if overlay is not None else ():
            synth[item.after_row] = synth.get(item.after_row, ()) + (item,)
        old_synth, self._synth = self._synth, synth
        for key in set(old_synth) | set(synth):
            if old_synth.get(key, ()) != synth.get(key, ()):
                self._replace_synthetic(key, old_synth.get(key, ()), synth.get(key, ()))
        self._overlay = overlay
        self._in_view = np.asarray(overlay.in_view, dtype=bool) if overlay is not None else None
        self._errors = dict(overlay.errors) if overlay is not None else {}
        self._turn_in_view = (np.bincount(self._turn_of[self._in_view], minlength=len(self._top_rows))
                              if self._in_view is not None else self._turn_size)
        self._turn_errors = defaultdict(dict)
        for row, errors in self._errors.items():
            counts = self._turn_errors[int(self._turn_of[row])]
            for e in errors:
                counts[e] = counts.get(e, 0) + 1
        if had != (overlay is not None) or old_in is None or self._in_view is None:
            changed = np.ones(n, dtype=bool)
        else:
            changed = old_in != self._in_view
        for row in set(old_errors) | set(self._errors):
            if old_errors.get(row) != self._errors.get(row):
                changed[row] = True
        self._emit_changed(np.flatnonzero(changed), force_turns=had != (overlay is not None))

    def _replace_synthetic(self, key: int | None, old: tuple, new: tuple) -> None:
        """Swap the synthetic rows that follow ``key`` (only where the tree is built)."""
        if key is None:
            host, start = self._root, 0
        else:
            node = self._node_of.get(key)
            if node is None:
                return  # its turn is not built: fetchMore adds the rows
            host, start = (node, 0) if self._kind[key] == "CALL" else (node.parent, node.position + 1)
        parent = QModelIndex() if host is self._root else self.createIndex(host.position, 0, host)
        if old:
            self.beginRemoveRows(parent, start, start + len(old) - 1)
            del host.children[start:start + len(old)]
            number(host.children, start)
            self.endRemoveRows()
        if new:
            self.beginInsertRows(parent, start, start + len(new) - 1)
            host.children[start:start] = [Node(host, item=item) for item in new]
            number(host.children, start)
            self.endInsertRows()

    def _emit_changed(self, rows: np.ndarray, force_turns: bool) -> None:
        """One dataChanged per built parent, over the span of its changed rows; when that
        is many parents (an overlay laid on or taken off a big expanded tree), one
        layoutChanged instead: a view answers each dataChanged with a search of its rows."""
        spans: dict[int, list] = {}
        built = rows
        if len(rows) > len(self._node_of):   # most rows not made (a big session): the made ones
            made = np.fromiter(self._node_of, dtype=np.int64, count=len(self._node_of))
            # rows are sorted: each made row looked up in them (a sort of 3M rows: 0.09 s)
            at = np.minimum(np.searchsorted(rows, made), len(rows) - 1)
            built = np.sort(made[rows[at] == made])
        for row in built.tolist():
            node = self._node_of.get(row)
            if node is None:
                continue
            span = spans.setdefault(id(node.parent),
                                    [node.parent, node.position, node.position, []])
            span[1], span[2] = min(span[1], node.position), max(span[2], node.position)
            span[3].append(node.position)
        if len(spans) > _MANY_PARENTS:
            self._signal("layoutAboutToBeChanged")
            self._signal("layoutChanged")
            return
        last = len(COLUMNS) - 1
        for parent, first, end, positions in spans.values():
            at = self.createIndex(parent.position, 0, parent)
            for a, b in ranges(first, end, positions):
                self._signal("dataChanged", self.index(a, 0, at), self.index(b, last, at))
        turns = (np.arange(len(self._turns)) if force_turns   # the turns made only
                 else np.flatnonzero(np.bincount(self._turn_of[rows])) if len(rows) else ())
        turns = turns[turns < len(self._turns)] if len(turns) else turns
        if len(turns):   # the turns follow the synthetic rows at the top, in order
            at = turns + self._turns[0].position
            for a, b in ranges(int(at[0]), int(at[-1]), at):
                self._signal("dataChanged", self.index(a, 0), self.index(b, last))

    def _signal(self, name: str, *indexes: QModelIndex) -> None:
        getattr(self, name).emit(*indexes)
