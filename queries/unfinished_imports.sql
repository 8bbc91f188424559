-- Imports that began and never committed: no complete files row written since they began.
SELECT m.path, m.started_at, m.pid
FROM imports_in_progress m
WHERE NOT EXISTS (SELECT 1 FROM files f
                  WHERE f.path = m.path AND f.status = 'complete' AND f.imported_at >= m.started_at)
ORDER BY m.started_at, m.path
