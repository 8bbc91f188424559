-- The per-session audit of one order from its findings table (the FOUND marker: a name
-- from explorer.audits.findings_cache) and the events: every column of session_audit.sql,
-- with the same values (a rule's count is its findings in the session; users and cost as
-- there: the BPE and BPEJOIN markers and $cjk_ratio, $other_ratio as in ordered_events.sql).
-- UNITCOUNTS counts each rule's findings per session, RULECOLUMNS lists them (0 for none).
WITH per AS (
    SELECT session_id,
        count(*) AS events,
        count(*) FILTER (WHERE kind = 'USER' AND eid NOT IN (SELECT eid FROM event_details WHERE note IS NOT NULL)) AS turns,
        count(*) FILTER (WHERE kind = 'CALL') AS calls,
        count(*) FILTER (WHERE kind = 'RESULT') AS results,
        count(DISTINCT user_id) AS users,
        sum(coalesce(tokens, /*BPE*/,
                     floor(cjk_chars / $cjk_ratio + other_chars / $other_ratio + 0.5)::BIGINT))
            AS cost
    FROM events /*BPEJOIN*/
    GROUP BY session_id
),
found AS (SELECT session_id, /*UNITCOUNTS*/ FROM /*FOUND*/ GROUP BY session_id)
SELECT
    per.session_id, events, turns, calls, results, /*RULECOLUMNS*/,
    users, cost::BIGINT AS cost
FROM per
LEFT JOIN found USING (session_id)
ORDER BY per.session_id
