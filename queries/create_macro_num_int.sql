-- A floating-point number that is integral -> BIGINT; else NULL.
CREATE OR REPLACE MACRO num_int(x) AS
    CASE WHEN x = trunc(x) THEN TRY_CAST(x AS BIGINT) END
