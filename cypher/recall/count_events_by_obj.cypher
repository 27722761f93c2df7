// How many steps of an episode with $lo <= t <= $hi have an event of an object (any kind; '' is the empty
// object): a step counts once however many of its events name it, as find_event_by_obj counts. A range seek
// on event_obj_time, counted from the index.
// Parameters: $namespace, $episode, $obj, $lo, $hi (both bounded).
// Returns: total.
MATCH (e:Event {namespace: $namespace, episode: $episode, obj: $obj})
USING INDEX SEEK e:Event(namespace, episode, obj, t)
WHERE e.t >= $lo AND e.t <= $hi
RETURN count(DISTINCT e.t) AS total
