#!/usr/bin/env bash
# Peak memory per capture size (issue 17 item 2: at most 3x the capture size for build and serve):
# for synthetic captures of BENCH_SIZES MiB (default 1 4 8 16 32; synthetic_har.py), the peak RSS
# of `environment-build` and of the bundle's server reading its precomputed state (state.json) to
# its first 200 from /ready, each over the capture's size ("build x", "serve x" columns), and what
# each held at its highest sample, anonymous / file-backed / shared (startup.py --split), by
# startup.py --precomputed-only (the server deriving the state is startup.sh's). The first line
# gives the floor: the peak RSS of `rea --version` (startup alone). The bundles carry a
# small stand-in binary; REA itself builds and serves.
#
#   host/crates/bundle/bench/memory.sh [REA_BINARY]     # default: builds and uses the release binary
#
# Nothing leaves the machine; servers bind 127.0.0.1.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/rea-memory.XXXXXX")"
trap 'rm -rf "$work"' EXIT

rea="${1:-}"
if [ -z "$rea" ]; then
  (cd "$root" && cargo build -q --release -p rea)
  rea="${CARGO_TARGET_DIR:-$root/target}/release/rea"
fi
printf '#!/bin/sh\necho stand-in rea\n' >"$work/stand-in"
chmod +x "$work/stand-in"
captures=()
for size in ${BENCH_SIZES:-1 4 8 16 32}; do
  python3 "$here/synthetic_har.py" "$size" "$work/synthetic-${size}mib.har"
  captures+=("$work/synthetic-${size}mib.har")
done
echo "rea $("$rea" --version 2>/dev/null | head -1), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), ${BENCH_RUNS:-1} runs per server"
# GNU time, not Python: a child's peak RSS includes its launcher's, held until it execs.
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f "rea --version: peak RSS %M KiB" "$rea" --version >/dev/null
fi
python3 "$here/startup.py" "$rea" "${captures[@]}" --runs "${BENCH_RUNS:-1}" \
  --binary "$work/stand-in" --precomputed-only --split
