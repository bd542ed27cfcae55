"""Pure vision and geometry tools: numpy arrays and small dataclasses in, the same out.

Nothing in this package knows about MCP, LangGraph or benchmarks.
"""
