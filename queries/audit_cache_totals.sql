-- The corpus counts of AUDITS.md from an audit cache table (TABLE marker): sums of the
-- per-session counts (the SUMS marker); sessions is the number of rows.
SELECT
    count(*) AS sessions,
    /*SUMS*/
FROM /*TABLE*/
