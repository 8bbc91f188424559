"""What the window shows of a provider's verdict on the previewed view (PROVIDERS.md): the
strip's sentence, the rows to mark with the provider's texts, the request as that
provider's message list, and the events a pasted error points at."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from explorer.compaction import CompactionSettings, SessionLog, Strategy, window
from explorer.compaction.window import Window, in_view
from explorer.model import KINDS
from explorer.providers import LABELS, Violation, messages_of
from explorer.providers.pasted import Pasted, read_error
from explorer.providers.request import ASSISTANT_SPEAKER, TOOL_SPEAKER, Request
from explorer.providers.view_checks import spelled
from explorer.session.view_overlay import ViewOverlay
from explorer.text_escape import elided, visible

#: How each provider names its message roles (user, assistant, tool result).
ROLE_NAMES = {
    "anthropic": ("user", "assistant", "user"), "bedrock": ("user", "assistant", "user"),
    "openai-chat": ("user", "assistant", "tool"),
    "openai-responses": ("message (user)", "message (assistant)", "function_call_output"),
    "gemini": ("user", "model", "function response"),
}


@dataclass(frozen=True)
class RequestMessage:
    """One message of the request: its index, role, what its blocks are, their log rows
    (-1 for a synthetic item), and the rules it breaks."""

    index: int
    role: str
    blocks: str
    rows: tuple[int, ...]
    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProviderView:
    """One provider's verdict on one view of one session."""

    provider: str
    request: Request
    violations: tuple[Violation, ...]
    system_rows: tuple[int, ...]

    @property
    def label(self) -> str:
        return LABELS[self.provider]

    @property
    def summary(self) -> str:
        """"Anthropic would reject this view: 2 errors", or "Anthropic: accepted"."""
        n = len(self.violations)
        if not n:
            return f"{self.label}: accepted"
        return f"{self.label} would reject this view: {n} error{'s' if n != 1 else ''}"

    def notes(self) -> dict[int, str]:
        """Per log row, the texts of the violations that concern it (made visible)."""
        out: dict[int, list[str]] = {}
        for v in self.violations:
            for row in v.rows:
                if row >= 0:
                    out.setdefault(row, []).append(visible(f"{self.label}: {v.text}"))
        return {row: "\n".join(texts) for row, texts in out.items()}

    def marked(self, overlay: ViewOverlay) -> ViewOverlay:
        """``overlay`` with the rows of every violation marked ``rejected``."""
        notes = self.notes()
        if not notes:
            return overlay
        errors = dict(overlay.errors)
        for row in notes:
            errors[row] = errors.get(row, ()) + ("rejected",)
        return replace(overlay, errors=errors, notes=notes)

    def messages(self) -> list[RequestMessage]:
        """The request as this provider's message list (openai-chat's system message first)."""
        req, ms = self.request, messages_of(self.request, self.provider)
        names = ROLE_NAMES[self.provider]
        rules: dict[int, list[str]] = {}
        for v in self.violations:
            rules.setdefault(v.message_index, []).append(v.rule)
        out = []
        offset = 0
        if self.provider == "openai-chat" and req.system[0]:
            out.append(RequestMessage(0, "system", f"{len(self.system_rows)} SYSTEM item(s)",
                                      self.system_rows))
            offset = 1
        starts = ms.start.tolist()
        for m in range(ms.count):
            items = range(starts[m], starts[m + 1])
            role = ms.role[m]
            if self.provider == "openai-responses":
                role = req.speaker[starts[m]] if not req.call[starts[m]] else -1
            name = "function_call" if role == -1 else names[int(role)]
            out.append(RequestMessage(m + offset, name, _blocks(req, items),
                                      tuple(int(req.row[p]) for p in items),
                                      tuple(rules.get(m + offset, ()))))
        return out

    def find(self, pasted_text: str) -> tuple[Pasted, tuple[int, ...]]:
        """What a pasted error says, and the log rows of the events it points at: those of
        the violation it names (or of its message when no violation matches)."""
        pasted = read_error(pasted_text)
        if pasted.message_index is None:
            return pasted, ()
        candidates = [v for v in self.violations if v.message_index == pasted.message_index
                      and (pasted.rule is None or v.rule == pasted.rule)]
        if candidates:
            return pasted, tuple(r for r in candidates[0].rows if r >= 0)
        for message in self.messages():
            if message.index == pasted.message_index:
                return pasted, tuple(r for r in message.rows if r >= 0)
        return pasted, ()


def _blocks(req: Request, items) -> str:
    parts = []
    for p in items:
        kind = KINDS[int(req.kind[p])]
        cid = req.id_text[int(req.code[p])] if req.code[p] >= 0 and req.id_text else None
        text = kind + (f" {elided(visible(cid))}" if cid else "")
        parts.append(text + (" (synthetic)" if req.synthetic[p] else ""))
    return " · ".join(parts)


def provider_view(log: SessionLog, strategy: Strategy | str, budget: int,
                  settings: CompactionSettings, provider: str,
                  decided: tuple[Window, np.ndarray] | None = None) -> ProviderView:
    """The verdict of ``provider`` on the view of ``strategy`` at ``budget`` (``decided``:
    its window and rows in view, when the caller has them: the overlay's)."""
    if decided is None:
        if isinstance(strategy, str):
            strategy = Strategy.parse(strategy)
        w = window(log, strategy, budget, settings)
        decided = (w, in_view(log, w))
    w, keep = decided
    req, found = spelled(log, w, keep, provider)
    system = np.flatnonzero(keep & log.is_system)
    return ProviderView(provider, req, found, tuple(system.tolist()))


__all__ = ["ASSISTANT_SPEAKER", "TOOL_SPEAKER", "ProviderView", "RequestMessage",
           "provider_view"]
