"""The rejected input lines (FORMAT.md: kept with file, line, reason and text), for reports."""

from __future__ import annotations

from dataclasses import dataclass

from explorer.store.db import Db
from explorer.text_escape import visible


@dataclass(frozen=True)
class RejectedLine:
    path: str
    line: int
    reason: str
    text: str | None

    def as_text(self) -> str:
        """One line a user can paste: ``path:line: reason: text``."""
        shown = "" if self.text is None else self.text.replace("\r", "\\r").replace("\n", "\\n")
        return f"{visible(self.path)}:{self.line}: {visible(self.reason)}: {shown}"


def rejected_count(db: Db) -> int:
    return int(db.one("rejected_count")["n"])


def rejected_lines(db: Db, limit: int = 10_000, offset: int = 0) -> list[RejectedLine]:
    """Up to ``limit`` rejected lines from ``offset``, in file and line order."""
    return [RejectedLine(*row) for row in db.run("rejected_page", limit=limit, offset=offset)]
