"""One turn count everywhere (issue 17, FORMAT.md Turns): the session list, the session's
title, the preview's title and the plot's caption give the same number of turns, and say
"preamble" for the events before the first USER event, which are not a turn. Real files
with a preamble (a system prompt or instructions before the user's first message)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from widgets.app import make_window
from widgets.sessions_model import COLUMNS

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
FILES = (CORPUS / "codex-cli" / "jnarowski-agentcmd__rollout-2025-09-24T19-22-20-"
         "01997e76-d124-7592-9cac-2ec05abbca08.jsonl",
         CORPUS / "swe-agent" / "princeton-nlp-SWE-agent__marshmallow-code__marshmallow-1867.traj")
WAIT = 60_000


def titled(text: str) -> tuple[int, bool]:
    found = re.search(r"(\d[\d,]*|no) turns?( and a preamble|, and a preamble)?", text)
    assert found, text
    n = 0 if found[1] == "no" else int(found[1].replace(",", ""))
    return n, bool(found[2])


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.parent.name)
def test_every_part_of_the_window_gives_the_same_turns(qtbot, path):
    if not path.exists():
        pytest.skip("the shared corpus is not here")
    window = make_window([str(path)])
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.workspace.session_shown, timeout=WAIT):
        pass
    data = window.workspace.data
    kinds = data.frame["kind"].cast(str).to_list()
    users = kinds.count("USER")
    preamble = kinds.index("USER") > 0 if "USER" in kinds else bool(kinds)
    assert users and preamble            # these files open with a system prompt
    row = window.model.row_of(data.session_id)
    assert window.model.index(row, COLUMNS.index("turns")).data() == f"{users:,}"
    for text in (window.session_panel.title.text(), window.preview.title.text(),
                 window.workspace.cost_plot.title.text()):
        assert titled(text) == (users, preamble), text
    assert data.turns == users
