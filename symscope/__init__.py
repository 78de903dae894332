"""symscope: whole code symbols for people and LLM agents.

The engine is `symscope.core`; its faces are `symscope.tui` (the terminal app),
`symscope.cli` (the subcommands) and `symscope.mcp_server` (the MCP server).
This package holds nothing else, so importing it loads nothing.
"""
