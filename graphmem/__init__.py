"""graphmem: episodic memory for long-horizon LLM agents."""
