// Merge a batch of one or more namespaces in one statement: its nodes (at most write/merge_nodes' chunk),
// then its relationships (at most one of a type per ordered pair between graphmem nodes), with their
// properties. Parameters: $batch: {namespaces: [String], nodes: rows as in write/merge_nodes plus ns, the
// position of the node's namespace in namespaces (may be empty), external: [namespace position, key] of
// relationship ends that are not in nodes, edges: a map from relationship type to its distinct rows
// [source, target, props: Map ({} for none)], where source and target are positions in nodes + external}.
// Node props also carry the Browser-only DATETIME twins of epoch-second times (neo4j_properties.BROWSER_TIMES).
// A relationship joins two nodes of one namespace (the caller builds it so).
// Returns: merged, the number of relationship rows merged: 0 when an end in $batch.external does not exist (the
// caller rolls back when it is not every row).
//
// Ends by position: the batch's own nodes are at hand once merged, so a relationship costs no index seek
// for them (two locking seeks per relationship were most of a dialogue batch's write time); ends outside
// the batch are looked up once each.
//
// One block per relationship type graphmem writes (graphmem.store.protocol.EDGE_TYPES; a test keeps them
// equal), each with a static type: the planner then always merges by expanding between the two bound
// nodes (Expand(Into)). A dynamic type (`MERGE (a)-[:$(r.type)]->(b)`) planned while the database is
// nearly empty scans every relationship for each row, and Neo4j kept that plan until its statistics
// moved on: a fresh database wrote at a third of its later speed and stalled for up to ~30 s. The caller
// groups rows by type, so no block filters another block's rows.
// `CYPHER replan=skip`: keep the cached plan when the statistics move. The plan above holds at any size
// (ends bound by position, unique-index seeks), and planning this statement costs ~0.45 s, paid again at
// every replan while a fresh database grows: on a fresh server, the 100k level's first chunk wrote at
// 0.13-0.15 of the raw rate with replanning, 0.38 without.
//
// One map parameter, not three lists: Neo4j keys its plan cache on each parameter's type *and*, for a
// list or a string, its size bucket (0, 1, up to 10, up to 100, ...; `internal.cypher.use_parameter_size`),
// so a batch whose lists fall in a new combination of buckets (the first with two outside ends instead of
// one) planned this statement afresh: one step batch of a new namespace took 0.9 s instead of 0.2-0.3 s
// on a young server. A map parameter is typed MAP whatever it holds, so every batch shares one plan.
CYPHER replan=skip
UNWIND range(0, size($batch.nodes) - 1) AS i
WITH i, $batch.nodes[i] AS r
MERGE (n:Memory {namespace: $batch.namespaces[r.ns], key: r.key})
SET n += r.props, n.uid = r.uid
SET n:$(r.labels)
WITH i, n, r
CALL (n, r) {
  WITH n, r WHERE r.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', r.embedding)
}
WITH i, n ORDER BY i
WITH collect(n) AS written
CALL () {
  UNWIND $batch.external AS x
  MATCH (m:Memory {namespace: $batch.namespaces[x[0]], key: x[1]})
  RETURN collect(m) AS external
}
WITH written + external AS ends, size(external) = size($batch.external) AS complete
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.AT ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:AT]->(b)
  SET e += r[2]
  RETURN count(*) AS at
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.CHANGES ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:CHANGES]->(b)
  SET e += r[2]
  RETURN count(*) AS changes
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.CONTAINS ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:CONTAINS]->(b)
  SET e += r[2]
  RETURN count(*) AS contains
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.ENABLES ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:ENABLES]->(b)
  SET e += r[2]
  RETURN count(*) AS enables
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.HAS_EVENT ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:HAS_EVENT]->(b)
  SET e += r[2]
  RETURN count(*) AS has_event
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.INVOLVES ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:INVOLVES]->(b)
  SET e += r[2]
  RETURN count(*) AS involves
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.IN_EPISODE ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:IN_EPISODE]->(b)
  SET e += r[2]
  RETURN count(*) AS in_episode
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.IN_SESSION ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:IN_SESSION]->(b)
  SET e += r[2]
  RETURN count(*) AS in_session
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.IN_TRACE ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:IN_TRACE]->(b)
  SET e += r[2]
  RETURN count(*) AS in_trace
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.MENTIONS ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:MENTIONS]->(b)
  SET e += r[2]
  RETURN count(*) AS mentions
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.NEXT ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:NEXT]->(b)
  SET e += r[2]
  RETURN count(*) AS next
}
CALL (ends, complete) {
  UNWIND CASE WHEN complete THEN $batch.edges.SPOKEN_BY ELSE [] END AS r
  WITH ends[r[0]] AS a, ends[r[1]] AS b, r
  MERGE (a)-[e:SPOKEN_BY]->(b)
  SET e += r[2]
  RETURN count(*) AS spoken_by
}
RETURN at + changes + contains + enables + has_event + involves + in_episode + in_session + in_trace + mentions + next + spoken_by AS merged
