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
