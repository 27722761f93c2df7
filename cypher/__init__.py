"""Cypher statements, one per file, loaded by name (see graphmem.cypher_files)."""
