"""The audit statements put together from the rule declarations (:mod:`explorer.audits.rules`).

Each rule's SQL is one fragment, ``queries/rule_<name>.sql``: one row per unit it counts
(``session_id, unit_pos, events``) over the relations of ``queries/audit_relations.sql``.
The counts (``session_audit``), the findings (``findings``) and the per-event marks
(:mod:`explorer.audits.marks`) all read those fragments; only what an event is called (the
``EV`` marker) changes: a ``{seq, sub, kind, call_id}`` struct for the findings, its position
for the marks. The cache tables' column lists come from the same declarations, and so does
:data:`CACHE_FORMAT`.
"""

from __future__ import annotations

import hashlib

import queries
from explorer.audits.rules import RULES, Rule

#: An event as a finding names it (AUDITS.md): the EV marker of audit_relations.sql.
EVENT_STRUCT = "{'seq': seq, 'sub': sub, 'kind': CAST(kind AS VARCHAR), 'call_id': call_id}"


def relations(ordered: str, ev: str = EVENT_STRUCT, batched: bool = False) -> str:
    """The CTEs the rule fragments read, over ``ordered`` (a relation like ordered_events,
    holding the EV marker: it names each event, and the events before it, in its own
    windows), each event named by the expression ``ev``. ``batched``: over the sessions of
    one batch only (batch_relations.sql; parameters ``$lo`` and ``$hi``)."""
    text = queries.render("audit_relations", ordered=ordered, ev=ev,
                          pairs=queries.load("fragment_call_pairs"))
    return f"{queries.load('batch_relations')},\n{text}" if batched else text


def units(rules: tuple[Rule, ...] = RULES) -> str:
    """Every unit counted by ``rules``: ``r`` (the rule's place in RULES, from 1), ``rule``,
    ``session_id``, ``unit_pos``, ``events``."""
    return "\nUNION ALL\n".join(
        f"SELECT {RULES.index(rule) + 1} AS r, '{rule.name}' AS rule, session_id, unit_pos, events"
        f" FROM ({queries.load(rule.fragment)})" for rule in rules)


def counts_sql(ordered: str) -> str:
    """The ``session_audit`` statement over ``ordered``: one row per session. Counts never
    read an event's name, so it is NULL here: no struct per event (1.0 s instead of
    1.3 s for the ts order of 334k events)."""
    return queries.render(
        "session_audit", relations=relations(ordered, "NULL"), units=units(),
        unitcounts=", ".join(f"count(*) FILTER (WHERE r = {i}) AS {rule.name}"
                             for i, rule in enumerate(RULES, 1)),
        rulecolumns=", ".join(f"coalesce({rule.name}, 0) AS {rule.name}" for rule in RULES))


def audit_sql(findings_table: str, fragments: dict[str, str]) -> str:
    """The per-session audit (the columns of ``session_audit``, the same values) from a
    findings table of the same order (explorer.audits.findings_cache) and the events; the
    cost ``fragments`` are CostSettings.fragments()."""
    return queries.render(
        "audit_from_findings", found=findings_table,
        unitcounts=", ".join(f"count(*) FILTER (WHERE rule = '{rule.name}') AS {rule.name}"
                             for rule in RULES),
        rulecolumns=", ".join(f"coalesce({rule.name}, 0) AS {rule.name}" for rule in RULES),
        **fragments)


def findings_sql(ordered: str, batched: bool = False) -> str:
    """The ``findings`` statement over ``ordered``: one row per unit, rule by rule (of one
    batch of sessions when ``batched``)."""
    return queries.render("findings", relations=relations(ordered, batched=batched),
                          units=units())


def cache_fragments(columns: tuple[str, ...]) -> dict[str, str]:
    """The markers of the audit cache statements, for the list's ``columns`` (session_id
    first, then numbers): the list, its ranks, the CASE choosing one, its sums and maxima."""
    numbers = columns[1:]
    rank = "(row_number() OVER (ORDER BY {0}, session_id) - 1)::INTEGER AS rank_{0}"
    return {
        "listed": ", ".join(columns),
        "anyfinding": ", ".join(rule.name for rule in RULES),
        "ranks": ",\n    ".join(
            ["(row_number() OVER (ORDER BY session_id) - 1)::INTEGER AS rank_session_id"]
            + [rank.format(c) for c in numbers]),
        "rankcases": "\n        ".join(f"WHEN '{c}' THEN rank_{c}" for c in columns),
        "sums": ",\n    ".join(f"coalesce(sum({c}), 0)::BIGINT AS {c}" for c in numbers
                               if c not in ("users", "cost")),
        "maxes": ",\n    ".join(f"max({c}) AS {c}" for c in numbers),
    }


def _format() -> str:
    """Changes whenever a rule, its SQL or a cache statement does: older tables are then
    recomputed. Bump the leading number for a change the texts do not show."""
    texts = [repr(RULES)] + [queries.load(name) for name in (
        "ordered_events", "prev_event_columns", "audit_relations", "fragment_call_pairs", "batch_relations",
        "session_audit", "findings", "audit_from_findings", "audit_cache_create",
        "findings_cache_insert", "findings_cache_create", *(rule.fragment for rule in RULES))]
    return "4-" + hashlib.sha256("\0".join(texts).encode()).hexdigest()[:16]


#: The format of the audit and findings cache tables, derived from the declarations.
CACHE_FORMAT = _format()
