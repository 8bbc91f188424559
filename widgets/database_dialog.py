"""File → Open Database Connection…: a PostgreSQL URL (and, when libpq has none, its
password) for reading Spring AI sessions live (explorer.ingest.postgres_source).

The password is used for this connection only: the import stores, and Open Recent keeps,
the URL without it (explorer.ingest.postgres_url)."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from explorer.ingest.postgres_url import is_database_url, with_password


class DatabaseDialog(QDialog):
    """Asks for a ``postgresql://`` URL and an optional password; :meth:`connection` is
    what to import (the password in it, for the connection only), None when not valid.

    Signals:
        connection_chosen(list): accepted: the one connection string to import, in a list
            (the shape of :meth:`widgets.main_window.MainWindow.import_paths`).
    """

    connection_chosen = Signal(list)

    def __init__(self, parent: QWidget | None = None, url: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Open Database Connection")
        form = QFormLayout(self)
        form.addRow(QLabel("Spring AI session tables (AI_SESSION, AI_SESSION_EVENT) are read "
                           "from PostgreSQL, read-only.", self))
        self.url_edit = QLineEdit(url, self)
        self.url_edit.setPlaceholderText("postgresql://user@host:5432/database")
        self.password_edit = QLineEdit(self)
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_edit.setPlaceholderText("from PGPASSWORD or ~/.pgpass when empty")
        self.password_edit.setToolTip("Used for this connection only; never stored")
        form.addRow("URL", self.url_edit)
        form.addRow("Password", self.password_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open
                                   | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self._on_buttons_accepted)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.open_button = buttons.button(QDialogButtonBox.StandardButton.Open)
        self.url_edit.textChanged.connect(self._on_url_edit_text_changed)
        self._on_url_edit_text_changed(url)

    def connection(self) -> str | None:
        url = self.url_edit.text().strip()
        if not is_database_url(url):
            return None
        password = self.password_edit.text()
        return with_password(url, password) if password else url

    @Slot()
    def _on_buttons_accepted(self) -> None:
        connection = self.connection()
        if connection is not None:
            self.accept()
            self.connection_chosen.emit([connection])

    @Slot(str)
    def _on_url_edit_text_changed(self, text: str) -> None:
        self.open_button.setEnabled(is_database_url(text.strip()))
