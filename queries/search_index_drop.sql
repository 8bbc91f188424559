-- Forget the corpus search's index (explorer.search.index: it was made to an earlier
-- format, whose terms are not today's): its tables and the version it was in step at.
DROP TABLE IF EXISTS search_postings;
DROP TABLE IF EXISTS search_terms;
DROP TABLE IF EXISTS search_files;
DELETE FROM meta WHERE key IN ('search_index_version', 'search_index_format')
