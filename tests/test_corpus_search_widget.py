"""The corpus search box (widgets/corpus_search.py, issue 17): it lists what the search found;
a search the index cannot answer at once lists what the last texts hold first, then goes on
over the older ones, the list growing, until every match is listed; Escape in the box or a
new search stops it."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt

from explorer.session import corpus_search
from tests.helpers import imported_generated
from widgets import corpus_search as box
from widgets.workers import JobPool

WAIT = 20_000


@pytest.fixture
def search_box(qtbot, tmp_path):
    # English-ish and CJK sessions
    with imported_generated(tmp_path, sessions=12, turns=4, text=True) as store:
        jobs = JobPool()
        widget = box.CorpusSearch(store, jobs)
        qtbot.addWidget(widget)
        yield widget, store, jobs
        jobs.cancel_all()
        jobs.wait()
        widget.shutdown()


@pytest.fixture
def gated(monkeypatch):
    """The box's search waits after each step but the last until the test lets it go on
    (``set()``)."""
    gate = threading.Event()
    real = box.steps

    def steps(*args, **kwargs):
        for found in real(*args, **kwargs):
            yield found
            if not found.complete:
                gate.wait(WAIT / 1000)
                gate.clear()
    monkeypatch.setattr(box, "steps", steps)
    yield gate
    gate.set()


def _searched(qtbot, widget, words) -> list[str]:
    """Search ``words``, wait until the search is complete; what the box said at each step."""
    widget.edit.setText(words)
    said = []
    worker = widget.run()
    worker.signals.stepped.connect(lambda _found: said.append(widget.status.text()))
    qtbot.waitUntil(lambda: not widget.searching(), timeout=WAIT)
    return said


def _events(widget) -> dict[str, int]:
    return {h.session_id: h.events for h in widget.hits()}


def test_the_box_lists_the_last_texts_first_then_goes_on_to_every_match(qtbot, search_box,
                                                                        monkeypatch):
    widget, store, _ = search_box
    monkeypatch.setattr(corpus_search, "SCAN_TEXTS", 60)
    older = store.con.execute("SELECT max(eid) - min(eid) + 1 - 60 FROM event_details"
                              ).fetchone()[0]
    listed = []
    widget.edit.setText("的")
    worker = widget.run()
    worker.signals.stepped.connect(
        lambda _found: listed.append((widget.status.text(), sum(_events(widget).values()))))
    qtbot.waitUntil(lambda: not widget.searching(), timeout=WAIT)
    said, events = zip(*listed)
    assert said[0].endswith(f"in the last 60 texts; searching older texts… 0 of {older:,}")
    assert f"in the last 120 texts; searching older texts… 60 of {older:,}" in said[1]
    assert len(said) == 1 + -(-older // 60)
    assert all("searching older texts" in s for s in said[:-1])
    assert "in the last" not in said[-1] and "searching" not in said[-1]
    assert list(events) == sorted(events) and events[0] < events[-1]   # the list grew
    # complete: every match, as the scan of every text finds them
    every = corpus_search.search(store, "的", indexed=False)
    assert widget.hits() == every
    assert said[-1] == f"{len(every):,} session(s), {sum(h.events for h in every):,} event(s)"
    assert widget.status.toolTip().startswith("CJK alone is not indexed")
    said = _searched(qtbot, widget, "the")                 # the index answers it whole
    assert len(said) == 1 and "in the last" not in said[0]
    assert widget.hits() == corpus_search.search(store, "the")
    assert widget.status.toolTip() == ""


def test_escape_in_the_box_stops_the_search_and_keeps_what_it_found(qtbot, search_box,
                                                                    monkeypatch, gated):
    widget, store, jobs = search_box
    monkeypatch.setattr(corpus_search, "SCAN_TEXTS", 60)
    widget.edit.setText("的")
    widget.run()
    qtbot.waitUntil(lambda: "searching older texts" in widget.status.text(), timeout=WAIT)
    first = _events(widget)
    assert first == {h.session_id: h.events
                     for h in corpus_search.find(store, "的", complete=False).hits}
    qtbot.keyClick(widget.edit, Qt.Key.Key_Escape)
    assert not widget.searching()
    assert "in the last 60 texts; stopped after 0 of" in widget.status.text()
    gated.set()                          # the search goes on to its next step, and stops
    assert jobs.wait(WAIT)
    qtbot.wait(50)                       # its queued signals, if any, are delivered
    assert _events(widget) == first and "stopped after 0 of" in widget.status.text()
    # Enter searches again, from the start; a new search stops the one under way
    widget.edit.setFocus()
    qtbot.keyClick(widget.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "searching older texts" in widget.status.text(), timeout=WAIT)
    widget.edit.setText("the")
    widget.run()
    qtbot.waitUntil(lambda: not widget.searching(), timeout=WAIT)
    gated.set()
    assert jobs.wait(WAIT)
    qtbot.wait(50)
    assert widget.hits() == corpus_search.search(store, "the")


def test_a_long_status_neither_widens_the_box_nor_squeezes_its_words(qtbot, search_box,
                                                                      monkeypatch, gated):
    """At 1280x800 the bounded search's status once widened the session pane to 710 px and
    left the words 20 px: it now wraps on a line of its own."""
    widget, _, _ = search_box
    widget.resize(320, 300)
    widget.show()
    monkeypatch.setattr(corpus_search, "SCAN_TEXTS", 60)
    widget.edit.setText("的")
    widget.run()
    qtbot.waitUntil(lambda: "searching older texts" in widget.status.text(), timeout=WAIT)
    assert widget.minimumSizeHint().width() < 150   # the status asks for no width
    assert widget.edit.width() >= 300
