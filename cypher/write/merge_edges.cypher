// Merge relationships between graphmem nodes (at most one of a type per ordered pair) and set their properties.
// Parameters: $rows: list of distinct {namespace, source, target, type, props: Map}.
// Returns: merged, the number of rows whose two end nodes exist (the caller rolls back if any is missing).
UNWIND $rows AS r
MATCH (a:Memory {namespace: r.namespace, key: r.source})
MATCH (b:Memory {namespace: r.namespace, key: r.target})
MERGE (a)-[e:$(r.type)]->(b)
SET e += r.props
RETURN count(*) AS merged
