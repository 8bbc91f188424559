-- The rows of one batch of sessions (session_id from $lo to $hi, both included), under the
-- names of the tables they come from: CTEs to open a WITH before audit_relations.sql, so the
-- audits of a batch are exactly those of its sessions over the whole database (every rule
-- counts within one session). explorer.audits.batches picks the bounds (session_batches.sql).
events AS NOT MATERIALIZED (SELECT * FROM main.events WHERE session_id BETWEEN $lo AND $hi),
duplicates AS (SELECT * FROM main.duplicates WHERE session_id BETWEEN $lo AND $hi),
conflicts AS (SELECT * FROM main.conflicts WHERE session_id BETWEEN $lo AND $hi)
