// Every box event of a namespace with its trace and embedding: the Trace Weaver's view of existing traces.
// Parameters: $namespace. Returns: key, box, trace, text, embedding.
MATCH (tr:Trace {namespace: $namespace})<-[:IN_TRACE]-(e:Event)<-[:HAS_EVENT]-(b:Box)
USING INDEX SEEK tr:Trace(namespace)
RETURN e.key AS key, b.key AS box, tr.uid AS trace, e.obj AS text, e.embedding AS embedding
ORDER BY key
