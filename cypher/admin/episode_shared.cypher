// The nodes an episode shares with the rest of its namespace: the participants, entities and locations
// its units link to, and the traces its boxes' events joined. Read before the episode is deleted, so
// that those left without any relationship can be deleted after it (admin/delete_orphans).
// Parameters: $namespace, $key (the Episode's node key). Returns: one record, keys: [String].
MATCH (e:Memory {namespace: $namespace, key: $key})
USING INDEX SEEK e:Memory(namespace, key)
OPTIONAL MATCH (e)<-[:IN_EPISODE]-(u)-[:AT|INVOLVES|MENTIONS|SPOKEN_BY]->(x)
WITH e, collect(DISTINCT x.key) AS shared
OPTIONAL MATCH (e)<-[:IN_EPISODE]-(:Turn)<-[:CONTAINS]-(:Box)-[:HAS_EVENT]->(:Event)-[:IN_TRACE]->(trace:Trace)
WITH shared, collect(DISTINCT trace.key) AS traces
RETURN shared + traces AS keys
