// How many events of a kind (any object) an episode holds with $lo <= t <= $hi (events, not their count
// field): a range seek on event_kind_time, counted from the index.
// Parameters: $namespace, $episode, $kind, $lo, $hi (both bounded).
// Returns: total.
MATCH (e:Event {namespace: $namespace, episode: $episode, kind: $kind})
USING INDEX SEEK e:Event(namespace, episode, kind, t)
WHERE e.t >= $lo AND e.t <= $hi
RETURN count(e) AS total
