-- Forget the corpus search's index (explorer.search.index: made to an earlier format, its
-- terms are not today's): its table search_postings.
DROP TABLE IF EXISTS search_postings
