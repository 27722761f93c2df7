// Sessions whose interval [start, end] overlaps a time window: the turns in them are valid for it.
// $from is the earliest start such a session can have ($start minus the longest session, -Infinity when
// unknown): the index seek then reads only the starts in [$from, $end], not every session before $end.
// Parameters: $namespace, $start, $end, $from (epoch seconds). Returns: rows: [key] (sorted).
// One record whose `rows` list holds the result (one Bolt record per row costs the Python driver more).
MATCH (s:Session {namespace: $namespace})
USING INDEX SEEK s:Session(namespace, start)
WHERE s.start >= $from AND s.start <= $end AND s.end >= $start
WITH s.key AS key
ORDER BY key
RETURN collect(key) AS rows
