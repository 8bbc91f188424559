"""Sub-agent sessions one step away (issue 17): the child sessions a session's CALLs started
(FORMAT.md ``parent_session``, ``parent_call``; the links are read by
``queries/child_sessions.sql``, as child -> (parent, call))."""

from __future__ import annotations

from collections.abc import Mapping


def children_by_call(parents: Mapping[str, tuple[str, str | None]],
                     session_id: str) -> dict[str, str]:
    """The sub-agent sessions ``session_id`` started, by the call id that started each
    (from a child -> (parent, call) map; a child whose call is not known is left out; of
    two children of one call, the first in id order)."""
    out: dict[str, str] = {}
    for child, (parent, call) in sorted(parents.items()):
        if parent == session_id and call is not None:
            out.setdefault(call, child)
    return out
