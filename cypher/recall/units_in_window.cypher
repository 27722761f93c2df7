// Turns valid for a time window, at most $limit of each kind, earliest first: the turns of the sessions
// whose interval overlaps the window (by session start, then turn order), then the turns whose event time
// falls in it (by event start). Bounded by $limit: a month of a years-long history can hold thousands of
// turns, and recall only needs as many as it can pack (which candidates are valid: sessions_in_window).
// $session_from / $event_from are the earliest start an overlapping session / event time can have ($start
// minus the longest one, -Infinity when unknown): the index seeks read only starts in [from, $end].
// Parameters: $namespace, $start, $end, $session_from, $event_from (epoch seconds), $limit, $hidden: [String].
// Returns: rows: [[key, props ([name, value] pairs without the embedding)]] (a turn may come twice).
// One record whose `rows` list holds the result (one Bolt record per row costs the Python driver more).
CALL () {
  MATCH (s:Session {namespace: $namespace})
  USING INDEX SEEK s:Session(namespace, start)
  WHERE s.start >= $session_from AND s.start <= $end AND s.end >= $start
  MATCH (u:Turn)-[:IN_SESSION]->(s)
  RETURN u AS unit, 0 AS tier, s.start AS at, u.seq AS seq, u.key AS key
  ORDER BY at, seq, key
  LIMIT $limit
  UNION ALL
  MATCH (u:Turn {namespace: $namespace})
  USING INDEX SEEK u:Turn(namespace, event_start)
  WHERE u.event_start >= $event_from AND u.event_start <= $end AND u.event_end >= $start
  RETURN u AS unit, 1 AS tier, u.event_start AS at, u.seq AS seq, u.key AS key
  ORDER BY at, seq, key
  LIMIT $limit
}
WITH unit, key
ORDER BY tier, at, seq, key
RETURN collect([key, [name IN keys(unit) WHERE NOT name IN $hidden | [name, unit[name]]]]) AS rows
