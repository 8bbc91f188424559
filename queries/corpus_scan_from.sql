-- Where the corpus search's bounded scan begins (explorer.session.corpus_search.bounded_from):
-- the first of the last $bound import positions, and whether that leaves any text out.
SELECT coalesce(max(eid), 0) - $bound + 1 AS first,
       coalesce(min(eid), 0) < coalesce(max(eid), 0) - $bound + 1 AS bounded
FROM event_details
