// Every Episode node of a namespace, in creation order.
// Parameters: $namespace. Returns: props.
MATCH (e:Episode {namespace: $namespace})
USING INDEX SEEK e:Episode(namespace)
RETURN e {.*} AS props
ORDER BY e.seq, e.uid
