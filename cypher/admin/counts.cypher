// Nodes per label and relationships per type in one namespace.
// Parameters: $namespace. Returns: name, count.
MATCH (n:Memory {namespace: $namespace})
UNWIND [l IN labels(n) WHERE l <> 'Memory' AND l <> 'Unit'] AS name
RETURN name, count(*) AS count
UNION ALL
MATCH (n:Memory {namespace: $namespace})-[r]->()
RETURN type(r) AS name, count(*) AS count
