// Units up to $before steps back and $after steps forward of each given unit along NEXT (16 at most).
// Parameters: $namespace, $keys: [String], $before, $after. Returns: rows: [[key, back: [[distance, key]], ahead: [[distance, key]]]].
// One record whose `rows` list holds the result (one Bolt record per row costs the Python driver more).
UNWIND $keys AS k
MATCH (u:Memory {namespace: $namespace, key: k})
USING INDEX SEEK u:Memory(namespace, key)
WITH k,
     COLLECT { MATCH p = (b)-[:NEXT*1..16]->(u) WHERE length(p) <= $before RETURN [length(p), b.key] } AS back,
     COLLECT { MATCH p = (u)-[:NEXT*1..16]->(a) WHERE length(p) <= $after RETURN [length(p), a.key] } AS ahead
RETURN collect([k, back, ahead]) AS rows
