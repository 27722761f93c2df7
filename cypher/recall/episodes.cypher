// Every Episode node of a namespace, in creation order.
// Parameters: $namespace. Returns: props.
MATCH (e:Episode {namespace: $namespace})
RETURN e {.*} AS props
ORDER BY e.seq, e.uid
