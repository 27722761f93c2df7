// Steps of an episode at the given indices: index seeks on step_time.
// Parameters: $namespace, $episode, $ts: [Integer], $hidden: [String]. Returns: rows: [[t, props]].
// One record whose `rows` list holds the result (one Bolt record per row costs the Python driver more).
UNWIND $ts AS t
MATCH (s:Step {namespace: $namespace, episode: $episode, t: t})
USING INDEX SEEK s:Step(namespace, episode, t)
RETURN collect([t, [name IN keys(s) WHERE NOT name IN $hidden | [name, s[name]]]]) AS rows
