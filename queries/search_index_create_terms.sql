-- The corpus search's vocabulary (explorer.search.index): every word of the events' texts,
-- case folded (explorer.search.words FOLD), once, with its number.
CREATE TABLE IF NOT EXISTS search_terms (
    term_id INTEGER NOT NULL,
    term VARCHAR NOT NULL
)
