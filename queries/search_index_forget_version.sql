-- Forget the version and format the corpus search's index was made at (its tables dropped).
DELETE FROM meta WHERE key IN ('search_index_version', 'search_index_format')
