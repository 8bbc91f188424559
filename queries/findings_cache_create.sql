-- Materialise every finding of one order, gathered batch by batch in findings_stage
-- (findings_cache_insert.sql), into the table at the TABLE marker (a name from
-- explorer.audits.findings_cache only). n numbers the findings 1, 2, 3 ... by rule (in the
-- order of the bound list $rules), session, first event and events, so each rule's findings
-- hold one contiguous range of n; unit_pos is the unit's place as findings.sql orders it
-- (audit --findings prints them by rule, session and unit_pos); rows are stored in n order.
CREATE OR REPLACE TABLE /*TABLE*/ AS
SELECT
    row_number() OVER (ORDER BY list_position($rules, rule), session_id, first_seq, first_sub,
                       events) AS n,
    rule, session_id, events, n_events, first_seq, first_sub, unit_pos
FROM (
    SELECT rule, session_id, events, unit_pos,
        CAST(json_array_length(events) AS INTEGER) AS n_events,
        CAST(events ->> '$[0].seq' AS BIGINT) AS first_seq,
        CAST(events ->> '$[0].sub' AS INTEGER) AS first_sub
    FROM findings_stage
)
ORDER BY n
