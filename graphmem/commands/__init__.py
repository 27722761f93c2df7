"""The ``graphmem`` subcommands that read and manage a memory, one module per group:

* ``ask``: ``recall``, ``search``, ``answer``;
* ``manage``: ``stats``, ``namespaces``, ``forget``, ``export``, ``import``;
* ``serve``: ``mcp`` (graphmem as a Model Context Protocol server);
* ``options``: what they share (which store, output as JSON, input errors).

``graphmem.cli`` builds the parser from them; ``demo``, ``ingest`` and ``neo4j`` live beside it.
"""
