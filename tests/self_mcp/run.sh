#!/usr/bin/env bash
# Protocol tests of `rea mcp` with the official MCP Python SDK (mcp 2.3.0, pinned by the
# conformance kit's requirements.lock): stdio and Streamable HTTP, the SDK's default 2026-07-28
# client and the initialize-based handshake, tool-family scopes, and completion past 100 values.
#
# The virtual environment is made in a temporary folder and removed afterwards; set
# REA_SELF_MCP_VENV to an existing folder to reuse one between local runs.
set -euo pipefail
cd "$(dirname "$0")/../.."

shared="${REA_SHARED_DIR:-../shared}"
lock="$shared/kit/conformance/requirements.lock"
python="${PYTHON:-python3}"

cargo build --locked -p rea --bin rea
target_dir="$(cargo metadata --format-version 1 --no-deps | "$python" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
rea="$target_dir/debug/rea"

venv="${REA_SELF_MCP_VENV:-}"
cleanup=""
if [ -z "$venv" ]; then
  venv="$(mktemp -d "${TMPDIR:-/tmp}/rea-self-mcp-venv.XXXXXX")"
  cleanup="$venv"
fi
trap '[ -n "$cleanup" ] && rm -rf "$cleanup"' EXIT

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import importlib.metadata as m; assert m.version("mcp") == "2.3.0"' 2>/dev/null; then
  if [ -f "$lock" ]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$lock"
  else
    "$venv/bin/pip" install --quiet --disable-pip-version-check "mcp==2.3.0"
  fi
fi

"$venv/bin/python" tests/self_mcp/protocol_test.py --rea "$rea" --captures "$shared/captures"
