"""`symscope mcp`: the MCP server for coding agents, on the official `mcp` SDK.

The folder is not named `mcp`, so running from the repository root never shadows the SDK.
"""
