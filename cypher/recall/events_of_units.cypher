// The ordinal-carrying events attached to the given units.
// Parameters: $namespace, $keys: [String]. Returns: key, unit, episode, kind, obj, count, ordinal, t.
UNWIND $keys AS k
MATCH (u:Memory {namespace: $namespace, key: k})-[:HAS_EVENT]->(e:Event)
USING INDEX SEEK u:Memory(namespace, key)
WHERE e.ordinal IS NOT NULL
RETURN e.key AS key, e.unit AS unit, e.episode AS episode, e.kind AS kind, e.obj AS obj,
       e.count AS count, e.ordinal AS ordinal, e.t AS t
ORDER BY unit, key
