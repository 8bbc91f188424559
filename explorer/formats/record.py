"""One record of an agent-format log as its reader maps it to canonical events."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_WORD = re.compile(r"[A-Za-z0-9_.-]{1,40}")


@dataclass
class Record:
    """One record of the input (a line, an array element, a cassette interaction).

    ``line``: its 1-based line (or element) number, shown with every error about it;
    ``events``: the canonical events it gives (FORMAT.md field names; ``raw`` may be any
    JSON value); ``error``: why it was rejected (then ``text`` is kept for the user);
    ``skipped``: why it gave no event although valid (UI state, a replayed copy, ...): a
    short text of the reader's own, the same for every record skipped for that reason.
    ``restated``: a record already imported, given again by a reader that resumes a
    followed file (explorer.formats.reader.Resume) because a later line changed what its
    events hold beside the events table (their ``event_details``: a message's final
    usage, a Task call's sub-agent); it is not counted again.
    """

    line: int
    events: list[dict] = field(default_factory=list)
    error: str | None = None
    text: str | None = None
    skipped: str | None = None
    restated: bool = False


def reason_word(value) -> str:
    """A value from the log fit to name a skip reason (a record type, a subtype): itself when
    it is a short identifier, else ``other``, so that reasons stay few and never carry markup."""
    return value if isinstance(value, str) and _WORD.fullmatch(value) else "other"
