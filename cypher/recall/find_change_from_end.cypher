// The n-th step with $lo <= t <= $hi at which one inventory item or state value comes to meet the condition
// `value <$cmp> $value`, having not met it after the previous step: the n-th Change of that item or value
// whose `after` meets it and whose `before` does not, counted from the end (-1 = the last), read backwards
// in t order from a range seek on change_time (only steps that changed the value can come to meet a
// condition). The condition is graphmem.store.protocol.meets: numbers compare numerically with numbers; text
// with text and booleans with booleans only by '==' and '!='; any other pairing, or a missing value (a state
// name absent before or after the step), does not meet it. $skip is |ordinal| - 1.
// The ORDER BY names the index's equality-bound properties before t: only then does the planner take the
// order of t from the index (stopping at the n-th change) instead of sorting the window.
// Parameters: $namespace, $episode, $source ('inventory' or 'state'), $name, $cmp ('==', '!=', '<', '<=',
// '>', '>='), $value (a number, text or boolean), $lo, $hi (both bounded), $skip.
// Returns: key, unit, episode, source, name, before, after, t (before / after null when absent).
MATCH (c:Change {namespace: $namespace, episode: $episode, source: $source, name: $name})
USING INDEX SEEK c:Change(namespace, episode, source, name, t)
WHERE c.t >= $lo AND c.t <= $hi
WITH c, [v IN [c.after, c.before] | coalesce(
       CASE
         WHEN v IS NULL OR $value IS NULL THEN false
         WHEN v IS :: INTEGER | FLOAT AND $value IS :: INTEGER | FLOAT THEN
           CASE $cmp WHEN '==' THEN v = $value WHEN '!=' THEN v <> $value WHEN '<' THEN v < $value
                     WHEN '<=' THEN v <= $value WHEN '>' THEN v > $value WHEN '>=' THEN v >= $value END
         WHEN (v IS :: STRING AND $value IS :: STRING) OR (v IS :: BOOLEAN AND $value IS :: BOOLEAN) THEN
           CASE $cmp WHEN '==' THEN v = $value WHEN '!=' THEN v <> $value END
       END, false)] AS met
WHERE met[0] AND NOT met[1]
RETURN c.key AS key, c.unit AS unit, c.episode AS episode, c.source AS source, c.name AS name,
       c.before AS before, c.after AS after, c.t AS t
ORDER BY c.namespace DESC, c.episode DESC, c.source DESC, c.name DESC, c.t DESC
SKIP $skip
LIMIT 1
