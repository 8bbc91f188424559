-- A timestamp written as epoch milliseconds (digits, optionally with a fraction) or as
-- ISO-8601 text (no zone means UTC: connections run with TimeZone = 'UTC') -> epoch ms,
-- sub-millisecond digits truncated; else NULL.
CREATE OR REPLACE MACRO txt_ts(x) AS
    CASE WHEN regexp_full_match(x, '\s*[+-]?\d+(\.\d*)?\s*')
         THEN TRY_CAST(floor(TRY_CAST(x AS DOUBLE)) AS BIGINT)
         ELSE epoch_us(TRY_CAST(x AS TIMESTAMPTZ)) // 1000 END
