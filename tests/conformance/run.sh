#!/usr/bin/env bash
# Conformance of `rea environment-serve --replay-only` with real clients, for every shared capture.
#
#   tests/conformance/run.sh [REA_BINARY]
#
# For each ../shared/captures/<name>/build.har: inspect it (`rea inspect-web-network-capture`),
# project the manifest (`rea inspect-analysis-view`), serve it on 127.0.0.1 with an ephemeral port,
# and run, from a copy of ../shared/kit/conformance (set up with its pinned packages):
#   - check_env.py BASE --call-all --expect-name NAME: the card through the agentenv framework's
#     own client and model, MCP with the official Python SDK 2.3.0 (an initialize session at
#     2025-11-25 and the default Client, which probes server/discover at 2026-07-28), every tool
#     called, provenance on every result, the replay data plane and the JSON-RPC rules; then
#     check_env.py BASE --tool T for a tool with a required argument (also called without it);
#   - run_verify.py: a verify.py the way agent-env runs it, on the framework's mcp 1.30 client;
#   - inspect_tools.sh: tools/list through the MCP Inspector (TypeScript SDK 2.x) with no
#     schema-lint finding (also for the state catalog, served by `rea serve`); a kit without the
#     Inspector (set up without npm) fails that check; the state catalogs of the shared captures
#     and of every corpus app (tests/corpus/apps) also pass the JSON Schema 2020-12 metaschema;
# then stops the server with SIGTERM and checks exit 143 and the stopped document.
#
# Environment:
#   REA_SHARED_DIR        the shared folder (default: <workspace>/../shared)
#   REA_CONFORMANCE_KIT   a folder holding an already set-up copy of the kit, reused across runs
#                         (default: a fresh copy in a temporary folder, set up with ./setup.sh)
#   CARGO_TARGET_DIR      where `cargo build -p rea` puts the binary when REA_BINARY is not given
# Prints one line per check and a summary; exits 1 when any check failed. Nothing leaves loopback
# except the kit's own pip/npm installs during setup.
set -uo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
# shellcheck source=../lib/suite.sh
source "$root/tests/lib/suite.sh"

