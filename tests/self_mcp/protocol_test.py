#!/usr/bin/env python3
"""Protocol tests of `rea mcp` with the official MCP Python SDK (mcp 2.3.0).

Runs the server over stdio and over Streamable HTTP, each with the SDK's default client
(`mode="auto"`: `server/discover` and the 2026-07-28 revision) and with the initialize-based
handshake (`mode="legacy"`), and checks prompts, completion, tools, field diagnostics and
`notifications/prompts/list_changed`. Prints one `PASS|FAIL name detail` line per check, then
`N passed, M failed`; exits 1 on any failure.

    python protocol_test.py --rea target/debug/rea --captures ../shared/captures
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

ALL_TOOLS = [
    "inspect_web_network_capture",
    "inspect_analysis_view",
    "export_environment_bundle",
    "compare_environment",
    "guided_workflows",
    "search_guidance",
    "read_guidance_section",
]
GUIDANCE_TOOLS = {"guided_workflows", "search_guidance", "read_guidance_section"}
WORKFLOWS = [
    "investigate_feature",
    "compare_application_versions",
    "verify_reconstruction",
    "trace_crash",
    "audit_residual_unknowns",
    "prepare_bounded_process_capture",
]
REQUIRED = {
    "investigate_feature": {"feature": "x"},
    "compare_application_versions": {"baseline": "a", "candidate": "b"},
    "verify_reconstruction": {"specification": "x"},
    "trace_crash": {"symptom": "x"},
    "audit_residual_unknowns": {},
    "prepare_bounded_process_capture": {"application": "x"},
}

RESULTS: list[tuple[bool, str, str]] = []


def check(name: str, ok: bool, detail: str = "") -> bool:
    RESULTS.append((bool(ok), name, detail))
    print(f"{'PASS' if ok else 'FAIL'} {name}{' ' + detail if detail else ''}", flush=True)
    return bool(ok)


async def raw(client: Client, method: str, params: Any) -> dict[str, Any]:
    """Sends a request with params exactly as given (the typed API would refuse them)."""
    session = client.session
    data: dict[str, Any] = {"method": method, "params": params}
    opts: dict[str, Any] = {}
    session._stamp(data, opts)  # noqa: SLF001 - the SDK's own per-request metadata
    return await session._dispatcher.send_raw_request(method, data.get("params"), opts)  # noqa: SLF001


async def expect_error(client: Client, method: str, params: Any) -> MCPError | None:
    try:
        await raw(client, method, params)
    except MCPError as error:
        return error
    return None


def issue_paths(error: MCPError | None) -> list[str]:
    if error is None or not isinstance(error.error.data, dict):
        return []
    return [issue.get("path") for issue in error.error.data.get("issues", [])]


def prompt_text(result: types.GetPromptResult) -> str:
    return "".join(
        message.content.text for message in result.messages if isinstance(message.content, types.TextContent)
    )


def evidence_of(result: types.CallToolResult) -> dict[str, Any]:
    """The Evidence a stage tool returned inline, as its exact text."""
    if result.is_error or not result.content or not isinstance(result.content[0], types.TextContent):
        return {}
    return json.loads(result.content[0].text)


def named_tools(text: str) -> set[str]:
    return {tool for tool in ALL_TOOLS if f"`{tool}`" in text}


class Server:
    """One `rea mcp` process: spawned by the SDK (stdio) or by us (HTTP)."""

    def __init__(self, rea: Path, transport: str, env: dict[str, str], families_file: Path | None, work: Path):
        self.rea = rea
        self.transport = transport
        self.env = {**os.environ, **env}
        self.env.pop("REA_MCP_TOOL_FAMILIES", None)
        # Over HTTP the listening line (info) names the URL; over stdio only errors are logged.
        self.env["REA_LOG_LEVEL"] = "info" if transport == "http" else "error"
        self.env.update(env)
        self.families_file = families_file
        self.work = work
        self.pid_file = work / f"pid-{time.monotonic_ns()}"
        self.process: subprocess.Popen[bytes] | None = None
        self.url: str | None = None

    def args(self) -> list[str]:
        args = ["mcp"]
        if self.transport == "http":
            args += ["--http", "--port", "0"]
        if self.families_file is not None:
            args += ["--tool-families-file", str(self.families_file)]
        return args

    def __enter__(self) -> Server:
        if self.transport == "http":
            self.process = subprocess.Popen(
                [str(self.rea), *self.args()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.env,
            )
            assert self.process.stderr is not None
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                line = self.process.stderr.readline()
                if not line:
                    break
                try:
                    event = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if event.get("msg") == "MCP transport listening":
                    self.url = event["url"]
                    break
            if self.url is None:
                raise RuntimeError("rea mcp --http did not announce its URL")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=10)
            if self.process.poll() is None:
                self.process.kill()

    def client(self, mode: str, **kwargs: Any) -> Client:
        if self.transport == "http":
            assert self.url is not None
            return Client(self.url, mode=mode, read_timeout_seconds=60, **kwargs)
        # A shell records the server's pid, then becomes the server, so tests can signal it.
        params = StdioServerParameters(
            command="sh",
            args=["-c", 'echo $$ > "$0"; exec "$@"', str(self.pid_file), str(self.rea), *self.args()],
            env=self.env,
            cwd=str(self.work),
        )
        return Client(params, mode=mode, read_timeout_seconds=60, **kwargs)

    def pid(self) -> int:
        if self.process is not None:
            return self.process.pid
        return int(self.pid_file.read_text().strip())

    def hangup(self) -> None:
        os.kill(self.pid(), signal.SIGHUP)

    def stop_http(self) -> tuple[int | None, dict[str, Any] | None]:
        """SIGTERM the HTTP server: its exit status and the stopped document."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=20)
        document = None
        with contextlib.suppress(json.JSONDecodeError):
            document = json.loads(out)
        return self.process.returncode, document


