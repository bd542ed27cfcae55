"""planners package."""
