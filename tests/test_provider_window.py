"""The window's provider check: the picker, the strip's verdict, the tree's marks with the
provider's text, the Request tab (messages, failing ones highlighted, the JSON body, a
pasted error finding its events), and agreement with ``turnscope validate``."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from explorer.cli.demo import demo_paths
from explorer.cli.main import main
from explorer.compaction import CompactionSettings
from explorer.providers import PROVIDERS
from explorer.providers.pasted import read_error
from explorer.session.data import load_session
from explorer.session.provider_view import provider_view

SESSION, STRATEGY, BUDGET = "s000142", "M0", 400   # the cut keeps a RESULT, drops its CALL


@pytest.fixture
def panels(qtbot, demo):
    from widgets.preview_panel import PreviewPanel
    from widgets.request_panel import RequestPanel
    preview, request = PreviewPanel(), RequestPanel()
    qtbot.addWidget(preview)
    qtbot.addWidget(request)
    request.follow(preview)
    preview.set_session(load_session(demo, SESSION))
    preview.set_strategy(STRATEGY)
    preview.set_budget(BUDGET)
    return preview, request


def test_no_provider_shows_no_verdict(panels):
    preview, request = panels
    assert preview.current_provider_view() is None
    assert not preview.strip.verdict_label.isVisibleTo(preview.strip)
    assert request.model.rowCount() == 0 and not request.copy_button.isEnabled()


def test_a_rejected_view_in_the_strip_tree_marks_and_request_tab(panels, qtbot):
    preview, request = panels
    with qtbot.waitSignal(preview.provider_view_changed):
        preview.provider_picker.set_provider("anthropic")
    view = preview.current_provider_view()
    assert preview.strip.verdict_label.text() == "Anthropic would reject this view: 1 error"
    (v,) = view.violations
    assert v.rule == "anthropic.unexpected" and v.message_index == 0
    row = v.rows[0]
    o = preview.current_overlay()
    assert "rejected" in o.errors[row] and v.text in o.notes[row]
    # the Request tab: the failing message highlighted, its rule named
    model = request.model
    assert [model.message(i).role for i in range(model.rowCount())] == ["user", "assistant"]
    assert model.failing_rows() == [0]
    assert model.data(model.index(0, 3)) == "anthropic.unexpected"
    assert model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole) is not None
    assert model.data(model.index(1, 0), Qt.ItemDataRole.BackgroundRole) is None
    doc = request.request_body()
    assert doc["model"] == "<model>" and [m["role"] for m in doc["messages"]] == ["user",
                                                                                 "assistant"]
    assert doc["messages"][0]["content"][0]["type"] == "tool_result"
    assert doc["messages"][0]["content"][0]["tool_use_id"] == v.call_ids[0]
    assert doc["messages"][1]["content"][0]["text"]   # the log's text is in the body
    # a pasted error, inside the JSON the API returned, finds its events
    pasted = json.dumps({"type": "error", "error": {"message": v.text}})
    with qtbot.waitSignal(request.rows_requested) as got:
        assert request.find(pasted) == (row,)
    assert got.args == [(row,)]
    # back to accepted at a budget that keeps the call
    preview.set_budget(4000)
    assert preview.strip.verdict_label.text() == preview.current_provider_view().summary
    preview.provider_picker.set_provider(None)
    assert preview.current_provider_view() is None and not preview.current_overlay().notes


def test_every_provider_body_has_its_shape(panels):
    preview, request = panels
    keys = {"anthropic": "messages", "bedrock": "messages", "openai-chat": "messages",
            "openai-responses": "input", "gemini": "contents"}
    for p in PROVIDERS:
        preview.provider_picker.set_provider(p)
        doc = request.request_body()
        assert len(doc[keys[p]]) == len(preview.current_provider_view().messages()), p
        json.dumps(doc)


def test_pasted_texts_of_other_versions_are_recognised():
    old = read_error("messages.3: Did not find 1 `tool_result` block(s) at the beginning of "
                     "this message. Messages following `tool_use` blocks must begin with ...")
    assert (old.provider, old.rule, old.message_index) == ("anthropic", "anthropic.unanswered", 2)
    newer = read_error("Messages with role 'tool' must be a response to a preceding message "
                       "with 'tool_calls'. (messages[4])")
    assert (newer.rule, newer.message_index) == ("openai-chat.orphan", 4)
    bedrock = read_error("The model returned the following errors: messages.5.content.1: "
                         "unexpected `tool_use_id` found in `tool_result` blocks: toolu_1.")
    assert (bedrock.rule, bedrock.message_index) == ("anthropic.unexpected", 5)
    assert read_error("something else").rule is None


def test_the_window_agrees_with_validate_on_demo_sessions(capsys, demo):
    """validate's JSON and the window's check (its loader, its preview) say the same."""
    assert main(["validate", *map(str, demo_paths()), "--json", "--strategy", STRATEGY,
                 "--budget", str(BUDGET)]) == 1
    docs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    names = list(dict.fromkeys(d["session_id"] for d in docs))
    assert len(names) > 200
    checked = set(names[::6]) | {SESSION}
    for name in checked:
        log = load_session(demo, name).log
        for d in (d for d in docs if d["session_id"] == name):
            view = provider_view(log, STRATEGY, BUDGET, CompactionSettings(), d["provider"])
            assert d["violations"] == [v.as_dict() for v in view.violations]


def test_the_compare_table_has_a_column_for_the_provider(panels):
    from explorer.session.preview import compare
    preview, _ = panels
    model = preview.compare
    before = model.columnCount()
    preview.provider_picker.set_provider("gemini")
    model.refresh()
    assert model.columnCount() == before + 1
    assert model.headerData(before, Qt.Orientation.Horizontal) == "Gemini"
    rows = compare(preview.session().log, BUDGET, preview.picker.texts(), preview.settings(),
                   ("gemini",))
    for i, row in enumerate(rows):
        view = provider_view(preview.session().log, row["strategy"], BUDGET,
                             preview.settings(), "gemini")
        assert row["rejected_gemini"] == len(view.violations)
        text = model.data(model.index(i, before))
        assert text == ("ok" if not view.violations else
                        f"{len(view.violations)} error" + ("s" if len(view.violations) > 1 else ""))
    assert any(r["rejected_gemini"] for r in rows) and not all(r["rejected_gemini"] for r in rows)
    preview.provider_picker.set_provider(None)
    assert model.columnCount() == before


def test_the_hidden_request_tab_is_filled_when_it_shows(panels, qtbot):
    """A hidden Request tab keeps only the latest view (a slider sweep must not rebuild its
    table each move); shown, its table holds that view's messages."""
    preview, request = panels
    preview.provider_picker.set_provider("anthropic")
    table = request.table.model()
    assert table.rowCount() == 0   # hidden: not rebuilt yet
    preview.set_budget(4000)
    request.show()
    qtbot.waitExposed(request)
    messages = preview.current_provider_view().messages()
    assert [table.message(i).index for i in range(table.rowCount())] == \
        [m.index for m in messages] and len(messages) > 0
    preview.set_budget(400)   # shown: each view shows at once
    assert table.rowCount() == len(preview.current_provider_view().messages())
    assert table.failing_rows() == [0]
