-- The words of the batch the vocabulary lacks, numbered after its last.
INSERT INTO search_terms
SELECT (SELECT coalesce(max(term_id), 0) FROM search_terms) + row_number() OVER (ORDER BY term),
       term
FROM (SELECT DISTINCT term FROM search_batch) b
WHERE NOT EXISTS (SELECT 1 FROM search_terms t WHERE t.term = b.term)
