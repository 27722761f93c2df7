// Exact nearest boxes of a SMALL namespace, for when the shared vector index cannot find enough of them:
// the 5.26 vector index has no namespace filter, so a namespace holding a tiny share of all vectors gets
// few or no hits from it (see vector_boxes). Bounded: the box_namespace seek stops at $cap nodes, and the
// vectors are compared only when the namespace has fewer than $cap boxes (``seen`` < $cap), so the
// cost never grows with the database or a large namespace. Scores are the index's (1 + cos) / 2.
// Parameters: $namespace, $embedding: [Float], $cap, $k, $props: Boolean.
// Returns: seen, hits: [[key, uid, score, props ([name, value] pairs without the embedding when $props, else null)]] (best first).
MATCH (u:Box {namespace: $namespace})
USING INDEX SEEK u:Box(namespace)
WITH u LIMIT $cap
WITH collect(u) AS candidates
RETURN size(candidates) AS seen,
       CASE WHEN size(candidates) < $cap
            THEN COLLECT {
                   UNWIND candidates AS c
                   WITH c, vector.similarity.cosine(c.embedding, $embedding) AS score
                   WHERE score IS NOT NULL
                   RETURN [c.key, c.uid, score, CASE WHEN $props THEN [name IN keys(c) WHERE NOT name IN ['embedding', 'ns_key'] | [name, c[name]]] END] AS hit
                   ORDER BY score DESC, c.key
                   LIMIT $k
                 }
            ELSE [] END AS hits
