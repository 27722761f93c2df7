// The last event of a kind and object at or before step $t (for "how many times by step N").
// Parameters: $namespace, $episode, $kind, $obj, $t. Returns: key, unit, episode, kind, obj, count, ordinal, t.
MATCH (e:Event {namespace: $namespace, episode: $episode, kind: $kind, obj: $obj})
USING INDEX SEEK e:Event(namespace, episode, kind, obj, t)
WHERE e.t <= $t
RETURN e.key AS key, e.unit AS unit, e.episode AS episode, e.kind AS kind, e.obj AS obj,
       e.count AS count, e.ordinal AS ordinal, e.t AS t
ORDER BY e.t DESC, e.ordinal DESC
LIMIT 1
