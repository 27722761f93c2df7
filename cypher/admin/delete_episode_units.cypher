// Delete the units of an episode (its steps, sessions and turns) with what hangs off them only: a step's
// events and changes, a turn's topic boxes and their events. The Episode node itself stays, so an
// interrupted deletion can be run again (admin/delete_nodes then removes the Episode).
// Parameters: $namespace, $key (the Episode's node key). Returns: nothing.
// Batches of units in their own transactions (run in an auto-commit transaction), as delete_namespace:
// an episode of a million steps would not fit one transaction's memory.
MATCH (e:Memory {namespace: $namespace, key: $key})<-[:IN_EPISODE]-(u)
USING INDEX SEEK e:Memory(namespace, key)
CALL (u) {
  OPTIONAL MATCH (u)-[:HAS_EVENT|CHANGES]->(part)
  WITH u, collect(part) AS parts
  OPTIONAL MATCH (box:Box)-[:CONTAINS]->(u)
  OPTIONAL MATCH (box)-[:HAS_EVENT]->(event)
  WITH u, parts, collect(DISTINCT box) + collect(DISTINCT event) AS boxes
  FOREACH (n IN parts + boxes | DETACH DELETE n)
  DETACH DELETE u
} IN TRANSACTIONS OF 1000 ROWS
