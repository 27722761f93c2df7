// The box that contains each given turn.
// Parameters: $namespace, $keys: [String]. Returns: unit, box.
UNWIND $keys AS k
MATCH (b:Box)-[:CONTAINS]->(t:Memory {namespace: $namespace, key: k})
USING INDEX SEEK t:Memory(namespace, key)
RETURN k AS unit, min(b.key) AS box
