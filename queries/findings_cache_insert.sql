-- Add the findings of one batch of sessions (the FINDINGS marker holds findings.sql over
-- batch_relations.sql: its bounds are the parameters $lo and $hi) to findings_stage.
INSERT INTO findings_stage
SELECT rule, session_id, events, unit_pos FROM (/*FINDINGS*/)
