// Nearest nodes of one kind by cosine through that kind's vector index ($index: step_embedding,
// turn_embedding or box_embedding): over-fetches $fetch neighbours (the 5.26 index cannot filter by
// namespace), keeps the namespace's first $k, and counts how many of the $fetch were the namespace's
// (`seen`), so the caller can size the next over-fetch to the namespace's share. A search over steps and
// turns runs this once per index.
// Parameters: $index, $namespace, $embedding: [Float], $fetch, $k, $props: Boolean, $hidden: [String].
// Returns: seen, hits: [[key, uid, score, props ([name, value] pairs without the embedding when $props, else null)]] (best first).
CALL db.index.vector.queryNodes($index, $fetch, $embedding) YIELD node, score
WITH node, score WHERE node.namespace = $namespace
WITH node.key AS key, node.uid AS uid, score, CASE WHEN $props THEN [name IN keys(node) WHERE NOT name IN $hidden | [name, node[name]]] END AS props
ORDER BY score DESC, key
WITH collect([key, uid, score, props]) AS hits
RETURN size(hits) AS seen, hits[0..$k] AS hits
