// Properties (as [name, value] pairs, without the embedding) of the nodes among the given keys.
// Parameters: $namespace, $keys: [String], $hidden: [String]. Returns: rows: [[key, props]].
// One record whose `rows` list holds the result (one Bolt record per row costs the Python driver more).
UNWIND $keys AS k
MATCH (n:Memory {namespace: $namespace, key: k})
USING INDEX SEEK n:Memory(namespace, key)
RETURN collect([k, [name IN keys(n) WHERE NOT name IN $hidden | [name, n[name]]]]) AS rows
