// The n-th step with an event of an object (any kind; '' is the empty object) among an episode's steps with
// $lo <= t <= $hi, counted from the start (1 = the first), and that step's first such event in (t, i) order
// (i: the event's position within its step; events without one come after their step's others, by key).
// A step counts once however many of its events name the object: "the second time I did something with the
// kitchen" is the second step, not the first step's second event ("entered the kitchen; surveyed the
// kitchen"). A range seek on event_obj_time reads the window's events; they are grouped by step.
// Parameters: $namespace, $episode, $obj, $lo, $hi (both bounded), $skip (|ordinal| - 1).
// Returns: key, unit, episode, kind, obj, count, ordinal, t (no row when fewer steps match).
MATCH (e:Event {namespace: $namespace, episode: $episode, obj: $obj})
USING INDEX SEEK e:Event(namespace, episode, obj, t)
WHERE e.t >= $lo AND e.t <= $hi
WITH e ORDER BY e.t, e.i, e.key
WITH e.t AS step, collect(e)[0] AS e
RETURN e.key AS key, e.unit AS unit, e.episode AS episode, e.kind AS kind, e.obj AS obj,
       e.count AS count, e.ordinal AS ordinal, e.t AS t
ORDER BY step
SKIP $skip
LIMIT 1
