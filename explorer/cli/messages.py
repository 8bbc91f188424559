"""The command line's messages on stderr: one line each, whatever the values in them hold.

A message embeds paths, ids and reasons that came from the user's files; each line is written
:func:`explorer.text_escape.visible`, so a newline in a file name cannot start a line that
looks like a message of its own, and a bidirectional control cannot turn one around.
"""

from __future__ import annotations

import sys

from explorer.text_escape import visible


def say(line: str) -> None:
    """Write one line to stderr, its invisible characters escaped."""
    print(visible(line), file=sys.stderr)


def error(command: str, message: object) -> None:
    """``turnscope COMMAND: error: MESSAGE`` on one line."""
    say(f"turnscope {command}: error: {message}")


def rejected_warning(command: str, rejected: int, shown: list[tuple] | None = None) -> None:
    """The warning that ``rejected`` input lines were rejected; with ``shown`` (the first
    few as (path, line, reason)) each of those on a line of its own."""
    if shown is None:
        say(f"turnscope {command}: warning: {rejected} input line(s) rejected "
            f"(see turnscope audit)")
        return
    say(f"turnscope {command}: warning: {rejected} input line(s) rejected and kept aside:")
    for path, line, reason in shown:
        say(f"  {path}:{line}: {reason}")
    if rejected > len(shown):
        say(f"  ... and {rejected - len(shown)} more")
