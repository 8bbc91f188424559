-- Every finding of a findings table (the TABLE marker: a name from
-- explorer.audits.findings_cache only) in the order findings.sql gives them: by rule (in the
-- order of the bound list $rules), session and unit_pos (audit --findings on a database).
SELECT rule, session_id, events
FROM /*TABLE*/
ORDER BY list_position($rules, rule), session_id, unit_pos
