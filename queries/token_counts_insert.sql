-- Store one batch of counts (the registered relation token_batch: eid, bpe_tokens, its eids
-- from $low to $high) but none already stored: another thread may have counted the same
-- events meanwhile (explorer.tokens.counts holds a lock around this statement).
INSERT INTO /*TABLE*/
SELECT b.eid, b.bpe_tokens FROM token_batch b
WHERE NOT EXISTS (SELECT 1 FROM /*TABLE*/ t
                  WHERE t.eid = b.eid AND t.eid BETWEEN $low AND $high)
