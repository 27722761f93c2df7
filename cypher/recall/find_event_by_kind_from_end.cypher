// The n-th event of a kind (any object) among an episode's events with $lo <= t <= $hi, counted from the end
// (-1 = the last), read backwards in (t, i) order (i: the event's position within its step; events without
// one come after their step's others, by key): a range seek on event_kind_time, in the index's order of t,
// stops at the n-th. $skip is |ordinal| - 1.
// The ORDER BY names the index's equality-bound properties before t: only then does the planner take the
// order of t from the index (a PartialTop that stops at the n-th event) instead of sorting the window.
// Parameters: $namespace, $episode, $kind, $lo, $hi (both bounded), $skip.
// Returns: key, unit, episode, kind, obj, count, ordinal, t (no row when fewer events match).
MATCH (e:Event {namespace: $namespace, episode: $episode, kind: $kind})
USING INDEX SEEK e:Event(namespace, episode, kind, t)
WHERE e.t >= $lo AND e.t <= $hi
RETURN e.key AS key, e.unit AS unit, e.episode AS episode, e.kind AS kind, e.obj AS obj,
       e.count AS count, e.ordinal AS ordinal, e.t AS t
ORDER BY e.namespace DESC, e.episode DESC, e.kind DESC, e.t DESC, e.i DESC, e.key DESC
SKIP $skip
LIMIT 1
