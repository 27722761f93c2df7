// Properties (without embeddings) of the nodes among the given keys.
// Parameters: $namespace, $keys: [String]. Returns: key, props.
UNWIND $keys AS k
MATCH (n:Memory {namespace: $namespace, key: k})
USING INDEX SEEK n:Memory(namespace, key)
RETURN k AS key, n {.*, embedding: null} AS props
