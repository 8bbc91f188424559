-- Tool results long enough for the transforms of STRATEGIES.md (eviction, then pruning),
-- with the cost each would have: evicted, a notice ($notice_chars other characters) plus
-- its first and last min($evict_keep, len / 2) characters; pruned, its first and last
-- min($prune_keep, len / 2) characters. Code points are counted by class from the text, or
-- from chars + cjk. Excluded tools ($evict_excluded, $prune_excluded) are flagged here.
-- $session_id NULL means every session. The BPETEXT marker adds the text and both keep
-- lengths, for a real tokenizer to count the transformed texts (explorer.compaction.transforms).
WITH r AS (
    SELECT e.eid, e.tool, e.cjk_chars, e.cjk_chars + e.other_chars AS len, d.text
    FROM events e LEFT JOIN event_details d USING (eid)
    WHERE e.kind = 'RESULT'
      AND e.cjk_chars + e.other_chars > least($evict_chars, $prune_chars)
      AND ($session_id IS NULL OR e.session_id = $session_id)
),
k AS (
    SELECT *, least($evict_keep, len // 2) AS ek, least($prune_keep, len // 2) AS pk FROM r
),
c AS (
    SELECT *,
        CASE WHEN text IS NULL THEN CASE WHEN cjk_chars > 0 THEN 2 * ek ELSE 0 END
             ELSE length(regexp_replace(left(text, ek), $non_cjk, '', 'g'))
                + length(regexp_replace(right(text, ek), $non_cjk, '', 'g')) END AS e_cjk,
        CASE WHEN text IS NULL THEN CASE WHEN cjk_chars > 0 THEN 2 * pk ELSE 0 END
             ELSE length(regexp_replace(left(text, pk), $non_cjk, '', 'g'))
                + length(regexp_replace(right(text, pk), $non_cjk, '', 'g')) END AS p_cjk
    FROM k
)
SELECT eid,
    len > $evict_chars AND NOT coalesce(list_contains($evict_excluded, tool), false) AS evictable,
    floor(e_cjk / $cjk_ratio + (2 * ek - e_cjk + $notice_chars) / $other_ratio + 0.5)::BIGINT AS evicted_cost,
    len > $prune_chars AND NOT coalesce(list_contains($prune_excluded, tool), false) AS prunable,
    floor(p_cjk / $cjk_ratio + (2 * pk - p_cjk) / $other_ratio + 0.5)::BIGINT AS pruned_cost
    /*BPETEXT*/
FROM c
