"""Every audit rule of AUDITS.md, declared once: its name, its sentence, its SQL, its mark.

Everything else reads this tuple: the counts and findings statements are put together from
the rules' SQL fragments (:mod:`explorer.audits.rule_sql`), the per-event marks come from
the same fragments (:mod:`explorer.audits.marks`), the cache tables' column lists and their
``CACHE_FORMAT`` are derived from it, and the window draws each :class:`Mark` (plain data
here; ``widgets/mark_style.py`` turns it into Qt).

To add a rule: write its fragment ``queries/rule_<name>.sql`` (see
``queries/fragment_rule_relations.sql`` for the relations it may read) and add a
:class:`Rule` to :data:`RULES` in AUDITS.md's order.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The counts of AUDITS.md that are sizes, not findings (they point at no events).
SIZE_NAMES = ("events", "sessions", "turns", "calls", "results")
#: AUDITS.md's sections of findings, in its order (the totals strip shows one line per pair).
SECTIONS = ("import", "pairing", "ordering", "key collapse")


@dataclass(frozen=True)
class Mark:
    """How the turn tree marks an event a rule points at: a label, an icon colour, the
    background of the event's row (colours as ``#rrggbb``), and the name of the glyph
    ``widgets/mark_style.py`` draws. ``last`` marks only the later event of a pair (the one
    out of order); otherwise every event of a finding is marked."""

    label: str
    colour: str
    background: str
    glyph: str
    last: bool = False


@dataclass(frozen=True)
class Rule:
    """One audit rule: ``name`` is its count's ``audit --json`` key and its ``rule`` in
    ``--findings``; ``text`` the one sentence the window shows for it; ``section`` its
    section of AUDITS.md; ``mark`` how the tree marks its events (None: not marked)."""

    name: str
    text: str
    section: str
    mark: Mark | None = None

    @property
    def fragment(self) -> str:
        """The ``queries/`` file of its SQL: one row per unit counted
        (``session_id, unit_pos, events``), over the relations of fragment_rule_relations."""
        return f"rule_{self.name}"


RULES: tuple[Rule, ...] = (
    Rule("duplicates",
         "The same event (event_id and content) was appended again; the copy is dropped.",
         "import"),
    Rule("event_id_conflicts",
         "Events share an event_id in this session but differ in content.", "import"),
    Rule("shared_keys", "This session's events came from more than one input file.", "import"),
    Rule("orphan_results", "A tool result whose call_id has no call anywhere in its session.",
         "pairing", Mark("orphan result", "#d63a2f", "#f8c9c4", "circle")),
    Rule("dangling_calls", "A tool call whose call_id has no result anywhere in its session.",
         "pairing", Mark("dangling call", "#e07b00", "#fde2b8", "triangle")),
    Rule("mispair", "A tool result that comes before every call of its call_id in this order.",
         "pairing", Mark("mispair", "#8e44ad", "#e7d3f5", "diamond")),
    Rule("duplicate_call_ids",
         "Two or more tool calls in this session carry the same call_id.",
         "pairing", Mark("duplicate call id", "#2e6fd8", "#d7e3fb", "squares")),
    Rule("missing_child",
         "A tool call started a sub-agent whose session is not among the imported logs.",
         "pairing", Mark("missing child", "#00695c", "#cdeee8", "branch")),
    # its fragment reads the store (raw, the sessions present): explorer.audits.marks.FROM_STORE
    Rule("tie_inversions",
         "Adjacent events with equal timestamps, shown against append order.",
         "ordering", Mark("tie inversion", "#a08000", "#f5efb3", "equals", last=True)),
    Rule("clock_regressions", "A timestamp earlier than the previous one in append order.",
         "ordering", Mark("clock regression", "#a05a00", "#f5efb3", "back_arrow", last=True)),
    Rule("ts_ties", "A timestamp equal to the previous one in append order.", "ordering"),
    Rule("collapsed_keys",
         "Events of more than one user_id are stored under this session key.", "key collapse"),
    Rule("turn_collisions",
         "One logged turn number of this session occurs with several user_ids.",
         "key collapse", Mark("key collision", "#1e8449", "#cfeedd", "key")),
)
assert {r.section for r in RULES} <= set(SECTIONS)

#: The rules' names in AUDITS.md's order (the findings, each unit pointing at events).
RULE_NAMES = tuple(r.name for r in RULES)
#: Every count of AUDITS.md, in its order: the keys of ``audit --json``.
COUNT_NAMES = (*SIZE_NAMES, *RULE_NAMES)
#: Each rule's sentence, by name.
RULE_TEXT = {r.name: r.text for r in RULES}
#: The rules the turn tree marks, in display order.
MARKED = tuple(r for r in RULES if r.mark is not None)


def rules_in(section: str) -> tuple[str, ...]:
    """The names of the rules of one section of AUDITS.md, in its order."""
    return tuple(r.name for r in RULES if r.section == section)
