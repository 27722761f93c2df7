// Merge a whole batch of one namespace that fits in one chunk, in one statement: the nodes as
// write/merge_nodes does, then the edges as write/merge_edges does, except that an edge names its ends by
// position instead of by key. The batch's own nodes are at hand once merged, so an edge costs no index
// seek for them (two locking seeks per edge were most of a dialogue batch's write time); ends outside
// the batch are looked up once each.
// Parameters: $namespace, $nodes (rows as in write/merge_nodes), $external: keys of edge ends that are
// not in $nodes, $edges: distinct [source, target, type] (no properties), $edges_with_props: distinct
// [source, target, type, props], where source and target are positions in $nodes + $external.
// Returns: merged, the number of edge rows merged: 0 when an end in $external does not exist (the caller
// rolls back when it is not every row).
UNWIND range(0, size($nodes) - 1) AS i
WITH i, $nodes[i] AS r
MERGE (n:Memory {namespace: $namespace, key: r.key})
SET n += r.props, n.uid = r.uid
SET n:$(r.labels)
WITH i, n, r
CALL (n, r) {
  WITH n, r WHERE r.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', r.embedding)
}
WITH i, n ORDER BY i
WITH collect(n) AS batch
CALL () {
  UNWIND $external AS k
  MATCH (m:Memory {namespace: $namespace, key: k})
  RETURN collect(m) AS external
}
WITH batch + external AS ends, size(external) = size($external) AS complete
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $edges ELSE [] END AS e
  WITH ends[e[0]] AS a, ends[e[1]] AS b, e
  MERGE (a)-[:$(e[2])]->(b)
  RETURN count(*) AS plain
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $edges_with_props ELSE [] END AS e
  WITH ends[e[0]] AS a, ends[e[1]] AS b, e
  MERGE (a)-[rel:$(e[2])]->(b)
  SET rel += e[3]
  RETURN count(*) AS with_props
}
RETURN plain + with_props AS merged
