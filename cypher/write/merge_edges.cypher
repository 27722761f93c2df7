// Merge relationships between graphmem nodes of one namespace (at most one of a type per ordered pair) and set their properties.
// Parameters: $namespace, $rows: list of distinct [source, target, type, props: Map].
// Returns: merged, the number of rows whose two end nodes exist (the caller rolls back if any is missing).
UNWIND $rows AS r
MATCH (a:Memory {namespace: $namespace, key: r[0]})
MATCH (b:Memory {namespace: $namespace, key: r[1]})
MERGE (a)-[e:$(r[2])]->(b)
SET e += r[3]
RETURN count(*) AS merged
