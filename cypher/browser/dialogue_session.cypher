// One dialogue session: its turns with their speakers and order (NEXT), the topic boxes that contain them,
// the boxes' topic events and the traces those join. The session is found among its namespace's sessions
// (session_start, seeked by the namespace), by its id.
// Parameters: $namespace, $session (a session id). Returns: one row: session, turns (speaker to turn to
// session), chain (turn to next turn), topics (turn to box to event to trace).
MATCH (session:Session {namespace: $namespace}) USING INDEX SEEK session:Session(namespace, start) WHERE session.start IS NOT NULL AND session.uid = $session
MATCH turn = (:Participant)<-[:SPOKEN_BY]-(t:Turn)-[:IN_SESSION]->(session) OPTIONAL MATCH next = (t)-[:NEXT]->(:Turn {session: $session})
OPTIONAL MATCH topic = (t)<-[:CONTAINS]-(:Box)-[:HAS_EVENT]->(:Event)-[:IN_TRACE]->(:Trace)
RETURN session, collect(DISTINCT turn) AS turns, collect(DISTINCT next) AS chain, collect(DISTINCT topic) AS topics
