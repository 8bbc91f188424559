"""The log: where it is written, and that a worker's failure lands in it with its traceback
while the user sees the same short message as before."""

from __future__ import annotations

import logging

from explorer import log_setup
from widgets.workers import JobPool, Worker

WAIT = 10_000


def test_the_log_folder_follows_the_platform_state_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(log_setup.STATE_DIR_ENV, raising=False)
    monkeypatch.setattr(log_setup.sys, "platform", "linux")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert log_setup.log_path() == tmp_path / "state" / "turnscope" / "turnscope.log"
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert log_setup.state_dir() == tmp_path / ".local" / "state" / "turnscope"
    monkeypatch.setenv(log_setup.STATE_DIR_ENV, str(tmp_path / "tests"))
    assert log_setup.state_dir() == tmp_path / "tests"


def _boom(progress, should_stop):
    raise ValueError("boom")


def _handlers():
    return [h for h in logging.getLogger("widgets").handlers if getattr(h, "_turnscope", False)]


def test_a_failed_worker_is_logged_with_its_traceback(qtbot, monkeypatch, tmp_path):
    monkeypatch.setenv(log_setup.STATE_DIR_ENV, str(tmp_path))
    try:
        path = log_setup.configure()
        assert path == tmp_path / "turnscope.log" and len(_handlers()) == 1
        pool, worker = JobPool(), Worker(_boom, "import")
        with qtbot.waitSignal(worker.signals.failed, timeout=WAIT) as blocker:
            pool.start(worker)
        assert isinstance(blocker.args[0], ValueError) and str(blocker.args[0]) == "boom"
        for handler in _handlers():
            handler.flush()
        text = path.read_text(encoding="utf-8")
        assert "ERROR widgets.workers" in text and "import failed" in text
        assert "Traceback (most recent call last)" in text and "ValueError: boom" in text
        log_setup.configure(verbose=True)   # replaces, never adds up
        assert len(_handlers()) == 2
        assert logging.getLogger("explorer").getEffectiveLevel() == logging.DEBUG
    finally:
        for name in log_setup.PACKAGES:
            logger = logging.getLogger(name)
            for handler in _handlers() if name == "widgets" else list(logger.handlers):
                logger.removeHandler(handler)
                handler.close()
            logger.setLevel(logging.NOTSET)
