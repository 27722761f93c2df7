// Exact nearest units of a SMALL namespace, for when the shared vector index cannot find enough of them:
// the 5.26 vector index has no namespace filter, so a namespace holding a tiny share of all vectors gets
// few or no hits from it (see vector_units). Bounded: the unit_namespace seek stops at $cap nodes, and the
// vectors are compared only when the namespace has fewer than $cap units (``seen`` < $cap), so the
// cost never grows with the database or a large namespace. Scores are the index's (1 + cos) / 2. With
// $only ('Step' or 'Turn'), only units of that label are compared (``seen`` still counts every unit).
//
// Two passes. Reading the vectors is most of the cost (500 turns: ~4 ms of ~8 to read the 384-float
// arrays, ~3 ms for the cosines), so every unit is first ranked by its int8 code (`embedding_int8`, a
// 384-byte array; a unit written before the codes falls back to its float vector), and only the best
// $shortlist (k plus a margin) are scored with their float vectors, ordered and returned: the same hits
// and scores as comparing every float vector (see Neo4jStore's EXACT_SHORTLIST_MARGIN). The question's
// vector is converted to a list once, not once per comparison.
// Parameters: $namespace, $only: String or null, $embedding: [Float], $cap, $k, $shortlist (>= $k), $props: Boolean.
// Returns: seen, hits: [[key, uid, score, props ([name, value] pairs without the embedding when $props, else null)]] (best first).
WITH [x IN $embedding | toFloat(x)] AS question
MATCH (u:Unit {namespace: $namespace})
USING INDEX SEEK u:Unit(namespace)
WITH u, question LIMIT $cap
WITH collect(u) AS candidates, question
RETURN size(candidates) AS seen,
       CASE WHEN size(candidates) < $cap
            THEN COLLECT {
                   UNWIND candidates AS c
                   WITH c WHERE $only IS NULL OR $only IN labels(c)
                   WITH c, vector.similarity.cosine(coalesce(c.embedding_int8, c.embedding), question) AS rough
                   WHERE rough IS NOT NULL
                   WITH c ORDER BY rough DESC LIMIT $shortlist
                   WITH c, vector.similarity.cosine(c.embedding, question) AS score
                   WHERE score IS NOT NULL
                   RETURN [c.key, c.uid, score, CASE WHEN $props THEN [name IN keys(c) WHERE NOT name IN ['embedding', 'embedding_int8', 'ns_key'] | [name, c[name]]] END] AS hit
                   ORDER BY score DESC, c.key
                   LIMIT $k
                 }
            ELSE [] END AS hits
