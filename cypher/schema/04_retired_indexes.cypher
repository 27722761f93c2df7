// Indexes an older graphmem created and no query uses any more; dropped once their successors exist
// (03_search_indexes runs first). unit_embedding, one vector index over all units, became step_embedding
// and turn_embedding (a database upgraded from it populates the two once, on its first ensure_schema).
// Parameters: none. Returns: nothing.
DROP INDEX unit_embedding IF EXISTS
