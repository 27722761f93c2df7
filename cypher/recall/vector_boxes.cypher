// Nearest topic boxes by cosine through the vector index; over-fetches $fetch and keeps the namespace's first $k.
// Parameters: $namespace, $embedding: [Float], $fetch, $k. Returns: key, uid, score.
CALL db.index.vector.queryNodes('box_embedding', $fetch, $embedding) YIELD node, score
WITH node, score WHERE node.namespace = $namespace
RETURN node.key AS key, node.uid AS uid, score
ORDER BY score DESC, key
LIMIT $k
