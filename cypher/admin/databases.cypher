// The names of the server's databases and their aliases: when a store names its database, a missing one
// is refused at once with the names there are (instead of failing later on a schema statement).
// Runs on the server's default database (SHOW DATABASES needs no particular one).
// Parameters: none. Returns: names (list of database names), aliases (list of lists of alias names).
SHOW DATABASES YIELD name, aliases
RETURN collect(name) AS names, collect(aliases) AS aliases
