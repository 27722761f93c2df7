// Sessions of a namespace (optionally one episode) with their intervals, in order.
// Parameters: $namespace, $episode (String or null). Returns: uid, episode, seq, start, end, started_at, digest.
// Every session has a start; saying so lets the planner seek session_start (namespace, start) by its
// namespace prefix instead of scanning all :Session nodes.
MATCH (s:Session {namespace: $namespace})
USING INDEX SEEK s:Session(namespace, start)
WHERE s.start IS NOT NULL AND ($episode IS NULL OR s.episode = $episode)
RETURN s.uid AS uid, s.episode AS episode, s.seq AS seq, s.start AS start, s.end AS end, s.started_at AS started_at,
       s.digest AS digest
ORDER BY seq, uid
