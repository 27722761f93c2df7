// How many events of an object (any kind; '' is the empty object) an episode holds with $lo <= t <= $hi
// (events, not their count field): a range seek on event_obj_time, counted from the index.
// Parameters: $namespace, $episode, $obj, $lo, $hi (both bounded).
// Returns: total.
MATCH (e:Event {namespace: $namespace, episode: $episode, obj: $obj})
USING INDEX SEEK e:Event(namespace, episode, obj, t)
WHERE e.t >= $lo AND e.t <= $hi
RETURN count(e) AS total
