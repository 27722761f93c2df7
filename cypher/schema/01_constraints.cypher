// Uniqueness of every graphmem node's key within its namespace (also the index behind key lookups).
// Parameters: none. Returns: nothing.
CREATE CONSTRAINT memory_namespace_key IF NOT EXISTS FOR (n:Memory) REQUIRE (n.namespace, n.key) IS UNIQUE
