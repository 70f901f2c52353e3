#!/usr/bin/env bash
# A bundle run as a container (issue 17): the json-server capture's bundle is built with the
# binary under test, its Dockerfile is built by Podman and the image run, published on loopback
# only; the suite waits for `/ready`, speaks MCP to it (initialize, tools/list, a read tool),
# checks the server runs as the image's unprivileged user, then stops it and checks the graceful
# stop (the one `stopped` document, exit 143).
#
#   tests/container/run.sh REA_BINARY
#
# Needs Podman, runc and the base image (tests/container/setup.sh, which .ci/run calls). The
# image's own packages (the Dockerfile's `apt-get install python3`) come from Debian's package
# mirror in an install step that builds only the Dockerfile's lines before the bundle is copied
# in; the image itself is then built with `--network=none` from that layer cache, and the
# container has loopback publishing only. Prints one line per check and `N passed, M failed`.
set -uo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
rea="${1:?usage: tests/container/run.sh REA_BINARY}"
shared="${REA_SHARED_DIR:-$root/../shared}"
work="$(mktemp -d "${TMPDIR:-/tmp}/rea-container.XXXXXX")"
tag="localhost/rea-container-test-$$"
name="rea-container-test-$$"
cleanup() {
  podman rm -f "$name" >/dev/null 2>&1
  podman rmi -f "$tag" "$tag-packages" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
passed=0; failed=0
step() { # step STATUS NAME DETAIL
  if [ "$1" -eq 0 ]; then passed=$((passed + 1)); echo "PASS $2 ${3:-}"; else failed=$((failed + 1)); echo "FAIL $2 ${3:-}"; fi
}
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

# This VM's kernel refuses to raise rlimits inside a container and mounts cgroups in hybrid mode,
# which crun refuses: runc runs the containers, with limits no higher than the host's.
runtime=(--runtime runc)
limits=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)

podman --version >/dev/null 2>&1 && command -v runc >/dev/null
step $? tools.podman "$(podman --version 2>&1)"
podman image exists docker.io/library/debian:bookworm-slim
step $? tools.base-image "debian:bookworm-slim (tests/container/setup.sh)"
[ "$failed" -eq 0 ] || finish

"$rea" environment-build "$shared/captures/json-server/build.har" "$work/bundle" --name json-server \
  --quiet >"$work/build.out" 2>"$work/build.err"
step $? bundle.build "$(tail -1 "$work/build.err")"
env_dir="$work/bundle/envs/json-server"
[ -f "$env_dir/Dockerfile" ]; step $? bundle.dockerfile "$env_dir/Dockerfile"
[ "$failed" -eq 0 ] || finish

# Install step: the Dockerfile's lines before the bundle's files are copied (base image, packages,
# user) built with the network, so the image build below finds them in the layer cache (the
# packages image is kept until the end: removing it would remove the cached layers).
sed '/^COPY /,$d' "$env_dir/Dockerfile" >"$work/Dockerfile.packages"
grep -q '^RUN apt-get' "$work/Dockerfile.packages"; step $? install.prefix "$(grep -c . "$work/Dockerfile.packages") lines"
podman "${runtime[@]}" build -q --pull=never --network=host "${limits[@]}" \
  -f "$work/Dockerfile.packages" -t "$tag-packages" "$work" >"$work/packages.log" 2>&1
step $? install.packages "$(tail -1 "$work/packages.log")"

podman "${runtime[@]}" build --pull=never --network=none "${limits[@]}" -t "$tag" "$env_dir" \
  >"$work/image.log" 2>&1
status=$?
grep -q 'Using cache' "$work/image.log"
step $((status + $?)) image.build-offline "$(tail -1 "$work/image.log")"
[ "$failed" -eq 0 ] || finish

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
podman "${runtime[@]}" run -d --name "$name" "${limits[@]}" -p "127.0.0.1:$port:18765" "$tag" \
  >"$work/run.out" 2>&1
step $? container.start "$(tail -1 "$work/run.out")"
ready=1
for _ in $(seq 1 120); do
  if curl -sf -m 2 "http://127.0.0.1:$port/ready" >"$work/ready.json" 2>/dev/null; then ready=0; break; fi
  sleep 0.5
done
grep -q '"ready":true' "$work/ready.json" 2>/dev/null && [ "$ready" -eq 0 ]
step $? container.ready "$(cat "$work/ready.json" 2>/dev/null)"
[ "$failed" -eq 0 ] || { podman logs "$name" 2>&1 | tail -5; finish; }

mcp() { # mcp FILE BODY [SESSION]: one JSON-RPC request to /mcp, its data lines into FILE
  local headers=(-H 'content-type: application/json' -H 'accept: application/json, text/event-stream'
    -H 'mcp-protocol-version: 2025-06-18')
  [ -n "${3:-}" ] && headers+=(-H "mcp-session-id: $3")
  curl -s -m 10 -D "$1.headers" "${headers[@]}" -d "$2" "http://127.0.0.1:$port/mcp" >"$1"
}
mcp "$work/init" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"container-test","version":"1"}}}'
session="$(grep -i '^mcp-session-id:' "$work/init.headers" | cut -d' ' -f2 | tr -d '\r')"
grep -q '"serverInfo":{"name":"json-server"' "$work/init"
step $? mcp.initialize "session ${session:-none}"
mcp "$work/initialized" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$session"
mcp "$work/tools" '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' "$session"
tools="$(grep -o '"name":"[a-z_]*"' "$work/tools" | wc -l)"
[ "$tools" -gt 0 ]; step $? mcp.tools-list "$tools tools"
read_tool="$(grep -o '"name":"get_[a-z_]*"' "$work/tools" | head -1 | cut -d'"' -f4)"
mcp "$work/call" "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"$read_tool\",\"arguments\":{}}}" "$session"
grep -q '"result"' "$work/call" && grep -qF '\"status\":200' "$work/call" && ! grep -q '"isError":true' "$work/call"
step $? mcp.tools-call "$read_tool: status 200, $(grep -oF '\"id\":' "$work/call" | wc -l) ids in the answer"

[ "$(podman exec "$name" id -un 2>&1)" = rea ]; step $? container.unprivileged-user "$(podman exec "$name" id 2>&1)"

podman stop -t 10 "$name" >/dev/null 2>&1
code="$(podman inspect "$name" --format '{{.State.ExitCode}}')"
[ "$code" = 143 ]; step $? container.stop-exit "$code"
podman logs "$name" >"$work/logs" 2>&1
[ "$(grep -c '"status": *"stopped"' "$work/logs")" = 1 ]
step $? container.stopped-document "$(grep -c '"status": *"stopped"' "$work/logs") stopped document"

finish
