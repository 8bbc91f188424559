"""File → Import limits…: the window's setting for what reading one file may cost
(explorer.formats.limits), saved in QSettings and applied to every later import.

A value typed is read as the command line reads its flag (``256M``, ``16G``, a number); one
that is not a positive number is refused with the reason, the dialog staying open. Limits
given on the command line win over the saved ones for that run.
"""

from __future__ import annotations

import json

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explorer.formats import limits

KEY = "import/limits"


def saved(settings: QSettings) -> limits.Limits:
    """The saved limits (the defaults for any missing, unreadable or out of range)."""
    try:
        values = json.loads(str(settings.value(KEY, "{}")))
    except ValueError:
        values = {}
    return limits.from_values(values if isinstance(values, dict) else {})


def apply_saved(settings: QSettings) -> None:
    """Make the saved limits those of the window's imports."""
    limits.configure(saved(settings))


class LimitsDialog(QDialog):
    """One line per limit, its default in the tooltip; OK saves and applies them."""

    def __init__(self, settings: QSettings | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import limits")
        self.settings = settings
        now = saved(settings) if settings is not None else limits.current()
        form = QFormLayout()
        self.fields: dict[str, QLineEdit] = {}
        for name in limits.names():
            field = QLineEdit(_typed(name, getattr(now, name)))
            field.setToolTip(f"{limits.flag(name)}; default "
                             f"{limits.shown(name, getattr(limits.DEFAULTS, name))}")
            form.addRow(_label(name), field)
            self.fields[name] = field
        self.error = QLabel("")
        self.error.setStyleSheet("color: #b00020")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        defaults = QPushButton("Defaults")
        buttons.addButton(defaults, QDialogButtonBox.ButtonRole.ResetRole)
        defaults.clicked.connect(self._defaults)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Past a limit, the line (or the rest of the file) is rejected "
                                "and named in the import report."))
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def values(self) -> dict[str, int]:
        """The limits typed; ValueError naming the first one that is not a number."""
        out = {}
        for name, field in self.fields.items():
            try:
                out[name] = limits.parse(field.text())
            except ValueError as exc:
                raise ValueError(f"{_label(name)}: {exc}") from exc
        return out

    def accept(self) -> None:
        try:
            values = self.values()
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        if self.settings is not None:
            self.settings.setValue(KEY, json.dumps(values))
        limits.configure(limits.from_values(values))
        super().accept()

    def _defaults(self) -> None:
        for name, field in self.fields.items():
            field.setText(_typed(name, getattr(limits.DEFAULTS, name)))


def _label(name: str) -> str:
    """The limit's description as a label: its first letter upper case (YAML stays YAML)."""
    text = limits.DESCRIPTIONS[name]
    return text[:1].upper() + text[1:]


def _typed(name: str, value: int) -> str:
    """A value as it can be typed back: ``256M`` for whole MiB/GiB byte counts."""
    if name.endswith("bytes"):
        for unit, suffix in ((limits.GiB, "G"), (limits.MiB, "M"), (1024, "K")):
            if value % unit == 0:
                return f"{value // unit}{suffix}"
    return str(value)
