-- The corpus search's postings (explorer.search.index): the events whose text holds each
-- word, one row per (word, event). Each batch is inserted sorted by term_id, so that a
-- row group holds a narrow range of words and DuckDB's zone maps skip the others.
CREATE TABLE IF NOT EXISTS search_postings (
    term_id INTEGER NOT NULL,
    eid BIGINT NOT NULL
)
