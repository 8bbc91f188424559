-- An integral value written as text or float ("12", "12.0", "1e3") -> BIGINT; else NULL.
CREATE OR REPLACE MACRO txt_int(x) AS
    COALESCE(
        TRY_CAST(CASE WHEN regexp_full_match(x, '\s*[+-]?\d{1,18}\s*') THEN x END AS BIGINT),
        CASE WHEN TRY_CAST(x AS DOUBLE) = trunc(TRY_CAST(x AS DOUBLE))
             THEN TRY_CAST(TRY_CAST(x AS DOUBLE) AS BIGINT) END)