async def scenario(rea: Path, captures: Path, transport: str, mode: str, work: Path) -> None:
    tag = f"{transport}/{mode}"
    families = work / f"families-{transport}-{mode}"
    families.write_text("capture views guidance\n")
    capture_file = (captures / "json-server" / "build.har").resolve()
    notifications: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.PromptListChangedNotification):
            notifications.append("prompts")
        elif isinstance(message, types.ToolListChangedNotification):
            notifications.append("tools")

    with Server(rea, transport, {}, families, work) as server:
        kwargs = {"message_handler": on_message} if mode == "legacy" else {}
        async with server.client(mode, **kwargs) as client:
            info = client.server_info
            check(f"{tag} server identity", info is not None and info.name == "rea", repr(info))
            caps = client.server_capabilities
            # contract: PROMPTS-069
            check(
                f"{tag} prompts listChanged advertised",
                caps.prompts is not None and caps.prompts.list_changed is True,
            )
            check(f"{tag} completions advertised", caps.completions is not None)

            # contract: PROMPTS-001, PROMPTS-010
            listed = await client.list_prompts()
            names = [prompt.name for prompt in listed.prompts]
            check(f"{tag} prompts/list has the six workflows", names == WORKFLOWS, str(names))

            # contract: PROMPTS-011, PROMPTS-012, PROMPTS-051
            got = await client.get_prompt("investigate_feature", {"feature": "offline search", "document": "Notes"})
            text = prompt_text(got)
            check(
                f"{tag} prompts/get renders the arguments as untrusted selection data",
                '"feature": "offline search"' in text and "untrusted selection data" in text,
            )

            # contract: PROMPTS-013, PROMPTS-015, PROMPTS-018, PROMPTS-023
            rendered = await client.call_tool(
                "guided_workflows",
                {
                    "action": "render",
                    "workflow_id": "investigate_feature",
                    "arguments": {"feature": "offline search", "document": "Notes"},
                },
            )
            structured = rendered.structured_content or {}
            check(
                f"{tag} guided_workflows render equals prompts/get",
                not rendered.is_error and structured.get("text") == text,
            )
            check(f"{tag} render returns only the selected workflow", "# Trace a crash" not in text)

            # contract: PROMPTS-014, PROMPTS-022, PROMPTS-026, PROMPTS-027
            listed_tool = await client.call_tool("guided_workflows", {"action": "list"})
            workflows = (listed_tool.structured_content or {}).get("workflows", [])
            check(
                f"{tag} guided_workflows list has ids, descriptions and arguments",
                [w["id"] for w in workflows] == WORKFLOWS
                and all(w["description"] and isinstance(w["arguments"], list) for w in workflows),
            )
            bad_list = await client.call_tool("guided_workflows", {"action": "list", "workflow_id": "trace_crash"})
            check(f"{tag} list refuses a workflow id", bool(bad_list.is_error))

            # contract: PROMPTS-024, PROMPTS-025, PROMPTS-071, PROMPTS-074
            error = await expect_error(client, "prompts/get", {"name": "investigate_feature", "arguments": {"feature": 3}})
            check(
                f"{tag} prompts/get non-string argument is -32602 at its path",
                error is not None and error.code == -32602 and issue_paths(error) == ["/arguments/feature"],
                str(issue_paths(error)),
            )
            error = await expect_error(
                client, "prompts/get", {"name": "investigate_feature", "arguments": {"feature": "x", "colour": "red"}}
            )
            check(
                f"{tag} prompts/get unknown argument is -32602 at its path",
                error is not None and error.code == -32602 and issue_paths(error) == ["/arguments/colour"],
            )
            error = await expect_error(client, "prompts/get", {"name": 5})
            check(f"{tag} prompts/get schema-invalid name is -32602", error is not None and issue_paths(error) == ["/name"])
            error = await expect_error(client, "prompts/get", {"name": "no_such_workflow"})
            check(f"{tag} prompts/get unknown prompt is not found", error is not None and error.code == -32602)
            # contract: PROMPTS-072, PROMPTS-073, PROMPTS-074
            error = await expect_error(client, "prompts/list", {"cursor": 5})
            check(f"{tag} prompts/list schema-invalid cursor is -32602", error is not None and issue_paths(error) == ["/cursor"])
            error = await expect_error(client, "tools/list", {"cursor": []})
            check(f"{tag} tools/list schema-invalid cursor is -32602", error is not None and issue_paths(error) == ["/cursor"])
            retry = await client.list_tools()
            check(f"{tag} the corrected retry succeeds on the same connection", len(retry.tools) == 5)
            # contract: COMPLETION-048
            error = await expect_error(
                client,
                "completion/complete",
                {"ref": {"type": "ref/prompt", "name": "investigate_feature"}, "argument": {"name": "procedure", "value": 3}},
            )
            check(
                f"{tag} completion/complete schema-invalid value is -32602",
                error is not None and issue_paths(error) == ["/argument/value"],
            )

            # contract: COMPLETION-001, COMPLETION-004, COMPLETION-008, COMPLETION-010
            ref = types.PromptReference(type="ref/prompt", name="investigate_feature")
            empty = await client.complete(ref, {"name": "procedure", "value": "0x10"}, {"document": "Notes"})
            check(f"{tag} completion before any capture is empty", empty.completion.values == [])

            # contract: COMPLETION-020
            # A capture over 32 KiB is a summary and a resource link (issue 14; PROMPTS-053 differs,
            # host/crates/self-mcp/CONTRACT-NOTES.md); resources/read returns its exact text.
            inspected = await client.call_tool("inspect_web_network_capture", {"path": str(capture_file)})
            capture = evidence_of(inspected)
            capture_id = capture.get("evidence_id", "")
            check(
                f"{tag} a large capture is a summary and a resource link",
                capture_id.startswith("ev_")
                and capture.get("operation") == "inspect_web_network_capture"
                and capture.get("inline") is False
                and len(inspected.content) == 2
                and isinstance(inspected.content[1], types.ResourceLink)
                and str(inspected.content[1].uri) == f"rea://evidence/{capture_id}",
                str(inspected.content[1:]),
            )
            linked = await client.read_resource(f"rea://evidence/{capture_id}")
            whole = linked.contents[0].text if linked.contents else ""
            cli = subprocess.run(
                [str(rea), "inspect-web-network-capture", str(capture_file), "har"],
                capture_output=True,
                check=False,
            )
            check(
                f"{tag} the linked Evidence is byte for byte the CLI's",
                cli.returncode == 0 and cli.stdout.decode().rstrip("\n") == whole,
            )
            documents = await client.complete(ref, {"name": "document", "value": capture_id[:5].upper()})
            # contract: COMPLETION-027, COMPLETION-028
            check(
                f"{tag} document completion offers the retained capture, case-insensitively",
                documents.completion.values == [capture_id] and documents.completion.total == 1,
                str(documents.completion.values),
            )
            projected = await client.call_tool(
                "inspect_analysis_view",
                {
                    "source": {"kind": "retained-evidence", "evidence_id": capture_id},
                    "view": {"kind": "environment-manifest", "template_rules": []},
                },
            )
            manifest = evidence_of(projected)
            check(
                f"{tag} a retained-evidence source projects the manifest",
                manifest.get("parent_evidence_id") == capture_id,
            )
            tools = await client.complete(ref, {"name": "procedure", "value": "GET /posts"}, {"document": capture_id})
            values = tools.completion.values
            check(
                f"{tag} procedure completion offers the manifest's tool addresses",
                "GET /posts" in values and values == sorted(values) and all(v.startswith("GET /posts") for v in values),
                str(values[:5]),
            )
            names_done = await client.complete(ref, {"name": "procedure", "value": "get_"})
            check(
                f"{tag} procedure completion offers unique tool names",
                len(names_done.completion.values) > 0 and all(v.startswith("get_") for v in names_done.completion.values),
            )
            # contract: COMPLETION-025
            covered = await client.call_tool(
                "inspect_analysis_view",
                {
                    "source": {"kind": "retained-evidence", "evidence_id": capture_id},
                    "view": {"kind": "environment-coverage"},
                },
            )
            coverage = evidence_of(covered)
            withheld = {write["tool"] for write in coverage.get("writes", {}).get("withheld", [])}
            subjects = {unknown["subject"] for unknown in manifest.get("unknowns", [])}
            residual_ref = types.PromptReference(type="ref/prompt", name="audit_residual_unknowns")
            residual = await client.complete(residual_ref, {"name": "unknown", "value": ""})
            check(
                f"{tag} residual-unknown completion offers the coverage view's withheld writes",
                coverage.get("view") == "environment-coverage"
                and coverage.get("parent_evidence_id") == capture_id
                and len(subjects) > 0
                and residual.completion.values == sorted(withheld | subjects),
                f"{residual.completion.values} vs {sorted(withheld)}",
            )
            missing = await client.call_tool(
                "inspect_analysis_view",
                {"source": {"kind": "retained-evidence", "evidence_id": "ev_missing"}, "view": {"kind": "environment-manifest"}},
            )
            check(f"{tag} an unretained Evidence id is refused", bool(missing.is_error))

            # contract: GUIDANCE-001, GUIDANCE-002, GUIDANCE-003
            found = await client.call_tool("search_guidance", {"query": "spacing creates"})
            matches = (found.structured_content or {}).get("matches", [])
            check(f"{tag} search_guidance finds a section", len(matches) > 0)
            if matches:
                section = await client.call_tool("read_guidance_section", {"locator": matches[0]["locator"]})
                text = (section.structured_content or {}).get("text", "")
                check(
                    f"{tag} read_guidance_section returns content_length code units",
                    len(text.encode("utf-16-le")) // 2 == matches[0]["content_length"],
                )

            # contract: PROMPTS-070, PROMPTS-031, PROMPTS-032, PROMPTS-029
            families.write_text("guidance\n")
            if mode == "legacy":
                server.hangup()
                with anyio.move_on_after(15):
                    while "prompts" not in notifications:
                        await anyio.sleep(0.05)
                check(f"{tag} notifications/prompts/list_changed received", "prompts" in notifications, str(notifications))
                check(f"{tag} notifications/tools/list_changed received", "tools" in notifications, str(notifications))
            else:
                received: list[str] = []
                async with client.listen(prompts_list_changed=True, tools_list_changed=True) as subscription:
                    server.hangup()
                    with anyio.move_on_after(15):
                        async for event in subscription:
                            received.append(type(event).__name__)
                            if len(received) >= 2:
                                break
                check(
                    f"{tag} list_changed events received on subscriptions/listen",
                    any("Prompt" in name for name in received) and any("Tool" in name for name in received),
                    str(received),
                )
            narrowed = [prompt.name for prompt in (await client.list_prompts(cache_mode="bypass")).prompts]
            check(f"{tag} the narrowed scope advertises only guidance workflows", narrowed == ["prepare_bounded_process_capture"], str(narrowed))
            tool_names = {tool.name for tool in (await client.list_tools(cache_mode="bypass")).tools}
            check(f"{tag} the narrowed scope lists only guidance tools", tool_names == GUIDANCE_TOOLS, str(tool_names))
            error = await expect_error(client, "prompts/get", {"name": "investigate_feature", "arguments": {"feature": "x"}})
            check(f"{tag} an out-of-scope prompt is not found", error is not None and error.code == -32602)
            out_of_scope = await client.call_tool(
                "guided_workflows", {"action": "render", "workflow_id": "investigate_feature", "arguments": {"feature": "x"}}
            )
            check(f"{tag} guided_workflows will not render an out-of-scope workflow", bool(out_of_scope.is_error))
            error = await expect_error(client, "tools/call", {"name": "inspect_web_network_capture", "arguments": {"path": "/x"}})
            check(f"{tag} an out-of-scope tool cannot be called", error is not None and error.code == -32602)
            scoped = prompt_text(await client.get_prompt("prepare_bounded_process_capture", {"application": "x"}))
            check(
                f"{tag} a scoped prompt names only tools in scope",
                named_tools(scoped) <= GUIDANCE_TOOLS,
                str(named_tools(scoped)),
            )

        if transport == "http":
            status, document = server.stop_http()
            check(
                f"{tag} SIGTERM stops the listener with a stopped document",
                status == 143 and document is not None and document.get("status") == "stopped",
                f"{status} {document}",
            )


