"""Repair: a corrected copy of one session that the tool which wrote it can read back
(issue 20), never touching the source.

:func:`explorer.repair.plan.plan` says what changes (each event that goes, is turned into
text or is added, and why); :func:`repair` writes the copy in the source's own format with
the writer of :data:`WRITERS` (by the format name of the imported file).
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.repair import claude_code_writer, codex_writer, jsonl_writer, message_list_writer
from explorer.repair.plan import ORPHANS, UNANSWERED, Change, Plan, RepairError, plan
from explorer.store.db import Db

#: The repair writers by the reader's format name (explorer.formats.registry).
WRITERS = {"claude-code": claude_code_writer, "codex-cli": codex_writer,
           "canonical-jsonl": jsonl_writer,
           "anthropic-messages": message_list_writer.ANTHROPIC,
           "openai-chat-completions": message_list_writer.OPENAI_CHAT,
           "openai-responses": message_list_writer.OPENAI_RESPONSES}


def repair(db: Db, the_plan: Plan, out: str | os.PathLike) -> Path:
    """Write the copy ``the_plan`` describes to ``out`` (whole or not at all)."""
    writer = WRITERS.get(the_plan.format)
    if writer is None:
        raise RepairError(f"{the_plan.path}: no repair writer for the {the_plan.format} format "
                          f"(one of {', '.join(WRITERS)})")
    out = Path(out)
    if out.exists() and out.resolve() == Path(the_plan.path).resolve():
        raise RepairError(f"{out}: this is the source; a repair writes a copy")
    part = out.with_name(out.name + ".part")
    try:
        with open(part, "w", encoding="utf-8", newline="\n") as fh:
            writer.write(fh, the_plan, db)
        part.replace(out)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return out


__all__ = ["ORPHANS", "UNANSWERED", "WRITERS", "Change", "Plan", "RepairError", "plan", "repair"]
