// The namespaces that hold at least one episode (graphmem writes an Episode with a namespace's first unit).
// Parameters: none. Returns: one record, rows: [String], sorted.
// `namespace >= ''` holds for every string: a range seek over the whole episode_namespace index, which
// reads one index entry per episode, in namespace order, and no node or property store.
MATCH (e:Episode)
USING INDEX e:Episode(namespace)
WHERE e.namespace >= ''
WITH DISTINCT e.namespace AS namespace
ORDER BY namespace
RETURN collect(namespace) AS rows
