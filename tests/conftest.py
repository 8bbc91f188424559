"""Test setup: Qt renders offscreen (set before any Qt import), shared fixtures."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The log file (explorer.log_setup) goes to a temporary folder, never the user's own.
os.environ["TURNSCOPE_STATE_DIR"] = __import__("tempfile").mkdtemp(prefix="turnscope-state-")
# So are the window's settings (widgets.saved_state): the user's are never read nor written.
os.environ["TURNSCOPE_CONFIG_DIR"] = __import__("tempfile").mkdtemp(prefix="turnscope-config-")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from explorer.store.db import Store  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


@pytest.fixture
def store():
    """A fresh in-memory database."""
    s = Store()
    yield s
    s.close()


@pytest.fixture(scope="module")
def demo():
    """The demo corpus imported into one database, shared by a test module (a module may
    define its own ``demo`` instead)."""
    from explorer.cli.demo import demo_paths
    from tests.helpers import load
    s = Store()
    load(s, *demo_paths())
    yield s
    s.close()


@pytest.fixture
def write_lines(tmp_path):
    """Write text lines to a file under tmp_path and return its path."""
    def write(name: str, *lines: str) -> Path:
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path
    return write
