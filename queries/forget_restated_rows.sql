-- Drop the restated rows from the typed rows of a followed file's new lines (they are
-- earlier records, not new ones: restate_event_details.sql used them).
DELETE FROM parsed WHERE row_no IN (SELECT row_no FROM record_rows WHERE rec < 0)
