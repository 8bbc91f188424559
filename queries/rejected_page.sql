-- Rejected input lines with their text, in file and line order, one page at a time.
SELECT f.path, r.line, r.reason, r.text FROM rejected r JOIN files f USING (file_id)
ORDER BY r.file_id, r.line LIMIT $limit OFFSET $offset
