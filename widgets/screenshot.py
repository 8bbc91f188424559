"""``turnscope screenshot``: render the main window offscreen to a PNG, with a session
selected and its compaction preview applied (for documentation and for headless checks)."""

from __future__ import annotations

import argparse
import time

from PySide6.QtCore import QCoreApplication, QEventLoop

from explorer.cli import messages
from explorer.cli.demo import demo_paths
from explorer.compaction.strategies import Strategy
from explorer.model import Order
from explorer.store.db import StoreError
from explorer.text_escape import elided

TIMEOUT_S = 900


class ScreenshotError(Exception):
    """The screenshot cannot be taken as asked (message for the user)."""


def parse_size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ScreenshotError(f"--size {text!r}: write it as WIDTHxHEIGHT, e.g. 1600x1000") from None
    if not (320 <= width <= 8000 and 240 <= height <= 8000):
        raise ScreenshotError(f"--size {text!r}: between 320x240 and 8000x8000")
    return width, height


def settle(window, timeout_s: float = TIMEOUT_S) -> None:
    """Process events until the window's background jobs have all ended (and stay ended)."""
    deadline = time.monotonic() + timeout_s
    quiet = 0
    while quiet < 3:
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        quiet = 0 if window.jobs.is_busy() else quiet + 1
        if time.monotonic() > deadline:
            raise ScreenshotError(f"the window was still busy after {timeout_s:.0f} s")
        time.sleep(0.01)


def take(out: str, paths: list[str], db: str | None = None, session: str | None = None,
         strategy: str = "M1", budget: int = 2_000, size: str = "1600x1000",
         order: Order = Order.SEQ, tab: str = "session", tokenizer: str | None = None) -> str:
    """Render the window to ``out``; returns the session shown ("" when none)."""
    from widgets.app import make_window

    width, height = parse_size(size)
    Strategy.parse(strategy)  # a clear error before anything is loaded
    if budget < 1:
        raise ScreenshotError("--budget is a positive number of tokens")
    if not paths and not db:
        paths = [str(p) for p in demo_paths()]
    window = make_window(paths, db, Order(order))
    try:
        window.resize(width, height)
        window.show()
        if tokenizer:
            estimator = window.workspace.preview.estimator
            estimator.setCurrentIndex(estimator.findData(tokenizer))
        settle(window)
        chosen = session or window.first_flagged_session()
        if chosen:
            if not window.select_session(chosen):
                raise ScreenshotError(f"--session {chosen!r}: no such session in the data")
            window.workspace.preview.set_strategy(strategy)
            window.workspace.preview.set_budget(budget)
            settle(window)
            window.session_panel.next_finding()  # its first finding selected, in the detail
        if tab == "sweep":
            window.show_sweep(run=True)
            settle(window)
        window.workspace.preview.compare.refresh()  # its table waits for the budget to rest
        settle(window)   # a big session's table is computed in the background: its rows
        if not window.grab().save(out, "PNG"):
            raise ScreenshotError(f"{out}: cannot write the PNG")
        return chosen or ""
    finally:
        window.close()


def run_screenshot(args: argparse.Namespace) -> int:
    """The subcommand: 0 when written, 2 on a usage or data error."""
    try:
        shown = take(args.out, list(args.paths), args.db, args.session, args.strategy,
                     args.budget, args.size, Order(args.order), args.tab, args.tokenizer)
    except (ScreenshotError, StoreError, ValueError) as exc:
        messages.error("screenshot", exc)
        return 2
    messages.say(f"wrote {args.out}" + (f" (session {elided(shown)})" if shown else ""))
    return 0
