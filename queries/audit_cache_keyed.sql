-- An audit cache table (TABLE marker) with each session's sort key: the rank of the column
-- named $sort times $sign (1 ascending, -1 descending). The ranks are the rows' places, so a
-- key is also where the row stands in the unfiltered list (the RANKCASES marker holds one
-- WHEN per column of the list). Read by the list's statements.
SELECT *, CASE $sort
        /*RANKCASES*/
    END * $sign AS key
FROM /*TABLE*/
