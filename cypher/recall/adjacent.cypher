// The units right before and right after each given unit along NEXT: recall/neighbours for one step each
// way, without expanding the 16-step paths that query needs for its parameterized distance (the length of
// a variable-length pattern cannot be a parameter; a dialogue recall asks for its best 20 turns' neighbours).
// Parameters: $namespace, $keys: [String], $before, $after: 0 or 1 (no unit that way when 0), $props: Boolean, $hidden: [String].
// Returns: rows: [[key, back: [[1, key, props or null]], ahead: [[1, key, props or null]]]] (props as [name, value] pairs).
UNWIND $keys AS k
MATCH (u:Memory {namespace: $namespace, key: k})
USING INDEX SEEK u:Memory(namespace, key)
WITH k,
     COLLECT { MATCH (b)-[:NEXT]->(u) WHERE $before > 0 RETURN [1, b.key, CASE WHEN $props THEN [name IN keys(b) WHERE NOT name IN $hidden | [name, b[name]]] END] } AS back,
     COLLECT { MATCH (u)-[:NEXT]->(a) WHERE $after > 0 RETURN [1, a.key, CASE WHEN $props THEN [name IN keys(a) WHERE NOT name IN $hidden | [name, a[name]]] END] } AS ahead
RETURN collect([k, back, ahead]) AS rows
