// Drop one of graphmem's vector indexes so ensure_schema can create it again (from 03_search_indexes).
// The index name is a parameter (Neo4j 5 takes one in DROP INDEX), and graphmem.store.neo4j_schema checks
// it against the names of its own vector indexes (VECTOR_INDEXES) before this runs: no other index is
// ever dropped here.
// Parameters: $index: the index name, one of step_embedding, turn_embedding, box_embedding.
// Returns: nothing.
DROP INDEX $index IF EXISTS
