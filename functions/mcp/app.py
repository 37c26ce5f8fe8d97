"""McpFn: memex's tools over MCP (streamable HTTP, stateless) at /mcp."""

from memex_edge.http import asgi_lambda_handler
from memex_edge.mcp_server import McpApp, build_server

handler = asgi_lambda_handler(McpApp(build_server()))