# serve NAME MANIFEST CAPTURE [ENV=VALUE ...]: starts the server, sets $server_pid and $base.
serve() {
  local label="$1" manifest="$2" capture="$3"; shift 3
  env "$@" "$rea" environment-serve "$manifest" --evidence "$capture" --replay-only --port 0 \
    >"$work/$label.out" 2>"$work/$label.err" &
  server_pid=$!
  base=""
  for _ in $(seq 150); do
    url="$(sed -n 's/.*"msg":"MCP transport listening".*"url":"\([^"]*\)".*/\1/p' "$work/$label.err" | head -1)"
    if [ -n "$url" ]; then base="${url%/mcp}"; return 0; fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
  done
  cat "$work/$label.err"
  return 1
}

# stop LABEL: SIGTERM, then exit 143 and one stopped document on stdout.
stop() {
  local label="$1"
  kill -TERM "$server_pid"; wait "$server_pid"; local rc=$?; server_pid=""
  local status
  status="$("$kit/.venv/bin/python" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["status"], d["state"]["reason"])' "$work/$label.out" 2>&1)"
  [ "$rc" -eq 143 ] && [ "$status" = "stopped replay-only" ]
  step $? "$label.stopped" "exit=$rc document=$status"
}

# state_inspector LABEL HAR: serves HAR from the state (`rea serve`) and lists its tools through the
# MCP Inspector (no schema-lint finding, as many tools as the card) and checks every input schema
# against the JSON Schema 2020-12 metaschema (argument-name families are `patternProperties`).
state_inspector() {
  local label="$1" har="$2" state_url="" rc findings
  if [ ! -x "$kit/node_modules/.bin/mcp-inspector" ]; then
    step 1 "$label.state-inspector" "the MCP Inspector is not installed in $kit (npm missing at setup)"
    return
  fi
  "$rea" serve "$har" --port 0 --name "state-${label//_/-}" >"$work/$label.state.out" 2>"$work/$label.state.err" &
  server_pid=$!
  for _ in $(seq 150); do
    state_url="$(sed -n 's/.*"msg":"MCP transport listening".*"url":"\([^"]*\)".*/\1/p' "$work/$label.state.err" | head -1)"
    [ -n "$state_url" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
  done
  (cd "$kit" && ./inspect_tools.sh "$state_url") >"$work/$label.state-inspector.json" 2>"$work/$label.state-inspector.err"
  rc=$?
  findings="$(grep -E 'Schema portability|warnings? across' "$work/$label.state-inspector.err" | tail -1)"
  [ -n "$state_url" ] && [ "$rc" -eq 0 ] && [ -z "$findings" ]
  step $? "$label.state-inspector" "exit=$rc ${findings:-0 schema warnings}"
  "$kit/.venv/bin/python" - "$work/$label.state-inspector.json" "${state_url%/mcp}" >"$work/$label.schemas.txt" 2>&1 <<'PY'
import json, sys, urllib.request
from jsonschema import Draft202012Validator
listed = json.load(open(sys.argv[1]))["tools"]
card = json.load(urllib.request.urlopen(sys.argv[2] + "/.well-known/agent-env.json"))
assert len(listed) == len(card["capabilities"]["tools"]), f"{len(listed)} listed, card {len(card['capabilities']['tools'])}"
families = 0
for tool in listed:
    Draft202012Validator.check_schema(tool["inputSchema"])
    families += "patternProperties" in tool["inputSchema"]
print(f"{len(listed)} schemas valid, {families} with argument-name families")
PY
  step $? "$label.state-schemas" "$(tail -1 "$work/$label.schemas.txt")"
  kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null; server_pid=""
}

captures=0
for dir in "$shared"/captures/*/; do
  har="$dir/build.har"
  [ -f "$har" ] || continue
  captures=$((captures + 1))
  name="$(basename "$dir")"
  capture="$work/$name.capture.json"; manifest="$work/$name.manifest.json"
  "$rea" inspect-web-network-capture "$har" har >"$capture" 2>"$work/$name.inspect.err"
  step $? "$name.inspect" "$(head -c 300 "$work/$name.inspect.err")"
  printf '{"source": {"kind": "evidence-file", "path": "%s"}, "view": {"kind": "environment-manifest", "template_rules": []}}\n' \
    "$name.capture.json" >"$work/$name.view.json"
  "$rea" inspect-analysis-view "$work/$name.view.json" >"$manifest" 2>"$work/$name.view.err"
  step $? "$name.manifest" "$(head -c 300 "$work/$name.view.err")"

  env_name="conformance-$name"
  if ! serve "$name" "$manifest" "$capture" "ENVIRONMENT_NAME=$env_name"; then
    step 1 "$name.serve" "no listening line"; continue
  fi
  step 0 "$name.serve" "$base"

  "$kit/.venv/bin/python" "$kit/check_env.py" "$base" --call-all --expect-name "$env_name" >"$work/$name.check.txt" 2>&1
  rc=$?
  grep '^FAIL' "$work/$name.check.txt" | sed "s/^/    $name: /"
  step "$rc" "$name.check_env" "$(tail -1 "$work/$name.check.txt")"

  # Again on a tool with a required argument, so the checker also calls it without its arguments
  # (an argument error must be a tool error carrying the provenance).
  required_tool="$("$kit/.venv/bin/python" - "$base" <<'PY'
import json, sys, urllib.request
card = json.load(urllib.request.urlopen(sys.argv[1] + "/.well-known/agent-env.json"))
print(next((t["name"] for t in card["capabilities"]["tools"] if t["inputSchema"].get("required")), ""))
PY
)"
  if [ -n "$required_tool" ]; then
    "$kit/.venv/bin/python" "$kit/check_env.py" "$base" --tool "$required_tool" >"$work/$name.check-args.txt" 2>&1
    rc=$?
    grep '^FAIL' "$work/$name.check-args.txt" | sed "s/^/    $name: /"
    grep -q '^PASS mcp.call-tool-bad-args' "$work/$name.check-args.txt" || rc=1
    step "$rc" "$name.check_env-arguments" "$required_tool: $(tail -1 "$work/$name.check-args.txt")"
  fi

  # A verify.py as agent-env runs it (framework venv, mcp 1.x): the first tool needing no argument.
  tool="$("$kit/.venv/bin/python" - "$base" <<'EOF'
import json, sys, urllib.request
card = json.load(urllib.request.urlopen(sys.argv[1] + "/.well-known/agent-env.json"))
tools = card["capabilities"]["tools"]
free = [t["name"] for t in tools if not t["inputSchema"].get("required")]
print(free[0] if free else tools[0]["name"])
EOF
)"
  sed -e "s/^TOOL = .*/TOOL = \"$tool\"/" -e 's/^ARGS = .*/ARGS = {}/' "$kit/example_verify.py" >"$work/verify_$name.py"
  (cd "$kit" && .venv-framework/bin/python run_verify.py "$work/verify_$name.py" "$base/mcp") >"$work/$name.verify.txt" 2>&1
  step $? "$name.verify" "$(tail -1 "$work/$name.verify.txt")"

  if [ -x "$kit/node_modules/.bin/mcp-inspector" ]; then
    (cd "$kit" && ./inspect_tools.sh "$base/mcp") >"$work/$name.inspector.json" 2>"$work/$name.inspector.err"
    rc=$?
    listed="$("$kit/.venv/bin/python" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["tools"]))' "$work/$name.inspector.json" 2>/dev/null)"
    carded="$("$kit/.venv/bin/python" -c 'import json,sys,urllib.request; print(len(json.load(urllib.request.urlopen(sys.argv[1]))["capabilities"]["tools"]))' "$base/.well-known/agent-env.json" 2>/dev/null)"
    # The Inspector lints every input schema (type unions, untyped or remote schemas); issue 14
    # asks for none of its warnings.
    findings="$(grep -E 'Schema portability|warnings? across' "$work/$name.inspector.err" | tail -1)"
    [ "$rc" -eq 0 ] && [ -n "$listed" ] && [ "$listed" = "$carded" ] && [ -z "$findings" ]
    step $? "$name.inspector" "exit=$rc tools=$listed card=$carded ${findings:-0 schema warnings}"
  else
    step 1 "$name.inspector" "the MCP Inspector is not installed in $kit (npm missing at setup)"
  fi

  stop "$name"

  # Served from the state (`rea serve`): the state catalog's schemas (typed write bodies) pass the
  # Inspector's lint too.
  state_inspector "$name" "$har"
done
require_cases "$captures" "shared captures with a build.har in $shared/captures"

# The corpus apps' state catalogs (tests/corpus/apps/*/build.har): learned query grammars give
# richer schemas there (argument-name families, typed operators) than on the shared captures.
corpus=0
for har in "$root"/tests/corpus/apps/*/build.har; do
  [ -f "$har" ] || continue
  corpus=$((corpus + 1))
  state_inspector "corpus-$(basename "$(dirname "$har")")" "$har"
done
require_cases "$corpus" "corpus apps with a build.har in $root/tests/corpus/apps"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
