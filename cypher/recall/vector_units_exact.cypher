// Exact nearest units of a SMALL namespace, for when the shared vector index cannot find enough of them:
// the 5.26 vector index has no namespace filter, so a namespace holding a tiny share of all vectors gets
// few or no hits from it (see vector_nearest). Bounded: the unit_namespace seek stops at $cap nodes, and the
// vectors are compared only when the namespace has fewer than $cap units (``seen`` < $cap), so the
// cost never grows with the database or a large namespace. Scores are the index's (1 + cos) / 2. With
// $only ('Step' or 'Turn'), only units of that label are compared (``seen`` still counts every unit).
//
// Two passes. Reading the vectors and comparing them is most of the cost (500 turns of a 1M-unit
// database: ~13 ms of ~16), so every unit is first ranked by the cosine of its int8 code
// (`embedding_int8`, a 384-byte array; see Neo4jStore.int8_code), and only the best $shortlist (k plus
// a margin) are scored with their float vectors, ordered and returned: the same hits and scores as
// comparing every float vector (see Neo4jStore's EXACT_SHORTLIST_MARGIN). The code's cosine comes from
// the Euclidean distance d to the question scaled alike ($scaled, whose squared length is $square) and
// the code's stored squared length (`embedding_int8_sq`): cos = (sq + square - d^2) / (2 sqrt(sq square)),
// since `vector.similarity.cosine` costs five times `vector.similarity.euclidean` (= 1 / (1 + d^2)) here.
// A unit without a code (a zero or non-finite vector, see int8_code) is ranked by its float vector's cosine. The question's lists are
// converted once, not once per comparison.
// Parameters: $namespace, $only: String or null, $embedding: [Float], $scaled: [Float], $square: Float, $cap,
// $k, $shortlist (>= $k), $props: Boolean, $hidden: [String].
// Returns: seen, hits: [[key, uid, score, props ([name, value] pairs without the embedding when $props, else null)]] (best first).
WITH [x IN $embedding | toFloat(x)] AS question, [x IN $scaled | toFloat(x)] AS scaled
MATCH (u:Unit {namespace: $namespace})
USING INDEX SEEK u:Unit(namespace)
WITH u, question, scaled LIMIT $cap
WITH collect(u) AS candidates, question, scaled
RETURN size(candidates) AS seen,
       CASE WHEN size(candidates) < $cap
            THEN COLLECT {
                   UNWIND candidates AS c
                   WITH c WHERE $only IS NULL OR $only IN labels(c)
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
