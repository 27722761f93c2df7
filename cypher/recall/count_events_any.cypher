// How many events of any kind and object an episode holds with $lo <= t <= $hi (events, not their count
// field): a range seek on event_time, counted from the index.
// Parameters: $namespace, $episode, $lo, $hi (both bounded).
// Returns: total.
MATCH (e:Event {namespace: $namespace, episode: $episode})
USING INDEX SEEK e:Event(namespace, episode, t)
WHERE e.t >= $lo AND e.t <= $hi
RETURN count(e) AS total
