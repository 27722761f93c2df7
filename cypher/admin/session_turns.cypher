// The turns of one session, in order, with their properties (as [name, value] pairs, without $hidden).
// Parameters: $namespace, $key (the Session's node key), $hidden: [String]. Returns: one record, rows: [props].
MATCH (s:Memory {namespace: $namespace, key: $key})<-[:IN_SESSION]-(t:Turn)
USING INDEX SEEK s:Memory(namespace, key)
WITH t ORDER BY t.seq, t.key
RETURN collect([name IN keys(t) WHERE NOT name IN $hidden | [name, t[name]]]) AS rows
