-- Where the corpus search's bounded scan begins (explorer.session.corpus_search.steps):
-- the first of the last $bound import positions, whether that leaves any text out, and the
-- first import position of all (where the search's older steps end).
SELECT coalesce(max(eid), 0) - $bound + 1 AS first,
       coalesce(min(eid), 0) < coalesce(max(eid), 0) - $bound + 1 AS bounded,
       coalesce(min(eid), 0) AS low
FROM event_details
