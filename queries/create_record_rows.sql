-- Scratch table of the file being staged by an agent-format reader: the record (numbered
-- from 0) each staged row came from, and one row per skipped record (row_no NULL) with why.
CREATE OR REPLACE TEMP TABLE record_rows (row_no BIGINT, rec BIGINT, skipped VARCHAR)
