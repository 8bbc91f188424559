-- Whether the corpus search's index was last brought in step at the events' present
-- version (explorer.search.index: then nothing changed since, and no file is read).
SELECT coalesce((SELECT value FROM meta WHERE key = 'search_index_version')
                = (SELECT coalesce(max(value), '0') FROM meta WHERE key = 'data_version'),
                false) AS in_step,
       (SELECT coalesce(max(value), '0') FROM meta WHERE key = 'data_version') AS version
