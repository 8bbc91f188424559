-- One row per unit counted by AUDITS.md (rule, session_id, events as a JSON list of
-- {seq, sub, kind, call_id}, and unit_pos, its place within the rule and session), in the
-- order being viewed, rule by rule. The RELATIONS marker holds audit_relations.sql (after
-- batch_relations.sql for one batch of sessions), the UNITS marker every rule's fragment
-- (rule_*.sql) with its place r and name (explorer.audits.rule_sql).
WITH /*RELATIONS*/,
units AS (/*UNITS*/)
SELECT rule, session_id, CAST(to_json(events) AS VARCHAR) AS events, unit_pos
FROM units ORDER BY r, session_id, unit_pos
