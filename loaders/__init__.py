"""Adapters that turn environment rollouts and datasets into graphmem records."""
