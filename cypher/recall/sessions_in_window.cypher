// Sessions whose interval [start, end] overlaps a time window: the turns in them are valid for it.
// Parameters: $namespace, $start, $end (epoch seconds). Returns: rows: [key] (sorted).
// One record whose `rows` list holds the result (one Bolt record per row costs the Python driver more).
MATCH (s:Session {namespace: $namespace})
USING INDEX SEEK s:Session(namespace, start)
WHERE s.start <= $end AND s.end >= $start
WITH s.key AS key
ORDER BY key
RETURN collect(key) AS rows
