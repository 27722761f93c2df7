// How many steps of an episode with $lo <= t <= $hi have the property $field ('action' or 'region') equal
// to $value, and which: a range seek on step_time, the property tested on each step of the window.
// The ORDER BY names the index's equality-bound properties before t: the order of t comes from the index.
// Parameters: $namespace, $episode, $field, $value, $lo, $hi (both bounded), $shown.
// Returns: total, shown: the first $shown matching t in order, then the last ([] when none match).
MATCH (s:Step {namespace: $namespace, episode: $episode})
USING INDEX SEEK s:Step(namespace, episode, t)
WHERE s.t >= $lo AND s.t <= $hi AND s[$field] = $value
WITH s ORDER BY s.namespace, s.episode, s.t
WITH collect(s.t) AS ts
RETURN size(ts) AS total, CASE WHEN size(ts) = 0 THEN [] ELSE ts[..$shown] + [ts[-1]] END AS shown
