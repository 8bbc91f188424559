"""The Qt binding keeps Python's reference counts: a binding that drops a reference on every
call aborts the app after a few thousand slider moves (PySide6 6.12.0 under Python 3.11)."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel


class _Emitter(QObject):
    fired = Signal(int)


# From Python 3.12 None and True are immortal: their reference counts never change, so the
# check below could not fail there.
@pytest.mark.skipif(sys.version_info >= (3, 12),
                    reason="None and True are immortal on Python >= 3.12")
def test_void_calls_and_emits_keep_reference_counts(qapp):
    label = QLabel()
    emitter = _Emitter()
    got: list[int] = []
    emitter.fired.connect(got.append)
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for i in range(100):
        label.setText(str(i))
        emitter.fired.emit(i)
    assert got == list(range(100))
    assert abs(sys.getrefcount(None) - none_before) < 50
    assert abs(sys.getrefcount(True) - true_before) < 50
