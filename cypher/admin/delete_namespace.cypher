// Remove every node and relationship of a namespace, in batches (run in an auto-commit transaction).
// Parameters: $namespace. Returns: nothing.
MATCH (n:Memory {namespace: $namespace})
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS
