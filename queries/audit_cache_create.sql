-- Materialise the per-session audit table of one order and one pair of token ratios (the
-- AUDIT marker holds audit_from_findings.sql: session_audit.sql's columns) into the table at the TABLE marker (a name from
-- explorer.audits.cache only): every column of session_audit; has_findings, whether any
-- finding count (the ANYFINDING marker lists them) is above zero; and for every column c its rank_c, the row's place (0, 1,
-- 2 ...) when sorted by c then session_id, so that any sort of the list is ORDER BY one
-- integer (descending is its exact reverse; the RANKS marker). Every column of session_audit is non-NULL.
-- Rows are stored in session_id order.
CREATE OR REPLACE TABLE /*TABLE*/ AS
SELECT a.*,
    greatest(/*ANYFINDING*/) > 0 AS has_findings,
    /*RANKS*/
FROM (/*AUDIT*/) AS a
ORDER BY session_id
