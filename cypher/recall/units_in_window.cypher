// Turns valid for a time window: their session interval overlaps it, or their event time falls in it.
// Parameters: $namespace, $start, $end (epoch seconds). Returns: key.
CALL () {
  MATCH (s:Session {namespace: $namespace})
  USING INDEX SEEK s:Session(namespace, start)
  WHERE s.start <= $end AND s.end >= $start
  MATCH (u:Turn)-[:IN_SESSION]->(s)
  RETURN u.key AS key
  UNION
  MATCH (u:Turn {namespace: $namespace})
  USING INDEX SEEK u:Turn(namespace, event_start)
  WHERE u.event_start <= $end AND u.event_end >= $start
  RETURN u.key AS key
}
RETURN key
ORDER BY key
