// How many events of a kind and object an episode holds (its highest ordinal), read from the index in order.
// Parameters: $namespace, $episode, $kind, $obj. Returns: total.
MATCH (e:Event {namespace: $namespace, episode: $episode, kind: $kind, obj: $obj})
USING INDEX SEEK e:Event(namespace, episode, kind, obj, ordinal)
WHERE e.ordinal IS NOT NULL
RETURN e.ordinal AS total
ORDER BY e.ordinal DESC
LIMIT 1
