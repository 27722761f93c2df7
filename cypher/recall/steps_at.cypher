// Steps of an episode at the given indices: index seeks on step_time.
// Parameters: $namespace, $episode, $ts: [Integer]. Returns: t, props.
UNWIND $ts AS t
MATCH (s:Step {namespace: $namespace, episode: $episode, t: t})
USING INDEX SEEK s:Step(namespace, episode, t)
RETURN t, s {.*, embedding: null} AS props
