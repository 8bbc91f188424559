-- The events of one session whose text holds some words, case folded (explorer.session.event_texts:
-- Ctrl+F in the window). $eids are the session's events, $low/$high their bounds, so that only
-- the blocks holding them are read; $pattern the words as a literal, case-insensitive RE2
-- pattern (explorer.session.corpus_search.literal_pattern).
SELECT eid
FROM event_details
WHERE eid BETWEEN $low AND $high AND list_contains($eids, eid)
  AND text IS NOT NULL AND regexp_matches(text, $pattern)
