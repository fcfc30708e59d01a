"""Entrypoints: `sheaf.Knowledge` (api/) and the interfaces over it: the CLI, the HTTP API,
the MCP server and the LLM tools, and the holder that lets one process serve a store."""
