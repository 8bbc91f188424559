-- How many sessions of an audit cache table (TABLE marker) the list shows: those whose id
-- holds $text (any case) and, when $only_findings, that have a finding.
SELECT count(*) AS count FROM /*TABLE*/
WHERE contains(lower(session_id), lower($text)) AND (has_findings OR NOT $only_findings)
