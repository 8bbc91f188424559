-- The batch's postings, sorted by word (zone maps: see search_index_create_postings.sql).
INSERT INTO search_postings
SELECT t.term_id, b.eid
FROM search_batch b
JOIN search_terms t USING (term)
ORDER BY t.term_id, b.eid
