-- The counts of AUDITS.md for every session, in the order being viewed, plus distinct users
-- and total cost. Sum the columns for the corpus counts. The RELATIONS marker holds
-- audit_relations.sql, the UNITS marker every rule's fragment (rule_*.sql) as in findings.sql;
-- UNITCOUNTS counts each rule's units per session, RULECOLUMNS lists them (0 for none).
WITH /*RELATIONS*/,
units AS (/*UNITS*/),
found AS (SELECT session_id, /*UNITCOUNTS*/ FROM units GROUP BY 1),
users AS (
    SELECT session_id, count(*) AS users
    FROM (SELECT DISTINCT session_id, user_id FROM events WHERE user_id IS NOT NULL)
    GROUP BY 1
),
per AS (
    SELECT session_id,
        count(*) AS events,
        count(*) FILTER (WHERE kind = 'USER' AND eid NOT IN (SELECT eid FROM event_details WHERE note IS NOT NULL)) AS turns,
        count(*) FILTER (WHERE kind = 'CALL') AS calls,
        count(*) FILTER (WHERE kind = 'RESULT') AS results,
        sum(cost) AS cost
    FROM o GROUP BY 1
)
SELECT
    per.session_id, events, turns, calls, results, /*RULECOLUMNS*/,
    coalesce(users, 0) AS users, cost::BIGINT AS cost
FROM per
LEFT JOIN found USING (session_id)
LEFT JOIN users USING (session_id)
ORDER BY per.session_id
