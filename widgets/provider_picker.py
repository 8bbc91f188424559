"""The Provider picker beside the strategy: none, or one of PROVIDERS.md's five, whose
rules the previewed view is checked against."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QComboBox, QWidget

from explorer.providers import LABELS, PROVIDERS


class ProviderPicker(QComboBox):
    """Picks the provider the preview is checked against.

    Signals:
        provider_changed(object): the provider name (``anthropic``…) or None for none.
    """

    provider_changed = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.addItem("none", None)
        for p in PROVIDERS:
            self.addItem(LABELS[p], p)
        self.setToolTip("Check the view against this provider's rules (PROVIDERS.md): would "
                        "its API accept the request built from the view?")
        self.currentIndexChanged.connect(self._on_current_index_changed)

    def provider(self) -> str | None:
        return self.currentData()

    def set_provider(self, provider: str | None) -> None:
        """Pick ``provider`` (None: none); emits ``provider_changed`` when it changes."""
        index = self.findData(provider)
        if index < 0:
            raise ValueError(f"unknown provider {provider!r}")
        self.setCurrentIndex(index)

    @Slot(int)
    def _on_current_index_changed(self, _index: int) -> None:
        self.provider_changed.emit(self.provider())