async def scope_tests(rea: Path, work: Path) -> None:
    """REA_MCP_TOOL_FAMILIES from the start: a prompt never points at an unavailable tool."""
    # contract: PROMPTS-028, PROMPTS-030, PROMPTS-031, PROMPTS-044
    for families, expected in [
        ("guidance", ["prepare_bounded_process_capture"]),
        ("capture,guidance", ["trace_crash", "prepare_bounded_process_capture"]),
        ("views", ["investigate_feature", "compare_application_versions", "verify_reconstruction", "audit_residual_unknowns"]),
        ("capture,views", WORKFLOWS[:5]),
    ]:
        with Server(rea, "stdio", {"REA_MCP_TOOL_FAMILIES": families}, None, work) as server:
            async with server.client("auto") as client:
                tools = {tool.name for tool in (await client.list_tools()).tools}
                prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
                check(f"scope {families}: advertised workflows", prompts == expected, str(prompts))
                leaks = {}
                for name in prompts:
                    text = prompt_text(await client.get_prompt(name, REQUIRED[name]))
                    outside = named_tools(text) - tools
                    if outside:
                        leaks[name] = sorted(outside)
                check(f"scope {families}: no prompt names an unavailable tool", not leaks, str(leaks))
                if "guided_workflows" in tools:
                    listed = await client.call_tool("guided_workflows", {"action": "list"})
                    ids = [w["id"] for w in (listed.structured_content or {}).get("workflows", [])]
                    check(f"scope {families}: guided_workflows lists the same workflows", ids == expected)


