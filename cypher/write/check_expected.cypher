// The conditions a batch was built on that no longer hold (run first, in the batch's own transaction).
// Parameters: $expect: list of {namespace, key, prop, value} (value null: the node is absent or lacks prop).
// Returns: namespace, key, prop, value, actual — one row per unmet condition.
UNWIND $expect AS x
OPTIONAL MATCH (n:Memory {namespace: x.namespace, key: x.key})
WITH x, CASE WHEN n IS NULL THEN null ELSE n[x.prop] END AS actual
WHERE NOT coalesce(actual = x.value, actual IS NULL AND x.value IS NULL)
RETURN x.namespace AS namespace, x.key AS key, x.prop AS prop, x.value AS value, actual
