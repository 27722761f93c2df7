// The first $limit steps of an episode with $lo <= t <= $hi, in t order: a range seek on step_time.
// The ORDER BY names the index's equality-bound properties before t: only then does the planner take the
// order of t from the index (stopping after $limit steps) instead of sorting the window.
// Parameters: $namespace, $episode, $lo, $hi (both bounded), $limit, $hidden: [String].
// Returns: rows: [[t, props]] (props as [name, value] pairs), in t order.
// One record whose `rows` list holds the result (one Bolt record per row costs the Python driver more).
MATCH (s:Step {namespace: $namespace, episode: $episode})
USING INDEX SEEK s:Step(namespace, episode, t)
WHERE s.t >= $lo AND s.t <= $hi
WITH s ORDER BY s.namespace, s.episode, s.t LIMIT $limit
RETURN collect([s.t, [name IN keys(s) WHERE NOT name IN $hidden | [name, s[name]]]]) AS rows
