// Merge graphmem nodes of one namespace by key; set their labels and properties; store embeddings as float vectors.
// Parameters: $namespace, $batch: {nodes: list of {key, uid, labels: [String], props: Map, embedding: [Float] | null}}
// (a map, so that every chunk size shares one cached plan; see write/merge_batch). props also carry the
// Browser-only DATETIME twins of a node's epoch-second times (graphmem.store.neo4j_properties.BROWSER_TIMES).
// Returns: nothing.
// `CYPHER replan=skip`: the plan (a unique-index MERGE) holds at any size; see write/merge_batch.
CYPHER replan=skip
UNWIND $batch.nodes AS r
MERGE (n:Memory {namespace: $namespace, key: r.key})
SET n += r.props, n.uid = r.uid
SET n:$(r.labels)
WITH n, r WHERE r.embedding IS NOT NULL
CALL db.create.setNodeVectorProperty(n, 'embedding', r.embedding)