async def completion_volume(rea: Path, captures: Path, work: Path) -> None:
    """More than 100 retained Evidence ids: 100 values, the total and hasMore."""
    # contract: COMPLETION-020, COMPLETION-029, COMPLETION-030, COMPLETION-033, COMPLETION-034, COMPLETION-035
    capture_file = str((captures / "json-server" / "build.har").resolve())
    with Server(rea, "stdio", {}, None, work) as server:
        async with server.client("auto") as client:
            ids: set[str] = set()
            for first in range(57):
                for selection in ([first], [first, (first + 1) % 57]):
                    result = await client.call_tool(
                        "inspect_web_network_capture", {"path": capture_file, "records": selection}
                    )
                    ids.add(evidence_of(result).get("evidence_id", ""))
            ids.discard("")
            check("completion volume: more than 100 distinct Evidence ids retained", len(ids) > 100, str(len(ids)))
            ref = types.PromptReference(type="ref/prompt", name="verify_reconstruction")
            every = await client.complete(ref, {"name": "comparison_evidence", "value": "EV_"})
            expected = sorted(ids)
            check(
                "completion volume: at most 100 values, sorted by code point, with total and hasMore",
                every.completion.values == expected[:100]
                and every.completion.total == len(ids)
                and every.completion.has_more is True,
                f"{len(every.completion.values)} of {every.completion.total}",
            )
            # contract: COMPLETION-037
            last = expected[-1]
            narrowed = await client.complete(ref, {"name": "comparison_evidence", "value": last[:12]})
            check(
                "completion volume: a longer prefix reaches an omitted value",
                last in narrowed.completion.values and narrowed.completion.has_more is False,
            )


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rea", required=True, type=Path)
    parser.add_argument("--captures", required=True, type=Path)
    parser.add_argument("--only", choices=["scenarios", "scope", "completion"], default=None)
    args = parser.parse_args()
    rea = args.rea.resolve()
    with tempfile.TemporaryDirectory(prefix="rea-self-mcp-") as temp:
        work = Path(temp)
        if args.only in (None, "scenarios"):
            for transport in ("stdio", "http"):
                for mode in ("auto", "legacy"):
                    try:
                        await scenario(rea, args.captures, transport, mode, work)
                    except Exception as error:  # a crash is a failure of that scenario, not of the run
                        check(f"{transport}/{mode} scenario ran to the end", False, repr(error))
        if args.only in (None, "scope"):
            await scope_tests(rea, work)
        if args.only in (None, "completion"):
            await completion_volume(rea, args.captures, work)
    failed = sum(1 for ok, _, _ in RESULTS if not ok)
    print(f"{len(RESULTS) - failed} passed, {failed} failed")
    return 1 if failed or not RESULTS else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
