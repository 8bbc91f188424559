-- The terms of the texts of the import positions $low..$high, one row per (event, term):
-- the text case folded (/*FOLD*/, explorer.search.words), cut into the matches of $term
-- (its words and its symbols).
CREATE OR REPLACE TEMP TABLE search_batch AS
SELECT DISTINCT eid, unnest(regexp_extract_all(/*FOLD*/, $term)) AS term
FROM event_details
WHERE eid BETWEEN $low AND $high AND text IS NOT NULL
