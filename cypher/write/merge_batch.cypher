// Merge a whole batch of one namespace that fits in one chunk, in one statement (one round trip instead
// of two): the nodes as write/merge_nodes does, then the edges as write/merge_edges does.
// Parameters: $namespace, $nodes (rows as in write/merge_nodes), $edges: distinct [source, target, type]
// (no properties), $edges_with_props: distinct [source, target, type, props].
// Returns: merged, the number of edge rows whose two end nodes exist (the caller rolls back if any is missing).
CALL () {
  UNWIND $nodes AS r
  MERGE (n:Memory {namespace: $namespace, key: r.key})
  SET n += r.props, n.uid = r.uid
  SET n:$(r.labels)
  WITH n, r WHERE r.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', r.embedding)
}
CALL () {
  UNWIND $edges AS r
  MATCH (a:Memory {namespace: $namespace, key: r[0]})
  MATCH (b:Memory {namespace: $namespace, key: r[1]})
  MERGE (a)-[:$(r[2])]->(b)
  RETURN count(*) AS plain
}
CALL () {
  UNWIND $edges_with_props AS r
  MATCH (a:Memory {namespace: $namespace, key: r[0]})
  MATCH (b:Memory {namespace: $namespace, key: r[1]})
  MERGE (a)-[e:$(r[2])]->(b)
  SET e += r[3]
  RETURN count(*) AS with_props
}
RETURN plain + with_props AS merged
