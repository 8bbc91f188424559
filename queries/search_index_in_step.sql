-- Whether the corpus search's index was last brought in step at the events' present
-- version (explorer.search.index: then nothing changed since, and no file is read), its
-- tables are here (Save Database As… copies the meta facts, not the index) and it was made
-- to today's $format; and whether that format is the index's (else it is made anew).
SELECT coalesce((SELECT value FROM meta WHERE key = 'search_index_version')
                = (SELECT coalesce(max(value), '0') FROM meta WHERE key = 'data_version'),
                false)
       AND (SELECT count(*) FROM duckdb_tables()
            WHERE database_name = current_database() AND schema_name = 'main'
              AND table_name IN ('search_terms', 'search_postings', 'search_files')) = 3
       AND same_format AS in_step,
       same_format,
       (SELECT coalesce(max(value), '0') FROM meta WHERE key = 'data_version') AS version
FROM (SELECT coalesce((SELECT value FROM meta WHERE key = 'search_index_format') = $format,
                      false) AS same_format)
