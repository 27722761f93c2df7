// How many steps of an episode with $lo <= t <= $hi end with one inventory item or state value meeting
// `value <$cmp> $value`, and which. A step's value is the `after` of the latest Change of that item or
// value at or before it (before any change: inventory 0, state null). The latest change before $lo and
// the changes inside the window come from range seeks on change_time; they cut the window into runs of
// one value each, and every run whose value meets the condition counts its steps by a range seek on
// step_time (steps need not be numbered without gaps). The condition is graphmem.store.protocol.meets,
// as in find_change.cypher.
// Parameters: $namespace, $episode, $source ('inventory' or 'state'), $name, $cmp ('==', '!=', '<', '<=',
// '>', '>='), $value (a number, text or boolean), $lo, $hi (both bounded), $shown.
// Returns: total, shown: the first $shown held steps in t order, then the last ([] when none hold).
CALL () {
  MATCH (c:Change {namespace: $namespace, episode: $episode, source: $source, name: $name})
  USING INDEX SEEK c:Change(namespace, episode, source, name, t)
  WHERE c.t < $lo
  WITH c ORDER BY c.namespace DESC, c.episode DESC, c.source DESC, c.name DESC, c.t DESC LIMIT 1
  RETURN collect([c.after]) AS prior
}
CALL () {
  MATCH (c:Change {namespace: $namespace, episode: $episode, source: $source, name: $name})
  USING INDEX SEEK c:Change(namespace, episode, source, name, t)
  WHERE c.t >= $lo AND c.t <= $hi
  WITH c ORDER BY c.namespace, c.episode, c.source, c.name, c.t
  RETURN collect([c.t, c.after]) AS inside
}
WITH [[$lo, CASE WHEN size(prior) > 0 THEN prior[0][0] WHEN $source = 'inventory' THEN 0 END]] + inside AS runs
UNWIND range(0, size(runs) - 1) AS i
WITH runs[i][0] AS start, CASE WHEN i + 1 < size(runs) THEN runs[i + 1][0] - 1 ELSE $hi END AS end, runs[i][1] AS v
WHERE start <= end AND coalesce(
  CASE
    WHEN v IS NULL OR $value IS NULL THEN false
    WHEN v IS :: INTEGER | FLOAT AND $value IS :: INTEGER | FLOAT THEN
      CASE $cmp WHEN '==' THEN v = $value WHEN '!=' THEN v <> $value WHEN '<' THEN v < $value
                WHEN '<=' THEN v <= $value WHEN '>' THEN v > $value WHEN '>=' THEN v >= $value END
    WHEN (v IS :: STRING AND $value IS :: STRING) OR (v IS :: BOOLEAN AND $value IS :: BOOLEAN) THEN
      CASE $cmp WHEN '==' THEN v = $value WHEN '!=' THEN v <> $value END
  END, false)
CALL (start, end) {
  MATCH (s:Step {namespace: $namespace, episode: $episode})
  USING INDEX SEEK s:Step(namespace, episode, t)
  WHERE s.t >= start AND s.t <= end
  WITH s ORDER BY s.namespace, s.episode, s.t
  WITH collect(s.t) AS ts
  RETURN size(ts) AS n, ts[..$shown] AS firsts, ts[-1..] AS last
}
WITH start, n, firsts, last ORDER BY start
WITH sum(n) AS total, collect(firsts) AS firsts, collect(last) AS lasts
WITH total, reduce(acc = [], f IN firsts | acc + f) AS held, reduce(acc = [], l IN lasts | acc + l) AS ends
RETURN total, CASE WHEN total = 0 THEN [] ELSE held[..$shown] + [ends[-1]] END AS shown
