#!/usr/bin/env bash
# The test command (README.md): formatting, lints, every Rust test of the workspace, then the
# suites that drive real clients against the built binary: the agentenv conformance checker and
# framework tools, the official MCP Python SDK, and the MCP Inspector; then the fidelity run
# (environment-compare on every corpus app, checked against tests/fidelity/floors.toml), and the
# startup and memory ceilings of a 4 MiB capture's bundle (tests/bench/run.sh) and deploy/kubernetes/
# validated offline (tests/deploy/run.sh), a bundle's image built and run by Podman
# (tests/container/run.sh), a fleet of 100 environments (tests/fleet/run.sh), and
# the fuzz targets and the soak of issue 15 (tests/security/run.sh). The
# conformance kit (../shared/kit/conformance, read-only) is copied to a temporary folder and set
# up once there with its pinned packages; set REA_CONFORMANCE_KIT to reuse an already set-up copy.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked

shared="${REA_SHARED_DIR:-$(pwd)/../shared}"
if [ -z "${REA_CONFORMANCE_KIT:-}" ]; then
  kit_parent="$(mktemp -d "${TMPDIR:-/tmp}/rea-kit.XXXXXX")"
  trap 'rm -rf "$kit_parent"' EXIT
  cp -r "$shared/kit/conformance" "$kit_parent/kit"
  (cd "$kit_parent/kit" && ./setup.sh)
  export REA_CONFORMANCE_KIT="$kit_parent/kit"
fi
export REA_SELF_MCP_VENV="${REA_SELF_MCP_VENV:-$REA_CONFORMANCE_KIT/.venv}"

cargo build --locked -p rea --bin rea
rea="$(pwd)/target/debug/rea"
if [ -n "${CARGO_TARGET_DIR:-}" ]; then rea="$CARGO_TARGET_DIR/debug/rea"; fi

status=0
for suite in tests/conformance/run.sh tests/bundle/run.sh; do
  echo "== $suite"
  "$suite" "$rea" || status=1
done
echo "== tests/self_mcp/run.sh"
tests/self_mcp/run.sh || status=1
echo "== tests/deploy/run.sh"
tests/deploy/run.sh "$rea" || status=1
echo "== tests/container/run.sh"
tests/container/run.sh "$rea" || status=1
echo "== tests/bench/run.sh"
tests/bench/run.sh "$rea" || status=1
echo "== tests/fleet/run.sh"
tests/fleet/run.sh "$rea" || status=1
echo "== tests/fidelity/run.sh"
tests/fidelity/run.sh || status=1
echo "== tests/security/run.sh"
tests/security/run.sh || status=1
exit "$status"
