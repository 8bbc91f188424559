-- The text and flags of the valid rows of the file being imported that have any (the
-- copies find_duplicates.sql found left out, as insert_events.sql leaves them out).
INSERT INTO event_details
SELECT $eid_base + row_no, text, is_error, synthetic, branch, archived, raw,
    parent_session, parent_call, note
FROM (/*TYPED*/)
WHERE reason IS NULL AND (seq_given OR $assign_seq)
  AND (text IS NOT NULL OR is_error IS NOT NULL OR synthetic IS NOT NULL
       OR branch IS NOT NULL OR archived IS NOT NULL OR raw IS NOT NULL
       OR parent_session IS NOT NULL OR parent_call IS NOT NULL OR note IS NOT NULL)
  AND $eid_base + row_no NOT IN (SELECT eid FROM dups)
