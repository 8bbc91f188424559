-- Rule shared_keys (AUDITS.md; a fragment over audit_relations.sql, one row per unit
-- counted: session_id, unit_pos, events): each session read from more than one file, with
-- the first event of each file, kept or (for a file that only repeated it) duplicate.
SELECT session_id, min(pos) AS unit_pos, list(ev ORDER BY file_id) AS events
FROM (SELECT *, count(*) OVER (PARTITION BY session_id) AS nf
      FROM (SELECT session_id, file_id, min(pos) AS pos, arg_min(ev, pos) AS ev
            FROM o GROUP BY ALL
            UNION ALL
            SELECT session_id, file_id, NULL, arg_min(
                {'seq': seq, 'sub': sub, 'kind': CAST(kind AS VARCHAR), 'call_id': call_id}, line)
            FROM duplicates d
            WHERE NOT EXISTS (SELECT 1 FROM events e
                              WHERE e.session_id = d.session_id AND e.file_id = d.file_id)
            GROUP BY ALL))
WHERE nf > 1 GROUP BY session_id
