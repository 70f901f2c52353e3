"""The outcome check of the rea environment __NAME__, written by `rea environment-export`.

agent-env loads this file with importlib and awaits `verify(mcp_url)` in its own process (agentenv-framework
pins mcp>=1.25,<2); it is written to run on the MCP Python SDK 1.x and 2.x alike: streamable_http_client
yields (read, write, get_session_id) on 1.x and (read, write) on 2.x, a list's next cursor is `nextCursor` on
1.x and `next_cursor` on 2.x, and a result's error flag is `isError` on 1.x and `is_error` on 2.x.

It returns one `serve` criterion: the server lists the number of tools the export predicted, and (when the
environment has one) the probe tool called with no arguments answers without error with the status the
export predicted by calling the same answer function the server uses.
"""
import json

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

EXPECTED_TOOLS = __TOOL_COUNT__  # tools the environment serves (__SERVES__)
PROBE = __PROBE__  # a served GET tool without path parameters, or None
EXPECTED_STATUS = __STATUS__  # the status of its answer (None: the recording has none)


def _field(value, *names):
    for name in names:
        found = getattr(value, name, None)
        if found is not None:
            return found
    return None


async def _list_tools(session):
    names = []
    result = await session.list_tools()
    for _ in range(1000):
        names.extend(tool.name for tool in result.tools)
        cursor = _field(result, "next_cursor", "nextCursor")
        if not cursor:
            break
        try:
            from mcp.types import PaginatedRequestParams

            result = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        except (ImportError, TypeError):
            result = await session.list_tools(cursor=cursor)
    return names


async def verify(mcp_url):
    result = None
    async with streamable_http_client(mcp_url) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            names = await _list_tools(session)
            if PROBE is not None and PROBE in names:
                result = await session.call_tool(PROBE, {})
    counted = len(names) == EXPECTED_TOOLS
    checks = [f"tools/list: {len(names)} tools (expected {EXPECTED_TOOLS})"]
    called = True
    if PROBE is None:
        checks.append("no served GET tool without path parameters answers without error: count only")
    elif result is None:
        called = False
        checks.append(f"{PROBE} is not listed")
    else:
        failed = bool(_field(result, "is_error", "isError"))
        text = "".join(getattr(part, "text", "") or "" for part in (result.content or []))
        try:
            status = json.loads(text).get("status")
        except (ValueError, AttributeError):
            status = "unreadable"
        called = not failed and status == EXPECTED_STATUS
        checks.append(
            f"{PROBE}: {'error' if failed else 'ok'}, status {status!r} (expected {EXPECTED_STATUS!r})"
        )
    return [{"id": "serve", "result": counted and called, "description": "; ".join(checks)}]
