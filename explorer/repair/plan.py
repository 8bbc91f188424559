"""What a repair changes in one session: the events that go, those turned into plain text and
the placeholder results added, each with its reason (issue 20).

The plan is made on the session as imported, in ``seq`` order (the file's order), and checked
the way the copy will be read back: the changed events are built into a
:class:`~explorer.compaction.SessionLog` and each provider asked checks its request
(PROVIDERS.md) until nothing is left to repair. A writer of :mod:`explorer.repair.writers`
then applies the plan to the source file, in its own format.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import polars as pl

from explorer.compaction import SessionLog
from explorer.model import CostSettings, Order
from explorer.providers import Violation, check, violations
from explorer.providers.request import from_log
from explorer.store.db import Db
from explorer.tokens.session_events import session_events

ORPHANS = ("drop", "text")
UNANSWERED = ("placeholder", "drop")
#: The text of a placeholder result (the call's id is added after it).
PLACEHOLDER = "[Tool call interrupted: no result was recorded for this call (repaired by Turnscope)]"
#: Rules repaired by answering a CALL, by taking a RESULT away, by dropping a repeated CALL
#: or a repeated RESULT; the others (turn kinds, the first message) are left and reported.
_UNANSWERED_RULES = ("anthropic.unanswered", "bedrock.expected", "openai-chat.unanswered",
                     "openai-responses.no-output", "gemini.count")
_ORPHAN_RULES = ("anthropic.unexpected", "bedrock.exceeds", "openai-chat.foreign-id",
                 "openai-chat.orphan", "openai-responses.no-call", "gemini.response-order")
_DUPLICATE_CALL_RULES = ("anthropic.duplicate", "bedrock.duplicate")
_DUPLICATE_RESULT_RULES = ("anthropic.multiple-results",)
_ROUNDS = 20


class RepairError(ValueError):
    """A repair that cannot be made (no such session, a session of several files...)."""


@dataclass(frozen=True)
class Change:
    """One change: ``drop`` an event, turn it into ``text``, or ``add`` a placeholder result
    (``seq``/``sub`` then name the CALL it answers). ``line`` is the source record's line."""

    action: str
    seq: int
    sub: int
    kind: str
    call_id: str | None
    reason: str
    line: int | None = None
    #: the first characters of the event's text (of the placeholder's, for ``add``)
    text: str | None = None

    def as_dict(self) -> dict:
        return {"action": self.action, "seq": self.seq, "sub": self.sub, "kind": self.kind,
                "call_id": self.call_id, "reason": self.reason, "line": self.line,
                "text": self.text}


@dataclass
class Plan:
    """The changes of one session's repair, the source they apply to, and what is left."""

    session_id: str
    path: str
    format: str
    changes: list[Change] = field(default_factory=list)
    left: list[Violation] = field(default_factory=list)
    events: int = 0
    #: (seq, the smallest sub of that seq): where a record's blocks start (writers' use)
    first_subs: tuple[tuple[int, int], ...] = ()

    def source_lines(self) -> tuple[list[str], bool]:
        """The source file's lines as written (a ``\r`` kept), for the line-based writers,
        and whether a line end follows its last line (the copy ends the same way)."""
        with open(self.path, encoding="utf-8", newline="") as src:
            lines = src.read().split("\n")
        trailing = bool(lines) and lines[-1] == ""
        if trailing:
            lines.pop()
        return lines, trailing

    def counts(self) -> dict[str, int]:
        """How many events each action concerns (drop, text, add)."""
        out = {"drop": 0, "text": 0, "add": 0}
        for c in self.changes:
            out[c.action] += 1
        return out


def plan(db: Db, session_id: str, orphans: str = "drop", unanswered: str = "placeholder",
         provider: str | None = None) -> Plan:
    """The repair of ``session_id``: duplicates removed, orphan results dropped or made text,
    unanswered calls answered by a placeholder or dropped, and with ``provider`` every
    violation of that provider's rules removed (those no change can remove are ``left``)."""
    if orphans not in ORPHANS or unanswered not in UNANSWERED:
        raise RepairError(f"--orphans is one of {', '.join(ORPHANS)}; "
                          f"--unanswered one of {', '.join(UNANSWERED)}")
    sources = db.frame("repair_sources", session_id=session_id)
    if sources.is_empty():
        raise RepairError(f"no session {session_id!r} in the database")
    paths = sources["path"].unique(maintain_order=True).to_list()
    if len(paths) > 1:
        raise RepairError(f"session {session_id!r} comes from {len(paths)} files "
                          f"({', '.join(paths)}); a repair rewrites one file")
    frame = session_events(db, session_id, Order.SEQ, CostSettings(), texts=False)
    frame = frame.join(sources.select("eid", "line"), on="eid", how="left")
    out = Plan(session_id, paths[0], sources["format"][0], events=frame.height)
    duplicates = db.frame("repair_duplicates", session_id=session_id)
    out.changes += [Change("drop", r["seq"], r["sub"], r["kind"], r["call_id"],
                           "duplicate of an event already in the session", r["line"])
                    for r in duplicates.iter_rows(named=True)]
    starts = pl.concat([f.select(pl.col("seq").cast(pl.Int64), pl.col("sub").cast(pl.Int64))
                        for f in (sources, duplicates)])
    out.first_subs = tuple(starts.group_by("seq").agg(pl.col("sub").min()).sort("seq").rows())
    state = _State(frame, orphans, unanswered)
    state.structural()
    if provider is not None:
        out.left = state.provider(provider)
    out.changes = _with_texts(db, session_id, out.changes + state.changes)
    return out


