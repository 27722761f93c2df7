// Exact nearest boxes of a SMALL namespace, for when the shared vector index cannot find enough of them:
// the 5.26 vector index has no namespace filter, so a namespace holding a tiny share of all vectors gets
// few or no hits from it (see vector_nearest). Bounded: the box_namespace seek stops at $cap nodes, and the
// vectors are compared only when the namespace has fewer than $cap boxes (``seen`` < $cap), so the
// cost never grows with the database or a large namespace. Scores are the index's (1 + cos) / 2.
// Two passes, as in vector_units_exact: the int8 codes' cosines rank, the best $shortlist are scored
// with their float vectors.
// Parameters: $namespace, $embedding: [Float], $scaled: [Float], $square: Float, $cap, $k, $shortlist (>= $k), $props: Boolean, $hidden: [String].
// Returns: seen, hits: [[key, uid, score, props ([name, value] pairs without the embedding when $props, else null)]] (best first).
WITH [x IN $embedding | toFloat(x)] AS question, [x IN $scaled | toFloat(x)] AS scaled
MATCH (u:Box {namespace: $namespace})
USING INDEX SEEK u:Box(namespace)
WITH u, question, scaled LIMIT $cap
WITH collect(u) AS candidates, question, scaled
RETURN size(candidates) AS seen,
       CASE WHEN size(candidates) < $cap
            THEN COLLECT {
                   UNWIND candidates AS c
                   WITH c, c.embedding_int8 AS code, c.embedding_int8_sq AS sq
                   WITH c, CASE WHEN code IS NOT NULL AND sq > 0
                                THEN (sq + $square - (1.0 / vector.similarity.euclidean(code, scaled) - 1.0)) / (2.0 * sqrt(sq * $square))
                                ELSE 2.0 * vector.similarity.cosine(c.embedding, question) - 1.0 END AS rough
                   WHERE rough IS NOT NULL
                   WITH c ORDER BY rough DESC LIMIT $shortlist
                   WITH c, vector.similarity.cosine(c.embedding, question) AS score
                   WHERE score IS NOT NULL
                   RETURN [c.key, c.uid, score, CASE WHEN $props THEN [name IN keys(c) WHERE NOT name IN $hidden | [name, c[name]]] END] AS hit
                   ORDER BY score DESC, c.key
                   LIMIT $k
                 }
            ELSE [] END AS hits
