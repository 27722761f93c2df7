// Delete the nodes among the given keys that no relationship links any more (a participant, entity,
// location or trace that only deleted units used).
// Parameters: $namespace, $keys: [String]. Returns: deleted.
UNWIND $keys AS k
MATCH (n:Memory {namespace: $namespace, key: k})
USING INDEX SEEK n:Memory(namespace, key)
WHERE NOT EXISTS { (n)--() }
DELETE n
RETURN count(*) AS deleted
