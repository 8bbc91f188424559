-- Forget every conflicting key (they are recomputed by rebuild_conflicts.sql).
DELETE FROM conflicts
