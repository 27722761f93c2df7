// How many events of a kind and an object an episode holds with $lo <= t <= $hi (events, not their count
// field): a range seek on event_step, counted from the index.
// Parameters: $namespace, $episode, $kind, $obj, $lo, $hi (both bounded).
// Returns: total.
MATCH (e:Event {namespace: $namespace, episode: $episode, kind: $kind, obj: $obj})
USING INDEX SEEK e:Event(namespace, episode, kind, obj, t)
WHERE e.t >= $lo AND e.t <= $hi
RETURN count(e) AS total
