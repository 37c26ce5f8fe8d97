"""`memex mcp`, the MCP server over stdio: the command run as a host runs it, driven by the `mcp`
SDK's stdio client, bridged to the local runtime's app served on loopback as `make dev` serves it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tests.conftest import ROOT, refused_port, served
from tests.test_mcp import TOOLS, call, session


@pytest.fixture(scope="module")
def mcp_url(runtime):
    with served(runtime.asgi_app()) as url:
        yield f"{url}/mcp"


def _environment(key: str | None) -> dict[str, str]:
    # This checkout's code, whatever the venv installed; the key as a host's config gives it.
    env = {"PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'shared'}"}
    return env | {"MEMEX_API_KEY": key} if key else env


def _command(url: str, key: str | None) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "infra.cli", "mcp", "--url", url],
                                 env=_environment(key), cwd=ROOT)


def over_stdio(url: str, key: str | None, body, mode: str = "legacy"):
    """Runs `await body(client)` in a session of the SDK's client with `memex mcp --url url` as
    the server it starts; a request left unanswered fails it rather than hanging it."""

    async def main():
        async with Client(_command(url, key), mode=mode, read_timeout_seconds=60) as client:
            return await body(client)

    return anyio.run(main)


def _tools(tools) -> dict[str, tuple]:
    return {tool.name: (tool.description, tool.input_schema, tool.output_schema) for tool in tools}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_same_server_and_tools_as_over_http(mcp_url, tenant, mode):
    """The handshake (legacy) and the 2026 protocol's discovery (auto) reach the server, which
    tells both its name and instructions and lists the same tools as over HTTP, in the protocol
    version the same client settles over HTTP (the 2026 one with `auto`, not the fallback to the
    handshake a discovery the server did not route would bring)."""

    async def body(client):
        return (client.protocol_version, client.server_info, client.instructions,
                _tools((await client.list_tools()).tools))

    version, info, instructions, tools = over_stdio(mcp_url, tenant.key, body, mode)
    assert (version, info, instructions, tools) == session(mcp_url, tenant.key, body, mode)
    assert (version in MODERN_PROTOCOL_VERSIONS) == (mode == "auto")
    assert info.name == "memex" and "recall_context" in instructions
    assert set(tools) == TOOLS and all(output is not None for _, _, output in tools.values())


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_store_then_search_acts_for_the_keys_tenant(mcp_url, tenant, mode):
    async def body(client):
        stored = await call(client, "store_memory", user_id=tenant.user, content="Prefers trains to planes")
        found = await call(client, "search_memories", user_id=tenant.user, query="trains")
        return stored, found

    stored, found = over_stdio(mcp_url, tenant.key, body, mode)
    assert found["results"][0]["id"] == stored["id"]
    # The same memory over REST, in the key's tenant.
    assert tenant.get(f"/v1/memories/{stored['id']}").json()["content"] == "Prefers trains to planes"


def test_a_wrong_key_is_refused_as_the_server_refuses_it(mcp_url):
    reached = []

    async def body(client):
        reached.append(await client.list_tools())

    with pytest.raises(BaseException) as caught:
        over_stdio(mcp_url, "mx_wrong", body)
    assert caught.group_contains(MCPError, match="^unauthorized: invalid API key$", depth=None) and not reached


def test_a_body_over_the_limit_is_the_servers_413(mcp_url, tenant, ctx):
    limit = ctx.settings.max_body_bytes

    async def body(client):
        await client.call_tool("store_memory", {"user_id": tenant.user, "content": "x" * (limit + 1)})

    with pytest.raises(BaseException) as caught:
        over_stdio(mcp_url, tenant.key, body)
    assert caught.group_contains(MCPError, match=f"^payload_too_large: request body exceeds {limit} bytes$",
                                 depth=None)


def test_no_server_at_the_url_is_an_error_naming_it():
    async def body(client):
        return await client.list_tools()

    with refused_port() as nowhere:
        url = f"http://127.0.0.1:{nowhere}/mcp"
        with pytest.raises(BaseException) as caught:
            over_stdio(url, None, body)
    assert caught.group_contains(MCPError, match=f"^memex mcp: no memex server answered at {url} .*`make dev`",
                                 depth=None)


def test_an_address_that_is_not_mcp_is_an_error_saying_so(mcp_url, tenant):
    """The API's address without `/mcp`, a common slip: its 404 is not JSON-RPC, and the host is
    told what answered."""
    url = mcp_url.removesuffix("/mcp")

    async def body(client):
        return await client.list_tools()

    with pytest.raises(BaseException) as caught:
        over_stdio(url, tenant.key, body)
    assert caught.group_contains(MCPError, match=f"^memex mcp: {url} answered HTTP 404, not a JSON-RPC message",
                                 depth=None)


def _lines(*messages) -> str:
    return "".join(json.dumps(message) + "\n" for message in messages)


def test_stdout_holds_only_the_answers_and_eof_ends_it(mcp_url, tenant):
    """What a host reads: one JSON-RPC answer a line for each request, none for a notification,
    the request's id on a refusal too; the log on stderr; exit 0 once stdin ends."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "host", "version": "1"}}}
    requests = _lines(initialize, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                      {"jsonrpc": "2.0", "id": "two", "method": "tools/list"})
    done = subprocess.run([sys.executable, "-m", "infra.cli", "mcp", "--url", mcp_url], input=requests, cwd=ROOT,
                          env=os.environ | _environment(tenant.key), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}
    assert set(answers) == {1, "two"}, done.stdout
    assert answers[1]["result"]["serverInfo"]["name"] == "memex"
    assert {tool["name"] for tool in answers["two"]["result"]["tools"]} == TOOLS
    assert f"stdio bridged to {mcp_url}, with an API key" in done.stderr

    # The address from the environment this time, as a host's config may give it.
    refused = subprocess.run([sys.executable, "-m", "infra.cli", "mcp"], input=_lines(initialize), cwd=ROOT,
                             env=os.environ | _environment("mx_wrong") | {"MEMEX_MCP_URL": mcp_url},
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 0, refused.stderr
    answer = json.loads(refused.stdout)
    assert answer["id"] == 1 and answer["error"]["data"]["code"] == "unauthorized"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_it_cleanly(mcp_url, signum):
    bridge = subprocess.Popen([sys.executable, "-m", "infra.cli", "mcp", "--url", mcp_url], cwd=ROOT,
                              env=os.environ | _environment(None), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    # Once it says it is bridging, it waits on stdin.
    assert b"stdio bridged to" in bridge.stderr.readline()
    bridge.send_signal(signum)
    assert bridge.wait(timeout=30) == 0
    assert bridge.stdout.read() == b"" and b"Traceback" not in bridge.stderr.read()
    bridge.stdin.close()
