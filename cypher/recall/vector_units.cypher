// Nearest units by cosine through the vector index: over-fetches $fetch neighbours (the 5.26 index cannot
// filter by namespace), keeps the namespace's first $k, and counts how many of the $fetch were the
// namespace's (`seen`), so the caller can size the next over-fetch to the namespace's share. With $only
// ('Step' or 'Turn'), only units of that label are kept (and counted).
// Parameters: $namespace, $only: String or null, $embedding: [Float], $fetch, $k, $props: Boolean, $hidden: [String].
// Returns: seen, hits: [[key, uid, score, props ([name, value] pairs without the embedding when $props, else null)]] (best first).
CALL db.index.vector.queryNodes('unit_embedding', $fetch, $embedding) YIELD node, score
WITH node, score WHERE node.namespace = $namespace AND ($only IS NULL OR $only IN labels(node))
WITH node.key AS key, node.uid AS uid, score, CASE WHEN $props THEN [name IN keys(node) WHERE NOT name IN $hidden | [name, node[name]]] END AS props
ORDER BY score DESC, key
WITH collect([key, uid, score, props]) AS hits
RETURN size(hits) AS seen, hits[0..$k] AS hits
