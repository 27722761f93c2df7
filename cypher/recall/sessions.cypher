// Sessions of a namespace (optionally one episode) with their intervals, in order.
// Parameters: $namespace, $episode (String or null). Returns: uid, episode, seq, start, end.
MATCH (s:Session {namespace: $namespace})
WHERE $episode IS NULL OR s.episode = $episode
RETURN s.uid AS uid, s.episode AS episode, s.seq AS seq, s.start AS start, s.end AS end
ORDER BY seq, uid
