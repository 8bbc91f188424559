-- One session's row of an audit cache table (the TABLE marker: a name from
-- explorer.audits.cache.TABLES): its counts, for explorer.audits.marks to run only the rules
-- that found something in it.
SELECT * FROM /*TABLE*/ WHERE session_id = $session_id
