-- One block of findings from a findings cache table (TABLE marker), in n order: those with n
-- between $lo and $hi, of $rule and $session when given, skipping $skip of them.
SELECT n, rule, session_id, events, n_events, first_seq, first_sub
FROM /*TABLE*/
WHERE n BETWEEN $lo AND $hi
    AND ($rule IS NULL OR rule = $rule)
    AND ($session IS NULL OR session_id = $session)
ORDER BY n
LIMIT $limit OFFSET $skip
