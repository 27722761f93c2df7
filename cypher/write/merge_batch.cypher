// Merge a whole batch that fits in one chunk, in one statement (one round trip instead of two):
// the nodes as write/merge_nodes does, then the edges as write/merge_edges does.
// Parameters: $nodes (rows as in write/merge_nodes), $edges (distinct rows as in write/merge_edges).
// Returns: merged, the number of edge rows whose two end nodes exist (the caller rolls back if any is missing).
CALL () {
  UNWIND $nodes AS r
  MERGE (n:Memory {namespace: r.namespace, key: r.key})
  SET n += r.props, n.uid = r.uid
  SET n:$(r.labels)
  WITH n, r WHERE r.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', r.embedding)
}
CALL () {
  UNWIND $edges AS r
  MATCH (a:Memory {namespace: r.namespace, key: r.source})
  MATCH (b:Memory {namespace: r.namespace, key: r.target})
  MERGE (a)-[e:$(r.type)]->(b)
  SET e += r.props
  RETURN count(*) AS merged
}
RETURN merged
