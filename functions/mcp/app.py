"""McpFunction: memex's tools over MCP (streamable HTTP, stateless) at /mcp."""

from memex_edge.http.lambda_entry import lambda_handler
from memex_edge.mcp_server import PATH, McpApp, build_server


def surface(loopback_only: bool = False) -> McpApp:
    """The MCP surface. `loopback_only` (a server on 127.0.0.1) refuses requests naming another
    host or origin: a web page cannot reach it by DNS rebinding."""
    return McpApp(build_server(), loopback_only=loopback_only)


mcp = surface()
handler = lambda_handler(surfaces={PATH: mcp})
