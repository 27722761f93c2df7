// The n-th event (1-based ordinal) of a kind and object in an episode: an index seek on event_ordinal.
// Parameters: $namespace, $episode, $kind, $obj, $ordinal. Returns: key, unit, episode, kind, obj, count, ordinal, t.
MATCH (e:Event {namespace: $namespace, episode: $episode, kind: $kind, obj: $obj, ordinal: $ordinal})
USING INDEX SEEK e:Event(namespace, episode, kind, obj, ordinal)
RETURN e.key AS key, e.unit AS unit, e.episode AS episode, e.kind AS kind, e.obj AS obj,
       e.count AS count, e.ordinal AS ordinal, e.t AS t
LIMIT 1
