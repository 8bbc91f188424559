-- Keep the record numbers of one staged chunk (registered as stage_records).
INSERT INTO record_rows SELECT row_no, rec, skipped FROM stage_records
