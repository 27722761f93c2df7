// The turns each box contains, in time order.
// Parameters: $namespace, $keys: [String]. Returns: box, members: [String].
UNWIND $keys AS k
MATCH (b:Memory {namespace: $namespace, key: k})-[:CONTAINS]->(t:Turn)
USING INDEX SEEK b:Memory(namespace, key)
WITH k, t ORDER BY t.seq
RETURN k AS box, collect(t.key) AS members
