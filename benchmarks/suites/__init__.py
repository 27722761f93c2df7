"""Trajectory question suites: simulated agent trajectories and questions checked against a reference evaluator."""
