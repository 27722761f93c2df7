// Wait until every index of the database is online (a new or recreated index populates in the background).
// Parameters: $seconds: how long to wait before the server gives up with an error.
// Returns: nothing.
CALL db.awaitIndexes($seconds)
