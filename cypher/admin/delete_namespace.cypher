// Remove every node and relationship of a namespace, in batches (run in an auto-commit transaction).
// Parameters: $namespace. Returns: nothing.
// `key IS NOT NULL` (every graphmem node has a key) turns a :Memory label scan into a prefix seek on the
// (namespace, key) constraint index.
MATCH (n:Memory {namespace: $namespace})
WHERE n.key IS NOT NULL
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
