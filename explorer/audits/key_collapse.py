"""The key-collapse view for auditors (AUDITS.md "Key collapse", issue 17): per storage key
(``session_id``) that several real conversations share, the ``user_id``s sharing it and the
logged turns each wrote, those that collide marked (``queries/key_collapse.sql``).

The keys are the ``collapsed_keys`` sessions; the colliding turns, counted once per key, are
the ``turn_collisions`` units. Null ``user_id``s and null logged turns are ignored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from explorer.store.db import Db


@dataclass(frozen=True)
class KeyUser:
    """One ``user_id`` of a collapsed storage key: its ``events``, the logged ``turns`` it
    wrote, the ``collided`` ones (another user_id of the key logged them too), the input
    ``files`` its events came from, and its ``first`` event in append order (seq, sub,
    kind, call_id: how a finding names an event)."""

    session_id: str
    user_id: str
    events: int
    turns: tuple[int, ...]
    collided: tuple[int, ...]
    files: int
    first: dict


@dataclass(frozen=True)
class KeyCollapse:
    """Every collapsed key's users, keys in id order, each key's users in the order they
    first wrote."""

    users: tuple[KeyUser, ...]

    @property
    def keys(self) -> int:
        """How many storage keys are shared (``collapsed_keys``)."""
        return len({u.session_id for u in self.users})

    @property
    def turn_collisions(self) -> int:
        """How many (key, logged turn) pairs more than one user_id wrote (``turn_collisions``)."""
        return len({(u.session_id, t) for u in self.users for t in u.collided})

    def of(self, session_id: str) -> list[KeyUser]:
        return [u for u in self.users if u.session_id == session_id]


def key_collapse(db: Db) -> KeyCollapse:
    """The collapsed keys of the store (one query; no order: per key, not per view)."""
    rows = db.run("key_collapse")
    return KeyCollapse(tuple(
        KeyUser(session_id, user_id, int(events), tuple(turns), tuple(collided), int(files),
                dict(first))
        for session_id, user_id, events, turns, collided, files, first in rows))


def runs_text(numbers: Iterable[int]) -> str:
    """Sorted numbers as runs: ``1–3, 5, 7–8`` ("" for none)."""
    out: list[str] = []
    start = end = None
    for n in sorted(set(numbers)):
        if end is not None and n == end + 1:
            end = n
            continue
        if start is not None:
            out.append(f"{start}–{end}" if end != start else str(start))
        start = end = n
    if start is not None:
        out.append(f"{start}–{end}" if end != start else str(start))
    return ", ".join(out)
