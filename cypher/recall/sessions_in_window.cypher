// Sessions whose interval [start, end] overlaps a time window: the turns in them are valid for it.
// Parameters: $namespace, $start, $end (epoch seconds). Returns: key.
MATCH (s:Session {namespace: $namespace})
USING INDEX SEEK s:Session(namespace, start)
WHERE s.start <= $end AND s.end >= $start
RETURN s.key AS key
ORDER BY key
