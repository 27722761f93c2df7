// Every Episode node of a namespace (of one kind when $kind is given), in creation order.
// Parameters: $namespace, $kind: String or null, $hidden: [String]. Returns: rows: [props as [name, value] pairs], as the other
// recall reads return properties.
// One record whose `rows` list holds the result (one Bolt record per row costs the Python driver more).
MATCH (e:Episode {namespace: $namespace})
USING INDEX SEEK e:Episode(namespace)
WHERE $kind IS NULL OR e.kind = $kind
WITH e ORDER BY e.seq, e.uid
RETURN collect([name IN keys(e) WHERE NOT name IN $hidden | [name, e[name]]]) AS rows
