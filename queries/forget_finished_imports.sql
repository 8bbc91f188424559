-- Drop start records whose import did commit (the process stopped just after its COMMIT).
DELETE FROM imports_in_progress m
WHERE EXISTS (SELECT 1 FROM files f
              WHERE f.path = m.path AND f.status = 'complete' AND f.imported_at >= m.started_at)
