-- Rule collapsed_keys (AUDITS.md; a fragment over audit_relations.sql, one row per unit
-- counted: session_id, unit_pos, events): each session holding more than one user_id, with
-- the first event of each.
SELECT session_id, min(pos) AS unit_pos, list(ev ORDER BY pos) AS events
FROM (SELECT session_id, pos, ev, count(DISTINCT user_id) OVER (PARTITION BY session_id) AS nu,
             row_number() OVER (PARTITION BY session_id, user_id ORDER BY pos) AS rn
      FROM o WHERE user_id IS NOT NULL)
WHERE nu > 1 AND rn = 1 GROUP BY session_id
