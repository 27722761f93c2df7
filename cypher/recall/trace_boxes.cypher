// For each box, the other boxes that share a topic trace with it (Membox trace expansion).
// Parameters: $namespace, $keys: [String]. Returns: box, related: [[seq, key]].
UNWIND $keys AS k
MATCH (b:Memory {namespace: $namespace, key: k})
USING INDEX SEEK b:Memory(namespace, key)
RETURN k AS box,
       COLLECT { MATCH (b)-[:HAS_EVENT]->(:Event)-[:IN_TRACE]->(:Trace)<-[:IN_TRACE]-(:Event)<-[:HAS_EVENT]-(o:Box)
                 WHERE o <> b RETURN DISTINCT [o.seq, o.key] } AS related
