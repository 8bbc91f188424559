-- Each rule's range of finding numbers in a findings cache table (TABLE marker): first n, count.
SELECT rule, min(n) AS first_n, count(*) AS count FROM /*TABLE*/ GROUP BY rule ORDER BY first_n
