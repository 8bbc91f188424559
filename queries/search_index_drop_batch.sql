-- The batch's words, once posted.
DROP TABLE IF EXISTS search_batch
