-- How many input lines were rejected, in all.
SELECT count(*) AS n FROM rejected
