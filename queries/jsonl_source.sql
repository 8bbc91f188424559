-- The canonical fields of staged JSON Lines (table stage_lines: row_no, line, src, err),
-- each as text, plus whether the record has keys outside the format ($known). A record
-- that repeats a key with two values is rejected naming it: DuckDB would keep the first
-- value only, and the second would be nowhere (json_keys lists every key, repeats included,
-- and '$.*' every value in the same order). The same value written twice loses nothing and
-- is read, as the agent readers do (explorer.formats.json_values); values are compared as
-- DuckDB writes them back (minified JSON text).
-- Each line is parsed three times (valid, keys, values), once less when $valid, once less
-- when its extra is known: every parse more cost a third of the time.
SELECT
    row_no, line, src AS src_rec,
    coalesce(err, CASE WHEN NOT valid THEN 'invalid JSON'
                       WHEN ok_src IS NULL THEN 'not a JSON object'
                       WHEN len(keys) <> list_unique(keys) THEN
                           'key ''' || left(list_filter(keys, lambda k, i:
                               list_position(keys, k) < i AND json_extract(ok_src, '$.*')[
                                   list_position(keys, k)] IS DISTINCT FROM
                               json_extract(ok_src, '$.*')[i])[1], 80)
                           || ''' repeated with two values' END) AS err,
    coalesce(extra, len(list_filter(keys, lambda k: NOT list_contains($known, k))) > 0,
             false) AS has_extra,
    v[1] AS session_id, v[2] AS seq, v[3] AS sub, v[4] AS ts, v[5] AS kind, v[6] AS call_id,
    v[7] AS tool, v[8] AS text, v[9] AS chars, v[10] AS cjk, v[11] AS tokens, v[12] AS user_id,
    v[13] AS turn, v[14] AS message_id, v[15] AS event_id, v[16] AS is_error,
    v[17] AS synthetic, v[18] AS branch, v[19] AS archived, v[20] AS raw,
    v[21] AS parent_session, v[22] AS parent_call, v[23] AS note
FROM (
    -- a line whose extra is known has unique keys (a Python dict's): they are not read
    SELECT *, CASE WHEN extra IS NULL THEN json_keys(ok_src) END AS keys,
        json_extract_string(ok_src, [
        '$.session_id', '$.seq', '$.sub', '$.ts', '$.kind', '$.call_id', '$.tool', '$.text',
        '$.chars', '$.cjk', '$.tokens', '$.user_id', '$.turn', '$.message_id', '$.event_id',
        '$.is_error', '$.synthetic', '$.branch', '$.archived', '$.raw',
        '$.parent_session', '$.parent_call', '$.note']) AS v
    FROM (
        -- valid JSON is an object when it opens with a brace after JSON's white space
        SELECT *, CASE WHEN valid AND starts_with(ltrim(src, ' ' || chr(9) || chr(10) || chr(13)), '{')
                       THEN src END AS ok_src
        -- $valid: suspect_lines.sql checked every line already (none failed)
        FROM (SELECT *, err IS NULL AND ($valid OR json_valid(src)) AS valid FROM stage_lines)
    )
)
