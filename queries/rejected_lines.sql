-- The first rejected input lines: file, line number and reason.
SELECT f.path, r.line, r.reason FROM rejected r JOIN files f USING (file_id)
ORDER BY r.file_id, r.line LIMIT $limit
