// Delete nodes of a namespace by key, with their relationships.
// Parameters: $namespace, $keys: [String]. Returns: deleted, how many of the keys existed.
UNWIND $keys AS k
MATCH (n:Memory {namespace: $namespace, key: k})
USING INDEX SEEK n:Memory(namespace, key)
DETACH DELETE n
RETURN count(*) AS deleted
