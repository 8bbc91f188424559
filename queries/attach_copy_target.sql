-- Attach the database a Save Database As… writes (explorer.store.save_as), as `copy_target`.
ATTACH $path AS copy_target
