-- How many findings of a findings cache table (TABLE marker) have n between $lo and $hi and
-- belong to $session.
SELECT count(*) AS count FROM /*TABLE*/ WHERE n BETWEEN $lo AND $hi AND session_id = $session
