-- One table of the store into the same table of the attached copy (explorer.store.save_as):
-- /*TABLE*/ is one of the store's own table names, a fixed fragment of the core (meta has
-- its own statement, copy_meta_to_target).
INSERT INTO copy_target.main./*TABLE*/
SELECT * FROM /*TABLE*/
