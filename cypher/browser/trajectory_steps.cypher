// A trajectory's first $steps steps as one path along NEXT, with their events: one row, a small subgraph
// Neo4j Browser draws at once. The first step is the first of the step_time index (ORDER BY its
// equality-bound properties, then t: the planner takes the order from the index).
// Parameters: $namespace, $episode, $steps (1 to 100). Returns: one row: path (the steps), events (step to event).
MATCH (first:Step {namespace: $namespace, episode: $episode}) USING INDEX SEEK first:Step(namespace, episode, t) WHERE first.t >= 0
WITH first ORDER BY first.namespace, first.episode, first.t LIMIT 1 MATCH path = (first)-[:NEXT*0..99]->(:Step) WHERE length(path) < $steps
WITH path ORDER BY length(path) DESC LIMIT 1 UNWIND nodes(path) AS step
OPTIONAL MATCH event = (step)-[:HAS_EVENT]->(:Event) RETURN path, collect(event) AS events
