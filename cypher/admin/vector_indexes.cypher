// The vector indexes of the database with their state and options: ensure_schema reports the ones still
// populating and checks each of graphmem's (VECTOR_INDEXES) for its dimensions and quantization.
// Parameters: none. Returns: name, state (ONLINE, POPULATING, FAILED), options (its indexConfig).
SHOW INDEXES YIELD name, type, state, options WHERE type = 'VECTOR'
RETURN name, state, options
