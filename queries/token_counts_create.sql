-- Token counts of a real tokenizer (explorer.tokens.counts), one table per encoding: the
-- count of each event's text, for events that have text and no tokens of their own.
CREATE TABLE IF NOT EXISTS /*TABLE*/ (eid BIGINT NOT NULL, bpe_tokens BIGINT NOT NULL)
