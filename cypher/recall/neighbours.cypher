// Units up to $before steps back and $after steps forward of each given unit along NEXT (16 at most),
// with the properties ([name, value] pairs, without the embedding) of those other units when $props.
// Parameters: $namespace, $keys: [String], $before, $after, $props: Boolean, $hidden: [String].
// Returns: rows: [[key, back: [[distance, key, props or null]], ahead: [[distance, key, props or null]]]].
// One record whose `rows` list holds the result (one Bolt record per row costs the Python driver more).
UNWIND $keys AS k
MATCH (u:Memory {namespace: $namespace, key: k})
USING INDEX SEEK u:Memory(namespace, key)
WITH k,
     COLLECT { MATCH p = (b)-[:NEXT*1..16]->(u) WHERE length(p) <= $before
               RETURN [length(p), b.key, CASE WHEN $props THEN [name IN keys(b) WHERE NOT name IN $hidden | [name, b[name]]] END] } AS back,
     COLLECT { MATCH p = (u)-[:NEXT*1..16]->(a) WHERE length(p) <= $after
               RETURN [length(p), a.key, CASE WHEN $props THEN [name IN keys(a) WHERE NOT name IN $hidden | [name, a[name]]] END] } AS ahead
RETURN collect([k, back, ahead]) AS rows
