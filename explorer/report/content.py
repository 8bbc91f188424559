"""What a report holds, gathered from the database: plain data the writers lay out."""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.audits import counts as audits
from explorer.audits.marks import event_marks
from explorer.audits.rules import COUNT_NAMES, RULE_TEXT
from explorer.compaction import SessionLog, Strategy, window
from explorer.compaction.sweep import FIGURES, sweep
from explorer.compaction.sweep_plots import BUDGETS, CHECKED
from explorer.compaction.window import in_view
from explorer.model import Order
from explorer.providers import PROVIDERS, Violation
from explorer.providers.session_check import DEFAULT_SETTINGS, check_session
from explorer.providers.sweep_figures import figure_names, rejected_figures
from explorer.store.db import Db
from explorer.tokens.session_events import session_events

#: Events of one session shown in its tree (the rest are counted).
TREE_LIMIT = 2000
#: Events listed under one finding rule.
FINDINGS_LIMIT = 200


@dataclass(frozen=True)
class TreeLine:
    """One event of the turn tree: depth (0 a turn's opening, 1 inside it), its place,
    kind, call id, the start of its text and the rules marking it."""

    depth: int
    seq: int
    sub: int
    kind: str
    call_id: str | None
    text: str
    marks: tuple[str, ...]
    in_view: bool = True


@dataclass
class SessionPart:
    """One session of the report."""

    session_id: str
    events: int
    tree: list[TreeLine]
    verdicts: dict[str, list[Violation]]
    costs: list[int]   # the running total of cost, event by event
    view: View | None = None


@dataclass(frozen=True)
class View:
    """The chosen strategy's view of a session at the chosen budget, and its provider check."""

    strategy: str
    budget: int
    kept: int
    cost: int
    placeholders: int
    verdicts: dict[str, list[Violation]]


@dataclass(frozen=True)
class SweepPart:
    """The corpus sweep the window's sweep panel plots (explorer.compaction.sweep_plots):
    ``sweep --json``'s rows for its strategies and budgets, with every provider's
    ``rejected_<provider>`` figure."""

    strategies: tuple[str, ...]
    budgets: tuple[int, ...]
    providers: tuple[str, ...]
    rows: list[dict]

    def columns(self) -> tuple[str, ...]:
        """The figures of each row, after strategy and budget (``sweep --csv``'s order)."""
        return (*FIGURES, *figure_names(self.providers))


@dataclass
class Report:
    """The whole report: what was read, the audit table, the findings, the sessions, the
    corpus sweep (None when not asked for)."""

    sources: list[str]
    counts: dict[str, int]
    findings: dict[str, list[dict]]      # rule -> its findings (session_id, events)
    rule_text: dict[str, str]
    sessions: list[SessionPart] = field(default_factory=list)
    sweep: SweepPart | None = None


def build(db: Db, sources: list[str], session_id: str | None = None,
          order: Order = Order.SEQ, strategy: str = "M1", budget: int = 4000,
          with_sweep: bool = True) -> Report:
    """The report of the database (or of one session's part of it), each session's view
    being ``strategy``'s at ``budget`` tokens; ``with_sweep``: with the corpus sweep (of
    the whole database, as the window's sweep panel runs it)."""
    Strategy.parse(strategy)
    if budget < 1:
        raise ValueError("the budget is a positive number of tokens")
    counts = audits.corpus_counts(db, order)
    by_rule: dict[str, list[dict]] = {}
    for f in audits.findings(db, order):
        if session_id is None or f["session_id"] == session_id:
            by_rule.setdefault(f["rule"], []).append(f)
    report = Report(sources, {k: counts[k] for k in COUNT_NAMES}, by_rule, dict(RULE_TEXT))
    names = [n for (n,) in db.run("sessions_in_input_order")]
    if session_id is not None:
        if session_id not in names:
            raise ValueError(f"no session {session_id!r} in the database")
        names = [session_id]
    report.sessions = [_session(db, name, order, strategy, budget) for name in names]
    if with_sweep:
        report.sweep = corpus_sweep(db, order)
    return report


def corpus_sweep(db: Db, order: Order = Order.SEQ) -> SweepPart:
    """The sweep of the window's sweep panel: its default strategies over its budgets, every
    provider checked."""
    rows = sweep(db, CHECKED, BUDGETS, order, more=rejected_figures(PROVIDERS))
    return SweepPart(CHECKED, BUDGETS, tuple(PROVIDERS), rows)


def _session(db: Db, name: str, order: Order, strategy: str, budget: int) -> SessionPart:
    frame = session_events(db, name, order)
    marks = event_marks(frame)
    log = SessionLog.from_frame(name, frame)
    w = window(log, Strategy.parse(strategy), budget, DEFAULT_SETTINGS)
    keep = in_view(log, w)
    view = View(strategy, budget, int(keep.sum()), int(log.cost[keep].sum()),
                len(w.placeholders), check_session(log, PROVIDERS, strategy, budget))
    tree = []
    for row, marked, kept in zip(frame.head(TREE_LIMIT).iter_rows(named=True), marks,
                                 keep.tolist()):
        depth = 0 if row["kind"] in ("USER", "SYSTEM", "SUMMARY") else 1
        text = (row["text"] or "")[:160].replace("\n", " ")
        tree.append(TreeLine(depth, row["seq"], row["sub"], str(row["kind"]), row["call_id"],
                             text, tuple(sorted(marked)), bool(kept)))
    verdicts = check_session(log, PROVIDERS)
    costs = frame["cost"].cum_sum().to_list()
    return SessionPart(name, frame.height, tree, verdicts, costs, view)
