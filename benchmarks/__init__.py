"""Benchmark loaders, official scorers, solvers, the runner and the ground-truth generator."""
