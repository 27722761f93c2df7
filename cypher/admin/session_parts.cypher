// What deleting one session reads (graphmem.store.lifecycle.SessionParts), under the write lock of its
// Episode: a writer adding a session to the episode waits until the deletion commits (it locks the
// Episode too, in write/check_expected) and then fails its session_count condition.
// Parameters: $namespace, $key (the Session's node key), $hidden: [String].
// Returns: no record when the session is not stored; else session and episode (props as [name, value]
// pairs), sessions: [{uid, episode, seq, start, end, started_at, digest}], turns: [{uid, seq, session,
// speaker}], boxes: [{uid, seq, session, first_turn_seq}] of the episode, box_events: the keys of the
// session's boxes' events, and shared: the keys of the participants, entities, locations and traces its
// turns and box events link to.
MATCH (s:Memory {namespace: $namespace, key: $key})-[:IN_EPISODE]->(e:Episode)
USING INDEX SEEK s:Memory(namespace, key)
SET e._lock = true
REMOVE e._lock
WITH s, e
// The episode's sessions are found from the episode: the label is tested on each neighbour ('Session' IN
// labels(x)) because a label in the pattern lets the planner scan every Session of the database instead,
// which it prefers while the database holds few sessions.
WITH s, e, [(e)<-[:IN_EPISODE]-(x) WHERE 'Session' IN labels(x) | x {.uid, .episode, .seq, .start, .end, .started_at, .digest}] AS sessions
CALL (e) {
  MATCH (e)<-[:IN_EPISODE]-(t:Turn)
  RETURN collect(t {.uid, .seq, .session, .speaker}) AS turns
}
CALL (e) {
  MATCH (e)<-[:IN_EPISODE]-(:Turn)<-[:CONTAINS]-(b:Box)
  WITH DISTINCT b
  RETURN collect(b {.uid, .seq, .session, .first_turn_seq}) AS boxes
}
CALL (s) {
  OPTIONAL MATCH (s)<-[:IN_SESSION]-(:Turn)<-[:CONTAINS]-(b:Box)-[:HAS_EVENT]->(event)
  OPTIONAL MATCH (event)-[:IN_TRACE]->(trace)
  RETURN collect(DISTINCT event.key) AS box_events, collect(DISTINCT trace.key) AS traces
}
CALL (s) {
  OPTIONAL MATCH (s)<-[:IN_SESSION]-(:Turn)-[:AT|MENTIONS|SPOKEN_BY]->(x)
  RETURN collect(DISTINCT x.key) AS linked
}
RETURN [name IN keys(s) WHERE NOT name IN $hidden | [name, s[name]]] AS session,
       [name IN keys(e) WHERE NOT name IN $hidden | [name, e[name]]] AS episode,
       sessions, turns, boxes, box_events, linked + traces AS shared
