-- The store's meta facts into the attached copy (explorer.store.save_as), except those the
-- copy was made with (its schema version and Turnscope's marker).
INSERT INTO copy_target.main.meta
SELECT key, value FROM meta
WHERE key NOT IN (SELECT key FROM copy_target.main.meta)
