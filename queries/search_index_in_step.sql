-- Whether the corpus search's index was last brought in step at the events' present
-- version (explorer.search.index: then nothing changed since, and no file is read), and
-- its tables are here (Save Database As… copies the meta facts, not the index).
SELECT coalesce((SELECT value FROM meta WHERE key = 'search_index_version')
                = (SELECT coalesce(max(value), '0') FROM meta WHERE key = 'data_version'),
                false)
       AND (SELECT count(*) FROM duckdb_tables()
            WHERE database_name = current_database() AND schema_name = 'main'
              AND table_name IN ('search_terms', 'search_postings', 'search_files')) = 3
           AS in_step,
       (SELECT coalesce(max(value), '0') FROM meta WHERE key = 'data_version') AS version
