-- A boolean written as text (true/false, 1/0, yes/no, t/f, y/n; any case) -> BOOLEAN; else NULL.
CREATE OR REPLACE MACRO txt_bool(x) AS
    CASE lower(trim(x))
        WHEN 'true' THEN true WHEN '1' THEN true WHEN 'yes' THEN true WHEN 't' THEN true WHEN 'y' THEN true
        WHEN 'false' THEN false WHEN '0' THEN false WHEN 'no' THEN false WHEN 'f' THEN false WHEN 'n' THEN false
    END
