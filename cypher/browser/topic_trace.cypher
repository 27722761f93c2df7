// A topic trace across sessions: of the traces one of whose topic events mentions $topic, the one that
// links the most sessions, with its events, their boxes and each box's first turn and session.
// Parameters: $namespace, $topic (matched case-insensitively; "" for any trace). Returns: one row (none
// when no trace mentions $topic): trace, topics (trace to event to box to first turn to session).
MATCH (trace:Trace {namespace: $namespace}) USING INDEX SEEK trace:Trace(namespace) MATCH (trace)<-[:IN_TRACE]-(event:Event)<-[:HAS_EVENT]-(box:Box)
WITH trace, count(DISTINCT box.session) AS sessions, count(CASE WHEN toLower(event.obj) CONTAINS toLower($topic) THEN 1 END) AS mentions
WHERE mentions > 0 WITH trace ORDER BY sessions DESC, mentions DESC, trace.key LIMIT 1 MATCH topic = (trace)<-[:IN_TRACE]-(:Event)<-[:HAS_EVENT]-(box:Box)
      -[:CONTAINS]->(turn:Turn)-[:IN_SESSION]->(:Session) WHERE turn.seq = box.first_turn_seq RETURN trace, collect(topic) AS topics
