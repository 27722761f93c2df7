// One occurrence with its neighbours: the $ordinal-th event of $kind and $obj in an episode ("the third
// wood collected", an index seek on event_ordinal), its step, and the step's neighbours: the steps before
// and after it (NEXT), its place (AT), and the steps it enabled or was enabled by (ENABLES).
// Parameters: $namespace, $episode, $kind, $obj, $ordinal (1 = the first). Returns: one row: event, step
// (step to event), neighbours (paths from the step).
MATCH (event:Event {namespace: $namespace, episode: $episode, kind: $kind, obj: $obj, ordinal: $ordinal})
USING INDEX SEEK event:Event(namespace, episode, kind, obj, ordinal) MATCH step = (s:Step)-[:HAS_EVENT]->(event)
OPTIONAL MATCH near = (s)-[:NEXT|AT|ENABLES]-() RETURN event, step, collect(near) AS neighbours
