"""mcp_server package."""
