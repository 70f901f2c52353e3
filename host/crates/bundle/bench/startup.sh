#!/usr/bin/env bash
# Startup and memory benchmark of bundles (issue 17): for each shared capture's build.har and synthetic captures of
# BENCH_SIZES MiB (default 1 4 8 16 32), `environment-build` (wall time, peak RSS), then the bundle's server deriving
# the state (no --state, as every server did before precomputed state) and reading the bundle's state.json: median
# time to the first 200 from /ready over BENCH_RUNS fresh processes (default 3), RSS at ready and peak RSS, with the
# ratios (derive/precomputed time; peak RSS over the capture size for build and serve).
#
#   host/crates/bundle/bench/startup.sh [REA_BINARY]     # default: builds and uses the release binary
#
# Nothing leaves the machine; servers bind 127.0.0.1.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
shared="${REA_SHARED_DIR:-$root/../shared}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

rea="${1:-}"
if [ -z "$rea" ]; then
  (cd "$root" && cargo build -q --release -p rea)
  rea="${CARGO_TARGET_DIR:-$root/target}/release/rea"
fi

captures=("$shared"/captures/*/build.har)
for size in ${BENCH_SIZES:-1 4 8 16 32}; do
  python3 "$here/synthetic_har.py" "$size" "$work/synthetic-${size}mib.har"
  captures+=("$work/synthetic-${size}mib.har")
done
echo "rea $("$rea" --version 2>/dev/null | head -1), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), ${BENCH_RUNS:-3} runs per server"
python3 "$here/startup.py" "$rea" "${captures[@]}" --runs "${BENCH_RUNS:-3}"
