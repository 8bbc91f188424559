-- Files whose last import failed and that no complete files row has replaced since.
SELECT m.path, m.reason
FROM import_failures m
WHERE NOT EXISTS (SELECT 1 FROM files f
                  WHERE f.path = m.path AND f.status = 'complete' AND f.imported_at >= m.failed_at)
ORDER BY m.failed_at, m.path
