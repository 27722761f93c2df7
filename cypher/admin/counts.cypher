// Nodes per label and relationships per type in one namespace.
// Parameters: $namespace. Returns: name, count.
// `key IS NOT NULL` (every graphmem node has a key) lets the planner seek the (namespace, key) constraint
// index by its namespace prefix instead of scanning every :Memory node of every namespace.
MATCH (n:Memory {namespace: $namespace})
WHERE n.key IS NOT NULL
UNWIND [l IN labels(n) WHERE l <> 'Memory' AND l <> 'Unit'] AS name
RETURN name, count(*) AS count
UNION ALL
MATCH (n:Memory {namespace: $namespace})-[r]->()
WHERE n.key IS NOT NULL
RETURN type(r) AS name, count(*) AS count
