// Nodes per label and relationships per type in one namespace.
// Parameters: $namespace. Returns: name, count.
// `key IS NOT NULL` (every graphmem node has a key) lets the planner seek the (namespace, key) constraint
// index by its namespace prefix; the hint keeps it from preferring a full index scan while a database
// holds only a few namespaces.
MATCH (n:Memory {namespace: $namespace})
USING INDEX SEEK n:Memory(namespace, key)
WHERE n.key IS NOT NULL
UNWIND [l IN labels(n) WHERE l <> 'Memory' AND l <> 'Unit'] AS name
RETURN name, count(*) AS count
UNION ALL
MATCH (n:Memory {namespace: $namespace})-[r]->()
USING INDEX SEEK n:Memory(namespace, key)
WHERE n.key IS NOT NULL
RETURN type(r) AS name, count(*) AS count
