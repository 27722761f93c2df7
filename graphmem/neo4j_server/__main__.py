"""``python -m graphmem.neo4j_server install|start|stop|status``: the same as ``graphmem neo4j ...``."""

import sys

from graphmem.neo4j_server.command import main

if __name__ == "__main__":
    sys.exit(main())
