"""The MCP server: sheaf inside any agent runtime (`sheaf mcp`, ADR-0019)."""
