// Remove every node and relationship of a namespace, in batches (run in an auto-commit transaction).
// Parameters: $namespace. Returns: nothing.
// `key IS NOT NULL` (every graphmem node has a key) lets the planner seek the (namespace, key) constraint
// index by its namespace prefix; the hint keeps it from preferring a full index scan while a database
// holds only a few namespaces.
MATCH (n:Memory {namespace: $namespace})
USING INDEX SEEK n:Memory(namespace, key)
WHERE n.key IS NOT NULL
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
