// The n-th event of any kind and object among an episode's events with $lo <= t <= $hi, counted from the
// start (1 = the first), read in (t, i) order (i: the event's position within its step; events without one
// come after their step's others, by key): a range seek on event_time, in the index's order of t, stops at
// the n-th. $skip is |ordinal| - 1.
// The ORDER BY names the index's equality-bound properties before t: only then does the planner take the
// order of t from the index (a PartialTop that stops at the n-th event) instead of sorting the window.
// Parameters: $namespace, $episode, $lo, $hi (both bounded), $skip.
// Returns: key, unit, episode, kind, obj, count, ordinal, t (no row when fewer events match).
MATCH (e:Event {namespace: $namespace, episode: $episode})
USING INDEX SEEK e:Event(namespace, episode, t)
WHERE e.t >= $lo AND e.t <= $hi
RETURN e.key AS key, e.unit AS unit, e.episode AS episode, e.kind AS kind, e.obj AS obj,
       e.count AS count, e.ordinal AS ordinal, e.t AS t
ORDER BY e.namespace, e.episode, e.t, e.i, e.key
SKIP $skip
LIMIT 1
