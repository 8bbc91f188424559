-- The findings computed so far while the findings table of one order is built, one batch of
-- sessions at a time (explorer.audits.findings_cache): a temporary table of this connection,
-- read by findings_cache_create.sql, dropped once that table is made.
CREATE OR REPLACE TEMP TABLE findings_stage (
    rule VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    events VARCHAR NOT NULL,
    unit_pos BIGINT
)
