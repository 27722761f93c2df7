// The conditions a batch was built on that no longer hold, each read under the write lock of the node it
// names (run first, in the batch's own transaction, which keeps the locks until it commits).
// Parameters: $expect: list of {namespace, key, prop, value, create}, sorted by namespace and key (value
// null: the node is absent or lacks prop; create: the batch writes the node).
// Returns: namespace, key, prop, value, actual — one row per unmet condition.
//
// Why the locks: Neo4j reads committed data without locking it, so two writers appending to one episode
// both read its old `last_t` before either holds the episode's write lock, and both commit (a forked
// NEXT chain, overwritten steps, duplicate ordinals). Writing the node first (setting and removing a
// property changes nothing) takes its write lock, so the second writer waits for the first to commit and
// then reads what it committed. A node the batch creates does not exist yet to be locked: it is merged
// here, and the unique (namespace, key) constraint makes a second writer's merge of the same key wait for
// the first's commit and then find its node (the batch's own MERGE later finds this one). A node the
// batch does not write is locked only if it exists (merging it would leave an empty node behind).
// Sorted keys: writers take their locks in one order, so two batches cannot hold one lock each and wait
// for the other's.
UNWIND $expect AS x
CALL (x) {
  WITH x WHERE x.create
  MERGE (:Memory {namespace: x.namespace, key: x.key})
}
OPTIONAL MATCH (n:Memory {namespace: x.namespace, key: x.key})
SET n._lock = true
REMOVE n._lock
WITH x, n[x.prop] AS actual
WHERE NOT coalesce(actual = x.value, actual IS NULL AND x.value IS NULL)
RETURN x.namespace AS namespace, x.key AS key, x.prop AS prop, x.value AS value, actual