def _with_texts(db: Db, session_id: str, changes: list[Change]) -> list[Change]:
    """The changes with the first characters of their events' texts."""
    seqs = sorted({c.seq for c in changes if c.action != "add"})
    texts = {(r[0], r[1]): r[2] for r in db.run("repair_texts", session_id=session_id,
                                                 seqs=seqs)} if seqs else {}
    return [replace(c, text=PLACEHOLDER if c.action == "add" else texts.get((c.seq, c.sub)))
            for c in changes]


class _State:
    """The session's rows as the copy will hold them, and the changes made so far."""

    def __init__(self, frame: pl.DataFrame, orphans: str, unanswered: str) -> None:
        self.schema = frame.schema
        self.rows = frame.to_dicts()
        for r in self.rows:
            r["_added"] = False
        self.orphans, self.unanswered = orphans, unanswered
        self.changes: list[Change] = []

    def structural(self) -> None:
        """Orphan results and calls that no result answers (AUDITS.md, Pairing)."""
        calls = {r["call_id"] for r in self.rows if r["kind"] == "CALL" and r["call_id"]}
        results = {r["call_id"] for r in self.rows if r["kind"] == "RESULT" and r["call_id"]}
        for r in list(self.rows):
            if r["kind"] == "RESULT" and r["call_id"] and r["call_id"] not in calls:
                self._orphan(r, "orphan result: no call of its id in the session")
            elif r["kind"] == "CALL" and r["call_id"] and r["call_id"] not in results:
                self._unanswered(r, "unanswered call: no result of its id in the session")

    def provider(self, provider: str) -> list[Violation]:
        """Remove the provider's violations round by round; those left unremovable."""
        for _ in range(_ROUNDS):
            log = SessionLog.from_frame("repair", self._frame())
            req = from_log(log)
            found = violations(req, check(req, (provider,))[provider])
            if not found:
                return []
            acted = False
            for v in found:
                acted |= self._repair(v)
                if acted:   # the rows moved: check again before the next change
                    break
            if not acted:
                return found
        return found

    def _repair(self, v: Violation) -> bool:
        picked = [self.rows[i] for i in v.rows if i >= 0]
        ids = set(v.call_ids)
        why = f"{v.rule}: {v.text}"
        if v.rule in _UNANSWERED_RULES:
            targets = [r for r in picked if r["kind"] == "CALL" and (not ids or r["call_id"] in ids)]
            for r in targets:
                self._unanswered(r, why)
            return bool(targets)
        if v.rule in _ORPHAN_RULES:
            targets = [r for r in picked if r["kind"] == "RESULT"
                       and (not ids or r["call_id"] in ids)]
            if v.rule == "bedrock.exceeds":
                called = {r["call_id"] for r in picked if r["kind"] == "CALL"}
                targets = [r for r in targets if r["call_id"] not in called] or targets[-1:]
            for r in targets:
                self._orphan(r, why)
            return bool(targets)
        if v.rule in _DUPLICATE_CALL_RULES + _DUPLICATE_RESULT_RULES:
            kind = "CALL" if v.rule in _DUPLICATE_CALL_RULES else "RESULT"
            done = False
            for call_id in ids or {r["call_id"] for r in picked}:
                same = [r for r in self.rows if r["kind"] == kind and r["call_id"] == call_id]
                for r in same[1:]:
                    self._drop(r, why)
                    done = True
            return done
        return False

    def _orphan(self, r: dict, why: str) -> None:
        if r["_added"] or self.orphans == "drop":
            self._drop(r, why)
            return
        self.changes.append(_change("text", r, why))
        r.update(kind="USER", call_id=None)

    def _unanswered(self, r: dict, why: str) -> None:
        if self.unanswered == "drop":
            self._drop(r, why)
            return
        self.changes.append(_change("add", r, why))
        at = max(i for i, x in enumerate(self.rows) if x["seq"] == r["seq"]) + 1
        self.rows.insert(at, {**r, "kind": "RESULT", "cost": 0, "message_id": None,
                              "eid": -1, "_added": True})

    def _drop(self, r: dict, why: str) -> None:
        if r["_added"]:
            self.changes = [c for c in self.changes
                            if not (c.action == "add" and c.call_id == r["call_id"]
                                    and (c.seq, c.sub) == (r["seq"], r["sub"]))]
        else:
            self.changes.append(_change("drop", r, why))
        self.rows = [x for x in self.rows if x is not r]

    def _frame(self) -> pl.DataFrame:
        rows = [{k: v for k, v in r.items() if k != "_added"} for r in self.rows]
        return pl.DataFrame(rows, schema=self.schema, orient="row") if rows else \
            pl.DataFrame(schema=self.schema)


def _change(action: str, r: dict, why: str) -> Change:
    return Change(action, r["seq"], r["sub"], r["kind"], r["call_id"], why, r.get("line"))
