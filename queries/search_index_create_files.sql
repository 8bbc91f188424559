-- The files the corpus search's index covers (explorer.search.index), as they were when
-- indexed: a file whose digest, import positions or number of events differ since is
-- indexed again. done: the last import position indexed (the file is indexed in batches).
CREATE TABLE IF NOT EXISTS search_files (
    file_id INTEGER NOT NULL,
    sha256 VARCHAR,
    low BIGINT NOT NULL,
    high BIGINT NOT NULL,
    events BIGINT NOT NULL,
    done BIGINT NOT NULL
)
