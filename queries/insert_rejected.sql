-- Keep every rejected record of the file being imported, with its text and reason. When
-- some rows of a file carry seq, a row without it is rejected (FORMAT.md).
INSERT INTO rejected
SELECT $file_id, line, coalesce(reason, 'missing seq (other rows of this file carry seq)'), src_text
FROM (/*TYPED*/)
WHERE reason IS NOT NULL OR ($seq_mixed AND NOT seq_given)
ORDER BY line
